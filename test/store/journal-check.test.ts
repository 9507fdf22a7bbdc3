import { appendFile, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { recordBaseline, recordClaim } from "../../plugin/store/journal.ts";
import {
  checkJournal,
  findLost,
  incidentMessage,
  readJournal,
  repairJournal,
} from "../../plugin/store/journal-check.ts";
import { workspaceEachTest } from "../builders.ts";

const NOW = new Date("2026-11-25T09:00:00Z");
const LOG = "memory/2026-11-25.md";
const workspace = workspaceEachTest("journal-check", NOW);
const save = workspace.save;
const log = () => readFile(join(workspace.dir, LOG), "utf8");
const ids = async () => parseDailyLog(await log(), LOG).snapshots.map((s) => s.snapshot.id);

describe("checkJournal", () => {
  it("finds nothing wrong while the log only grows, people's appends included", async () => {
    await save("Fix the OAuth callback");
    await appendFile(join(workspace.dir, LOG), "\nmy own notes for today\n");
    await save("Write the migration");
    const check = await checkJournal(workspace.dir);
    expect(check).toMatchObject({ days: 1, blocks: 2, incidents: [], problems: [] });
  });

  it("names the blocks lost when a write replaced the log in place with other text", async () => {
    await writeFile(join(workspace.dir, LOG), "# Notes\n\nthe user's own lines\n");
    await save("Fix the OAuth callback");
    await save("Write the migration");
    // A model's `write` in an ordinary turn: the file is replaced, same inode.
    await writeFile(join(workspace.dir, LOG), "# 2026-11-25\n\n- model summary of the day\n");
    const check = await checkJournal(workspace.dir);
    expect(check.incidents).toHaveLength(1);
    const incident = check.incidents[0];
    expect(incident?.lost.map((b) => b.id)).toEqual(["2026-11-25-01", "2026-11-25-02"]);
    expect(incident?.shrank?.to).toBe(41);
    expect(incidentMessage(incident as NonNullable<typeof incident>)).toMatch(
      /^memory\/2026-11-25\.md lost 2 snapshots big-memory wrote there \(2026-11-25-01, 2026-11-25-02\) and was cut from \d+ to 41 bytes: something replaced or cut it \(a model's write tool, an editor\)\. Their copies are in big-memory's journal: run big-memory repair to append them again\. Text others wrote there is not kept by big-memory\.$/,
    );
  });

  it("sees a replacement longer than the log it replaced, through the next append's record", async () => {
    await save("Fix the OAuth callback");
    await writeFile(join(workspace.dir, LOG), `${"a much longer text the model wrote\n".repeat(200)}`);
    const next = await save("Write the migration");
    // The lost id is never given again.
    expect(next.id).toBe("2026-11-25-02");
    const check = await checkJournal(workspace.dir);
    expect(check.incidents.map((i) => i.lost.map((b) => b.id))).toEqual([["2026-11-25-01"]]);
    expect(check.incidents[0]?.shrank).toBeNull();
  });

  it("reports a deleted log, and nothing for blocks its archive holds", async () => {
    await save("Fix the OAuth callback");
    const archive = join(workspace.dir, "memory", ".big-memory-archive");
    await mkdir(archive);
    await writeFile(join(archive, "2026-11-25.md"), await log());
    await rm(join(workspace.dir, LOG));
    expect((await checkJournal(workspace.dir)).incidents).toEqual([]);
    await rm(join(archive, "2026-11-25.md"));
    const incident = (await checkJournal(workspace.dir)).incidents[0];
    expect(incident?.shrank).toEqual({ from: expect.any(Number), to: null });
    expect(incidentMessage(incident as NonNullable<typeof incident>)).toContain("and is gone:");
  });

  it("reads the journal's bad lines as problems naming their line and checks the rest", async () => {
    await save("Fix the OAuth callback");
    const journal = join(workspace.dir, ".big-memory", "journal", "2026-11-25.jsonl");
    await appendFile(journal, '{"v":2,"kind":"append"}\n{"torn\n');
    const read = await readJournal(workspace.dir, "2026-11-25");
    expect(read.records).toHaveLength(1);
    expect(read.problems).toEqual([
      {
        file: ".big-memory/journal/2026-11-25.jsonl",
        line: 2,
        message: "not a journal record of version 1 (v: expected 1); skipped",
      },
      { file: ".big-memory/journal/2026-11-25.jsonl", line: 3, message: "not JSON (a torn write?); skipped" },
    ]);
  });
});

describe("repairJournal", () => {
  it("appends the lost blocks again under their ids, never the text others wrote, and settles the log", async () => {
    await writeFile(join(workspace.dir, LOG), "the user's own lines\n");
    const first = await save("Fix the OAuth callback");
    await save("Write the migration");
    await writeFile(join(workspace.dir, LOG), "model text\n");
    const dry = await repairJournal(workspace.dir, { dryRun: true, now: NOW });
    expect(dry.logs).toEqual([
      {
        file: LOG,
        appended: ["2026-11-25-01", "2026-11-25-02"],
        unrecoverable: [],
        shrank: { from: expect.any(Number), to: 11 },
      },
    ]);
    expect(await log()).toBe("model text\n");
    const done = await repairJournal(workspace.dir, { dryRun: false, now: NOW });
    expect(done.problems).toEqual([]);
    const text = await log();
    expect(text.startsWith("model text\n")).toBe(true);
    expect(text).not.toContain("the user's own lines");
    expect(await ids()).toEqual(["2026-11-25-01", "2026-11-25-02"]);
    const back = parseDailyLog(text, LOG).snapshots[0];
    expect(back?.verified).toBe(true);
    expect(back?.snapshot).toEqual(first.snapshot);
    expect((await checkJournal(workspace.dir)).incidents).toEqual([]);
    // A repaired log is quiet: a second repair has nothing to do.
    expect((await repairJournal(workspace.dir, { dryRun: false, now: NOW })).logs).toEqual([]);
  });

  it("accepts a log that was only cut: nothing to append, the cut no longer reported", async () => {
    await writeFile(join(workspace.dir, LOG), "a long line of the user's notes\n".repeat(20));
    await save("Fix the OAuth callback");
    const text = await log();
    await writeFile(join(workspace.dir, LOG), text.slice(text.indexOf("<!-- BIG-MEMORY-SNAPSHOT")));
    expect((await checkJournal(workspace.dir)).incidents.map((i) => i.lost.length)).toEqual([0]);
    const done = await repairJournal(workspace.dir, { dryRun: false, now: NOW });
    expect(done.logs.map((l) => l.appended)).toEqual([[]]);
    expect((await checkJournal(workspace.dir)).incidents).toEqual([]);
  });
});

describe("findLost", () => {
  it("finds a lost snapshot by id and by name in the journal, and nothing the log still holds", async () => {
    await save("Fix the OAuth callback", "oauth-fix");
    expect(await findLost(workspace.dir, { id: "2026-11-25-01" })).toBeNull();
    await writeFile(join(workspace.dir, LOG), "");
    const byId = await findLost(workspace.dir, { id: "2026-11-25-01" });
    expect(byId).toMatchObject({ file: LOG, line: 5, verified: true });
    expect(byId?.snapshot.goal).toBe("Fix the OAuth callback");
    expect((await findLost(workspace.dir, { name: "oauth-fix" }))?.snapshot.id).toBe("2026-11-25-01");
    expect(await findLost(workspace.dir, { name: "other-name" })).toBeNull();
    expect(await findLost(workspace.dir, { id: "not-an-id" })).toBeNull();
  });
});

describe("recordClaim and recordBaseline", () => {
  it("keeps a claimed flush block as the log holds it, and finds it when the log loses it", async () => {
    const block = [
      "## Task Snapshot -- 09:00",
      "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
      "<!-- timestamp: 2026-11-25T09:00:00+00:00 -->",
      "<!-- snapshot-id: 2026-11-25-01 -->",
      "### [SNAPSHOT] Active Goal",
      "Ship the export",
      "<!-- /BIG-MEMORY-SNAPSHOT -->",
      "",
    ].join("\n");
    await writeFile(join(workspace.dir, LOG), block);
    await recordClaim(
      workspace.dir,
      { file: LOG, line: 2, id: "2026-11-25-01", session: "agent:main:main" },
      NOW,
    );
    const { records } = await readJournal(workspace.dir, "2026-11-25");
    expect(records[0]?.record).toMatchObject({ kind: "claim", id: "2026-11-25-01", line: 2 });
    expect(records[0]?.record.block).toBe(block.slice(block.indexOf("<!--")));
    await writeFile(join(workspace.dir, LOG), "");
    expect((await findLost(workspace.dir, { id: "2026-11-25-01" }))?.snapshot.goal).toBe("Ship the export");
  });

  it("records nothing for a log the journal does not know, and a baseline with the log's inode and size", async () => {
    await writeFile(join(workspace.dir, LOG), "notes\n");
    expect(await recordBaseline(workspace.dir, LOG, "rewrite", NOW)).toBe(false);
    await save("Fix the OAuth callback");
    expect(await recordBaseline(workspace.dir, LOG, "rewrite", NOW)).toBe(true);
    const info = await stat(join(workspace.dir, LOG), { bigint: true });
    const last = (await readJournal(workspace.dir, "2026-11-25")).records.at(-1)?.record;
    expect(last).toMatchObject({
      kind: "baseline",
      reason: "rewrite",
      ino: info.ino.toString(),
      size: Number(info.size),
    });
  });
});
