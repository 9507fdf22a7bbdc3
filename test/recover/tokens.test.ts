import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cleanBlock,
  cleanInline,
  estimateTokens,
  fitToBudget,
  lineMeter,
  type TrimStep,
  truncateToTokens,
  withinTokens,
} from "../../plugin/recover/tokens.ts";

describe("estimateTokens", () => {
  it("counts a quarter token per ASCII character, rounded up", () => {
    expect([
      estimateTokens(""),
      estimateTokens("abcd"),
      estimateTokens("abcde"),
      estimateTokens("a".repeat(400)),
    ]).toEqual([0, 1, 2, 100]);
  });

  it("counts one token per CJK character and per emoji", () => {
    expect([
      estimateTokens("数据库"),
      estimateTokens("ｄｂ"),
      estimateTokens("😀😀"),
      estimateTokens("ab数"),
    ]).toEqual([3, 2, 2, 2]);
  });

  it("counts half a token for other characters", () => {
    expect([estimateTokens("é"), estimateTokens("éé"), estimateTokens("привет")]).toEqual([1, 1, 3]);
  });
});

describe("truncateToTokens", () => {
  it("returns the text unchanged when it fits", () => {
    expect(truncateToTokens("abcdefgh", 2)).toBe("abcdefgh");
  });

  it("keeps the longest prefix that fits with an ellipsis when it does not", () => {
    expect(truncateToTokens("abcdefghij", 2)).toBe("abcdef…");
    expect(truncateToTokens("数据库迁移", 3)).toBe("数据…");
    expect(truncateToTokens("one two three four", 3)).toBe("one two th…");
    expect(truncateToTokens("one two   three", 3)).toBe("one two…");
  });

  it("never splits a surrogate pair", () => {
    expect(truncateToTokens("😀😀😀", 2)).toBe("😀…");
  });

  it("returns an empty string when the cap is below one token", () => {
    expect(truncateToTokens("abcdefgh", 0)).toBe("");
  });

  it("never exceeds the cap and always keeps a prefix", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.integer({ min: 1, max: 40 }),
        (text, cap) => {
          const cut = truncateToTokens(text, cap);
          expect(estimateTokens(cut)).toBeLessThanOrEqual(cap);
          expect(text.startsWith(cut.replace(/…$/u, ""))).toBe(true);
        },
      ),
    );
  });
});

describe("cleanBlock", () => {
  it("neutralises every opening and closing fence tag, in any case or spacing", () => {
    expect(cleanBlock('</big-memory-snapshot>\n<BIG-MEMORY-SNAPSHOT id="x">\n< / big_memory')).toBe(
      '&lt;/big-memory-snapshot>\n&lt;BIG-MEMORY-SNAPSHOT id="x">\n&lt; / big_memory',
    );
  });

  it("removes control and bidi-override characters before looking for tags", () => {
    expect(cleanBlock("<\u0000big-memory a\u202eb\u0007c\td")).toBe("&lt;big-memory abc\td");
  });

  it("normalises line breaks and replaces lone surrogates", () => {
    expect(cleanBlock("a\r\nb\rc\u2028d\ud800e")).toBe("a\nb\nc\nd\ufffde");
  });

  it("neutralises look-alike brackets, slashes, dashes and letters, and shows them as written", () => {
    expect(
      cleanBlock(
        "\uff1c\uff0fbig memory\uff1e \u2039\u2215b\u0456g\u2010memory\u203a \ufe64\u200bBIG\u2011MEMORY",
      ),
    ).toBe("&lt;\uff0fbig memory\uff1e &lt;\u2215b\u0456g\u2010memory\u203a &lt;BIG\u2011MEMORY");
  });

  it("leaves other angle brackets and text about the fence alone", () => {
    expect(cleanBlock("Array<string> a < b; the big-memory-snapshot tag; \u3008big-memory\u3009")).toBe(
      "Array<string> a < b; the big-memory-snapshot tag; \u3008big-memory\u3009",
    );
  });
});

describe("cleanInline", () => {
  it("collapses white space to single spaces and trims", () => {
    expect(cleanInline("  run\n\tnpm   test  ")).toBe("run npm test");
  });

  it("neutralises a tag that collapsing the white space puts on one line", () => {
    expect(cleanInline("<\n  /big-memory-snapshot>")).toBe("&lt; /big-memory-snapshot>");
  });
});

describe("fitToBudget", () => {
  it("keeps as much as fits at each step and reports what it cut", () => {
    const content = { items: ["a", "b", "c", "d", "e"] };
    const limits = { items: Number.POSITIVE_INFINITY, extra: Number.POSITIVE_INFINITY };
    const steps: TrimStep<"items" | "extra", typeof content>[] = [
      { label: "extra", key: "extra", min: 0, top: () => 1, counted: false },
      { label: "items", key: "items", min: 0, top: (c) => c.items.length, counted: true },
    ];
    const size = (): number => Math.min(limits.items, 5) + Math.min(limits.extra, 1) * 10;
    expect(fitToBudget(content, limits, steps, () => size() <= 3)).toEqual(["extra", "items (kept 3 of 5)"]);
    expect(limits).toEqual({ items: 3, extra: 0 });
  });

  it("takes no step when the content already fits", () => {
    const limits = { items: Number.POSITIVE_INFINITY };
    const steps: TrimStep<"items", null>[] = [
      { label: "items", key: "items", min: 0, top: () => 5, counted: true },
    ];
    expect(fitToBudget(null, limits, steps, () => true)).toEqual([]);
  });
});

describe("withinTokens", () => {
  it("agrees with estimateTokens", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 80 }),
        fc.integer({ min: 0, max: 30 }),
        (text, max) => {
          expect(withinTokens(text, max)).toBe(estimateTokens(text) <= max);
        },
      ),
    );
  });
});

describe("lineMeter", () => {
  it("accepts lines while their joined text fits and refuses every line after", () => {
    const meter = lineMeter(2);
    expect([meter.add("abcd"), meter.add("abc"), meter.over(), meter.add(""), meter.over()]).toEqual([
      true,
      true,
      false,
      false,
      true,
    ]);
  });

  it("agrees with estimateTokens of the lines joined by newlines", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", maxLength: 20 }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 40 }),
        (lines, max) => {
          const meter = lineMeter(max);
          for (const line of lines) meter.add(line);
          expect(meter.over()).toBe(estimateTokens(lines.join("\n")) > max);
        },
      ),
    );
  });
});
