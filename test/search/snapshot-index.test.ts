import fc from "fast-check";
import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { encodeShard } from "../../plugin/search/codec.ts";
import { FIELD_BOOSTS, FIELDS, fieldsOf, type IndexDocument } from "../../plugin/search/document.ts";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { HotShard, MINISEARCH_OPTIONS } from "../../plugin/search/hot-shard.ts";
import { indexDir, loadShardFile, writeShardFile } from "../../plugin/search/persist.ts";
import { TextCache } from "../../plugin/search/saved-texts.ts";
import { monthOf } from "../../plugin/search/shard.ts";
import { SnapshotIndex } from "../../plugin/search/snapshot-index.ts";
import { tokenize } from "../../plugin/search/tokenize.ts";
import type { LocatedSnapshot, Snapshot } from "../../plugin/snapshot/snapshot.ts";
import { located, snap, tempWorkspace } from "./helpers.ts";

/** An index of `snapshots`, one frozen shard per month (or hot ones). */
function indexOf(snapshots: readonly LocatedSnapshot[], hot = false): SnapshotIndex {
  const index = new SnapshotIndex();
  const byMonth = new Map<string, LocatedSnapshot[]>();
  for (const s of snapshots) byMonth.set(monthOf(s.file), [...(byMonth.get(monthOf(s.file)) ?? []), s]);
  for (const [month, list] of byMonth) {
    const frozen = buildFrozen(month, list);
    index.setShard(hot ? HotShard.thaw(frozen) : frozen);
  }
  return index;
}

const ids = (index: SnapshotIndex, query: string, options = {}) =>
  index.search(query, options).map((h) => h.id);

