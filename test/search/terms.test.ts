import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allTerms, TermArray, TermText, termsFrom } from "../../plugin/search/terms.ts";
import { findTerm, fuzzyTerms, prefixRange } from "../../plugin/search/vocabulary.ts";

/** Sorted distinct terms as the index holds them: ASCII identifiers, accents, CJK, astral characters. */
const word = fc.string({
  unit: fc.constantFrom("a", "b", "e", "r", "_", "-", "1", "é", "ß", "中", "文", "😀", "ｆ"),
  maxLength: 8,
});
const sorted = fc.uniqueArray(word, { maxLength: 40 }).map((terms) => [...terms].sort());

describe("TermText", () => {
  it("reads every term as the array it was made from, in the array's order", () => {
    fc.assert(
      fc.property(sorted, fc.array(word, { maxLength: 12 }), (terms, probes) => {
        const text = TermText.from(terms);
        const array = new TermArray(terms);
        expect(text.length).toBe(terms.length);
        expect(allTerms(text)).toEqual(terms);
        for (let i = 0; i < terms.length; i++) {
          expect(text.size(i)).toBe(array.size(i));
          for (let depth = 0; depth <= text.size(i); depth++)
            expect(text.code(i, depth)).toEqual(array.code(i, depth));
          for (const probe of [...probes, ...terms]) {
            expect(Math.sign(text.compare(i, probe))).toBe(Math.sign(array.compare(i, probe)));
            expect(text.startsWith(i, probe)).toBe(array.startsWith(i, probe));
          }
        }
      }),
    );
  });

  it("answers lookups, prefix ranges and typo walks as the array does", () => {
    fc.assert(
      fc.property(sorted, fc.array(word, { maxLength: 8 }), (terms, probes) => {
        const text = TermText.from(terms);
        for (const probe of [...probes, ...terms.slice(0, 8)]) {
          expect(findTerm(text, probe)).toBe(findTerm(terms, probe));
          expect(prefixRange(text, probe)).toEqual(prefixRange(terms, probe));
          for (const distance of [1, 2])
            expect(fuzzyTerms(text, probe, distance)).toEqual(fuzzyTerms(terms, probe, distance));
        }
      }),
    );
  });

  it("refuses starts that do not cut its text", () => {
    expect(TermText.of("alphabeta", Uint32Array.from([0, 5, 9]))?.term(1)).toBe("beta");
    expect(TermText.of("alphabeta", Uint32Array.from([0, 5, 8]))).toBeUndefined();
    expect(TermText.of("alphabeta", Uint32Array.from([0, 6, 5, 9]))).toBeUndefined();
    expect(TermText.of("alphabeta", Uint32Array.from([1, 9]))).toBeUndefined();
    expect(TermText.of("", new Uint32Array(0))).toBeUndefined();
    expect(TermText.of("", Uint32Array.from([0]))?.length).toBe(0);
  });
});

describe("termsFrom", () => {
  it("takes an array of strings as terms, and terms as they are", () => {
    const text = TermText.from(["a", "b"]);
    expect(termsFrom(text)).toBe(text);
    expect(allTerms(termsFrom(["a", "b"]))).toEqual(["a", "b"]);
  });
});
