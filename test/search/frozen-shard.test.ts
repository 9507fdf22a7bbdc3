import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeShard, encodeShard } from "../../plugin/search/codec.ts";
import { FIELDS, fieldsOf } from "../../plugin/search/document.ts";
import { buildFrozen, FrozenBuilder, MAX_TF, sortPostings } from "../../plugin/search/frozen-shard.ts";
import { HotShard } from "../../plugin/search/hot-shard.ts";
import { readPostings } from "../../plugin/search/postings.ts";
import { Accumulator } from "../../plugin/search/scoring.ts";
import type { Shard } from "../../plugin/search/shard.ts";
import { TermArray } from "../../plugin/search/terms.ts";
import { tokenize } from "../../plugin/search/tokenize.ts";
import { mergePlaced } from "../../plugin/search/vocabulary.ts";
import type { LocatedSnapshot } from "../../plugin/snapshot/snapshot.ts";
import { located, lookupsOf, snap } from "./helpers.ts";

const GOAL = FIELDS.indexOf("goal");
const NEXT = FIELDS.indexOf("next");

describe("buildFrozen", () => {
  it("stores entries newest first and lays out each term's postings by document and field", () => {
    const shard = buildFrozen("2026-11", [
      located(snap("2026-11-20-01", { goal: "alpha alpha beta", next: ["alpha"] })),
      located(snap("2026-11-21-01", { goal: "beta" })),
    ]);
    const p = shard.parts;
    expect(p.entries.map((e) => e.id)).toEqual(["2026-11-21-01", "2026-11-20-01"]);
    expect(p.terms).toEqual(["alpha", "beta"]);
    // alpha: document 1 (the older), twice in the goal, once in next; beta: once in each goal.
    expect([...p.termStart]).toEqual([0, 4, 8]);
    expect(readPostings(p.postings, 0, 4)).toEqual([
      [1, GOAL, 2],
      [1, NEXT, 1],
    ]);
    expect(readPostings(p.postings, 4, 8)).toEqual([
      [0, GOAL, 1],
      [1, GOAL, 1],
    ]);
    expect([
      p.fieldLength[GOAL],
      p.fieldLength[FIELDS.length + GOAL],
      p.fieldLength[FIELDS.length + NEXT],
    ]).toEqual([1, 2, 1]);
    expect([p.avgFieldLength[GOAL], p.avgFieldLength[NEXT]]).toEqual([1.5, 0.5]);
    expect([shard.lengthSums[GOAL], shard.lengthSums[NEXT]]).toEqual([3, 1]);
    expect(shard.files()).toEqual(["memory/2026-11-21.md", "memory/2026-11-20.md"]);
  });

  it("stores a term frequency above 4095 as 4095", () => {
    const shard = buildFrozen("2026-11", [located(snap("2026-11-20-01", { goal: "ledger ".repeat(5000) }))]);
    expect(readPostings(shard.parts.postings, 0, shard.parts.postings.length)).toEqual([[0, GOAL, MAX_TF]]);
  });

  it("counts documents holding a term, not postings, no further than the cap", () => {
    const shard = buildFrozen(
      "2026-11",
      [1, 2, 3].map((day) => located(snap(`2026-11-0${day}-01`, { goal: "ledger", next: ["ledger"] }))),
    );
    expect(shard.exactCount("ledger", 10)).toBe(3);
    expect(shard.exactCount("ledger", 2)).toBe(2);
    expect(shard.exactCount("ledge", 10)).toBe(0);
  });

  it("stores a tombstone with no postings", () => {
    const shard = buildFrozen("2026-11", [
      located(snap("2026-11-20-01", { tombstone: true, goal: "secret" })),
    ]);
    expect(shard.size).toBe(1);
    expect(shard.entry(0)?.tombstone).toBe(true);
    expect(shard.parts.terms).toEqual([]);
  });
});

describe("FrozenBuilder", () => {
  const snapshots = [3, 1, 2].map((day) => located(snap(`2026-11-0${day}-01`, { goal: `goal ${day}` })));

  it("indexes a few snapshots a step and builds what buildFrozen builds, whatever the order of arrival", () => {
    const builder = new FrozenBuilder("2026-11");
    for (const s of snapshots) builder.add(s);
    expect(builder.size).toBe(3);
    expect([builder.step(2), builder.step(2)]).toEqual([true, false]);
    expect(builder.build().parts).toEqual(buildFrozen("2026-11", [...snapshots].reverse()).parts);
  });

  it("refuses a snapshot once indexing started", () => {
    const builder = new FrozenBuilder("2026-11");
    builder.add(snapshots[0] as LocatedSnapshot);
    builder.step(1);
    expect(() => builder.add(snapshots[1] as LocatedSnapshot)).toThrow(
      "FrozenBuilder.add after indexing started",
    );
  });

  it("builds an empty shard from nothing", () => {
    const shard = new FrozenBuilder("2026-11").build();
    expect([shard.size, shard.parts.terms.length, [...shard.parts.termStart]]).toEqual([0, 0, [0]]);
  });
});