describe("SnapshotIndex.search", () => {
  const docs = [
    snap("2026-11-20-01", {
      goal: "Stop the upsert from failing",
      names: [{ label: "Error code", value: "ERR_DUPLICATE_KEY" }],
    }),
    snap("2026-11-20-02", {
      goal: "Write ADR-016 about retries",
      files: [{ path: "docs/adr/ADR-016.md", note: "" }],
    }),
    snap("2026-11-20-03", {
      goal: "Translate the checkout to pt-BR",
      names: [{ label: "Locale", value: "pt-BR" }],
    }),
    snap("2026-11-20-04", {
      goal: "Chase invoice INV-2026-00417",
      next: ["Email finance about INV-2026-00417"],
    }),
    snap("2026-11-20-05", {
      goal: "Backfill analytics.events_2026",
      code: "INSERT INTO analytics.events_2026 SELECT 1",
    }),
    snap("2026-11-20-06", {
      goal: "Fix the login redirect",
      files: [{ path: "src/auth/oauth-callback.ts", note: "" }],
    }),
    snap("2026-11-20-07", {
      goal: "Paginate POST /api/v1/users",
      decisions: [{ text: "Cursor pages", rationale: "" }],
    }),
    snap("2026-11-20-08", { goal: "修复数据库连接超时问题" }),
  ];
  const index = indexOf(docs.map((s, i) => located(s, i * 40 + 1)));

  it.each([
    ["ERR_DUPLICATE_KEY", "2026-11-20-01"],
    ["duplicate key", "2026-11-20-01"],
    ["ADR-016", "2026-11-20-02"],
    ["pt-BR", "2026-11-20-03"],
    ["INV-2026-00417", "2026-11-20-04"],
    ["00417", "2026-11-20-04"],
    ["analytics.events_2026", "2026-11-20-05"],
    ["events_2026", "2026-11-20-05"],
    ["src/auth/oauth-callback.ts", "2026-11-20-06"],
    ["oauth-callback.ts", "2026-11-20-06"],
    ["oauth callback", "2026-11-20-06"],
    ["POST /api/v1/users", "2026-11-20-07"],
    ["/api/v1/users", "2026-11-20-07"],
    ["数据库", "2026-11-20-08"],
    ["连接超时", "2026-11-20-08"],
  ])("finds %s", (query, id) => {
    expect(ids(index, query)[0]).toBe(id);
  });

  it("finds an identifier typed with a typo or only its start", () => {
    expect(ids(index, "oauth-calback")[0]).toBe("2026-11-20-06");
    expect(ids(index, "ERR_DUPLICATE_KYE")[0]).toBe("2026-11-20-01");
    expect(ids(index, "analytics.eve")[0]).toBe("2026-11-20-05");
  });

  it("ranks an exact match above a typo match", () => {
    const both = indexOf([
      located(snap("2026-11-20-01", { goal: "retry the callback" })),
      located(snap("2026-11-21-01", { goal: "retry the calback" })),
    ]);
    expect(ids(both, "callback")).toEqual(["2026-11-20-01", "2026-11-21-01"]);
    expect(ids(both, "calback")).toEqual(["2026-11-21-01", "2026-11-20-01"]);
  });

  it("ranks an exact match above a prefix match", () => {
    const both = indexOf([
      located(snap("2026-11-20-01", { goal: "tune the shards" })),
      located(snap("2026-11-21-01", { goal: "tune the shard" })),
    ]);
    expect(ids(both, "shard")).toEqual(["2026-11-21-01", "2026-11-20-01"]);
  });

  it("gives a tie to the most recent snapshot, within a month and across months", () => {
    const goal = "Rotate the signing keys";
    const same = indexOf([
      located(snap("2026-10-30-01", { goal })),
      located(snap("2026-11-02-01", { goal })),
      located(snap("2026-11-01-01", { goal })),
    ]);
    expect(ids(same, "signing keys")).toEqual(["2026-11-02-01", "2026-11-01-01", "2026-10-30-01"]);
  });

  it("counts the goal, key names and files more than the next steps", () => {
    const two = indexOf([
      located(snap("2026-11-21-01", { goal: "misc", next: ["look at the ledger"] })),
      located(snap("2026-11-20-01", { goal: "Reconcile the ledger" })),
    ]);
    expect(ids(two, "ledger")).toEqual(["2026-11-20-01", "2026-11-21-01"]);
  });

  it("prefers the words of a phrase together on one line over the same words scattered", () => {
    const two = indexOf([
      located(snap("2026-11-21-01", { goal: "rotate keys", next: ["check the vault", "ask about staging"] })),
      located(snap("2026-11-20-01", { goal: "misc", next: ["rotate staging vault keys"] })),
    ]);
    expect(ids(two, "rotate staging vault keys")).toEqual(["2026-11-20-01", "2026-11-21-01"]);
  });

  it("reports the line that matched", () => {
    const [hit] = index.search("INV-2026-00417 finance");
    expect(hit?.snippet).toBe("Email finance about INV-2026-00417");
    expect(hit?.field).toBe("next");
    const [name] = index.search("ERR_DUPLICATE_KEY");
    expect(name?.snippet).toBe("Error code: ERR_DUPLICATE_KEY");
  });

  it("never returns a tombstone, and returns nothing for a query of stop words", () => {
    const withTombstone = indexOf([
      located(snap("2026-11-20-01", { tombstone: true, name: "old-work", goal: "x" })),
    ]);
    expect(ids(withTombstone, "old-work")).toEqual([]);
    expect(ids(index, "the and of")).toEqual([]);
  });

  it("honours the limit", () => {
    expect(index.search("goal", { limit: 3 })).toHaveLength(0);
    const many = indexOf(docs.map((s, i) => located({ ...s, goal: `common ${s.goal}` }, i * 40 + 1)));
    expect(many.search("common", { limit: 3 })).toHaveLength(3);
  });
});

describe("SnapshotIndex.search filters", () => {
  const docs = [
    snap("2026-10-05-01", { goal: "deploy", session: "s1", agent: "a1", trigger: "manual", name: "rollout" }),
    snap("2026-11-05-01", { goal: "deploy", session: "s2", agent: "a1", trigger: "flush", name: null }),
    snap("2026-11-06-01", {
      goal: "deploy",
      session: "s3",
      agent: "a2",
      trigger: "compaction",
      name: "rollout",
    }),
  ];
  const index = indexOf(docs.map((s) => located(s)));

  it.each([
    [{ session: "s2" }, ["2026-11-05-01"]],
    [{ agent: "a1" }, ["2026-11-05-01", "2026-10-05-01"]],
    [{ trigger: "compaction" }, ["2026-11-06-01"]],
    [{ name: "rollout" }, ["2026-11-06-01", "2026-10-05-01"]],
    [{ from: "2026-11-01" }, ["2026-11-06-01", "2026-11-05-01"]],
    [{ to: "2026-11-05" }, ["2026-11-05-01", "2026-10-05-01"]],
    [{ from: "2026-11-05T00:00:00Z", to: "2026-11-05T23:59:59Z" }, ["2026-11-05-01"]],
    [{ agent: "a1", name: "rollout" }, ["2026-10-05-01"]],
  ])("keeps only %o", (filter, expected) => {
    expect(ids(index, "deploy", { filter })).toEqual(expected);
  });
});

