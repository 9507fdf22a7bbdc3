import { describe, expect, it } from "vitest";
import { decodeShardHeader, encodeShard } from "../../plugin/search/codec.ts";
import { entryOf, FIELDS } from "../../plugin/search/document.ts";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { LightShard } from "../../plugin/search/light-shard.ts";
import { Accumulator } from "../../plugin/search/scoring.ts";
import { located, lookupsOf, snap } from "./helpers.ts";

const SNAPSHOTS = [
  located(snap("2026-11-20-01", { goal: "Reconcile the ledger" }), 1),
  located(snap("2026-11-22-01", { goal: "Rotate the signing keys", name: "keys" }), 1),
  located(snap("2026-11-20-02", { goal: "Ship the ledger fix" }), 40),
  located(snap("2026-11-21-01", { tombstone: true, name: "old" }), 1),
];

const ids = (shard: LightShard) => [...shard.documents()].map(([, e]) => e.id);

describe("LightShard", () => {
  it("numbers its entries newest first, tombstones included", () => {
    const shard = new LightShard("2026-11", SNAPSHOTS.map(entryOf));
    expect(shard.month).toBe("2026-11");
    expect(shard.size).toBe(4);
    expect(ids(shard)).toEqual(["2026-11-22-01", "2026-11-21-01", "2026-11-20-02", "2026-11-20-01"]);
    expect(shard.entry(0)?.name).toBe("keys");
    expect(shard.entry(4)).toBeUndefined();
    expect(shard.files().sort()).toEqual([
      "memory/2026-11-20.md",
      "memory/2026-11-21.md",
      "memory/2026-11-22.md",
    ]);
  });

  it("holds, from a saved shard's header, the refs of the frozen shard in the same order", () => {
    const frozen = buildFrozen("2026-11", SNAPSHOTS);
    const header = decodeShardHeader(encodeShard(frozen, {}));
    const light = new LightShard(header.month, header.entries);
    expect([...light.documents()]).toEqual(
      [...frozen.documents()].map(([doc, entry]) => [doc, { ...entry, text: "" }]),
    );
    expect(light.files()).toEqual(frozen.files());
  });

  it("replaces a log's entries with a fresh read, keeping the order, and drops a log read as empty", () => {
    const shard = new LightShard("2026-11", SNAPSHOTS.map(entryOf));
    shard.replaceFile("memory/2026-11-20.md", [
      located(snap("2026-11-20-03", { timestamp: "2026-11-23T09:00:00+00:00" }), 80),
    ]);
    expect(ids(shard)).toEqual(["2026-11-20-03", "2026-11-22-01", "2026-11-21-01"]);
    shard.replaceFile("memory/2026-11-22.md", []);
    expect(ids(shard)).toEqual(["2026-11-20-03", "2026-11-21-01"]);
    expect(shard.files().sort()).toEqual(["memory/2026-11-20.md", "memory/2026-11-21.md"]);
  });

  it("finds nothing and counts nothing towards a search", () => {
    const shard = new LightShard("2026-11", SNAPSHOTS.map(entryOf));
    expect(shard.exactCount("ledger", 10)).toBe(0);
    expect(lookupsOf("ledger keys", true).flatMap((l) => shard.reach(l))).toEqual([]);
    expect(shard.holding("ledger", [0, 1])).toEqual(new Set());
    const df = new Float64Array(FIELDS.length);
    const reach = { term: "ledger", ref: 0, weight: 1, exact: true };
    shard.countFields(reach, df);
    const acc = new Accumulator();
    shard.score(reach, 1, df, { docs: 4, avgFieldLength: new Float64Array(FIELDS.length).fill(1) }, acc);
    expect([...df].every((n) => n === 0)).toBe(true);
    expect(acc.touched).toEqual([]);
    expect([...shard.lengthSums].every((n) => n === 0)).toBe(true);
  });
});
