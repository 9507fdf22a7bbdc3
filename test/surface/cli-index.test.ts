import { describe, expect, it } from "vitest";
import { absentText } from "../../plugin/surface/cli-index.ts";

describe("absentText", () => {
  it("names the identifiers no snapshot mentions, the closest that exist, and whether near matches follow", () => {
    expect(absentText("ERR_X", ["ERR_X"], [{ word: "ERR_X", closest: ["ERR_Y"] }], true)).toBe(
      "No snapshot mentions ERR_X. Did you mean ERR_Y? Closest matches (fuzzy):",
    );
    expect(absentText("billing export", [], [], false)).toBe("No snapshot mentions billing export.");
  });
});
