import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { HotShard } from "../../plugin/search/hot-shard.ts";
import { monthOf } from "../../plugin/search/shard.ts";
import { SnapshotIndex } from "../../plugin/search/snapshot-index.ts";
import { holdsSequence, isIdentifierLike, leavesOf } from "../../plugin/search/tokenize.ts";
import type { LocatedSnapshot } from "../../plugin/snapshot/snapshot.ts";
import { located, snap } from "./helpers.ts";

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

const docs = [
  located(
    snap("2026-11-20-01", {
      goal: "Stop the webhook replays",
      names: [{ label: "Error", value: "ERR_WEBHOOK_REPLAY" }],
      files: [
        { path: "src/billing/webhook.ts", note: "" },
        { path: "src/billing/replay-guard.ts", note: "" },
      ],
    }),
  ),
  located(
    snap("2026-11-21-01", {
      goal: "Raise the pool size",
      names: [{ label: "Error", value: "ERR_DB_TIMEOUTS" }],
      next: ["Check ErrDbTimeout handling in src/db/pool.ts"],
    }),
  ),
  located(
    snap("2026-11-22-01", {
      goal: "Invoice export for October",
      names: [{ label: "Invoice", value: "INV-2026-00417" }],
      files: [{ path: "src/auth/oauth-callback.ts", note: "" }],
    }),
  ),
];

describe.each([
  ["frozen", false],
  ["hot", true],
])("identifier queries (%s)", (_, hot) => {
  const index = indexOf(docs, hot);

  it("answers nothing for an identifier no snapshot holds, whatever tokens it shares", () => {
    expect(index.query("ERR_QUEUE_STALLED", { suggest: true })).toEqual({
      hits: [],
      match: "fuzzy",
      missing: ["ERR_QUEUE_STALLED"],
      prefixes: [],
      suggestions: [{ word: "ERR_QUEUE_STALLED", closest: [] }],
    });
  });

  it("answers an identifier typed as the start of longer ones with those, as a prefix match", () => {
    for (const [query, id, begun] of [
      ["ERR_WEBHOOK_REP", "2026-11-20-01", "ERR_WEBHOOK_REPLAY"],
      ["oauth-call", "2026-11-22-01", "oauth-callback"],
      ["src/billing/replay-gu", "2026-11-20-01", "src/billing/replay-guard.ts"],
    ] as const) {
      const result = index.query(query, { suggest: true });
      expect([result.match, result.missing, result.suggestions], query).toEqual(["prefix", [], []]);
      expect(
        result.hits.map((h) => [h.id, h.match]),
        query,
      ).toEqual([[id, "prefix"]]);
      expect(result.prefixes[0]?.word, query).toBe(query);
      expect(result.prefixes[0]?.completions, query).toContain(begun);
    }
  });

  it("answers a start that is another name as missing: a token's end, a number cut, one letter short", () => {
    for (const query of ["ERR_WEBHOOK", "INV-2026-004", "ERR_DB_TIMEOUT", "src/billing/webhook"]) {
      const result = index.query(query);
      expect(result.match, query).not.toBe("prefix");
      expect(result.prefixes, query).toEqual([]);
    }
    expect(index.query("INV-2026-004").missing).toEqual(["INV-2026-004"]);
    expect(index.query("ERR_WEBHOOK_REPX").missing).toEqual(["ERR_WEBHOOK_REPX"]);
  });

  it("answers nothing for a path no snapshot holds, though others in its folder exist", () => {
    expect(index.query("src/billing/refund-export.ts").hits).toEqual([]);
    expect(index.query("src/billing/refund-export.ts").missing).toEqual(["src/billing/refund-export.ts"]);
  });

  it("finds an identifier written another way, or inside a longer one, as its own run of tokens", () => {
    expect(index.query("ERR_DB_TIMEOUT").hits.map((h) => [h.id, h.match])).toEqual([
      ["2026-11-21-01", "exact"],
    ]);
    expect(index.query("oauth-callback.ts").hits.map((h) => h.id)).toEqual(["2026-11-22-01"]);
    expect(index.query("auth/oauth-callback").hits.map((h) => h.id)).toEqual(["2026-11-22-01"]);
  });

  it("says fuzzy when only a near identifier matches, and suggests the closest ones when nothing does", () => {
    const near = index.query("ERR_WEBHOOK_REPLAYS");
    expect(near.hits.map((h) => [h.id, h.match])).toEqual([["2026-11-20-01", "fuzzy"]]);
    expect(near.match).toBe("fuzzy");
    expect(index.query("ERR_WEBHOOK_RETRIES_EXHAUSTED", { suggest: true }).suggestions).toEqual([
      { word: "ERR_WEBHOOK_RETRIES_EXHAUSTED", closest: ["ERR_WEBHOOK_REPLAY"] },
    ]);
  });

  it("needs every identifier of the query, while plain words only rank", () => {
    expect(index.query("webhook INV-2026-00417").hits.map((h) => h.id)).toEqual(["2026-11-22-01"]);
    expect(index.query("pool size invoice").hits.map((h) => h.id)).toContain("2026-11-21-01");
  });
});

