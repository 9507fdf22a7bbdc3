import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allTerms, TermArray } from "../../plugin/search/terms.ts";
import {
  boundedDistance,
  findTerm,
  fuzzyTerms,
  mergePlaced,
  mergeTerms,
  namedTerms,
  prefixRange,
  termsOf,
} from "../../plugin/search/vocabulary.ts";

const word = fc.string({ unit: fc.constantFrom("a", "b", "c", "d"), maxLength: 7 });
const vocabulary = fc.uniqueArray(word, { maxLength: 40 }).map((terms) => terms.sort());

/** Plain dynamic-programming Levenshtein distance, the reference. */
function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

describe("fuzzyTerms", () => {
  it("finds exactly the terms within the distance that share the fixed prefix", () => {
    fc.assert(
      fc.property(
        vocabulary,
        word,
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 2 }),
        (terms, q, d, p) => {
          const got = fuzzyTerms(terms, q, d, p).map(([i, distance]) => [terms[i], distance]);
          const want = terms
            .map((t) => [t, levenshtein(t, q)] as const)
            .filter(([t, distance]) => distance <= d && t.startsWith(q.slice(0, p)));
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("requires the first letter by default", () => {
    const terms = ["callback", "fallback"];
    expect(fuzzyTerms(terms, "calback", 2).map(([i]) => terms[i])).toEqual(["callback"]);
  });
});

describe("boundedDistance", () => {
  it("agrees with Levenshtein up to the bound", () => {
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 3 }), (a, b, max) => {
        expect(boundedDistance(a, b, max)).toBe(Math.min(levenshtein(a, b), max + 1));
      }),
    );
  });
});

describe("findTerm and prefixRange", () => {
  it("locate terms and prefix blocks in a sorted vocabulary", () => {
    fc.assert(
      fc.property(vocabulary, word, (terms, q) => {
        expect(findTerm(terms, q)).toBe(terms.indexOf(q));
        const [start, end] = prefixRange(terms, q);
        expect(terms.slice(start, end)).toEqual(terms.filter((t) => t.startsWith(q)));
      }),
    );
  });
});

describe("mergeTerms", () => {
  it("merges sorted vocabularies into one sorted vocabulary without repeats", () => {
    fc.assert(
      fc.property(fc.array(vocabulary, { maxLength: 6 }), (lists) => {
        expect(mergeTerms(lists)).toEqual([...new Set(lists.flat())].sort());
      }),
    );
  });
});

describe("mergePlaced", () => {
  it("merges as mergeTerms does and says where each list's terms went", () => {
    fc.assert(
      fc.property(fc.array(vocabulary, { maxLength: 6 }), (lists) => {
        const { terms, positions } = mergePlaced(lists);
        expect(terms).toEqual(mergeTerms(lists));
        expect(lists.map((list, k) => list.map((_, i) => terms[positions[k]?.[i] ?? -1]))).toEqual(lists);
      }),
    );
  });
});

describe("namedTerms", () => {
  it("gives the terms some list names, in order, and the vocabulary itself when every term is named", () => {
    fc.assert(
      fc.property(
        fc.array(vocabulary, { maxLength: 6 }),
        fc.array(fc.boolean(), { maxLength: 6 }),
        (lists, keep) => {
          const { terms, positions } = mergePlaced(lists);
          const kept = positions.filter((_, k) => keep[k] === true);
          const vocabulary = new TermArray(terms);
          const named = namedTerms(vocabulary, kept);
          expect(allTerms(named)).toEqual(mergeTerms(lists.filter((_, k) => keep[k] === true)));
          if (kept.length === positions.length) expect(named).toBe(vocabulary);
          // Named by as many lists as it was merged from: the vocabulary itself, at once.
          expect(namedTerms(vocabulary, positions, positions.length)).toBe(vocabulary);
        },
      ),
    );
  });
});

describe("termsOf", () => {
  it("reads one term a line, each a string of its own", () => {
    expect(termsOf(Buffer.from(""))).toEqual([]);
    expect(termsOf(Buffer.from("alpha\nbéta\ngamma"))).toEqual(["alpha", "béta", "gamma"]);
  });
});
