import { spawn, spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { readLedger } from "../../plugin/store/ledger.ts";
import { FixtureProcess } from "../store/fixtures/spawn.ts";
import { cli } from "../surface/cli-harness.ts";
import { createDriver, type Driver } from "../surface/plugin-driver.ts";

/**
 * The fault suite: real processes, real files, real file systems. Each test names a fault a user meets (a
 * full disk, a read-only disk, a crash in the middle of a write, a stuck lock, a crowd of writers, a corrupt
 * state file, a bad path) and asserts that nothing reported saved is lost and that the user gets one clear
 * line. Disk faults use a size-limited tmpfs mounted for the test (the suite runs as root, as CI does).
 */

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A tmpfs of `size` mounted on a fresh folder, unmounted after the test. */
function smallDisk(size: string): string {
  const dir = tempDir("big-memory-disk-");
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0755`, "tmpfs", dir], {
    encoding: "utf8",
  });
  if (mounted.status !== 0) throw new Error(`the fault suite needs root to mount a tmpfs: ${mounted.stderr}`);
  cleanups.push(() => spawnSync("umount", ["-l", dir]));
  return dir;
}

const snapshotJson = (size: number) =>
  JSON.stringify({ goal: "Ship ERR_DISK_FULL handling", code: "y".repeat(size), next: ["retry"] });

const BIN = new URL("../../bin/big-memory.js", import.meta.url).pathname;

/** Runs the real CLI in a child process (stdin piped), resolving with its exit and output. */
function bin(args: string[], stdin = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe("a full disk", () => {
  it("leaves no partial block: the log is cut back, the error names the file and the free space, exit 3", async () => {
    const ws = smallDisk("64k");
    mkdirSync(join(ws, "memory"));
    const first = await cli(["save", "--dir", ws], { stdin: snapshotJson(100) });
    expect(first.code).toBe(0);
    const log = join(ws, "memory", "2026-11-22.md");
    const before = readFileSync(log);
    // Fill the disk but for two pages (the lock's owner file takes one), then save a snapshot of about 9 KiB.
    const df = spawnSync("df", ["-B1", "--output=avail", ws], { encoding: "utf8" });
    const avail = Number(df.stdout.trim().split("\n").at(-1));
    writeFileSync(join(ws, "filler"), Buffer.alloc(Math.max(0, avail - 8 * 1024)));
    const full = await cli(["save", "--dir", ws], { stdin: snapshotJson(9000) });
    expect(full.code).toBe(3);
    expect(full.stderr).toMatch(
      /^big-memory: cannot append to memory\/2026-11-22\.md: ENOSPC: no space left on device, write \([\d.]+ (?:B|KiB) free on its file system\); nothing was written, the log is as it was \(the disk is full: free some space and run the command again\)\n$/,
    );
    expect(readFileSync(log).equals(before)).toBe(true);
    const verify = await cli(["verify", "--dir", ws, "--json"]);
    expect(verify.json()).toEqual({ ok: true, checked: 1, problems: [], diagnostics: [] });
    // A save into a new day's log on the full disk leaves no empty log behind either.
    const nextDay = await cli(["save", "--dir", ws], {
      stdin: snapshotJson(9000),
      now: new Date("2026-11-23T12:00:00Z"),
    });
    expect(nextDay.code).toBe(3);
    expect(readdirSync(join(ws, "memory")).filter((n) => n.endsWith(".md"))).toEqual(["2026-11-22.md"]);
  });
});

describe("a read-only disk", () => {
  it("refuses a save with one line naming the path and what to do, and still reads", async () => {
    const ws = smallDisk("256k");
    mkdirSync(join(ws, "memory"));
    expect((await cli(["save", "--dir", ws], { stdin: snapshotJson(100) })).code).toBe(0);
    expect(spawnSync("mount", ["-o", "remount,ro", ws]).status).toBe(0);
    const r = await cli(["save", "--dir", ws], { stdin: snapshotJson(100) });
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n")).toHaveLength(2);
    expect(r.stderr).toMatch(
      /^big-memory: cannot append to memory\/2026-11-22\.md: .*EROFS: read-only file system.*\(the file system is read-only: make it writable, or run with --dir on a writable workspace\)\n$/,
    );
    const list = await cli(["list", "--dir", ws, "--json"]);
    expect(list.code).toBe(0);
    expect((list.json() as { snapshots: unknown[] }).snapshots).toHaveLength(1);
  });
});

describe("crashes in the middle of writing", () => {
  it("loses nothing reported saved when 20 processes save 1,000 snapshots under random SIGKILLs", async () => {
    const ws = tempDir("big-memory-kill-");
    const reported = new Map<string, string>();
    let started = 0;
    let killed = 0;
    const spawnWorker = (n: number) =>
      new FixtureProcess("../../faults/fixtures/save-worker.ts", [ws, `w${n}`, "50"]);
    const collect = (p: FixtureProcess) => {
      for (const line of p.stdout.split("\n")) {
        const m = /^saved (\S+) (.+)$/.exec(line);
        if (m?.[1] !== undefined && m[2] !== undefined) reported.set(m[2], m[1]);
      }
    };
    const workers = Array.from({ length: 20 }, (_, n) => spawnWorker(n));
    started = workers.length;
    // Random SIGKILLs while they work; every killed worker is replaced by a new one that goes on.
    let next = 20;
    const deadline = Date.now() + 120_000;
    while (reported.size < 1000 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 150 + Math.random() * 150));
      const alive = workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
      const victim = alive[Math.floor(Math.random() * alive.length)];
      if (victim !== undefined && killed < 40) {
        await victim.kill("SIGKILL");
        killed++;
        const replacement = spawnWorker(next++);
        workers.push(replacement);
        started++;
      }
      for (const w of workers) collect(w);
      if (alive.length === 0) {
        for (let i = 0; i < 5; i++) workers.push(spawnWorker(next++));
        started += 5;
      }
    }
    await Promise.all(workers.map((w) => w.kill("SIGKILL")));
    for (const w of workers) collect(w);
    expect(killed).toBeGreaterThan(10);
    expect(reported.size).toBeGreaterThanOrEqual(1000);

    const text = readdirSync(join(ws, "memory"))
      .filter((n) => n.endsWith(".md"))
      .map((n) => ({ n, text: readFileSync(join(ws, "memory", n), "utf8") }));
    const parsed = text.map(({ n, text: t }) => ({ t, ...parseDailyLog(t, `memory/${n}`) }));
    const found = new Map(parsed.flatMap((p) => p.snapshots.map((s) => [s.snapshot.goal, s] as const)));
    const lost = [...reported.keys()].filter((goal) => found.get(goal)?.verified !== true);
    expect(lost).toEqual([]);
    // Every block that was begun is either read whole or reported (torn), never silently dropped.
    const begun = parsed.reduce(
      (n, p) => n + (p.t.match(/^<!-- BIG-MEMORY-SNAPSHOT v1 -->$/gm)?.length ?? 0),
      0,
    );
    const torn = parsed.reduce((n, p) => n + p.diagnostics.length, 0);
    expect(parsed.reduce((n, p) => n + p.snapshots.length, 0) + torn).toBe(begun);
    const ids = parsed.flatMap((p) => p.snapshots.map((s) => s.snapshot.id));
    expect(new Set(ids).size).toBe(ids.length);
    console.log(
      `fault suite: ${started} workers, ${killed} SIGKILLs, ${reported.size} reported saved, ${ids.length} blocks read, 0 lost, ${torn} torn and reported`,
    );
  }, 240_000);

  it("never loses a pending restore when a state writer is killed mid-update", async () => {
    const ws = tempDir("big-memory-state-kill-");
    for (let round = 0; round < 8; round++) {
      const worker = new FixtureProcess("../../faults/fixtures/state-worker.ts", [ws]);
      // The first update made the file (on a busy machine it can take longer than the wait below).
      await worker.waitForLine("updated 1");
      await new Promise((r) => setTimeout(r, 30 + Math.random() * 120));
      await worker.kill("SIGKILL");
      const done = [...worker.stdout.matchAll(/^updated (\d+)$/gm)].map((m) => Number(m[1]));
      const sessions = join(ws, ".big-memory", "sessions");
      const files = readdirSync(sessions).filter((n) => n.endsWith(".json"));
      expect(files).toHaveLength(1);
      const status = await cli(["status", "--dir", ws, "--json"]);
      expect(status.code).toBe(0);
      const state = JSON.parse(readFileSync(join(sessions, files[0] ?? ""), "utf8")) as {
        pendingRestore: { id: string } | null;
        trail: { turns: number };
      };
      expect(state.pendingRestore?.id).toBe("2026-11-22-01");
      expect(state.trail.turns).toBeGreaterThanOrEqual(done.at(-1) ?? 0);
    }
  });
});

/** The state file of `agent:main:main` in workspace `ws`, as on disk. */
function sessionFile(ws: string): {
  pendingRestore: { id: string } | null;
  lastRestore: { id: string } | null;
  trail: { turns: number; files: { path: string }[] };
} {
  const dir = join(ws, ".big-memory", "sessions");
  const name = readdirSync(dir).find((n) => n.startsWith("agent-main-main-") && n.endsWith(".json"));
  return JSON.parse(readFileSync(join(dir, name ?? ""), "utf8"));
}

const SESSION_WORKER = "../../faults/fixtures/session-worker.ts";
const linesOf = (p: FixtureProcess, re: RegExp) => [...p.stdout.matchAll(re)];

describe("sessions kept in memory and written behind", () => {
  it("loses at most the current turn's trail, and never a pending restore, when killed mid-turn", async () => {
    const ws = tempDir("big-memory-turn-kill-");
    const queued = new Map<string, string>();
    const restored: string[] = [];
    for (let round = 0; round < 6; round++) {
      const worker = new FixtureProcess(SESSION_WORKER, [ws, "turns"]);
      const queue = new FixtureProcess(SESSION_WORKER, [ws, "queue"]);
      await Promise.all([worker.waitForLine("ready"), queue.waitForLine("ready")]);
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 400));
      await queue.kill("SIGKILL");
      await new Promise((r) => setTimeout(r, Math.random() * 100));
      await worker.kill("SIGKILL");
      for (const m of linesOf(queue, /^queued (\d+) (\S+)$/gm)) queued.set(`${round}:${m[1]}`, m[2] ?? "");
      restored.push(...linesOf(worker, /^restored (\d+)$/gm).map((m) => `${round}:${m[1]}`));
      const done = linesOf(worker, /^turn (\d+) done$/gm).map((m) => Number(m[1]));
      const state = sessionFile(ws);
      // Every turn that ended is in the trail: the one in progress at the kill may be missing.
      const last = done.at(-1) ?? 0;
      expect(state.trail.turns).toBeGreaterThanOrEqual(last);
      if (last > 0) expect(state.trail.files.map((f) => f.path)).toContain(`src/turn-${last}.ts`);
      // A queued restore was restored, is still pending, or was taken by the turn the kill interrupted.
      for (const [key, id] of queued) {
        if (!key.startsWith(`${round}:`)) continue;
        const accounted =
          restored.includes(key) || state.pendingRestore?.id === id || state.lastRestore?.id === id;
        expect({ key, id, accounted }).toEqual({ key, id, accounted: true });
      }
      // A later round's restores must not be confused with this one's: clear the pending one.
      const pending = state.pendingRestore?.id;
      if (pending !== undefined) {
        const d = createDriver({}, { workspace: ws });
        await d.userTurn("take the pending restore");
        await d.dispose();
      }
    }
    expect(new Set(restored).size).toBe(restored.length);
    expect(restored.length).toBeGreaterThan(0);
  }, 120_000);

  it("keeps both processes' work when two of them take turns on one session", async () => {
    const ws = tempDir("big-memory-two-procs-");
    const a = new FixtureProcess(SESSION_WORKER, [ws, "turns"]);
    const b = new FixtureProcess(SESSION_WORKER, [ws, "turns"]);
    const queue = new FixtureProcess(SESSION_WORKER, [ws, "queue"]);
    await Promise.all([a.waitForLine("ready"), b.waitForLine("ready"), queue.waitForLine("ready")]);
    await new Promise((r) => setTimeout(r, 1500));
    await queue.kill("SIGKILL");
    // Let the turns take what is pending, then stop both between turns' writes.
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all([a.kill("SIGKILL"), b.kill("SIGKILL")]);
    const ids = new Map(linesOf(queue, /^queued (\d+) (\S+)$/gm).map((m) => [m[1] ?? "", m[2] ?? ""]));
    const restored = [...linesOf(a, /^restored (\d+)$/gm), ...linesOf(b, /^restored (\d+)$/gm)].map(
      (m) => m[1],
    );
    const state = sessionFile(ws);
    expect(ids.size).toBeGreaterThan(1);
    // No restore twice, none lost: each was restored by one process, or is pending or being taken.
    expect(new Set(restored).size).toBe(restored.length);
    for (const [k, id] of ids) {
      const accounted =
        restored.includes(k) || state.pendingRestore?.id === id || state.lastRestore?.id === id;
      expect({ k, accounted }).toEqual({ k, accounted: true });
    }
    // Both processes' trails were written into the one file.
    const turns = (p: FixtureProcess) => linesOf(p, /^turn (\d+) done$/gm).length;
    expect(state.trail.turns).toBeGreaterThanOrEqual(turns(a) + turns(b));
  }, 60_000);

  it("captures every turn when each turn is its own process that exits without awaiting agent_end", async () => {
    const ws = tempDir("big-memory-one-turn-");
    for (let n = 1; n <= 5; n++) {
      const turn = new FixtureProcess(SESSION_WORKER, [ws, "one-turn", String(n)]);
      expect(await turn.exited).toEqual({ code: 0, signal: null });
    }
    expect(sessionFile(ws).trail.turns).toBe(5);
    const compact = new FixtureProcess(SESSION_WORKER, [ws, "compact"]);
    expect(await compact.exited).toEqual({ code: 0, signal: null });
    const logs = readdirSync(join(ws, "memory"));
    const blocks = logs.flatMap(
      (f) => parseDailyLog(readFileSync(join(ws, "memory", f), "utf8"), `memory/${f}`).snapshots,
    );
    expect(blocks.map((b) => b.snapshot.trigger)).toEqual(["compaction"]);
    const files = blocks[0]?.snapshot.files.map((f) => f.path) ?? [];
    for (let n = 1; n <= 5; n++) expect(files).toContain(`src/turn-${n}.ts`);
  }, 60_000);
});

/** The snapshots of every daily log of `ws`, in order. */
function blocksOf(ws: string) {
  return readdirSync(join(ws, "memory"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .flatMap((f) => parseDailyLog(readFileSync(join(ws, "memory", f), "utf8"), `memory/${f}`).snapshots);
}

describe("a process killed right after before_compaction returns (its state written behind)", () => {
  /**
   * Three turns and a before_compaction in a worker that SIGKILLs itself when the hook returns: the block and
   * the ledger's open cycle are on disk; the state's write that follows may or may not have landed.
   */
  async function killedAfterBefore(ws: string): Promise<string> {
    const worker = new FixtureProcess(SESSION_WORKER, [ws, "before-kill", "3"]);
    expect(await worker.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(worker.stdout.split("\n")).toContain("returned");
    const blocks = blocksOf(ws);
    expect(blocks.map((b) => b.snapshot.trigger)).toEqual(["compaction"]);
    const id = blocks[0]?.snapshot.id ?? "";
    const ledger = await readLedger(ws);
    expect(ledger.records).toHaveLength(1);
    expect(ledger.records[0]).toMatchObject({ snapshot: id, outcome: "open", cover: "safety-net" });
    return id;
  }
  const turn = async (d: Driver, messages: unknown[]) => {
    const [r] = await d.fire("before_prompt_build", { prompt: "continue", messages }, { trigger: "user" });
    return (r as { prependContext?: string } | undefined)?.prependContext;
  };

  it("restores that snapshot at the next process's first turn when the compaction happened, drafting no other", async () => {
    for (let round = 0; round < 3; round++) {
      const ws = tempDir("big-memory-before-kill-");
      const id = await killedAfterBefore(ws);
      const d = createDriver({}, { workspace: ws });
      const summary = {
        role: "user",
        content:
          "The conversation history before this point was compacted into the following summary: fixed turns 1-3.",
      };
      const restored = await turn(d, [summary, { role: "user", content: "continue" }]);
      expect(restored).toContain(id);
      expect(restored).toContain("src/turn-3.ts");
      // Once only, and no second snapshot of the cycle.
      expect(
        await turn(d, [
          summary,
          { role: "user", content: "continue" },
          { role: "user", content: "and then?" },
        ]),
      ).toBeUndefined();
      await d.dispose();
      expect(blocksOf(ws).map((b) => b.snapshot.id)).toEqual([id]);
      const ledger = await readLedger(ws);
      expect(ledger.records).toHaveLength(1);
      expect(ledger.records[0]).toMatchObject({ cover: "safety-net", snapshot: id, outcome: "done" });
      expect(ledger.records[0]?.restore?.snapshot).toBe(id);
    }
  }, 120_000);

  it("restores nothing when the next turn's conversation was not compacted, and the ledger says why", async () => {
    const ws = tempDir("big-memory-before-kill-");
    const id = await killedAfterBefore(ws);
    const d = createDriver({}, { workspace: ws });
    const asks = [1, 2, 3, 4].map((n) => ({ role: "user", content: `ask ${n}` }));
    expect(await turn(d, asks)).toBeUndefined();
    await d.dispose();
    expect(blocksOf(ws).map((b) => b.snapshot.id)).toEqual([id]);
    const ledger = await readLedger(ws);
    expect(ledger.records[0]).toMatchObject({ snapshot: id, outcome: "failed", restore: null });
    expect(ledger.records[0]?.note).toMatch(/not compacted/);
    // The snapshot stays findable: "you forgot" and recall still reach it.
    const list = await cli(["list", "--dir", ws, "--json"]);
    expect((list.json() as { snapshots: { id: string }[] }).snapshots.map((s) => s.id)).toEqual([id]);
  }, 60_000);
});

describe("a provider's compaction seen as the process exits (openclaw agent --local)", () => {
  it("restores it once at the next process's turn, whatever moment the exit cut the capture at", async () => {
    // The marked answer's llm_output and agent_end are not awaited; the exit comes 0-40 ms later.
    for (const delay of [0, 1, 2, 4, 8, 16, 40]) {
      const ws = tempDir("big-memory-provider-exit-");
      const exit = new FixtureProcess(SESSION_WORKER, [ws, "provider-exit", "3", String(delay)]);
      expect(await exit.exited).toEqual({ code: 0, signal: null });
      const next = new FixtureProcess(SESSION_WORKER, [ws, "provider-next", "3"]);
      expect(await next.exited).toEqual({ code: 0, signal: null });
      expect({ delay, restored: next.stdout.split("\n").filter((l) => l.startsWith("restored")) }).toEqual({
        delay,
        restored: ["restored compaction"],
      });
      // An exit after the block was written and before its cycle was recorded leaves that block behind: the
      // next process drafts the cycle's own. One cycle, one restore, the newest block.
      const blocks = blocksOf(ws);
      expect(blocks.length).toBeGreaterThanOrEqual(1);
      expect(blocks.length).toBeLessThanOrEqual(2);
      for (const b of blocks) expect(b.snapshot.files.map((f) => f.path)).toContain("src/turn-3.ts");
      const ledger = await readLedger(ws);
      expect(ledger.records.map((r) => [r.path, r.outcome, r.restore?.snapshot])).toEqual([
        ["provider", "done", blocks.at(-1)?.snapshot.id],
      ]);
      // And not again.
      const again = new FixtureProcess(SESSION_WORKER, [ws, "provider-next", "3"]);
      expect(await again.exited).toEqual({ code: 0, signal: null });
      expect(again.stdout).not.toContain("restored");
    }
  }, 120_000);
});

describe("a stuck lock", () => {
  it("does not block saves when the lock folder holds stray files and no owner", async () => {
    const ws = tempDir("big-memory-stuck-");
    mkdirSync(join(ws, "memory", ".big-memory.lock", "leftover"), { recursive: true });
    writeFileSync(join(ws, "memory", ".big-memory.lock", ".DS_Store"), "stray");
    writeFileSync(join(ws, "memory", ".big-memory.lock", "leftover", "x"), "stray");
    const r = await cli(["save", "--dir", ws], { stdin: snapshotJson(10) });
    expect(r.code).toBe(0);
    expect(readdirSync(join(ws, "memory"))).toEqual(["2026-11-22.md"]);
  });
});

describe("a crowd of writers", () => {
  it("writes all of 100 concurrent saves from 100 processes, with distinct ids", async () => {
    const ws = tempDir("big-memory-crowd-");
    mkdirSync(join(ws, "memory"));
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        bin(["save", "--dir", ws, "--json"], JSON.stringify({ goal: `crowd ${i}`, next: [`step ${i}`] })),
      ),
    );
    const seconds = (Date.now() - started) / 1000;
    expect(results.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
    const ids = results.map((r) => (JSON.parse(r.stdout) as { id: string }).id);
    expect(new Set(ids).size).toBe(100);
    const list = await cli(["list", "--dir", ws, "--json"]);
    expect((list.json() as { snapshots: unknown[] }).snapshots).toHaveLength(100);
    console.log(`fault suite: 100 concurrent saves, 100 written in ${seconds.toFixed(1)} s`);
  }, 120_000);
});

describe("a corrupt session file", () => {
  it("still delivers the pending restore, from the previous good copy, and affects only its session", async () => {
    const d: Driver = createDriver();
    cleanups.push(() => d.dispose());
    await d.userTurn("Fix ERR_CORRUPT_STATE in src/state.ts");
    await d.tool("read", { path: "src/state.ts" });
    await d.fire("before_compaction", { messageCount: 9, tokenCount: 9000 });
    await d.fire("after_compaction", { messageCount: 2, tokenCount: 500, compactedCount: 7 });
    const other = { sessionKey: "agent:main:other", sessionId: "s-2" };
    await d.userTurn("Another task entirely", other);
    const sessions = join(d.workspace, ".big-memory", "sessions");
    const mine = readdirSync(sessions).find((n) => n.startsWith("agent-main-main-") && n.endsWith(".json"));
    writeFileSync(join(sessions, mine ?? ""), '{"version":1,"sessionKey":');
    await d.restart();
    // The previous good copy holds the compaction's snapshot (queued at after_compaction, in the copy lost):
    // the turn's conversation, which opens with the compaction summary, shows it happened.
    const summary = { role: "user", content: "The conversation history before this point was compacted ..." };
    const [turn] = await d.fire(
      "before_prompt_build",
      { prompt: "go on", messages: [summary] },
      { trigger: "user" },
    );
    const restored = (turn as { prependContext?: string } | undefined)?.prependContext;
    expect(restored).toContain("ERR_CORRUPT_STATE");
    expect(await d.userTurn("Still the other task", other)).toBeUndefined();
    expect(d.reg.warnings).toHaveLength(1);
    expect(d.reg.warnings[0]).toContain("is not valid JSON (corrupt or torn); using the previous copy");
  });
});

describe("bad paths", () => {
  it("answers each with one line naming the path and what to do, exit 2 or 3, never a stack trace", async () => {
    const root = tempDir("big-memory-paths-");
    writeFileSync(join(root, "a-file"), "not a folder");
    mkdirSync(join(root, "ws-memory-file"));
    writeFileSync(join(root, "ws-memory-file", "memory"), "a file where memory/ should be");
    const outside = tempDir("big-memory-outside-");
    mkdirSync(join(root, "ws-link", "memory"), { recursive: true });
    const today = new Date();
    const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, "0")}-${String(today.getDate()).padStart(2, "0")}`;
    symlinkSync(join(outside, "stolen.md"), join(root, "ws-link", "memory", `${day}.md`));
    const cases: [string[], number, RegExp][] = [
      [
        ["list", "--dir", ""],
        2,
        /^big-memory: --dir is empty \(expected the path of a workspace folder holding memory\/\)\n$/,
      ],
      [
        ["list", "--dir", join(root, "a-file")],
        2,
        /^big-memory: --dir .*a-file is a file, not a folder \(expected a workspace folder holding memory\/\)\n$/,
      ],
      [
        ["list", "--dir", join(root, "missing")],
        2,
        /^big-memory: workspace .*missing does not exist \(expected a folder holding memory\/; create it or pass the right --dir\)\n$/,
      ],
      [
        ["save", "--dir", join(root, "ws-memory-file")],
        3,
        /^big-memory: .*ws-memory-file\/memory is not a folder: the daily logs cannot be read or written \(a file stands where a folder is expected: move the file away\)\n$/,
      ],
      [
        ["save", "--dir", join(root, "ws-link")],
        3,
        /^big-memory: cannot append to memory\/\d{4}-\d{2}-\d{2}\.md: refusing to write through .*\d{4}-\d{2}-\d{2}\.md: it resolves to .*stolen\.md, outside the workspace .* \(a symbolic link\); replace the link with a folder or file of the workspace\n$/,
      ],
    ];
    for (const [args, code, message] of cases) {
      const r = await bin(args, snapshotJson(10));
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({
        args,
        code,
        stderr: expect.stringMatching(message),
      });
    }
    expect(readdirSync(outside)).toEqual([]);
  });

  it("ends quietly when the reader closes the pipe early (big-memory list | head -1)", async () => {
    const ws = tempDir("big-memory-pipe-");
    mkdirSync(join(ws, "memory"));
    for (let i = 0; i < 40; i++)
      await cli(["save", "--dir", ws], { stdin: JSON.stringify({ goal: `pipe ${i}` }) });
    const r = spawnSync(
      "bash",
      ["-c", `"${process.execPath}" ${BIN} list --dir ${ws} | head -1; echo "exit=\${PIPESTATUS[0]}" >&2`],
      {
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1" },
      },
    );
    expect(r.stdout.split("\n").filter((l) => l !== "")).toHaveLength(1);
    expect(r.stderr).toBe("exit=0\n");
  });
});
