import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRules, findSecrets, type Rule, rule, secret } from "../../plugin/snapshot/redact-engine.ts";
import {
  alternativesOf,
  anyOf,
  classCount,
  fewerThanThreeCharacters,
  hasRunOfEight,
  isAnchored,
  isPrintableAscii,
  isSpace,
  isWordsAndNumbers,
  joinPatterns,
  numbered,
} from "../../plugin/snapshot/redact-pattern.ts";

/** The secrets `rules` find in `text`, as `[kind, text]`. */
function found(rules: readonly Rule[], text: string): [string, string][] {
  return findSecrets(text, compileRules(rules)).map((f) => [f.kind, text.slice(f.start, f.end)]);
}

describe("numbered", () => {
  it("numbers named groups among plain ones and rewrites their references", () => {
    const { source, group } = numbered(String.raw`(?<a>x)(y)(?:z)(?<b>["'])w\k<b>\k<a>`);
    expect(group).toEqual({ a: 1, b: 3 });
    expect(source).toBe(String.raw`(x)(y)(?:z)(["'])w(?:\3)(?:\1)`);
    const m = new RegExp(source).exec(`xyz'w'x`);
    expect([m?.[1], m?.[3]]).toEqual(["x", "'"]);
  });

  it("leaves lookbehinds, escaped parentheses and character classes as they are", () => {
    const text = String.raw`(?<![a-z])\((?<n>[(?<]+)\)(?<=\))`;
    const { source, group } = numbered(text);
    expect(source).toBe(String.raw`(?<![a-z])\(([(?<]+)\)(?<=\))`);
    expect(group).toEqual({ n: 1 });
    expect(new RegExp(source).exec("a(< (<?()")?.[1]).toBe("<?(");
  });

  it("gives a rule compiled from it the same findings, located by number", () => {
    const named = String.raw`key=(?<q>["'])(?<secret>[a-z]{4,})\k<q>`;
    const { source, group } = numbered(named);
    const byNumber = rule("secret-assignment", source, {
      triggers: ["key="],
      pick: (_m, at) => {
        const range = at(group.secret ?? 0);
        return range === undefined ? undefined : { start: range[0], end: range[1] };
      },
    });
    const byName = rule("secret-assignment", named, { triggers: ["key="], pick: secret(() => true) });
    const text = `a key="abcdef" b key='xyzw" c key='qwerty'`;
    expect(found([byNumber], text)).toEqual(found([byName], text));
    expect(found([byNumber], text)).toEqual([
      ["secret-assignment", "abcdef"],
      ["secret-assignment", "qwerty"],
    ]);
  });
});