describe("identifier hits hold the identifier", () => {
  const parts = ["err", "db", "timeout", "queue", "stalled", "webhook", "replay"];
  const idArb = fc
    .array(fc.constantFrom(...parts), { minLength: 2, maxLength: 3 })
    .chain((ps) => fc.constantFrom("_", "-", ".").map((sep) => ps.join(sep).toUpperCase()));
  // A snapshot holding the identifier written another way is found when none holds it as typed (the
  // leaves are only looked up then: they are common, and looking them up always would cost every query).
  it("returns, for an identifier some snapshot holds, only snapshots that hold it", () => {
    fc.assert(
      fc.property(fc.array(idArb, { minLength: 1, maxLength: 8 }), idArb, (values, query) => {
        const corpus = values.map((value, i) =>
          located(
            snap(`2026-11-${String(10 + (i % 18)).padStart(2, "0")}-0${(i % 9) + 1}`, {
              names: [{ label: "Error", value }],
            }),
            i + 1,
          ),
        );
        const result = indexOf(corpus).query(query, { limit: 50 });
        if (result.match === "exact") {
          for (const hit of result.hits) {
            const doc = corpus.find((c) => c.snapshot.id === hit.id && c.line === hit.line);
            expect(holdsSequence(doc?.snapshot.names[0]?.value ?? "", leavesOf(query))).toBe(true);
          }
        }
        const holders = corpus.filter((c) =>
          holdsSequence(c.snapshot.names[0]?.value ?? "", leavesOf(query)),
        );
        expect(result.match).toBe(holders.length > 0 ? "exact" : "fuzzy");
        if (result.match === "exact") expect(result.hits.length).toBeGreaterThan(0);
      }),
      { numRuns: 200 },
    );
  });
});

describe("isIdentifierLike", () => {
  it("takes connectors, digits and inner capitals as identifiers, and plain words as words", () => {
    expect(
      [
        "ERR_DB_TIMEOUT",
        "src/a.ts",
        "v2",
        "parseDailyLog",
        "HTTPServer",
        "a:b",
        "timeout",
        "Deploy",
        "README",
      ].map(isIdentifierLike),
    ).toEqual([true, true, true, true, true, true, false, false, false]);
  });
});

describe("holdsSequence", () => {
  it("finds a run of tokens inside a word, whole tokens only", () => {
    expect(holdsSequence("see src/auth/oauth-callback.ts today", ["oauth", "callback", "ts"])).toBe(true);
    expect(holdsSequence("ERR_DB_TIMEOUTS", ["err", "db", "timeout"])).toBe(false);
    expect(holdsSequence("ERR_DB_TIMEOUT_MS", ["err", "db", "timeout"])).toBe(false);
    expect(holdsSequence("ErrDbTimeout", ["err", "db"])).toBe(false);
    expect(holdsSequence("db.users.archive", ["db", "users"])).toBe(false);
    expect(holdsSequence("ERR-DB-TIMEOUT", ["err", "db", "timeout"])).toBe(true);
    expect(holdsSequence("src/auth/oauth-callback.ts", ["auth", "oauth", "callback", "ts"])).toBe(true);
    expect(holdsSequence("err db timeout", ["err", "db", "timeout"])).toBe(false);
  });
});
