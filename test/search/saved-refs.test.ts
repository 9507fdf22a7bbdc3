import { appendFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { latestIn, latestTimeOf, SavedRefs } from "../../plugin/search/saved-refs.ts";
import { SearchService } from "../../plugin/search/search-service.ts";
import { mergeTallies, tallyOf } from "../../plugin/search/tally.ts";
import { liveNewestFirst } from "../../plugin/snapshot/lifecycle.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import {
  makeUnreadable,
  recordingLogger,
  snap,
  tempWorkspace,
  unreadableMessage,
  writeLog,
} from "./helpers.ts";

/** Opens the search service once so that every month is built and saved, then closes it. */
async function indexAll(dir: string): Promise<void> {
  const service = await SearchService.open(dir, { logger: recordingLogger(), watch: false });
  await service.ready();
  await service.close();
}

describe("SavedRefs", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
    await writeLog(ws.dir, "2026-09-10", [snap("2026-09-10-01", { name: "billing-export" })]);
    await writeLog(ws.dir, "2026-10-10", [
      snap("2026-10-10-01", { name: "billing-export", tombstone: true }),
      snap("2026-10-10-02", { session: "agent:main:other" }),
    ]);
    await writeLog(ws.dir, "2026-11-10", [snap("2026-11-10-01"), snap("2026-11-10-02")]);
    await indexAll(ws.dir);
  });
  afterEach(() => ws.cleanup());

  const ids = (refs: readonly { id: string }[]) => refs.map((r) => r.id);

  it("loads the newest months back only until the answer is certain", async () => {
    const refs = await SavedRefs.open(ws.dir);
    const seen: number[] = [];
    expect(
      await refs.loadNewest((sorted, olderThan) => {
        seen.push(olderThan);
        return sorted().length >= 2 && (sorted()[1]?.time ?? 0) > olderThan;
      }),
    ).toBe(true);
    // 2026-11 alone cannot rule out 2026-10 (its refs may lie a month past its end); 2026-09 can be left.
    expect(seen).toEqual([latestTimeOf("2026-10"), latestTimeOf("2026-09")]);
    expect(ids(refs.sorted())).toEqual(["2026-11-10-02", "2026-11-10-01", "2026-10-10-02", "2026-10-10-01"]);
  });

  it("leaves the logs of the months it does not load untouched, an unreadable one too", async () => {
    const file = "memory/2026-09-10.md";
    await makeUnreadable(ws.dir, file);
    const refs = await SavedRefs.open(ws.dir);
    expect(await refs.loadNewest((sorted, olderThan) => (sorted()[1]?.time ?? 0) > olderThan)).toBe(true);
    expect(ids(refs.sorted())).toEqual(["2026-11-10-02", "2026-11-10-01", "2026-10-10-02", "2026-10-10-01"]);
    expect(refs.diagnostics()).toEqual([]);
    expect(await refs.loadAll()).toBe(true);
    expect(refs.diagnostics()).toEqual([{ file, line: 0, message: unreadableMessage(file) }]);
  });

  it("loads every month, newest first, with their logs' records", async () => {
    const refs = await SavedRefs.open(ws.dir);
    expect(await refs.loadAll()).toBe(true);
    expect(ids(refs.sorted())).toEqual([
      "2026-11-10-02",
      "2026-11-10-01",
      "2026-10-10-02",
      "2026-10-10-01",
      "2026-09-10-01",
    ]);
    expect(refs.logs()).toMatchObject({ files: 3, redactions: {} });
    expect(refs.diagnostics()).toEqual([]);
  });

  it("loads the refs of the months whose header mentions a text, and only the records of the others", async () => {
    const refs = await SavedRefs.open(ws.dir);
    expect(await refs.loadMentioning("agent:main:other")).toBe(true);
    expect(ids(refs.sorted())).toEqual(["2026-10-10-02", "2026-10-10-01"]);
    expect(refs.logs().files).toBe(3);
  });

  it("re-reads a log changed since it was indexed, and a new log of a saved month", async () => {
    await appendFile(join(ws.dir, "memory/2026-11-10.md"), `\n${renderSnapshot(snap("2026-11-10-03"))}`);
    await writeLog(ws.dir, "2026-11-11", [snap("2026-11-11-01")]);
    const refs = await SavedRefs.open(ws.dir);
    expect(await refs.loadMentioning("2026-11-11-01")).toBe(true);
    expect(ids(refs.sorted())).toEqual(["2026-11-11-01", "2026-11-10-03", "2026-11-10-02", "2026-11-10-01"]);
  });

  it("drops the refs of a log deleted since it was indexed", async () => {
    await rm(join(ws.dir, "memory/2026-10-10.md"));
    const refs = await SavedRefs.open(ws.dir);
    expect(await refs.loadAll()).toBe(true);
    expect(ids(refs.sorted())).toEqual(["2026-11-10-02", "2026-11-10-01", "2026-09-10-01"]);
  });

  it("cannot answer when a month with blocks has no saved shard or a corrupt one", async () => {
    await writeLog(ws.dir, "2026-12-01", [snap("2026-12-01-01")]);
    expect(await (await SavedRefs.open(ws.dir)).loadAll()).toBe(false);
    await indexAll(ws.dir);
    expect(await (await SavedRefs.open(ws.dir)).loadAll()).toBe(true);
    await writeFile(join(ws.dir, ".big-memory/search/2026-12.bmx"), "not a shard");
    expect(await (await SavedRefs.open(ws.dir)).loadAll()).toBe(false);
  });

  it("answers a month whose logs hold no block (the index saves no shard for it) from the logs' bytes", async () => {
    await writeFile(join(ws.dir, "memory/2026-12-01.md"), "# notes only\n");
    const refs = await SavedRefs.open(ws.dir);
    expect(await refs.loadAll()).toBe(true);
    expect(refs.logs().files).toBe(4);
    expect(refs.sorted()).toHaveLength(5);
  });

  it("leaves out the refs of an indexed log that can no longer be read, names it, and takes it back once it can be", async () => {
    const file = "memory/2026-10-10.md";
    const mend = await makeUnreadable(ws.dir, file);
    const refs = await SavedRefs.open(ws.dir);
    expect(await refs.loadAll()).toBe(true);
    expect(ids(refs.sorted())).toEqual(["2026-11-10-02", "2026-11-10-01", "2026-09-10-01"]);
    expect(refs.diagnostics()).toEqual([{ file, line: 0, message: unreadableMessage(file) }]);
    expect(refs.logs().files).toBe(2);
    expect(await refs.getAt(file, 3)).toBeNull();
    await mend();
    const again = await SavedRefs.open(ws.dir);
    expect(await again.loadAll()).toBe(true);
    expect(again.sorted()).toHaveLength(5);
    expect(again.diagnostics()).toEqual([]);
  });

  it("answers a month with no saved shard whose one log cannot be read, naming it", async () => {
    const file = await writeLog(ws.dir, "2026-12-01", [snap("2026-12-01-01")]);
    await makeUnreadable(ws.dir, file);
    const refs = await SavedRefs.open(ws.dir);
    expect(await refs.loadAll()).toBe(true);
    expect(refs.sorted()).toHaveLength(5);
    expect(refs.diagnostics()).toEqual([{ file, line: 0, message: unreadableMessage(file) }]);
  });

  it("reads no block from a ref whose log cannot be read any more, and names the log", async () => {
    const refs = await SavedRefs.open(ws.dir);
    expect(await refs.loadAll()).toBe(true);
    const ref = refs.sorted()[0];
    if (ref === undefined) throw new Error("no ref");
    await makeUnreadable(ws.dir, ref.file);
    expect(await refs.getRef(ref)).toBeNull();
    expect(refs.diagnostics()).toEqual([{ file: ref.file, line: 0, message: unreadableMessage(ref.file) }]);
  });

  it("reads a ref's block alone, as the whole log's parse gives it", async () => {
    const refs = await SavedRefs.open(ws.dir);
    await refs.loadAll();
    for (const ref of refs.sorted())
      expect(await refs.getRef(ref)).toEqual(await refs.getAt(ref.file, ref.line));
    const first = refs.findAll("2026-11-10-01")[0];
    if (first === undefined) throw new Error("no ref");
    // A ref the block at its line does not match: the whole log decides.
    expect(await refs.getRef({ ...first, id: "2026-11-10-09" })).toEqual(
      await refs.getAt(first.file, first.line),
    );
    expect(await refs.getRef({ ...first, file: "memory/2026-11-30.md" })).toBeNull();
  });

  it("adds up the months' saved tallies to the tally of every ref, claims and later edits included", async () => {
    const all = await SavedRefs.open(ws.dir);
    await all.loadAll();
    const line = all.findAll("2026-10-10-02")[0]?.line;
    const claim = {
      v: 1,
      at: "2026-10-10T11:00:00Z",
      file: "memory/2026-10-10.md",
      line,
      id: "2026-10-10-02",
    };
    await writeFile(
      join(ws.dir, ".big-memory/claims.jsonl"),
      `${JSON.stringify({ ...claim, session: "agent:main:claimed", agent: "main", trigger: "flush" })}\n`,
    );
    await appendFile(
      join(ws.dir, "memory/2026-11-10.md"),
      renderSnapshot(snap("2026-11-10-03", { session: "agent:main:later", trigger: "threshold" })),
    );
    const refs = await SavedRefs.open(ws.dir);
    const tallies = await refs.loadTallies();
    const every = await SavedRefs.open(ws.dir);
    await every.loadAll();
    expect(mergeTallies(tallies ?? [])).toEqual(tallyOf(every.sorted()));
    expect(mergeTallies(tallies ?? [])).toMatchObject({
      snapshots: 6,
      autosaves: 1,
      sessions: { "agent:main:claimed": { snapshots: 1 }, "agent:main:later": { snapshots: 1 } },
      last: { id: "2026-11-10-03" },
    });
    expect(refs.logs()).toEqual(every.logs());
  });

  it("lays claims over the refs it loads", async () => {
    const all = await SavedRefs.open(ws.dir);
    await all.loadAll();
    const line = all.findAll("2026-11-10-01")[0]?.line;
    const claim = {
      v: 1,
      at: "2026-11-10T11:00:00Z",
      file: "memory/2026-11-10.md",
      line,
      id: "2026-11-10-01",
      session: "agent:main:claimed",
      agent: "main",
      trigger: "flush",
    };
    await writeFile(join(ws.dir, ".big-memory/claims.jsonl"), `${JSON.stringify(claim)}\n`);
    const refs = await SavedRefs.open(ws.dir);
    expect([...refs.claimedMonths("agent:main:claimed")]).toEqual(["2026-11"]);
    expect(await refs.loadMentioning("agent:main:claimed", refs.claimedMonths("agent:main:claimed"))).toBe(
      true,
    );
    expect(latestIn(refs.sorted(), { session: "agent:main:claimed" })).toMatchObject({
      id: "2026-11-10-01",
      trigger: "flush",
    });
  });
});

describe("the lifecycle over saved refs", () => {
  it("leaves out tombstones and every older snapshot of their name, newest first", async () => {
    const ws = await tempWorkspace();
    try {
      await writeLog(ws.dir, "2026-11-10", [
        snap("2026-11-10-01", { name: "a", timestamp: "2026-11-10T09:00:00Z" }),
        snap("2026-11-10-02", { name: "a", tombstone: true, timestamp: "2026-11-10T10:00:00Z" }),
        snap("2026-11-10-03", { name: "a", timestamp: "2026-11-10T11:00:00Z" }),
      ]);
      await indexAll(ws.dir);
      const refs = await SavedRefs.open(ws.dir);
      await refs.loadAll();
      expect(liveNewestFirst(refs.sorted(), (e) => e).map((e) => e.id)).toEqual(["2026-11-10-03"]);
      expect(latestIn(refs.sorted(), { name: "a" })?.id).toBe("2026-11-10-03");
    } finally {
      await ws.cleanup();
    }
  });
});

describe("latestTimeOf", () => {
  it("is the month's end plus 31 days", () => {
    expect(new Date(latestTimeOf("2026-12")).toISOString()).toBe("2027-02-01T00:00:00.000Z");
  });
});
