import { describe, expect, it } from "vitest";
import { at, f64, got, num, u8, u16, u32 } from "../../plugin/search/checked.ts";

describe("checked reads", () => {
  it("reads what is there, zeros and empty strings included", () => {
    expect([at(["a", ""], 1), num([0, 2], 0), f64(Float64Array.of(0.5), 0)]).toEqual(["", 0, 0.5]);
    expect([u32(Uint32Array.of(7, 0), 1), u16(Uint16Array.of(65535), 0), u8(Uint8Array.of(255), 0)]).toEqual([
      0, 65535, 255,
    ]);
    expect(got(new Map([["k", 0]]), "k")).toBe(0);
  });

  it("throws on an index out of range or a missing key, never gives undefined", () => {
    const cases: (() => unknown)[] = [
      () => at([], 0),
      () => at(["a"], -1),
      () => num([1], 1),
      () => f64(new Float64Array(2), 2),
      () => u32(new Uint32Array(1), 5),
      () => u16(new Uint16Array(0), 0),
      () => u8(new Uint8Array(3), 3.5),
      () => got(new Map<string, number>(), "absent"),
    ];
    for (const read of cases) expect(read).toThrow(RangeError);
    expect(() => at(["a"], 4)).toThrow("big-memory: search engine read index 4 of 1 items");
  });
});
