import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FIELDS } from "../../plugin/search/document.ts";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { HotShard } from "../../plugin/search/hot-shard.ts";
import { Accumulator } from "../../plugin/search/scoring.ts";
import type { LocatedSnapshot } from "../../plugin/snapshot/snapshot.ts";
import { located, lookupsOf, snap } from "./helpers.ts";

const GOAL = FIELDS.indexOf("goal");

/** A hot shard of November 2026 holding `snapshots`, added in order. */
function hotOf(snapshots: readonly LocatedSnapshot[]): HotShard {
  const shard = HotShard.empty("2026-11");
  for (const s of snapshots) shard.add(s);
  return shard;
}

const ids = (shard: HotShard) => [...shard.documents()].map(([doc, e]) => [doc, e.id]);

describe("HotShard.add and removeFile", () => {
  it("numbers documents as they come, and removes every snapshot of a file", () => {
    const shard = hotOf([
      located(snap("2026-11-20-01", { goal: "reconcile the ledger" }), 1),
      located(snap("2026-11-21-01", { goal: "ship the ledger fix" }), 1),
      located(snap("2026-11-20-02", { goal: "audit the ledger" }), 40),
    ]);
    expect(shard.size).toBe(3);
    expect(ids(shard)).toEqual([
      [0, "2026-11-20-01"],
      [1, "2026-11-21-01"],
      [2, "2026-11-20-02"],
    ]);
    expect(shard.files()).toEqual(["memory/2026-11-20.md", "memory/2026-11-21.md"]);
    expect(shard.exactCount("ledger", 10)).toBe(3);
    expect(shard.removeFile("memory/2026-11-20.md")).toBe(2);
    expect(shard.removeFile("memory/2026-11-20.md")).toBe(0);
    expect(ids(shard)).toEqual([[1, "2026-11-21-01"]]);
    expect(shard.entry(0)).toBeUndefined();
    expect(shard.exactCount("ledger", 10)).toBe(1);
    expect(shard.exactCount("audit", 10)).toBe(0);
  });

  it("counts documents holding a term no further than the cap", () => {
    const shard = hotOf(
      ["a", "b", "c"].map((_, i) => located(snap(`2026-11-0${i + 1}-01`, { goal: "ledger" }))),
    );
    expect(shard.exactCount("ledger", 2)).toBe(2);
    expect(shard.exactCount("ledge", 10)).toBe(0);
  });

  it("stores a tombstone with no searchable term", () => {
    const shard = hotOf([
      located(snap("2026-11-20-01", { tombstone: true, name: "old-work", goal: "secret" })),
    ]);
    expect(shard.entry(0)?.tombstone).toBe(true);
    expect(shard.exactCount("secret", 10)).toBe(0);
    expect(shard.terms()).toEqual([]);
    expect([...shard.lengthSums].every((n) => n === 0)).toBe(true);
  });

  it("keeps a sorted vocabulary up to date as snapshots arrive", () => {
    const shard = hotOf([located(snap("2026-11-20-01", { goal: "zeta alpha" }))]);
    expect(shard.terms()).toEqual(["alpha", "zeta"]);
    shard.add(located(snap("2026-11-21-01", { goal: "mid" })));
    expect(shard.terms()).toEqual(["alpha", "mid", "zeta"]);
  });

  it("keeps the field length sums of the live documents", () => {
    const shard = hotOf([
      located(snap("2026-11-20-01", { goal: "alpha beta alpha" })),
      located(snap("2026-11-21-01", { goal: "gamma" })),
    ]);
    expect(shard.lengthSums[GOAL]).toBe(3);
    shard.removeFile("memory/2026-11-20.md");
    expect(shard.lengthSums[GOAL]).toBe(1);
  });
});

describe("HotShard.replaceFile", () => {
  it("replaces a file's snapshots with a fresh parse", () => {
    const shard = hotOf([
      located(snap("2026-11-20-01", { goal: "alpha" })),
      located(snap("2026-11-21-01", { goal: "beta" })),
    ]);
    shard.replaceFile("memory/2026-11-20.md", [located(snap("2026-11-20-01", { goal: "gamma" }))]);
    expect([...shard.documents()].map(([, e]) => e.goal)).toEqual(["beta", "gamma"]);
    expect([shard.exactCount("alpha", 10), shard.exactCount("gamma", 10)]).toEqual([0, 1]);
  });
});

