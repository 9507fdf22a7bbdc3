import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QueryResult, SearchHit, SnapshotRef } from "../../plugin/session/history.ts";
import { History, scanFirst, searchAnswer, searchedTerms } from "../../plugin/session/history-index.ts";
import { deleteCheckpoint, saveSnapshot } from "../../plugin/session/maintenance.ts";
import { emptyContent } from "../../plugin/snapshot/sections.ts";

const NOW = new Date("2026-11-25T09:00:00Z");
let ws: string;
let opened: History[];
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "big-memory-history-"));
  await mkdir(join(ws, "memory"));
  opened = [];
});
afterEach(async () => {
  for (const h of opened) await h.close();
  await rm(ws, { recursive: true, force: true });
});

const save = (goal: string, over: { name?: string; session?: string; at?: Date } = {}) =>
  saveSnapshot({
    workspaceDir: ws,
    content: { ...emptyContent(), goal },
    meta: { trigger: "manual", session: over.session ?? "agent:main:main", name: over.name ?? null },
    now: over.at ?? NOW,
    timeZone: "UTC",
  });

async function open(entriesOnly = false): Promise<{ history: History; warnings: string[] }> {
  const warnings: string[] = [];
  const history = await History.open(ws, { entriesOnly, warn: (m) => warnings.push(m) });
  opened.push(history);
  await history.ready();
  return { history, warnings };
}

describe("History over the search index", () => {
  it("lists newest first with one more than asked, and shows by id, name and location", async () => {
    await save("Fix ERR_DUPLICATE_KEY in the OAuth callback", { name: "oauth-fix" });
    await save("Write the migration");
    await save("Re-run the login e2e", { session: "agent:main:other" });
    const { history } = await open(true);
    const listing = { dir: ws, limit: 1, all: false };
    expect(history.list(listing).map((r) => r.id)).toEqual(["2026-11-25-03", "2026-11-25-02"]);
    expect(history.list({ ...listing, limit: 5, session: "agent:main:other" }).map((r) => r.id)).toEqual([
      "2026-11-25-03",
    ]);
    expect((await history.show("2026-11-25-02")).found?.snapshot.goal).toBe("Write the migration");
    expect((await history.show("oauth-fix")).found?.snapshot.id).toBe("2026-11-25-01");
    const first = history.list({ ...listing, limit: 5 }).at(-1) as SnapshotRef;
    expect((await history.show(`${first.file}:${first.line}`)).found?.snapshot.id).toBe("2026-11-25-01");
    expect((await history.show("no-such-name")).found).toBeNull();
    expect((await history.recall({ session: "agent:main:main" }))?.snapshot.id).toBe("2026-11-25-02");
    expect(history.diagnostics()).toEqual([]);
    expect(history.unreadable()).toEqual([]);
  });

  it("gives the live refs newest first, without a deleted name, and the index's hits as ranked", async () => {
    await save("Fix ERR_DUPLICATE_KEY in the OAuth callback", { name: "oauth-fix" });
    await save("Write the migration");
    await deleteCheckpoint({ workspaceDir: ws, name: "oauth-fix", session: null, now: NOW });
    const { history } = await open();
    expect(history.liveRefs().map((r) => r.id)).toEqual(["2026-11-25-02"]);
    expect(history.refs().map((r) => [r.id, r.tombstone])).toEqual([
      ["2026-11-25-03", true],
      ["2026-11-25-02", false],
      ["2026-11-25-01", false],
    ]);
    const found = history.find("ERR_DUPLICATE_KEY", { limit: 5 });
    expect([found.match, found.hits.map((h) => h.id)]).toEqual(["exact", ["2026-11-25-01"]]);
  });

  it("counts the status of every snapshot and the logs read", async () => {
    await save("Fix the OAuth callback");
    await save("Write the migration", { session: "agent:main:other" });
    const { history } = await open(true);
    const status = await history.status();
    expect(status.tally.snapshots).toBe(2);
    expect(status.tally.verified).toBe(2);
    expect(Object.keys(status.tally.sessions).sort()).toEqual(["agent:main:main", "agent:main:other"]);
    expect(status.files).toBe(1);
    expect(status.bytes).toBeGreaterThan(0);
  });

  it("searches as typed, and answers the closest matches for an identifier no snapshot holds", async () => {
    await save("Fix ERR_DUPLICATE_KEY in the OAuth callback");
    await save("Write the migration for the devices table");
    const { history } = await open();
    const exact = await history.search("ERR_DUPLICATE_KEY", { limit: 5, filter: {} });
    expect(exact).toMatchObject({ match: "exact", missing: [], fuzzy: [], more: false });
    expect(exact.hits.map((h) => h.id)).toEqual(["2026-11-25-01"]);
    const typo = await history.search("ERR_DUPLICATE_KY", { limit: 5, filter: {} });
    expect(typo.hits).toEqual([]);
    expect(typo.missing).toEqual(["ERR_DUPLICATE_KY"]);
    expect(typo.suggestions.flatMap((s) => s.closest)).toContain("ERR_DUPLICATE_KEY");
    expect(typo.fuzzy.map((h) => [h.id, h.match])).toEqual([["2026-11-25-01", "fuzzy"]]);
    const none = await history.search("migration", { limit: 5, filter: { session: "agent:main:nobody" } });
    expect([none.hits, none.fuzzy]).toEqual([[], []]);
  });

  it("tells more when more hits were found than the limit", async () => {
    for (const n of [1, 2, 3]) await save(`Migration step ${n} for the devices table`);
    const { history } = await open();
    const found = await history.search("migration", { limit: 2, filter: {} });
    expect([found.hits.length, found.more]).toEqual([2, true]);
  });

  it("rebuilds every month from the logs", async () => {
    await save("Fix the OAuth callback");
    await save("Ship it", { at: new Date("2026-10-02T09:00:00Z") });
    const { history } = await open(true);
    const report = await history.reindex();
    expect([report.snapshots, report.logs, report.months]).toEqual([2, 2, 2]);
  });
});

