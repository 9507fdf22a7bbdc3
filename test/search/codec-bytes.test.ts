import { describe, expect, it } from "vitest";
import { align, bytesOf, layout, pairs, readArray } from "../../plugin/search/codec-bytes.ts";

describe("layout", () => {
  it("lays sections one after the other, each starting 8-byte aligned", () => {
    const blobs = { a: Buffer.alloc(3), b: Buffer.alloc(8), c: Buffer.alloc(0), d: Buffer.alloc(1) };
    const { sections, size } = layout(blobs);
    expect(sections).toEqual({
      a: { offset: 0, length: 3 },
      b: { offset: 8, length: 8 },
      c: { offset: 16, length: 0 },
      d: { offset: 16, length: 1 },
    });
    expect(size).toBe(24);
    expect(pairs(blobs, sections).map(([blob, s]) => [blob.length, s.offset])).toEqual([
      [3, 0],
      [8, 8],
      [0, 16],
      [1, 16],
    ]);
    expect([0, 1, 7, 8, 9].map(align)).toEqual([0, 8, 8, 8, 16]);
  });
});

describe("readArray", () => {
  it("copies a section into a typed array of its own, aligned or not", () => {
    const values = Uint32Array.from([7, 70000, 2 ** 31]);
    const body = Buffer.concat([Buffer.from([1]), bytesOf(values)]);
    const read = readArray(body, { offset: 1, length: 12 }, Uint32Array);
    expect([...read]).toEqual([...values]);
    body[1] = 9;
    expect(read[0]).toBe(7);
  });

  it("refuses a section that runs past the body or is not a whole number of elements", () => {
    const body = Buffer.alloc(16);
    expect(() => readArray(body, { offset: 8, length: 12 }, Uint32Array)).toThrow(
      "a section runs past the end of the file",
    );
    expect(() => readArray(body, { offset: 0, length: 6 }, Uint32Array)).toThrow(
      "a section runs past the end of the file",
    );
  });
});
