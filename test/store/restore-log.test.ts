import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { STATE_DIR_NAME } from "../../plugin/store/gate.ts";
import {
  appendRestoreLog,
  RESTORE_LOG_FILE,
  readRestoreLog,
  restoreLogEntryOf,
} from "../../plugin/store/restore-log.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function workspace(): { dir: string; state: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), "big-memory-restore-log-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const state = join(dir, STATE_DIR_NAME);
  return { dir, state, log: join(state, RESTORE_LOG_FILE) };
}

const entry = {
  at: "2026-11-23T10:00:00Z",
  id: "2026-11-23-01",
  session: "agent:main:main",
  reason: "compaction",
};

describe("restore log", () => {
  it("appends versioned lines in a private file and reads them back in order", async () => {
    const ws = workspace();
    await appendRestoreLog(ws.state, entry);
    await appendRestoreLog(ws.state, { ...entry, id: "2026-11-23-02", reason: "amnesia", tokens: 812 });
    const lines = readFileSync(ws.log, "utf8").trim().split("\n");
    expect(JSON.parse(lines[0] ?? "")).toEqual({ v: 1, ...entry });
    expect(statSync(ws.log).mode & 0o777).toBe(0o600);
    const read = await readRestoreLog(ws.dir);
    expect(read).toEqual({
      entries: [
        { v: 1, ...entry },
        { v: 1, ...entry, id: "2026-11-23-02", reason: "amnesia", tokens: 812 },
      ],
      bad: 0,
      problem: null,
    });
  });

  it("reads lines written before versions as version 1", async () => {
    const ws = workspace();
    mkdirSync(ws.state);
    appendFileSync(ws.log, `${JSON.stringify(entry)}\n`);
    expect((await readRestoreLog(ws.dir)).entries).toEqual([entry]);
  });

  it("counts torn, foreign and later-version lines as bad without failing", async () => {
    const ws = workspace();
    await appendRestoreLog(ws.state, entry);
    appendFileSync(ws.log, '{"at": "2026-11-23T1\n');
    appendFileSync(ws.log, `${JSON.stringify({ ...entry, v: 2 })}\n`);
    appendFileSync(ws.log, `${JSON.stringify({ hello: "world" })}\n\n`);
    const read = await readRestoreLog(ws.dir);
    expect(read.entries).toHaveLength(1);
    expect(read.bad).toBe(3);
    expect(read.problem).toBeNull();
  });

  it("takes an entry's fields only, and refuses a line whose field is missing or of another type", () => {
    expect(restoreLogEntryOf({ v: 1, ...entry, tokens: 12, extra: "dropped" })).toEqual({
      v: 1,
      ...entry,
      tokens: 12,
    });
    expect(restoreLogEntryOf({ ...entry, session: null })).toEqual({ ...entry, session: null });
    const broken: unknown[] = [
      null,
      "a string",
      [entry],
      { ...entry, v: "1" },
      { ...entry, at: 17 },
      { ...entry, id: undefined },
      { ...entry, session: undefined },
      { ...entry, session: 3 },
      { ...entry, reason: null },
      { ...entry, tokens: "812" },
      { ...entry, tokens: null },
    ];
    for (const value of broken) expect(restoreLogEntryOf(value), JSON.stringify(value)).toBeNull();
  });

  it("an absent log is empty; a folder in its place is a problem naming it", async () => {
    const ws = workspace();
    expect(await readRestoreLog(ws.dir)).toEqual({ entries: [], bad: 0, problem: null });
    mkdirSync(ws.log, { recursive: true });
    const read = await readRestoreLog(ws.dir);
    expect(read.entries).toEqual([]);
    expect(read.problem).toContain(`${STATE_DIR_NAME}/${RESTORE_LOG_FILE} is a folder`);
  });

  it("redacts a secret that reaches an entry before it is written", async () => {
    const ws = workspace();
    const token = `ghp_${"a1B2c3D4e5".repeat(3)}123456`;
    await appendRestoreLog(ws.state, { ...entry, reason: `resume with ${token}` });
    const text = readFileSync(ws.log, "utf8");
    expect(text).not.toContain(token);
    expect(text).toContain("[REDACTED:");
  });
});
