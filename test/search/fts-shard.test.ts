import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIELD_BOOSTS, FIELDS } from "../../plugin/search/document.ts";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { candidateTiers, candidateWords, UNRANKED } from "../../plugin/search/fts-candidates.ts";
import { LazyEntry } from "../../plugin/search/fts-entry.ts";
import { sealedDocument } from "../../plugin/search/fts-service.ts";
import { FtsShard, firstUnitRange, SEALED } from "../../plugin/search/fts-shard.ts";
import { FtsStore } from "../../plugin/search/fts-store.ts";
import { Accumulator } from "../../plugin/search/scoring.ts";
import { newerFirst } from "../../plugin/search/shard.ts";
import { sequenceScreen } from "../../plugin/search/tokenize.ts";
import { located, lookupsOf, snap, tempWorkspace } from "./helpers.ts";

const DOCS = [
  snap("2026-11-20-01", { goal: "Fix ERR_DUPLICATE_KEY in the upsert", next: ["retry the upsert"] }),
  snap("2026-11-20-02", { goal: "Deploy the upsert fix", files: [{ path: "src/db/upsert.ts", note: "" }] }),
  snap("2026-11-21-01", {
    goal: "Document ERR_DUPLICATE_KEY",
    names: [{ label: "Code", value: "ERR_DUPLICATE_KEY" }],
  }),
  snap("2026-11-21-02", { goal: "gone", tombstone: true, name: "old-checkpoint" }),
].map((s) => located(s));

