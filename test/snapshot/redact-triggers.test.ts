import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileLiterals } from "../../plugin/snapshot/redact-triggers.ts";

/** Every `[position, literal index]` found by the scanner. */
function hits(literals: readonly string[], text: string): [number, number][] {
  const out: [number, number][] = [];
  compileLiterals(literals).scan(text, (at, literal) => {
    out.push([at, literal]);
    return undefined;
  });
  return out;
}

/** The naive reference: every position, every literal, compared in lower case. */
function naive(literals: readonly string[], text: string): [number, number][] {
  const out: [number, number][] = [];
  const lower = text.toLowerCase();
  for (let at = 0; at < text.length; at++)
    for (const [index, literal] of literals.entries())
      if (lower.startsWith(literal.toLowerCase(), at)) out.push([at, index]);
  return out;
}

/** Words over a small alphabet, so random literals and texts overlap often. */
const word = (min: number, max: number) =>
  fc.array(fc.constantFrom(..."abAB_-:x"), { minLength: min, maxLength: max }).map((c) => c.join(""));

describe("compileLiterals", () => {
  it("skips the occurrences of a literal before the position its hit returned, and only of it", () => {
    const out: [number, number][] = [];
    const text = "key token key token\nkey token";
    compileLiterals(["key", "token"]).scan(text, (at, literal) => {
      out.push([at, literal]);
      return literal === 0 ? text.indexOf("\n", at) : undefined;
    });
    expect(out).toEqual([
      [0, 0],
      [4, 1],
      [14, 1],
      [20, 0],
      [24, 1],
    ]);
  });

  it("skips the occurrences of any literal before the position the caller set for it in `until`", () => {
    const out: [number, number][] = [];
    const text = "pass password passphrase\npassphrase password";
    const until = new Int32Array(3);
    compileLiterals(["pass", "password", "passphrase"]).scan(
      text,
      (at, literal) => {
        out.push([at, literal]);
        // The first hit of `pass` stops `passphrase` (and no other) until the line ends.
        if (literal === 0 && at === 0) until[2] = text.indexOf("\n");
        return undefined;
      },
      [],
      until,
    );
    expect(out).toEqual([
      [0, 0],
      [5, 0],
      [5, 1],
      [14, 0],
      [25, 0],
      [25, 2],
      [36, 0],
      [36, 1],
    ]);
  });

  it("reports every occurrence in text order, ignoring ASCII case", () => {
    expect(hits(["token", "key"], "Token KEY tokenkey")).toEqual([
      [0, 0],
      [6, 1],
      [10, 0],
      [15, 1],
    ]);
  });

  it("reports overlapping occurrences of different literals", () => {
    expect(hits(["pass", "password", "sw"], "password")).toEqual([
      [0, 0],
      [0, 1],
      [3, 2],
    ]);
  });

  it("tells literals that share their start apart by their last character, in either case", () => {
    const literals = ["pass", "password", "passphrase", "passcode", "pat"];
    expect(hits(literals, "PassWord passPHRASE PASSCODE passwd pat PASSCODe")).toEqual([
      [0, 0],
      [0, 1],
      [9, 0],
      [9, 2],
      [20, 0],
      [20, 3],
      [29, 0],
      [36, 4],
      [40, 0],
      [40, 3],
    ]);
  });

  it("matches a two-character literal at the end of the text", () => {
    expect(hits(["ab"], "xxab")).toEqual([[2, 0]]);
  });

  it("ignores the case of non-ASCII letters by their one-character upper case", () => {
    expect(hits(["пароль", "clé"], "ПАРОЛЬ: x, CLÉ: y")).toEqual([
      [0, 0],
      [11, 1],
    ]);
  });

  it("matches a letter whose upper case is longer only in its own case", () => {
    expect(hits(["schlüssel", "straße"], "STRASSE straße SCHLÜSSEL")).toEqual([
      [8, 1],
      [15, 0],
    ]);
  });

  it("keeps the literals it was given", () => {
    expect(compileLiterals(["ghp_", "xox"]).literals).toEqual(["ghp_", "xox"]);
  });

  it("finds nothing in an empty or one-character text", () => {
    expect(hits(["ab"], "")).toEqual([]);
    expect(hits(["ab"], "a")).toEqual([]);
  });

  it("refuses a literal shorter than two characters or outside the BMP", () => {
    expect(() => compileLiterals(["a"])).toThrow(
      'big-memory: redact trigger "a": expected 2+ characters from the BMP',
    );
    expect(() => compileLiterals(["😀x"])).toThrow(
      'big-memory: redact trigger "😀x": expected 2+ characters from the BMP',
    );
  });

  it("finds every literal when there are more distinct non-ASCII leading characters than codes", () => {
    const literals = Array.from({ length: 40 }, (_, i) => `${String.fromCharCode(0x4e00 + i)}x`);
    const text = Array.from(
      { length: 60 },
      (_, i) => `${String.fromCharCode(0x4e00 + i)}x ${String.fromCharCode(0x4e00 + i)}y`,
    ).join(" ");
    expect(hits(literals, text)).toEqual(naive(literals, text));
    expect(hits(literals, text)).toHaveLength(40);
  });

  it("reads nothing inside the ranges it is told to skip, and finds the rest as without them", () => {
    const out: [number, number][] = [];
    const text = "key [key] key[key]key [] key";
    const skip = [
      { start: 4, end: 9 },
      { start: 13, end: 18 },
      { start: 22, end: 22 },
    ];
    compileLiterals(["key", "y]"]).scan(
      text,
      (at, literal) => {
        out.push([at, literal]);
        return undefined;
      },
      skip,
    );
    expect(out).toEqual([
      [0, 0],
      [10, 0],
      [18, 0],
      [25, 0],
    ]);
  });

  it("agrees with a naive scan outside random skipped ranges", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(word(2, 5), { minLength: 1, maxLength: 8 }),
        word(0, 60),
        fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 8 }),
        (literals, text, cuts) => {
          // Cuts in pairs make sorted, disjoint ranges (possibly empty, adjacent or past the end).
          const sorted = [...cuts].sort((a, b) => a - b);
          const skip: { start: number; end: number }[] = [];
          for (let i = 0; i + 1 < sorted.length; i += 2)
            skip.push({ start: sorted[i] ?? 0, end: sorted[i + 1] ?? 0 });
          const out: [number, number][] = [];
          compileLiterals(literals).scan(
            text,
            (at, literal) => {
              out.push([at, literal]);
              return undefined;
            },
            skip,
          );
          const outside = naive(literals, text).filter(
            ([at]) => !skip.some((r) => r.start <= at && at < r.end),
          );
          expect(out).toEqual(outside);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("agrees with a naive scan on random ASCII texts and literals", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(word(2, 5), { minLength: 1, maxLength: 8 }),
        word(0, 60),
        (literals, text) => {
          expect(hits(literals, text)).toEqual(naive(literals, text));
        },
      ),
      { numRuns: 500 },
    );
  });
});
