import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  PostingCursor,
  packArrays,
  packLists,
  postingsProblem,
  readPostings,
} from "../../plugin/search/postings.ts";

/** Posting lists as [doc, field << 12 | tf, ...] in document, then field, order. */
const lists = fc.array(
  fc
    .array(fc.tuple(fc.nat(100_000), fc.nat(9), fc.integer({ min: 1, max: 4095 })), { maxLength: 20 })
    .map((postings) => {
      const seen = new Set<string>();
      const kept = postings.filter(([d, f]) => !seen.has(`${d}:${f}`) && seen.add(`${d}:${f}`));
      kept.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      return kept.flatMap(([d, f, tf]) => [d, (f << 12) | tf]);
    }),
  { maxLength: 8 },
);

const triples = (list: readonly number[]) => {
  const out: [number, number, number][] = [];
  for (let j = 0; j < list.length; j += 2) {
    const fieldTf = list[j + 1] ?? 0;
    out.push([list[j] ?? 0, fieldTf >>> 12, fieldTf & 0xfff]);
  }
  return out;
};

describe("packed postings", () => {
  it("read back as they were given, from lists or from arrays alike", () => {
    fc.assert(
      fc.property(lists, (given) => {
        const { bytes, starts } = packLists(given, given.length);
        given.forEach((list, t) => {
          expect(readPostings(bytes, starts[t] ?? 0, starts[t + 1] ?? 0)).toEqual(triples(list));
        });
        const termStart = new Uint32Array(given.length + 1);
        given.forEach((list, t) => {
          termStart[t + 1] = (termStart[t] ?? 0) + list.length / 2;
        });
        const flat = given.flat();
        const postDoc = Uint32Array.from(flat.filter((_, j) => j % 2 === 0));
        const postFieldTf = Uint16Array.from(flat.filter((_, j) => j % 2 === 1));
        const fromArrays = packArrays(termStart, postDoc, postFieldTf);
        expect([...fromArrays.bytes]).toEqual([...bytes]);
        expect([...fromArrays.starts]).toEqual([...starts]);
        expect(postingsProblem(bytes, starts, 100_001, 10)).toBeUndefined();
      }),
    );
  });

  it("take two bytes for a near document with a low frequency, more for a far one or a high one", () => {
    expect(packLists([[3, (2 << 12) | 1]], 1).bytes.length).toBe(2);
    expect(packLists([[3, (2 << 12) | 14, 3, (5 << 12) | 1]], 1).bytes.length).toBe(4);
    expect(packLists([[300, (2 << 12) | 1]], 1).bytes.length).toBe(3);
    expect(packLists([[3, (2 << 12) | 4095]], 1).bytes.length).toBe(4);
  });

  it("are refused when they name a missing document or field, or run past their term", () => {
    const { bytes, starts } = packLists(
      [
        [0, 1, 5, (9 << 12) | 20],
        [7, 1],
      ],
      2,
    );
    expect(postingsProblem(bytes, starts, 8, 10)).toBeUndefined();
    expect(postingsProblem(bytes, starts, 7, 10)).toBe("a posting names a missing snapshot");
    expect(postingsProblem(bytes, starts, 8, 9)).toBe("a posting names a missing field");
    expect(postingsProblem(bytes, Uint32Array.from([0, 3, bytes.length]), 8, 10)).toBe(
      "a posting runs past the end of its term",
    );
    expect(postingsProblem(bytes, Uint32Array.from([0, 2]), 8, 10)).toBe(
      "term offsets do not cover the postings",
    );
    expect(postingsProblem(Uint8Array.from([0x80, 0x80]), Uint32Array.from([0, 2]), 8, 10)).toBe(
      "a posting runs past the end of the postings",
    );
  });

  it("are read by one cursor term after term", () => {
    const { bytes, starts } = packLists(
      [
        [2, 1, 2, 3 << 12],
        [0, 7],
      ],
      2,
    );
    const c = new PostingCursor(bytes);
    const seen: number[][] = [];
    for (let t = 0; t < 2; t++) {
      c.reset(starts[t] ?? 0, starts[t + 1] ?? 0);
      while (c.next()) seen.push([t, c.doc, c.field, c.tf]);
    }
    expect(seen).toEqual([
      [0, 2, 0, 1],
      [0, 2, 3, 0],
      [1, 0, 0, 7],
    ]);
  });
});