describe("FtsShard", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let store: FtsStore;
  let shard: FtsShard;
  const frozen = buildFrozen("2026-11", DOCS);
  beforeAll(async () => {
    ws = await tempWorkspace();
    store = FtsStore.open(join(ws.dir, "idx"));
    store.putMonth(
      "2026-11",
      DOCS.map(sealedDocument).sort((a, b) => newerFirst(a.entry, b.entry)),
      [],
    );
    shard = new FtsShard(store);
  });
  afterAll(async () => {
    store.close();
    await ws.cleanup();
  });

  it("holds the entries and field lengths of the frozen shard, in the same document order", () => {
    expect(shard.month).toBe(SEALED);
    expect(shard.size).toBe(frozen.size);
    expect([...shard.lengthSums]).toEqual([...frozen.lengthSums]);
    for (let doc = 0; doc < frozen.size; doc++) {
      const entry = shard.entry(doc);
      if (!(entry instanceof LazyEntry)) throw new Error(`document ${doc}: no entry read lazily`);
      expect(entry.full).toEqual(frozen.entry(doc));
      expect(entry.tombstone).toBe(frozen.entry(doc)?.tombstone);
    }
    expect([...shard.documents()].map(([doc, e]) => [doc, e.id])).toEqual(
      [...frozen.documents()].map(([doc, e]) => [doc, e.id]),
    );
    expect(shard.entry(99)).toBeUndefined();
  });

  it("names candidates by tiers: every word, all but a third of the plain words, then any plain word", () => {
    const ids = (match: string) => shard.candidates(match, 10).map((doc) => shard.entry(doc)?.id);
    const [all, most, any] = candidateTiers(candidateWords("retry the upsert fix deploy", 10));
    expect(ids(all?.match ?? "")).toEqual([]);
    expect(ids(most?.match ?? "").sort()).toEqual(["2026-11-20-01", "2026-11-20-02"]);
    expect(ids(most?.probe ?? "").sort()).toEqual(["2026-11-20-01", "2026-11-20-02"]);
    expect(ids(any?.match ?? "").sort()).toEqual(["2026-11-20-01", "2026-11-20-02"]);
    // An identifier is required, whole or as all its leaves: a snapshot without it is no candidate.
    const tiers = candidateTiers(candidateWords("ERR_DUPLICATE_KEY upsert deploy", 10));
    expect(tiers.map((tier) => ids(tier.match).sort())).toEqual([[], ["2026-11-20-01"]]);
    expect(candidateTiers(candidateWords("ERR_DUPLICATE_KY", 10)).map((tier) => ids(tier.probe))).toEqual([
      [],
    ]);
  });

  it("takes every match when no more than twice the limit match, and FTS5's BM25 best when more do", () => {
    const boosts = FIELDS.map((f) => FIELD_BOOSTS[f]).join(", ");
    const ranked = (match: string, limit: number) =>
      store.db
        .prepare(
          `SELECT rowid FROM postings WHERE postings MATCH ? ORDER BY bm25(postings, ${boosts}) LIMIT ?`,
        )
        .all(match, limit)
        .map((row) => row.rowid);
    for (const match of ['"upsert"', '"err_duplicate_key"', '"upsert" OR "deploy"', '"absent"']) {
      for (const limit of [1, 2, 3, 10]) {
        const expected = ranked(match, limit);
        const found = shard.candidates(match, limit);
        expect(shard.candidates(match, limit, false), `${match} ${limit} ranked`).toEqual(expected);
        // Within twice the limit, every match in FTS5's own order; past it, the BM25 order.
        const all = ranked(match, 100);
        if (all.length <= UNRANKED * limit) expect(found.sort(), `${match} ${limit}`).toEqual(all.sort());
        else expect(found, `${match} ${limit}`).toEqual(expected);
      }
    }
  });

  it("reaches, counts and scores every lookup as the frozen shard does", () => {
    const stats = { docs: frozen.size, avgFieldLength: frozen.parts.avgFieldLength };
    for (const query of ["ERR_DUPLICATE_KEY", "upsert", "upse", "src/db/upsert.ts", "deploy fix"]) {
      shard.begin();
      for (const lookup of lookupsOf(query, true)) {
        const ours = shard.reach(lookup);
        const theirs = frozen.reach(lookup);
        expect(
          ours.map((r) => [r.term, r.weight, r.exact]),
          query,
        ).toEqual(theirs.map((r) => [r.term, r.weight, r.exact]));
        expect(shard.exactCount(lookup.term.term, 10)).toBe(frozen.exactCount(lookup.term.term, 10));
        ours.forEach((reach, i) => {
          const theirReach = theirs[i];
          if (theirReach === undefined) throw new Error(`no frozen reach for ${reach.term}`);
          const df = new Float64Array(FIELDS.length);
          const theirDf = new Float64Array(FIELDS.length);
          shard.countFields(reach, df);
          frozen.countFields(theirReach, theirDf);
          expect([...df]).toEqual([...theirDf]);
          const a = new Accumulator(0, 8);
          const b = new Accumulator(0, 8);
          shard.score(reach, 1, df, stats, a);
          frozen.score(theirReach, 1, theirDf, stats, b);
          expect([...a.touched].sort()).toEqual([...b.touched].sort());
          for (const doc of a.touched) expect(a.score(doc)).toBeCloseTo(b.score(doc), 12);
        });
      }
    }
  });

  it("screens documents for a run of leaves in one statement, as rank.ts would entry by entry", () => {
    const docs = [...shard.documents()].map(([doc]) => doc);
    for (const leaves of [["duplicate", "key"], ["upsert", "fix"], ["db", "upsert"], ["nowhere"]]) {
      const screen = sequenceScreen(leaves);
      const expected = [...shard.documents()]
        .filter(([, e]) => screen.test(e.goal) || screen.test(e.text))
        .map(([doc]) => doc);
      expect([...shard.screen(docs, screen)].sort()).toEqual(expected);
    }
    expect(shard.screen([], sequenceScreen(["upsert"])).size).toBe(0);
  });

  it("reads an identifier's leaves only for the candidates whose text holds it as a run of its leaves", () => {
    const other = FtsStore.open(join(ws.dir, "leaves"));
    try {
      const docs = [
        snap("2026-11-22-03", { goal: "Fix ErrDuplicateKey in the upsert" }),
        snap("2026-11-22-02", { goal: "A duplicate key, then an err in the upsert" }),
        snap("2026-11-22-01", { goal: "Retry the upsert" }),
      ].map((s) => sealedDocument(located(s)));
      other.putMonth("2026-11", docs, []);
      const leaves = new FtsShard(other);
      const touched = (query: string, term: string) => {
        leaves.begin(candidateWords(query, 10));
        const acc = new Accumulator(0, 8);
        const df = new Float64Array(FIELDS.length);
        const reach = { term, ref: 0, weight: 1, exact: true };
        leaves.countFields(reach, df);
        leaves.score(reach, 1, df, { docs: 3, avgFieldLength: new Float64Array(FIELDS.length).fill(3) }, acc);
        return acc.touched.map((doc) => leaves.entry(doc)?.id);
      };
      // Both hold all three leaves; the second not as a run of them.
      expect(touched("ERR_DUPLICATE_KEY", "duplicate")).toEqual(["2026-11-22-03"]);
      expect(touched("ERR_DUPLICATE_KY", "duplicate")).toEqual([]);
      // A plain word is read for every snapshot holding it.
      expect(touched("duplicate upsert", "duplicate").sort()).toEqual(["2026-11-22-02", "2026-11-22-03"]);
      // Asked again (documents asked about before answered from this query's screens), the same answer.
      const screen = sequenceScreen(["err", "duplicate"]);
      expect([...leaves.screen([0, 1], screen)]).toEqual([0]);
      expect([...leaves.screen([1, 0, 2], screen)]).toEqual([0]);
    } finally {
      other.close();
    }
  });

  it("screens folded text too: an identifier written with accents passes", () => {
    const other = FtsStore.open(join(ws.dir, "accents"));
    try {
      const accented = [located(snap("2026-11-22-01", { goal: "Fix the CAFÉ_ID lookups" }))];
      other.putMonth("2026-11", accented.map(sealedDocument), []);
      const screen = sequenceScreen(["cafe", "id"]);
      expect(screen.test("Fix the CAFÉ_ID lookups")).toBe(false);
      expect([...new FtsShard(other).screen([0], screen)]).toEqual([0]);
    } finally {
      other.close();
    }
  });

  it("lists the terms of its vocabulary by prefix, and all of them sorted", () => {
    expect(shard.termsStartingWith("err_")).toEqual(["err_duplicate_key"]);
    const vocabulary = shard.vocabulary();
    expect(vocabulary).toEqual([...frozen.parts.terms]);
  });
});