describe("SnapshotIndex.latest", () => {
  const index = indexOf([
    located(snap("2026-11-20-01", { session: "s1", agent: "a1", name: "auth-work" })),
    located(snap("2026-11-21-01", { session: "s2", agent: "a1" })),
    located(snap("2026-11-22-01", { session: "s1", agent: "a2", name: "auth-work", tombstone: true })),
    located(snap("2026-10-01-01", { session: "s3", agent: "a3", name: "billing" })),
  ]);

  it("returns the newest snapshot in scope, never a tombstone", () => {
    expect(index.latest()?.id).toBe("2026-11-21-01");
    expect(index.latest({ session: "s1" })?.id).toBe("2026-11-20-01");
    expect(index.latest({ agent: "a1" })?.id).toBe("2026-11-21-01");
    expect(index.latest({ agent: "a2" })).toBeUndefined();
  });

  it("hides a name whose newest snapshot is a tombstone", () => {
    expect(index.latest({ name: "auth-work" })).toBeUndefined();
    expect(index.latest({ name: "billing" })?.id).toBe("2026-10-01-01");
  });
});

describe("SnapshotIndex file changes", () => {
  it("replaces a log's snapshots, thawing its month, and drops a month left empty", () => {
    const index = indexOf([
      located(snap("2026-11-20-01", { goal: "alpha" })),
      located(snap("2026-10-20-01")),
    ]);
    index.replaceFile("memory/2026-11-20.md", [located(snap("2026-11-20-01", { goal: "beta" }))]);
    expect(ids(index, "alpha")).toEqual([]);
    expect(ids(index, "beta")).toEqual(["2026-11-20-01"]);
    expect(index.shard("2026-11")).toBeInstanceOf(HotShard);
    index.replaceFile("memory/2026-11-20.md", []);
    expect(index.months()).toEqual(["2026-10"]);
  });

  it("finds the same snapshots before and after freezing a hot month", () => {
    const index = indexOf([located(snap("2026-11-20-01", { goal: "alpha beta" }))], true);
    index.replaceFile("memory/2026-11-21.md", [located(snap("2026-11-21-01", { goal: "alpha gamma" }))]);
    const before = index.search("alpha gamma");
    index.freeze("2026-11");
    expect(index.search("alpha gamma")).toEqual(before);
  });
});

// Property tests: short words (under four letters) are never widened by prefix or typo, so the
// expected matches are exactly the snapshots holding a query word.
const WORDS = ["ash", "bay", "cod", "dew", "elm", "fig", "gum", "hay", "ivy", "jam"];
const wordsArb = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 5 }).map((w) => w.join(" "));
const snapshotArb = fc
  .record({
    day: fc.integer({ min: 0, max: 59 }),
    goal: wordsArb,
    next: fc.array(wordsArb, { maxLength: 2 }),
    value: wordsArb,
    path: fc.constantFrom("src/ash.ts", "lib/bay-cod.go", ""),
    session: fc.constantFrom("s1", "s2"),
    tombstone: fc.boolean().map((b) => b && Math.random() < 0.1),
  })
  .map((r) => r);
const corpusArb = fc.array(snapshotArb, { minLength: 1, maxLength: 25 }).map((rows) =>
  rows.map((r, i): LocatedSnapshot => {
    const date = new Date(Date.UTC(2026, 9, 1) + r.day * 86_400_000).toISOString().slice(0, 10);
    const s: Snapshot = snap(`${date}-${String(i + 1).padStart(2, "0")}`, {
      goal: r.goal,
      next: r.next,
      names: r.value === "" ? [] : [{ label: "Value", value: r.value }],
      files: r.path === "" ? [] : [{ path: r.path, note: "" }],
      session: r.session,
      tombstone: r.tombstone,
    });
    return located(s, i * 50 + 1);
  }),
);
const queryArb = fc
  .array(fc.constantFrom(...WORDS, "oak"), { minLength: 1, maxLength: 3 })
  .map((w) => w.join(" "));

