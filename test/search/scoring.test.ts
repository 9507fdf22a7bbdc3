import { describe, expect, it } from "vitest";
import { FIELD_BOOSTS, FIELDS } from "../../plugin/search/document.ts";
import {
  Accumulator,
  accumulatorIn,
  BM25,
  BOOST_BY_FIELD,
  bm25,
  fieldFactors,
  fuzzyWeight,
  idf,
  prefixWeight,
} from "../../plugin/search/scoring.ts";

const GOAL = FIELDS.indexOf("goal");
const NEXT = FIELDS.indexOf("next");

describe("idf", () => {
  it("is ln(1 + (N - df + 0.5) / (df + 0.5))", () => {
    // One of three documents: ln(1 + 2.5 / 1.5) = ln(8 / 3).
    expect(idf(1, 3)).toBeCloseTo(0.980829, 6);
    // Every document: ln(1 + 0.5 / 3.5) = ln(8 / 7), small but positive.
    expect(idf(3, 3)).toBeCloseTo(0.133531, 6);
  });
});

describe("bm25", () => {
  it("gives minisearch's BM25+ with k 1.2, b 0.7 and d 0.5", () => {
    expect(BM25).toEqual({ k: 1.2, b: 0.7, d: 0.5 });
    // tf 2 in a field twice the average length: norm = 0.3 + 0.7 * 2 = 1.7,
    // idf * (0.5 + 2 * 2.2 / (2 + 1.2 * 1.7)) = 2 * (0.5 + 4.4 / 4.04).
    expect(bm25(2, 2, 4, 2)).toBeCloseTo(3.178218, 6);
  });

  it("still credits a match in a very long field with d times the idf", () => {
    expect(bm25(1, 1.5, 1e9, 1)).toBeCloseTo(0.75, 6);
  });

  it("grows with the term frequency and shrinks with the field length", () => {
    expect(bm25(3, 1, 4, 4)).toBeGreaterThan(bm25(1, 1, 4, 4));
    expect(bm25(1, 1, 8, 4)).toBeLessThan(bm25(1, 1, 4, 4));
  });
});

describe("prefixWeight and fuzzyWeight", () => {
  it("weigh a longer completion and a farther typo less", () => {
    // `ledger` completed to `ledgers`: 0.4 * 7 / (7 + 0.3).
    expect(prefixWeight(0.4, 7, 6)).toBeCloseTo(0.383562, 6);
    expect(prefixWeight(0.4, 12, 6)).toBeLessThan(prefixWeight(0.4, 7, 6));
    expect(prefixWeight(0.4, 6, 6)).toBeCloseTo(0.4, 12);
    // `leger` for `ledger`, one edit: 0.3 * 5 / 6.
    expect(fuzzyWeight(0.3, 5, 1)).toBeCloseTo(0.25, 10);
    expect(fuzzyWeight(0.3, 5, 2)).toBeLessThan(fuzzyWeight(0.3, 5, 1));
  });
});

describe("BOOST_BY_FIELD", () => {
  it("lists each field's boost at its field number", () => {
    expect(BOOST_BY_FIELD[GOAL]).toBe(3);
    expect(BOOST_BY_FIELD[NEXT]).toBe(1.5);
    expect(BOOST_BY_FIELD).toEqual(Object.values(FIELD_BOOSTS));
  });
});

describe("fieldFactors", () => {
  it("multiplies weight, boost and idf where a document holds the term, and is 0 elsewhere", () => {
    const df = new Float64Array(FIELDS.length);
    df[GOAL] = 1;
    df[NEXT] = 3;
    const factors = fieldFactors(0.5, df, { docs: 3, avgFieldLength: new Float64Array(FIELDS.length) });
    // 0.5 * 3 * ln(8 / 3) and 0.5 * 1.5 * ln(8 / 7).
    expect(factors[GOAL]).toBeCloseTo(1.471244, 6);
    expect(factors[NEXT]).toBeCloseTo(0.100149, 6);
    expect([...factors].filter((f) => f !== 0)).toHaveLength(2);
  });
});

describe("Accumulator", () => {
  it("sums whole terms and identifier parts apart, with the masks of what matched and where", () => {
    const acc = new Accumulator(0b100);
    acc.add(7, 0b001, GOAL, 1.5, true);
    acc.add(7, 0b010, NEXT, 0.25, false);
    acc.add(7, 0b100, NEXT, 2, true);
    acc.add(2, 0b010, GOAL, 1, false);
    expect(acc.touched).toEqual([7, 2]);
    expect([acc.score(7), acc.partScore(7), acc.matched(7), acc.exact(7)]).toEqual([1.75, 2, 0b111, 0b101]);
    expect([acc.inField(7, GOAL), acc.inField(7, NEXT), acc.inField(2, GOAL)]).toEqual([0b001, 0b110, 0b010]);
    expect([acc.score(3), acc.matched(3)]).toEqual([0, 0]);
  });

  it("grows past its capacity and answers 0 beyond what it holds", () => {
    const acc = new Accumulator(0, 1);
    acc.add(1000, 1, NEXT, 0.5, true);
    expect([acc.score(1000), acc.matched(1000), acc.inField(1000, NEXT)]).toEqual([0.5, 1, 1]);
    expect([acc.score(5000), acc.matched(5000), acc.exact(5000), acc.inField(5000, GOAL)]).toEqual([
      0, 0, 0, 0,
    ]);
  });

  it("clears what the last query touched on reset and takes the new part mask", () => {
    const acc = new Accumulator(0b1, 4);
    acc.add(3, 0b1, GOAL, 1, true);
    acc.reset(0);
    expect(acc.touched).toEqual([]);
    expect([acc.score(3), acc.partScore(3), acc.matched(3), acc.exact(3), acc.inField(3, GOAL)]).toEqual([
      0, 0, 0, 0, 0,
    ]);
    acc.add(3, 0b1, GOAL, 1, false);
    expect([acc.score(3), acc.partScore(3), acc.exact(3)]).toEqual([1, 0, 0]);
  });
});

describe("accumulatorIn", () => {
  it("makes one accumulator per shard, sized to it, and gives it back on the next query", () => {
    const cache = new WeakMap<{ size: number }, Accumulator>();
    const a = { size: 4 };
    const b = { size: 9 };
    const first = accumulatorIn(cache, a);
    expect(accumulatorIn(cache, a)).toBe(first);
    expect(accumulatorIn(cache, b)).not.toBe(first);
    first.add(3, 0b1, GOAL, 1, false);
    expect(first.score(3)).toBe(1);
  });
});