describe("searchedTerms", () => {
  it("counts the words searched: none for punctuation and common words", () => {
    expect(searchedTerms("the ... of")).toBe(0);
    expect(searchedTerms("OAuth callback")).toBeGreaterThan(0);
  });
});

describe("scanFirst", () => {
  it("reads the logs for a first answer only when no index exists and they reach the threshold", async () => {
    await save("Fix ERR_DUPLICATE_KEY in the OAuth callback");
    const started: string[] = [];
    const options = {
      limit: 5,
      filter: {},
      onStart: () => void started.push("start"),
      onProgress: (done: number, of: number) => void started.push(`${done}/${of}`),
    };
    expect(await scanFirst(ws, "ERR_DUPLICATE_KEY", { ...options, threshold: 1e9 })).toBeNull();
    expect(started).toEqual([]);
    const scan = await scanFirst(ws, "ERR_DUPLICATE_KEY", { ...options, threshold: 0 });
    expect(scan?.hits.map((h) => h.id)).toEqual(["2026-11-25-01"]);
    expect([scan?.logs, scan?.parsed]).toEqual([1, 1]);
    expect(started).toEqual(["start", "1/1"]);
    const { history } = await open();
    await history.reindex();
    await history.close();
    opened.pop();
    expect(await scanFirst(ws, "ERR_DUPLICATE_KEY", { ...options, threshold: 0 })).toBeNull();
  });
});

describe("searchAnswer", () => {
  it("keeps the hits of an exact match and tells the closest matches of a fuzzy one apart", async () => {
    const hit: SearchHit = {
      id: "2026-11-25-01",
      file: "memory/2026-11-25.md",
      line: 5,
      timestamp: "2026-11-25T09:00:00+00:00",
      session: null,
      agent: null,
      name: null,
      goal: "Fix ERR_X",
      trigger: null,
      verified: null,
      score: 1,
      snippet: "Fix ERR_X",
      field: "goal",
      match: "exact",
    };
    const exact: QueryResult = {
      hits: [hit, hit],
      match: "exact",
      missing: [],
      prefixes: [],
      suggestions: [],
    };
    expect(await searchAnswer("ERR_X", exact, 1)).toMatchObject({ hits: [hit], fuzzy: [], more: true });
    const fuzzy: QueryResult = {
      hits: [],
      match: "fuzzy",
      missing: ["ERR_Y"],
      prefixes: [],
      suggestions: [],
    };
    expect(await searchAnswer("ERR_Y", fuzzy, 1)).toMatchObject({ hits: [], fuzzy: [], more: false });
    // Every identifier exists, but never together: the result's own hits are the closest matches.
    const apart: QueryResult = { hits: [hit], match: "fuzzy", missing: [], prefixes: [], suggestions: [] };
    const near = await searchAnswer("ERR_X ERR_Z", apart, 1);
    expect([near.hits, near.fuzzy.map((h) => [h.id, h.match])]).toEqual([[], [["2026-11-25-01", "fuzzy"]]]);
    // An identifier typed as the start of longer ones: the hits that hold them, marked as prefix matches.
    const prefixes = [{ word: "ERR_", completions: ["ERR_X"] }];
    const started: QueryResult = { hits: [hit], match: "prefix", missing: [], prefixes, suggestions: [] };
    const begun = await searchAnswer("ERR_", started, 1);
    expect([begun.hits, begun.fuzzy.map((h) => [h.id, h.match]), begun.prefixes]).toEqual([
      [],
      [["2026-11-25-01", "prefix"]],
      prefixes,
    ]);
  });
});