describe("FtsShard terms", () => {
  // Terms past U+D7FF sort differently as UTF-8 bytes (SQLite) and as UTF-16 code units (JavaScript).
  const words = ["café_menu", "cafe_menu", "cache_key", "zoo", "ﬁle_ok", "𠀀_axis", "𠀀_beta", "ｚ_wide"];
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let store: FtsStore;
  beforeAll(async () => {
    ws = await tempWorkspace();
    store = FtsStore.open(join(ws.dir, "idx"));
    const docs = words.map((w, i) =>
      located(snap(`2026-10-0${(i % 9) + 1}-0${i}`, { goal: `Look at ${w} upsert` })),
    );
    store.putMonth("2026-10", docs.map(sealedDocument), []);
    store.putMonth("2026-11", DOCS.map(sealedDocument), []);
  });
  afterAll(async () => {
    store.close();
    await ws.cleanup();
  });

  it("lists the terms sharing a first code unit as the whole vocabulary filtered, in the same order", () => {
    const shard = new FtsShard(store);
    const vocabulary = shard.vocabulary();
    expect(vocabulary).toEqual([...vocabulary].sort());
    for (const word of [...words, "c", "err_x", "u", "q", "\ud840", "\udc00", ""]) {
      const unit = word.charCodeAt(0);
      expect(shard.termsSharingFirst(word), word).toEqual(
        Number.isNaN(unit) ? [] : vocabulary.filter((t) => t.charCodeAt(0) === unit),
      );
    }
    expect(shard.termsSharingFirst("𠀀")).toEqual(["𠀀"]);
    // Document counts add up over the months, in all and per field.
    expect(shard.exactCount("upsert", 100)).toBe(words.length + 2);
    const df = new Float64Array(FIELDS.length);
    shard.countFields({ term: "upsert", ref: 0, weight: 1, exact: true }, df);
    expect(df[FIELDS.indexOf("goal")]).toBe(words.length + 2);
    expect(shard.termsSharingFirst("c")).toEqual(["cache", "cache_key", "cafe", "cafe_menu"]);
  });

  it("forgets a month's terms with the month", () => {
    store.dropMonth("2026-10");
    const shard = new FtsShard(store);
    expect(shard.termsSharingFirst("cafe")).toEqual([]);
    expect(shard.termsStartingWith("err_")).toEqual(["err_duplicate_key"]);
    expect(shard.termsSharingFirst("z")).toEqual([]);
    expect(shard.exactCount("upsert", 100)).toBe(2);
    expect(shard.exactCount("look", 100)).toBe(0);
  });
});

describe("firstUnitRange", () => {
  it("bounds the code points a first code unit stands for", () => {
    expect(firstUnitRange("a".charCodeAt(0))).toEqual(["a", "b"]);
    expect(firstUnitRange(0xd7ff)).toEqual(["\ud7ff", "\ue000"]);
    expect(firstUnitRange(0xffff)).toEqual(["\uffff", "\u{10000}"]);
    expect(firstUnitRange(0xd835)).toEqual(["\u{1d400}", "\u{1d800}"]);
    expect(firstUnitRange(0xdbff)).toEqual(["\u{10fc00}", undefined]);
    expect(firstUnitRange(0xdc00)).toEqual([undefined, undefined]);
    expect(firstUnitRange(Number.NaN)).toEqual([undefined, undefined]);
  });
});
