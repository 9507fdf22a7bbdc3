import { describe, expect, it } from "vitest";
import { entryOf } from "../../plugin/search/document.ts";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { anyDoc, bitsMayHold, type IdWord, linesHold } from "../../plugin/search/identifier-words.ts";
import { Accumulator } from "../../plugin/search/scoring.ts";
import { sequenceScreen } from "../../plugin/search/tokenize.ts";
import { located, snap } from "./helpers.ts";

const LEAVES = ["err", "db", "timeout"];
/** `ERR_DB_TIMEOUT` as the query's word on bit 1, its leaves on bits 2, 4 and 8; the two rarest are 2 and 8. */
const word = (rare: number): IdWord => ({
  raw: "ERR_DB_TIMEOUT",
  leaves: LEAVES,
  screen: sequenceScreen(LEAVES),
  whole: 1,
  parts: 2 | 4 | 8,
  rare,
});

describe("bitsMayHold", () => {
  it("leaves a word possible when its whole term or both its rarest leaves are held exactly", () => {
    expect(bitsMayHold(word(0), 1)).toBe(true);
    expect(bitsMayHold(word(2 | 8), 2 | 8)).toBe(true);
    expect(bitsMayHold(word(2 | 8), 2 | 4)).toBe(false);
    // No leaves looked up (the word is held whole somewhere): only the whole term counts.
    expect(bitsMayHold(word(0), 2 | 4 | 8)).toBe(false);
  });
});

describe("linesHold", () => {
  const entry = (next: string) => entryOf(located(snap("2026-11-20-01", { goal: "misc", next: [next] })));

  it("finds the leaves as a run on a line, in any case and with any connectors", () => {
    expect(linesHold(entry("retry on ErrDbTimeout twice"), LEAVES, sequenceScreen(LEAVES))).toBe(true);
    expect(linesHold(entry("retry on err-db-timeout twice"), LEAVES, sequenceScreen(LEAVES))).toBe(true);
  });

  it("does not take the leaves apart, nor a longer token, for the run", () => {
    expect(linesHold(entry("the db gave an err after a timeout"), LEAVES, sequenceScreen(LEAVES))).toBe(
      false,
    );
    expect(linesHold(entry("ERR_DB_TIMEOUTS in the logs"), LEAVES, sequenceScreen(LEAVES))).toBe(false);
  });
});

describe("anyDoc", () => {
  const shard = buildFrozen("2026-11", [
    located(snap("2026-11-20-01", { goal: "one" })),
    located(snap("2026-11-20-02", { goal: "two" })),
    located(snap("2026-11-20-03", { goal: "three", tombstone: true })),
  ]);
  /** Documents 0, 1 and 2 touched, with the exact bits given. */
  const touched = (bits: readonly number[]) => {
    const acc = new Accumulator(0, 4);
    bits.forEach((b, doc) => {
      acc.add(doc, b, 0, 1, true);
    });
    return acc;
  };
  const eligible = (e: ReturnType<typeof shard.entry>): e is NonNullable<typeof e> =>
    e !== undefined && !e.tombstone;

  const docOf = (id: string) => [0, 1, 2].find((d) => shard.entry(d)?.id === id) ?? -1;
  /** The exact bits of the documents of snapshots 01, 02 and 03 (03 is a tombstone). */
  const bitsOf = (one: number, two: number, three: number) => {
    const bits = [0, 0, 0];
    bits[docOf("2026-11-20-01")] = one;
    bits[docOf("2026-11-20-02")] = two;
    bits[docOf("2026-11-20-03")] = three;
    return touched(bits);
  };

  it("reads the entry of a document only when its bits pass, and asks the test of eligible ones", () => {
    const asked: string[] = [];
    const test = (_exact: number, entry: { id: string }) => {
      asked.push(entry.id);
      return false;
    };
    expect(anyDoc([shard], [bitsOf(1, 2, 2)], eligible, (exact) => exact === 2, test)).toBe(false);
    // 01 fails the bits and 03 is a tombstone: only 02 reaches the test.
    expect(asked).toEqual(["2026-11-20-02"]);
    expect(anyDoc([shard], [bitsOf(1, 2, 2)], eligible, (exact) => exact === 2)).toBe(true);
    expect(anyDoc([shard], [bitsOf(2, 1, 2)], eligible, (exact) => exact === 1)).toBe(true);
    expect(anyDoc([shard], [bitsOf(1, 1, 2)], eligible, (exact) => exact === 2)).toBe(false);
  });
});
