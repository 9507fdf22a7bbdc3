import { describe, expect, it } from "vitest";
import { checkArrays, packedFromArrays } from "../../plugin/search/codec-legacy.ts";
import { packLists, readPostings } from "../../plugin/search/postings.ts";

// Two terms: term 0 in documents 0 (field 0, tf 2) and 2 (field 1, tf 1); term 1 in document 1 (field 0, tf 5).
const termStart = Uint32Array.from([0, 2, 3]);
const postDoc = Uint32Array.from([0, 2, 1]);
const postFieldTf = Uint16Array.from([(0 << 12) | 2, (1 << 12) | 1, (0 << 12) | 5]);

describe("postings as versions 2 and 3 wrote them", () => {
  it("are packed as the current format packs the same lists", () => {
    const packed = packedFromArrays(termStart, postDoc, postFieldTf, 3);
    const lists = [
      [0, (0 << 12) | 2, 2, (1 << 12) | 1],
      [1, (0 << 12) | 5],
    ];
    const expected = packLists(lists, 2);
    expect([...packed.bytes]).toEqual([...expected.bytes]);
    expect([...packed.starts]).toEqual([...expected.starts]);
    expect(readPostings(packed.bytes, packed.starts[1] ?? 0, packed.starts[2] ?? 0)).toEqual([[1, 0, 5]]);
  });

  it("are refused, naming the problem, when they do not hold together", () => {
    const bad =
      (ts: number[], docs: number[], ftf: number[], n = 3) =>
      () =>
        checkArrays(Uint32Array.from(ts), Uint32Array.from(docs), Uint16Array.from(ftf), n);
    expect(bad([], [], [])).toThrow("term offsets do not match the vocabulary");
    expect(bad([0, 1], [0], [])).toThrow("posting arrays differ in length");
    expect(bad([0, 2], [0], [0])).toThrow("term offsets do not cover the postings");
    expect(bad([0, 2, 1, 3], [0, 1, 2], [0, 0, 0])).toThrow("term offsets go backwards");
    expect(bad([0, 1], [3], [0])).toThrow("a posting names a missing snapshot");
    expect(bad([0, 1], [0], [15 << 12])).toThrow("a posting names a missing field");
    expect(bad([0, 2], [2, 1], [0, 0])).toThrow("postings are out of document order");
    expect(() => checkArrays(termStart, postDoc, postFieldTf, 3)).not.toThrow();
  });
});
