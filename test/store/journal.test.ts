import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyContent } from "../../plugin/snapshot/sections.ts";
import { rewriteUserLog } from "../../plugin/store/gate.ts";
import {
  appendRecord,
  blockText,
  JOURNAL_DAY_MAX_BYTES,
  journaledDate,
  journalPath,
  pruneJournal,
  readJournalTail,
  recordClaim,
} from "../../plugin/store/journal.ts";
import { readJournal } from "../../plugin/store/journal-check.ts";
import { saveSnapshot } from "../../plugin/store/save.ts";

const NOW = new Date("2026-11-25T09:00:00Z");
const LOG = "memory/2026-11-25.md";
const TOKEN = `ghp_${"Kd4e".repeat(9)}`;
let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "big-memory-journal-"));
  await mkdir(join(ws, "memory"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

const save = (goal: string) =>
  saveSnapshot({
    workspaceDir: ws,
    content: { ...emptyContent(), goal },
    meta: { trigger: "compaction", session: "agent:main:main" },
    now: NOW,
    timeZone: "UTC",
  });

describe("recordAppend (through saveSnapshot)", () => {
  it("keeps each appended block as written, with the log's inode and sizes, in a private file", async () => {
    const first = await save("Fix the OAuth callback");
    const second = await save("Write the migration");
    const { records, problems } = await readJournal(ws, "2026-11-25");
    expect(problems).toEqual([]);
    const log = await readFile(join(ws, LOG), "utf8");
    const info = await stat(join(ws, LOG), { bigint: true });
    expect(records.map((r) => r.record)).toEqual([
      {
        v: 1,
        at: NOW.toISOString(),
        kind: "append",
        file: LOG,
        ino: info.ino.toString(),
        base: 0,
        size: second.offset,
        id: first.id,
        line: first.line,
        session: "agent:main:main",
        block: log.slice(0, second.offset),
        max: first.id,
        count: 1,
      },
      expect.objectContaining({
        id: second.id,
        base: second.offset,
        size: Number(info.size),
        max: second.id,
        count: 2,
      }),
    ]);
    expect(records[1]?.record.block).toBe(log.slice(second.offset).replace(/^\n+/, ""));
    expect((await stat(journalPath(ws, "2026-11-25"))).mode & 0o777).toBe(0o600);
    expect((await stat(join(ws, ".big-memory", "journal"))).mode & 0o777).toBe(0o700);
  });

  it("never keeps a secret: a claimed block a model wrote with a token is redacted in its copy", async () => {
    const block = [
      "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
      "<!-- snapshot-id: 2026-11-25-01 -->",
      "### [SNAPSHOT] Key Names & Values",
      `- GITHUB_TOKEN=${TOKEN}`,
      "<!-- /BIG-MEMORY-SNAPSHOT -->",
      "",
    ].join("\n");
    await writeFile(join(ws, LOG), block);
    await recordClaim(ws, { file: LOG, line: 1, id: "2026-11-25-01", session: "agent:main:main" }, NOW);
    const text = await readFile(journalPath(ws, "2026-11-25"), "utf8");
    expect(text).not.toContain(TOKEN);
    expect(text).toContain("[REDACTED:");
  });
});

describe("appendRecord", () => {
  it("drops the block text of a day past its bound and marks the record clipped", async () => {
    const record = {
      kind: "append" as const,
      file: LOG,
      ino: "1",
      base: 0,
      size: 10,
      id: "2026-11-25-01",
      block: "x",
    };
    await appendRecord(ws, record, { at: NOW, dayBytes: JOURNAL_DAY_MAX_BYTES + 1 });
    const [read] = (await readJournal(ws, "2026-11-25")).records;
    expect(read?.record).toEqual({
      v: 1,
      at: NOW.toISOString(),
      kind: "append",
      file: LOG,
      ino: "1",
      base: 0,
      size: 10,
      id: "2026-11-25-01",
      clipped: true,
    });
  });

  it("refuses a file that is not a daily log by name", async () => {
    await expect(
      appendRecord(
        ws,
        { kind: "baseline", file: "memory/notes.md", ino: "1", base: 0, size: 0 },
        { at: NOW },
      ),
    ).rejects.toThrow("big-memory: memory/notes.md is not a daily log the journal keeps");
  });
});

describe("pruneJournal", () => {
  it("removes the oldest days beyond the limits and never the newest", async () => {
    const dir = join(ws, ".big-memory", "journal");
    await mkdir(dir, { recursive: true });
    for (const d of ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23"])
      await writeFile(join(dir, `${d}.jsonl`), "x".repeat(100));
    expect(await pruneJournal(ws, { days: 3, bytes: 1_000 })).toEqual(["2026-11-20"]);
    expect(await pruneJournal(ws, { days: 10, bytes: 150 })).toEqual(["2026-11-21", "2026-11-22"]);
    expect(await readdir(dir)).toEqual(["2026-11-23.jsonl"]);
    expect(await pruneJournal(ws, { days: 0, bytes: 0 })).toEqual([]);
  });
});

describe("rewriteUserLog's baseline", () => {
  it("records a log big-memory rewrote as the journal's new baseline", async () => {
    await save("Fix the OAuth callback");
    await rewriteUserLog(join(ws, LOG), "scrubbed\n");
    const last = (await readJournal(ws, "2026-11-25")).records.at(-1)?.record;
    expect(last).toMatchObject({
      kind: "baseline",
      reason: "rewrite",
      size: 9,
      max: "2026-11-25-01",
      count: 0,
    });
    // The block was moved out of the log (archive): its id is still never given again.
    expect((await save("Write the migration")).id).toBe("2026-11-25-02");
  });
});

describe("blockText, journaledDate", () => {
  it("takes the block at its line, else the first of its id, and nothing for an unknown id", () => {
    const block = (id: string) =>
      `<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: ${id} -->\n<!-- /BIG-MEMORY-SNAPSHOT -->\n`;
    const text = `notes\n${block("2026-11-25-01")}\n${block("2026-11-25-02")}`;
    expect(blockText(text, 6, "2026-11-25-02")).toBe(block("2026-11-25-02"));
    expect(blockText(text, 99, "2026-11-25-01")).toBe(block("2026-11-25-01"));
    expect(blockText(text, 2, "2026-11-25-09")).toBeNull();
  });

  it("journals daily logs by name only", () => {
    expect(journaledDate(LOG)).toBe("2026-11-25");
    expect(journaledDate("memory/2026-11-25-0431.md")).toBeNull();
  });
});

describe("readJournalTail", () => {
  const record = (max: string, count: number, block: string) =>
    `${JSON.stringify({ v: 1, kind: "append", at: NOW.toISOString(), file: LOG, ino: "1", base: 0, size: 1, id: max, max, count, block })}\n`;
  const write = async (text: string) => {
    await mkdir(join(ws, ".big-memory", "journal"), { recursive: true });
    await writeFile(journalPath(ws, "2026-11-25"), text);
  };

  it("finds the last whole record when it is longer than the first read from the end, past a torn line", async () => {
    const long = "x".repeat(9000);
    const text = `${record("2026-11-25-07", 7, "a")}${record("2026-11-25-08", 8, long)}{"v":1,"kind":"app`;
    await write(text);
    expect(await readJournalTail(ws, "2026-11-25")).toEqual({
      bytes: Buffer.byteLength(text),
      max: "2026-11-25-08",
      count: 8,
    });
  });

  it("reads a missing journal and a FIFO in its place as empty, without waiting for a writer", async () => {
    expect(await readJournalTail(ws, "2026-11-25")).toEqual({ bytes: 0, max: null, count: null });
    await mkdir(join(ws, ".big-memory", "journal"), { recursive: true });
    execFileSync("mkfifo", [journalPath(ws, "2026-11-25")]);
    expect(await readJournalTail(ws, "2026-11-25")).toEqual({ bytes: 0, max: null, count: null });
  });
});