describe("HotShard.reach", () => {
  const shard = hotOf([
    located(snap("2026-11-20-01", { goal: "ledger" })),
    located(snap("2026-11-21-01", { goal: "ledgers audit" })),
    located(snap("2026-11-22-01", { goal: "leger" })),
  ]);

  it("reaches the exact term, its completions and its typos, each weighted as minisearch weighs them", () => {
    expect(lookupsOf("ledger", true).flatMap((l) => shard.reach(l))).toEqual([
      { term: "ledger", ref: -1, weight: 1, exact: true },
      // 0.4 * 7 / (7 + 0.3 * 1), and 0.3 * 5 / (5 + 1).
      { term: "ledgers", ref: -1, weight: expect.closeTo(0.383562, 6), exact: false },
      { term: "leger", ref: -1, weight: expect.closeTo(0.25, 10), exact: false },
    ]);
  });

  it("reaches only the exact term when the lookup is not widened", () => {
    expect(lookupsOf("ledger").flatMap((l) => shard.reach(l))).toEqual([
      { term: "ledger", ref: -1, weight: 1, exact: true },
    ]);
    expect(lookupsOf("ledgr").flatMap((l) => shard.reach(l))).toEqual([]);
  });

  it("looks up only the typo neighbours it is given", () => {
    const given = lookupsOf("ledger", true).flatMap((l) =>
      shard.reach({
        ...l,
        prefix: false,
        fuzzyTerms: [
          ["leger", 1],
          ["ledgre", 1],
        ],
      }),
    );
    expect(given.map((r) => r.term)).toEqual(["ledger", "leger"]);
  });
});

describe("HotShard.score", () => {
  it("adds BM25+ with the index-wide statistics it is given", () => {
    const shard = hotOf([
      located(snap("2026-11-20-01", { goal: "ledger ledger audit" })),
      located(snap("2026-11-21-01", { goal: "audit" })),
    ]);
    const df = new Float64Array(FIELDS.length);
    const acc = new Accumulator();
    const avgFieldLength = new Float64Array(FIELDS.length).fill(1);
    for (const r of lookupsOf("ledger").flatMap((l) => shard.reach(l))) {
      shard.countFields(r, df);
      shard.score(r, 0b1, df, { docs: 2, avgFieldLength }, acc);
    }
    expect(df[GOAL]).toBe(1);
    expect(acc.touched).toEqual([0]);
    // Goal boost 3, idf ln(1 + 1.5 / 1.5) = ln 2; tf 2 in 2 distinct terms against an average of 1:
    // 3 * ln 2 * (0.5 + 2 * 2.2 / (2 + 1.2 * 1.7)).
    expect(acc.score(0)).toBeCloseTo(3.304459, 6);
    expect([acc.matched(0), acc.exact(0), acc.inField(0, GOAL)]).toEqual([1, 1, 1]);
  });
});

describe("HotShard.freeze and HotShard.thaw", () => {
  const docs = fc.array(
    fc.record({
      day: fc.integer({ min: 1, max: 6 }),
      goal: fc.array(fc.constantFrom("ledger", "ledgers", "ERR_DB_TIMEOUT", "src/a-b.ts", "数据库", "the"), {
        maxLength: 4,
      }),
      tombstone: fc.boolean(),
    }),
    { minLength: 1, maxLength: 12 },
  );

  it("freezes to what buildFrozen makes of the snapshots left, whatever was added and removed", () => {
    fc.assert(
      fc.property(docs, fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 3 }), (rows, removed) => {
        const snapshots = rows.map((r, i) =>
          located(
            snap(`2026-11-0${r.day}-${String(i + 1).padStart(2, "0")}`, {
              goal: r.goal.join(" "),
              tombstone: r.tombstone,
            }),
            i * 10 + 1,
          ),
        );
        const shard = hotOf(snapshots);
        for (const day of removed) shard.removeFile(`memory/2026-11-0${day}.md`);
        const left = snapshots.filter((s) => !removed.some((day) => s.file === `memory/2026-11-0${day}.md`));
        const { avgFieldLength, ...parts } = shard.freeze().parts;
        const { avgFieldLength: expectedAvg, ...expected } = buildFrozen("2026-11", left).parts;
        expect(parts).toEqual(expected);
        [...expectedAvg].forEach((avg, f) => {
          expect(avgFieldLength[f]).toBeCloseTo(avg, 9);
        });
      }),
    );
  });

  it("thaws a frozen shard into one that freezes the same and takes changes", () => {
    const frozen = buildFrozen("2026-11", [
      located(snap("2026-11-20-01", { goal: "reconcile the ledger" })),
      located(snap("2026-11-21-01", { goal: "ship ERR_DB_TIMEOUT fix" })),
    ]);
    const hot = HotShard.thaw(frozen);
    expect(hot.freeze().parts).toEqual(frozen.parts);
    expect(hot.terms()).toEqual(frozen.parts.terms);
    expect(ids(hot)).toEqual([
      [0, "2026-11-21-01"],
      [1, "2026-11-20-01"],
    ]);
    hot.add(located(snap("2026-11-22-01", { goal: "ledger audit" })));
    expect([hot.size, hot.exactCount("ledger", 10), hot.exactCount("err_db_timeout", 10)]).toEqual([3, 2, 1]);
    expect(ids(hot)[2]).toEqual([2, "2026-11-22-01"]);
  });
});