describe("sortPostings", () => {
  it("orders [doc, fieldTf] pairs by document, then field, keeping each pair together", () => {
    const posting = fc.tuple(
      fc.integer({ min: 0, max: 100_000 }),
      fc.integer({ min: 0, max: FIELDS.length - 1 }),
      fc.integer({ min: 0, max: MAX_TF }),
    );
    fc.assert(
      fc.property(fc.array(posting, { maxLength: 30 }), (pairs) => {
        const list = pairs.flatMap(([doc, field, tf]) => [doc, (field << 12) | tf]);
        sortPostings(list);
        const expected = [...pairs]
          .sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])
          .flatMap(([doc, field, tf]) => [doc, (field << 12) | tf]);
        expect(list).toEqual(expected);
      }),
    );
  });
});

describe("FrozenShard.reach", () => {
  const shard = buildFrozen("2026-11", [
    located(snap("2026-11-20-01", { goal: "ledger" })),
    located(snap("2026-11-21-01", { goal: "ledgers leger" })),
  ]);

  it("refers to reached terms by their place in the vocabulary", () => {
    expect(lookupsOf("ledger", true).flatMap((l) => shard.reach(l))).toEqual([
      { term: "ledger", ref: 0, weight: 1, exact: true },
      { term: "ledgers", ref: 1, weight: expect.closeTo(0.383562, 6), exact: false },
      { term: "leger", ref: 2, weight: expect.closeTo(0.25, 10), exact: false },
    ]);
  });

  it("looks up only the typo neighbours it is given, skipping those it does not hold", () => {
    const reached = lookupsOf("ledger", true).flatMap((l) =>
      shard.reach({
        ...l,
        prefix: false,
        fuzzyTerms: [
          ["ledge", 1],
          ["leger", 1],
        ],
      }),
    );
    expect(reached.map((r) => [r.term, r.ref])).toEqual([
      ["ledger", 0],
      ["leger", 2],
    ]);
  });
});

describe("FrozenShard.share", () => {
  const docs = [
    located(snap("2026-11-20-01", { goal: "ledger oauth callback ERR_DB_TIMEOUT" })),
    located(snap("2026-11-21-01", { goal: "ledgers leger oath src/a-b.ts 数据库" })),
  ];
  const own = buildFrozen("2026-11", docs);
  const shared = buildFrozen("2026-11", docs);
  const other = buildFrozen("2026-10", [located(snap("2026-10-01-01", { goal: "ledgerz leg oath zebra" }))]);
  const { terms, positions } = mergePlaced([other.terms(), shared.terms()]);
  shared.share({ vocabulary: new TermArray(terms), ids: positions[1] ?? new Uint32Array() });

  it("answers as before once its terms are positions in a vocabulary shared with other months", () => {
    expect(shared.parts.terms).toEqual([]);
    expect(shared.terms()).toEqual(own.terms());
    for (const query of [
      "ledger",
      "leg",
      "oath",
      "zebra",
      "calback",
      "ERR_DB_TIMEOUT",
      "src/a-b.ts",
      "数据",
    ]) {
      for (const lookup of lookupsOf(query, true)) expect(shared.reach(lookup)).toEqual(own.reach(lookup));
      expect(shared.exactCount(query, 10)).toBe(own.exactCount(query, 10));
      expect(shared.holding(query, [0, 1])).toEqual(own.holding(query, [0, 1]));
    }
  });

  it("gives its terms back as strings of their own to be thawed or written", () => {
    expect(shared.whole()).toEqual(own.parts);
    expect(decodeShard(encodeShard(shared, {})).shard.parts).toEqual(own.parts);
  });
});

