import { describe, expect, it } from "vitest";
import { REDACTION_KINDS } from "../../plugin/snapshot/redact-kinds.ts";

describe("REDACTION_KINDS", () => {
  it("names each kind once, in lower-case words joined by hyphens (the marker's text)", () => {
    expect(new Set(REDACTION_KINDS).size).toBe(REDACTION_KINDS.length);
    for (const kind of REDACTION_KINDS) expect(kind).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });
});