/** Per document, the sum over query terms of minisearch's own score in one index of everything. */
function minisearchScores(corpus: readonly LocatedSnapshot[], query: string): Map<string, number> {
  const scores = new Map<string, number>();
  const ms = new MiniSearch<IndexDocument>(MINISEARCH_OPTIONS);
  const empty = Object.fromEntries(FIELDS.map((f) => [f, ""])) as Record<(typeof FIELDS)[number], string>;
  corpus.forEach((s, key) => {
    ms.add({ key, ...(s.snapshot.tombstone ? empty : fieldsOf(s)) });
  });
  for (const term of new Set(tokenize(query))) {
    for (const r of ms.search(term, { boost: FIELD_BOOSTS })) {
      const id = (corpus[r.id as number] as LocatedSnapshot).snapshot.id;
      scores.set(id, (scores.get(id) ?? 0) + r.score);
    }
  }
  return scores;
}

describe("SnapshotIndex and the files of saved months", () => {
  it("thaws a month whose texts are read from its file into entries of its own, and closes the file", async () => {
    const ws = await tempWorkspace();
    try {
      const dir = indexDir(ws.dir);
      const first = located(snap("2026-11-20-01", { files: [{ path: "src/first/only.ts", note: "" }] }));
      await writeShardFile(dir, "2026-11", encodeShard(buildFrozen("2026-11", [first]), {}));
      const load = await loadShardFile(dir, "2026-11", new TextCache());
      const index = new SnapshotIndex();
      if (load.kind === "loaded") index.setShard(load.file.shard);
      const second = located(snap("2026-11-21-01", { goal: "second goal" }));
      index.replaceFile("memory/2026-11-21.md", [second]);
      expect(index.search("src/first/only.ts").map((h) => [h.id, h.field])).toEqual([
        ["2026-11-20-01", "files"],
      ]);
      index.close();
    } finally {
      await ws.cleanup();
    }
  });
});

describe("SnapshotIndex against a linear scan", () => {
  it.each([
    ["frozen", false],
    ["hot", true],
  ])(
    "finds exactly the snapshots holding a query word, scored as one minisearch index scores them (%s)",
    (_, hot) => {
      fc.assert(
        fc.property(corpusArb, queryArb, fc.constantFrom(undefined, "s1"), (corpus, query, session) => {
          const index = indexOf(corpus, hot);
          const filter = session === undefined ? {} : { session };
          const hits = index.search(query, { limit: corpus.length, filter, floor: false });
          const floored = index.search(query, { limit: corpus.length, filter });
          // The relevance floor only cuts the tail: what it keeps comes first, in the same order.
          expect(floored.map((h) => h.id)).toEqual(hits.slice(0, floored.length).map((h) => h.id));
          const queryWords = new Set(tokenize(query));
          const expected = corpus.filter((s) => {
            if (s.snapshot.tombstone || (session !== undefined && s.snapshot.session !== session))
              return false;
            const indexed = new Set(Object.values(fieldsOf(s)).flatMap((text) => tokenize(text)));
            return [...queryWords].some((w) => indexed.has(w));
          });
          expect(hits.map((h) => h.id).sort()).toEqual(expected.map((s) => s.snapshot.id).sort());
          const reference = minisearchScores(corpus, query);
          for (const hit of hits) expect(hit.score).toBeCloseTo(reference.get(hit.id) ?? Number.NaN, 9);
        }),
        { numRuns: 150 },
      );
    },
  );

  it("gives the same hits from frozen and hot shards, typos and prefixes included", () => {
    const long = [
      "ledger",
      "ledgers",
      "leger",
      "oauth",
      "oath",
      "callback",
      "calback",
      "reconcile",
      "reconciled",
    ];
    const longWords = fc.array(fc.constantFrom(...long), { maxLength: 4 }).map((w) => w.join(" "));
    const corpus = fc
      .array(longWords, { minLength: 1, maxLength: 15 })
      .map((goals) =>
        goals.map((goal, i) =>
          located(snap(`2026-11-${String((i % 28) + 1).padStart(2, "0")}-0${(i % 9) + 1}`, { goal }), i + 1),
        ),
      );
    fc.assert(
      fc.property(corpus, fc.constantFrom(...long, "reco", "ledg", "oauth calback"), (docs, query) => {
        const strip = (h: { id: string; score: number }[]) => h.map((x) => [x.id, Math.round(x.score * 1e6)]);
        expect(strip(indexOf(docs, true).search(query))).toEqual(strip(indexOf(docs, false).search(query)));
      }),
      { numRuns: 150 },
    );
  });
});
