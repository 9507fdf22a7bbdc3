import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { STATE_DIR_NAME } from "../../plugin/store/gate.ts";
import {
  appendLedger,
  foldLedger,
  LEDGER_FILE,
  LEDGER_ROTATE_BYTES,
  type LedgerFact,
  readLedger,
} from "../../plugin/store/ledger.ts";
import { LedgerLine } from "../../plugin/store/ledger-schema.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function workspace(): { dir: string; state: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "big-memory-ledger-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const state = join(dir, STATE_DIR_NAME);
  return { dir, state, file: join(state, LEDGER_FILE) };
}

const AT = "2026-11-25T10:00:00.000Z";
const LATER = "2026-11-25T10:00:05.000Z";
const SESSION = "agent:main:main";
const opened: LedgerFact = {
  kind: "cycle",
  cycle: AT,
  session: SESSION,
  agent: "main",
  at: AT,
  path: "preflight",
  flush: true,
  cover: "flush",
  snapshot: "2026-11-25-01",
  file: "memory/2026-11-25.md",
  outcome: "open",
};

describe("appendLedger and readLedger", () => {
  it("appends versioned private lines and folds the facts of one cycle into one record", async () => {
    const ws = workspace();
    await appendLedger(ws.state, [opened]);
    await appendLedger(ws.state, [
      { kind: "outcome", cycle: AT, session: SESSION, at: LATER, outcome: "done" },
      { kind: "restore", cycle: AT, session: SESSION, at: LATER, snapshot: "2026-11-25-01", tokens: 640 },
    ]);
    expect(statSync(ws.file).mode & 0o777).toBe(0o600);
    expect(statSync(ws.state).mode & 0o777).toBe(0o700);
    const lines = readFileSync(ws.file, "utf8").trim().split("\n");
    expect(JSON.parse(lines[0] ?? "")).toEqual({ v: 1, ...opened });
    expect(await readLedger(ws.dir)).toEqual({
      records: [
        {
          cycle: AT,
          session: SESSION,
          agent: "main",
          path: "preflight",
          flush: true,
          cover: "flush",
          snapshot: "2026-11-25-01",
          file: "memory/2026-11-25.md",
          outcome: "done",
          note: null,
          restore: { at: LATER, snapshot: "2026-11-25-01", tokens: 640 },
        },
      ],
      bad: 0,
      problem: null,
      marks: new Map(),
    });
  });

  it("keeps the provider markers a cycle handled, by session and cycle, and refuses a line whose markers are not text", async () => {
    const ws = workspace();
    const provider: LedgerFact = {
      ...opened,
      path: "provider",
      flush: false,
      cover: "safety-net",
      outcome: "done",
      marks: ["cmp_1"],
    };
    await appendLedger(ws.state, [provider]);
    await appendLedger(ws.state, [
      { ...provider, cycle: LATER, at: LATER, marks: [7] } as unknown as LedgerFact,
    ]);
    const read = await readLedger(ws.dir);
    expect(read.records.map((r) => r.cycle)).toEqual([AT]);
    expect(read.bad).toBe(1);
    expect([...read.marks]).toEqual([[`${SESSION}\u0000${AT}`, ["cmp_1"]]]);
  });

  it("reads an absent ledger as empty", async () => {
    expect(await readLedger(workspace().dir)).toEqual({
      records: [],
      bad: 0,
      problem: null,
      marks: new Map(),
    });
  });

  it("counts torn lines, other versions and unknown paths as bad, and keeps the rest", async () => {
    const ws = workspace();
    await appendLedger(ws.state, [opened]);
    appendFileSync(
      ws.file,
      `{"v":2,"kind":"cycle"}\n${JSON.stringify({ ...opened, v: 1, path: "teleport" })}\n{"v":1,"ki`,
    );
    const read = await readLedger(ws.dir);
    expect([read.records.length, read.bad, read.problem]).toEqual([1, 3, null]);
  });

  it("names a ledger that is a folder, and what to do", async () => {
    const ws = workspace();
    mkdirSync(ws.file, { recursive: true });
    expect((await readLedger(ws.dir)).problem).toBe(
      ".big-memory/ledger.jsonl is a folder, not a file: move it away (compactions are not listed)",
    );
  });

  it("rotates past its size bound, keeps one older file, and reads both in order", async () => {
    const ws = workspace();
    const fact = (i: number): LedgerFact => ({
      ...opened,
      cycle: `2026-11-25T10:${String(i).padStart(6, "0")}`,
    });
    let i = 0;
    while (!existsSync(`${ws.file}.1`)) await appendLedger(ws.state, [fact(i++)]);
    await appendLedger(ws.state, [fact(i++)]);
    expect(statSync(`${ws.file}.1`).size).toBeGreaterThan(LEDGER_ROTATE_BYTES);
    expect(statSync(ws.file).size).toBeLessThan(1024);
    expect((await readLedger(ws.dir)).records).toHaveLength(i);
  });

  it("never writes a secret that reaches a fact (a session key or note holding a token)", async () => {
    const ws = workspace();
    const token = `ghp_${"a1B2c3D4e5".repeat(3)}123456`;
    await appendLedger(ws.state, [
      { ...opened, session: `agent:main:${token}` },
      { kind: "outcome", cycle: AT, session: SESSION, at: LATER, outcome: "failed", note: `token ${token}` },
    ]);
    const text = readFileSync(ws.file, "utf8");
    expect(text).not.toContain(token);
    expect(text).toContain("[REDACTED:");
  });
});

describe("foldLedger", () => {
  const line = (f: LedgerFact): LedgerLine => LedgerLine.parse({ v: 1, ...f });

  it("drops facts of a cycle it never saw open, and keeps a failure over a later repeated cycle line", () => {
    expect(
      foldLedger([line({ kind: "outcome", cycle: AT, session: SESSION, at: LATER, outcome: "failed" })]),
    ).toEqual([]);
    const folded = foldLedger([
      line(opened),
      line({ kind: "outcome", cycle: AT, session: SESSION, at: LATER, outcome: "failed", note: "no after" }),
      line(opened),
    ]);
    expect(folded.map((r) => [r.outcome, r.note])).toEqual([["failed", "no after"]]);
  });

  it("keeps sessions apart and orders records by when they opened", () => {
    const other = { ...opened, session: "agent:main:b", cycle: "2026-11-25T09:00:00.000Z" };
    expect(foldLedger([line(opened), line(other)]).map((r) => r.session)).toEqual(["agent:main:b", SESSION]);
  });
});
