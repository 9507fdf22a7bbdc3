import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { FtsIndex } from "../../plugin/search/fts-index.ts";
import { sealedDocument } from "../../plugin/search/fts-service.ts";
import { FtsShard } from "../../plugin/search/fts-shard.ts";
import { FtsStore } from "../../plugin/search/fts-store.ts";
import { HotShard } from "../../plugin/search/hot-shard.ts";
import { monthOf, newerFirst } from "../../plugin/search/shard.ts";
import { SnapshotIndex } from "../../plugin/search/snapshot-index.ts";
import type { LocatedSnapshot } from "../../plugin/snapshot/snapshot.ts";
import { located, snap, tempWorkspace } from "./helpers.ts";

const DOCS: LocatedSnapshot[] = [
  snap("2026-10-20-01", {
    goal: "Stop the upsert from failing",
    names: [{ label: "Error code", value: "ERR_DUPLICATE_KEY" }],
  }),
  snap("2026-10-20-02", {
    goal: "Write ADR-016 about retries",
    files: [{ path: "docs/adr/ADR-016.md", note: "" }],
  }),
  snap("2026-10-21-01", {
    goal: "Raise ERR_DB_TIMEOUT_MS for slow replicas",
    next: ["Tune the pool timeout"],
  }),
  snap("2026-11-02-01", {
    goal: "Wire the OAuth callback",
    files: [{ path: "src/auth/oauth-callback.ts", note: "" }],
    code: "export function parseDailyLog(text) {}",
  }),
  snap("2026-11-03-01", {
    goal: "Chase invoice INV-2026-00417",
    next: ["Email finance about INV-2026-00417"],
  }),
  snap("2026-11-04-01", {
    goal: "Deploy the retries to staging",
    blockers: ["staging deploy waits on ADR-016"],
  }),
  snap("2026-11-05-01", {
    goal: "Translate the checkout to pt-BR",
    names: [{ label: "Locale", value: "pt-BR" }],
  }),
].map((s) => located(s));

const QUERIES = [
  "ERR_DUPLICATE_KEY",
  "ADR-016",
  "retries staging",
  "upsert failing",
  "oauth-callback.ts",
  "src/auth/oauth-callback.ts",
  "parseDailyLog",
  "INV-2026-00417",
  "timeout",
  "deploy",
  "pt-BR checkout",
  "ERR_DB_TIMEOUT",
  "replcas",
  "invoce",
];

const byMonth = (docs: readonly LocatedSnapshot[]) => {
  const out = new Map<string, LocatedSnapshot[]>();
  for (const d of docs) out.set(monthOf(d.file), [...(out.get(monthOf(d.file)) ?? []), d]);
  return out;
};

describe("FtsIndex", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let store: FtsStore;
  let fts: FtsIndex;
  const frozen = new SnapshotIndex();
  beforeAll(async () => {
    ws = await tempWorkspace();
    store = FtsStore.open(join(ws.dir, "idx"));
    for (const [month, list] of byMonth(DOCS)) {
      const documents = list.map(sealedDocument).sort((a, b) => newerFirst(a.entry, b.entry));
      store.putMonth(month, documents, []);
      frozen.setShard(buildFrozen(month, list));
    }
    fts = new FtsIndex(new FtsShard(store));
  });
  afterAll(async () => {
    store.close();
    await ws.cleanup();
  });

  it("answers every query with the hits, scores and match of the frozen shards", () => {
    for (const query of QUERIES) {
      const ours = fts.query(query);
      const theirs = frozen.query(query);
      expect(
        ours.hits.map((h) => h.id),
        query,
      ).toEqual(theirs.hits.map((h) => h.id));
      expect(ours.match, query).toBe(theirs.match);
      ours.hits.forEach((h, i) => {
        expect(h.score, query).toBeCloseTo(theirs.hits[i]?.score ?? Number.NaN, 9);
        expect(h.snippet, query).toBe(theirs.hits[i]?.snippet);
      });
    }
  });

  it("answers the start of an identifier (cut inside a token) as a prefix match, with what it begins", () => {
    for (const [query, id, completion] of [
      ["ERR_DUP", "2026-10-20-01", "err_duplicate_key"],
      ["ERR_DUPLICAT", "2026-10-20-01", "err_duplicate_key"],
      ["oauth-call", "2026-11-02-01", "oauth-callback"],
      ["parseDai", "2026-11-02-01", "parsedailylog"],
    ] as const) {
      const result = fts.query(query);
      expect(result.match, query).toBe("prefix");
      expect(result.missing, query).toEqual([]);
      expect(result.hits[0]?.id, query).toBe(id);
      expect(result.hits[0]?.match, query).toBe("prefix");
      expect(result.prefixes[0]?.completions, query).toContain(completion);
    }
  });

  it("still reports an identifier typed whole that no snapshot holds, with the closest ones", () => {
    const typo = fts.query("ERR_DUPLICATE_KY", { suggest: true });
    expect(typo.match).toBe("fuzzy");
    expect(typo.missing).toEqual(["ERR_DUPLICATE_KY"]);
    expect(typo.suggestions).toEqual([{ word: "ERR_DUPLICATE_KY", closest: ["ERR_DUPLICATE_KEY"] }]);
    // A whole identifier that only begins another one, at a token boundary, is another name.
    const shorter = fts.query("ERR_DB_TIMEOUT");
    expect(shorter.match).toBe("fuzzy");
    expect(shorter.missing).toEqual(["ERR_DB_TIMEOUT"]);
    expect(fts.query("ERR_NOT_THERE_AT_ALL").hits).toEqual([]);
  });

  it("walks typos over the sealed terms that share the word's first character", () => {
    const vocabulary = new FtsShard(store).vocabulary();
    for (const word of ["replcas", "invoce", "e", "zz", ""]) {
      expect(fts.sealedTermsNear(word), word).toEqual(
        vocabulary.filter((t) => word !== "" && t.charCodeAt(0) === word.charCodeAt(0)),
      );
    }
    expect(fts.sealedTermsNear("replcas")).toContain("replicas");
  });

  it("searches a hot month beside the sealed ones", () => {
    const hot = HotShard.empty("2026-12");
    hot.replaceFile("memory/2026-12-01.md", [
      located(snap("2026-12-01-01", { goal: "Retry ERR_DUPLICATE_KEY upserts" })),
    ]);
    fts.setHot(hot);
    expect(fts.size).toBe(DOCS.length + 1);
    expect(fts.query("ERR_DUPLICATE_KEY").hits.map((h) => h.id)).toEqual(["2026-12-01-01", "2026-10-20-01"]);
    expect(fts.completions("err_dup")).toEqual(["err_duplicate_key"]);
    expect(fts.query("ERR_DUPLICATE_KEY", { filter: { from: "2026-12-01" } }).hits.map((h) => h.id)).toEqual([
      "2026-12-01-01",
    ]);
    fts.dropHot("2026-12");
    expect(fts.size).toBe(DOCS.length);
  });
});