describe("joinPatterns", () => {
  it("matches where any of the patterns does, and compiles without modifier groups (Node 22)", () => {
    const joined = joinPatterns([/^abc$/, /^x+$/, /\d{3}/], "");
    for (const [value, expected] of [
      ["abc", true],
      ["ABC", false],
      ["xxx", true],
      ["XXX", false],
      ["a123", true],
      ["abcd", false],
      ["", false],
    ] as const)
      expect(joined.test(value), value).toBe(expected);
    expect(joined.source).not.toMatch(/\(\?[imsx-]+:/);
  });

  it("tries anchored patterns at the start only under a ^ prefix, with the same answers", () => {
    const patterns = [/^[a-z]+$/, /^(?:ab|cd)\d$/, /^x|^y/];
    const joined = joinPatterns(patterns, "^");
    for (const value of ["abc", "AB1", "cd2", "x!", "yz", "1abc", " x", "ab12"])
      expect(joined.test(value), value).toBe(patterns.some((re) => re.test(value)));
  });

  it("matches nothing when given no pattern", () => {
    expect(joinPatterns([], "").test("anything")).toBe(false);
    expect(joinPatterns([], "^").test("")).toBe(false);
  });

  it("refuses a pattern whose flags or backreferences it cannot keep", () => {
    expect(() => joinPatterns([/a/u], "")).toThrow("big-memory: pattern /a/u cannot be joined");
    expect(() => joinPatterns([/a/i], "")).toThrow("big-memory: pattern /a/i cannot be joined");
    expect(() => joinPatterns([/a/g], "")).toThrow("big-memory: pattern /a/g cannot be joined");
    expect(() => joinPatterns([/(a)\1/], "")).toThrow("big-memory: pattern /(a)\\1/ cannot be joined");
    expect(() => joinPatterns([/(?<q>a)\k<q>/], "")).toThrow("cannot be joined");
  });
});

describe("alternativesOf and isAnchored", () => {
  it("splits at the top-level | only, not inside groups, classes or after a backslash", () => {
    expect(alternativesOf(String.raw`^a(?:b|c)|[|]d|\|e|^f`)).toEqual([
      "^a(?:b|c)",
      "[|]d",
      String.raw`\|e`,
      "^f",
    ]);
    expect(alternativesOf("abc")).toEqual(["abc"]);
  });

  it("is anchored when every alternative starts with ^ and the m flag is off", () => {
    expect(isAnchored(/^a|^b/)).toBe(true);
    expect(isAnchored(/^(?:a|b)$/)).toBe(true);
    expect(isAnchored(/^a|b/)).toBe(false);
    expect(isAnchored(/(?:^a)/)).toBe(false);
    expect(isAnchored(/^a/m)).toBe(false);
  });
});

describe("hasRunOfEight", () => {
  it("says what /(.)\\1{7}/ says", () => {
    for (const text of [
      "",
      "aaaaaaa",
      "aaaaaaaa",
      "xaaaaaaaay",
      "\n\n\n\n\n\n\n\n",
      "\u2028".repeat(9),
      "ab".repeat(9),
    ])
      expect(hasRunOfEight(text), JSON.stringify(text)).toBe(/(.)\1{7}/.test(text));
    const unit = fc.constantFrom("a", "b", "\n", "\r", "\u2028", "\u2029", "é", "\ud800", "\udc00");
    // Runs of each unit, so that runs of seven, eight and nine are common.
    const run = fc.tuple(unit, fc.integer({ min: 1, max: 9 })).map(([u, n]) => u.repeat(n));
    fc.assert(
      fc.property(fc.array(run, { maxLength: 8 }), (runs) => {
        const text = runs.join("");
        expect(hasRunOfEight(text)).toBe(/(.)\1{7}/.test(text));
      }),
      { numRuns: 5000 },
    );
  });
});

describe("character tests", () => {
  // Letters of both cases, digits, every joiner, the ends of the printable range, white space, non-ASCII
  // letters and digits, a lone surrogate.
  const unit = fc.constantFrom(..."azAZ09-_.:/@+!~ \t\n\u00a0\u00e9\u0660\uff21\ud800\x7f\x20\x21");
  const texts = fc.array(unit, { maxLength: 12 }).map((units) => units.join(""));

  it("isSpace says what \\s says", () => {
    const differ: number[] = [];
    for (let c = 0; c < 65536; c++) if (isSpace(c) !== /\s/.test(String.fromCharCode(c))) differ.push(c);
    expect(differ).toEqual([]);
  });

  it("classCount counts what [a-z], [A-Z] and \\d find", () => {
    expect(["", "abc", "aBc", "aB1", "---", "\u00e9\uff21\u0660"].map(classCount)).toEqual([
      0, 1, 2, 3, 0, 0,
    ]);
    fc.assert(
      fc.property(texts, (text) => {
        const classes = [/[a-z]/, /[A-Z]/, /\d/].filter((re) => re.test(text)).length;
        expect(classCount(text)).toBe(classes);
      }),
      { numRuns: 5000 },
    );
  });

  it("isPrintableAscii says what /^[\\x21-\\x7e]+$/ says", () => {
    for (const text of ["", "!", "~", "a b", "a\x7f", "Xk9#mP2vQ", "\u00e9"])
      expect(isPrintableAscii(text), JSON.stringify(text)).toBe(/^[\x21-\x7e]+$/.test(text));
    fc.assert(
      fc.property(texts, (text) => {
        expect(isPrintableAscii(text)).toBe(/^[\x21-\x7e]+$/.test(text));
      }),
      { numRuns: 5000 },
    );
  });

  it("isWordsAndNumbers says what cutting at -_.:/@+ and matching each part says", () => {
    const cut = (text: string) => {
      const parts = text.split(/[-_.:/@+]/);
      return parts.length > 1 && parts.every((part) => /^(?:[a-z]*|\d*)$/.test(part));
    };
    for (const text of ["user:42:profile", "a-b", "-", "", "abc", "a1-b", "a-B", "a.\u00e9", "1.2.3"])
      expect(isWordsAndNumbers(text), text).toBe(cut(text));
    fc.assert(
      fc.property(texts, (text) => {
        expect(isWordsAndNumbers(text)).toBe(cut(text));
      }),
      { numRuns: 5000 },
    );
  });

  it("fewerThanThreeCharacters counts distinct code units", () => {
    for (const text of ["", "x", "xyxy", "xyz", "XXXX-XXXX", "\ud800\ud800a"])
      expect(fewerThanThreeCharacters(text), text).toBe(new Set(text).size < 3);
    fc.assert(
      fc.property(texts, (text) => {
        expect(fewerThanThreeCharacters(text)).toBe(new Set(text.split("")).size < 3);
      }),
      { numRuns: 5000 },
    );
  });

  it("anyOf finds any of its characters, and takes ASCII ones only", () => {
    const hasStructure = anyOf("./:");
    expect(["a.b", "x:", "/", "abc", "", "\u00e9\u002e"].map(hasStructure)).toEqual([
      true,
      true,
      true,
      false,
      false,
      true,
    ]);
    // A character past ASCII folds to none of them.
    expect(anyOf("a")("\u0161\u0061".slice(0, 1))).toBe(false);
    expect(() => anyOf("\u00e9")).toThrow(/not ASCII/);
  });
});
