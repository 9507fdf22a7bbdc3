import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clip } from "../../plugin/capture/text.ts";

describe("clip", () => {
  it("cuts with an ellipsis and never splits a surrogate pair", () => {
    expect(clip("abcdef", 6)).toBe("abcdef");
    expect(clip("abcdef", 4)).toBe("abc…");
    expect(clip("ab😀cd", 4)).toBe("ab…");
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.integer({ min: 1, max: 50 }), (s, max) => {
        const out = clip(s, max);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(out)).toBe(false);
      }),
    );
  });
});