// A frozen shard must answer as the hot shard holding the same snapshots: same reached terms and
// weights, same document frequencies, same scores and masks per snapshot.
const WORDS = "ledger ledgers leger oauth oath callback calback ERR_DB_TIMEOUT src/a-b.ts 数据库".split(" ");
const corpusArb = fc
  .array(
    fc.record({
      day: fc.integer({ min: 1, max: 9 }),
      goal: fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }),
      next: fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }),
      tombstone: fc.boolean(),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .map((rows) =>
    rows.map((r, i) =>
      located(
        snap(`2026-11-0${r.day}-${String(i + 1).padStart(2, "0")}`, {
          goal: r.goal.join(" "),
          next: r.next.length === 0 ? [] : [r.next.join(" ")],
          tombstone: r.tombstone,
        }),
        i * 20 + 1,
      ),
    ),
  );
const queryArb = fc.constantFrom(
  "ledger",
  "ledg",
  "calback oauth",
  "ERR_DB_TIMEOUT",
  "a-b",
  "数据",
  "oath ledgers",
);

/** What a shard answers for a query with every term widened, by snapshot id; scores to 1e-9. */
function answers(shard: Shard, query: string) {
  const avgFieldLength = shard.lengthSums.map((sum) => sum / shard.size);
  const stats = { docs: shard.size, avgFieldLength };
  const acc = new Accumulator(0, shard.size);
  const reached: [string, number, number[]][] = [];
  for (const lookup of lookupsOf(query, true)) {
    for (const reach of shard.reach(lookup)) {
      const df = new Float64Array(FIELDS.length);
      shard.countFields(reach, df);
      shard.score(reach, lookup.bit, df, stats, acc);
      reached.push([reach.term, reach.weight, [...df]]);
    }
  }
  const docs = acc.touched.map((doc) => [
    shard.entry(doc)?.id,
    Math.round(acc.score(doc) * 1e9),
    acc.matched(doc),
    acc.exact(doc),
    FIELDS.map((_, f) => acc.inField(doc, f)),
  ]);
  return { reached, docs: docs.sort((a, b) => String(a[0]).localeCompare(String(b[0]))) };
}

describe("FrozenShard against HotShard", () => {
  it("answers a lookup as the hot shard holding the same snapshots does", () => {
    fc.assert(
      fc.property(corpusArb, queryArb, (snapshots: LocatedSnapshot[], query) => {
        const hot = HotShard.empty("2026-11");
        for (const s of snapshots) hot.add(s);
        const frozen = buildFrozen("2026-11", snapshots);
        expect([...frozen.lengthSums]).toEqual([...hot.lengthSums]);
        expect(answers(frozen, query)).toEqual(answers(hot, query));
      }),
      { numRuns: 100 },
    );
  });

  it("answers the same after a round trip through the codec", () => {
    fc.assert(
      fc.property(corpusArb, queryArb, (snapshots, query) => {
        const frozen = buildFrozen("2026-11", snapshots);
        const decoded = decodeShard(encodeShard(frozen, {})).shard;
        expect(decoded.parts).toEqual(frozen.parts);
        expect(answers(decoded, query)).toEqual(answers(frozen, query));
      }),
      { numRuns: 50 },
    );
  });
});

describe("FrozenShard.holding", () => {
  it("keeps of the documents asked those holding the term in any field, as the hot shard and the fields say", () => {
    fc.assert(
      fc.property(corpusArb, fc.constantFrom(...WORDS.flatMap(tokenize), "absent"), (snapshots, term) => {
        const frozen = buildFrozen("2026-11", snapshots);
        const hot = HotShard.empty("2026-11");
        for (const s of snapshots) hot.add(s);
        const idsOf = (shard: Shard, docs: Iterable<number>) =>
          [...docs].map((d) => shard.entry(d)?.id).sort();
        const all = (shard: Shard) => [...shard.documents()].map(([doc]) => doc).sort((a, b) => a - b);
        // Every other document asked: the answer holds no document that was not.
        const half = (shard: Shard) => all(shard).filter((_d, i) => i % 2 === 0);
        const holders = snapshots
          .filter(
            (s) =>
              !s.snapshot.tombstone && Object.values(fieldsOf(s)).some((f) => tokenize(f).includes(term)),
          )
          .map((s) => s.snapshot.id)
          .sort();
        expect(idsOf(frozen, frozen.holding(term, all(frozen)))).toEqual(holders);
        expect(idsOf(hot, hot.holding(term, all(hot)))).toEqual(holders);
        const asked = new Set(idsOf(frozen, half(frozen)));
        expect(idsOf(frozen, frozen.holding(term, half(frozen)))).toEqual(
          holders.filter((id) => asked.has(id)),
        );
      }),
      { numRuns: 100 },
    );
  });
});
