import { describe, expect, it } from "vitest";
import { Claim } from "../../plugin/search/claim-schema.ts";

describe("Claim", () => {
  const claim = {
    v: 1,
    at: "2026-11-20T10:00:00Z",
    file: "memory/2026-11-20.md",
    line: 3,
    id: "2026-11-20-01",
    session: "agent:main:main",
    agent: null,
    trigger: "flush",
  };

  it("accepts a claim of a flush block", () => {
    expect(Claim.safeParse(claim).success).toBe(true);
  });

  it("refuses another version, trigger or a line that is not a positive integer", () => {
    for (const bad of [{ v: 2 }, { trigger: "manual" }, { line: 0 }, { session: undefined }])
      expect(Claim.safeParse({ ...claim, ...bad }).success).toBe(false);
  });
});
