import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  checkJournal,
  errorCode,
  errorMessage,
  isDailyLogDate,
  LEDGER_FILE,
  logNameProblem,
  PRIVATE_FILE_MODE,
  RESTORE_LOG_FILE,
  readLedger,
  readRestoreLog,
  readStateFile,
  STATE_DIR_NAME,
} from "../../plugin/session/state-files.ts";

let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "big-memory-state-files-"));
  await mkdir(join(ws, "memory"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

describe("the workspace's files as the surface reads them", () => {
  it("names big-memory's state folder, its records and their mode", () => {
    expect([STATE_DIR_NAME, LEDGER_FILE, RESTORE_LOG_FILE, PRIVATE_FILE_MODE]).toEqual([
      ".big-memory",
      "ledger.jsonl",
      "restore-log.jsonl",
      0o600,
    ]);
  });

  it("reads an empty workspace's ledger, restore log and journal as empty", async () => {
    expect(await readLedger(ws)).toMatchObject({ records: [], problem: null, bad: 0 });
    expect(await readRestoreLog(ws)).toMatchObject({ entries: [], problem: null, bad: 0 });
    expect(await checkJournal(ws)).toMatchObject({ days: 0, blocks: 0, incidents: [] });
  });

  it("reads a state file only when it is a regular file, naming it otherwise", async () => {
    await mkdir(join(ws, STATE_DIR_NAME));
    await writeFile(join(ws, STATE_DIR_NAME, "flush.json"), "{}");
    expect((await readStateFile(join(ws, STATE_DIR_NAME, "flush.json"), "flush.json")).toString()).toBe("{}");
    const folder = await readStateFile(join(ws, STATE_DIR_NAME), ".big-memory").catch((e: unknown) => e);
    expect(errorMessage(folder)).toContain(".big-memory");
  });

  it("tells a daily log's name and date from others, and an error's code", () => {
    expect(logNameProblem("memory/2026-11-22.md")).toBeNull();
    expect(logNameProblem("memory/rapport-profile.md")).not.toBeNull();
    expect([isDailyLogDate("2026-11-22"), isDailyLogDate("2026-13-40")]).toEqual([true, false]);
    expect(errorCode(Object.assign(new Error("gone"), { code: "ENOENT" }))).toBe("ENOENT");
  });
});
