import { existsSync } from "node:fs";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  beginTurn,
  claimCycleFlush,
  claimFlush,
  endTurn,
  observe,
  prepareFlush,
  requeueRestore,
  runCycle,
  type SessionRef,
} from "../../plugin/session/capture-service.ts";
import type { CycleHookEvent } from "../../plugin/session/cycle.ts";
import { flushTarget } from "../../plugin/session/flush-target.ts";
import { sessionStatePath, withCapture, withPendingRestore } from "../../plugin/session/session-state.ts";
import type { Workspace } from "../../plugin/session/workspace.ts";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { emptyContent } from "../../plugin/snapshot/sections.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";
import { snapshot } from "../builders.ts";
import { MAIN, NOW, TODAY_LOG, useWorkspaces } from "./fixtures.ts";

const workspace = useWorkspaces();
const AT = NOW.toISOString();
const FLUSH = { agentId: "main", flushSessionKey: "agent:main:flush-run" };
const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

/** An ask and a failing test run observed for `ref`. */
function work(ws: Workspace, ref: SessionRef = MAIN): void {
  observe(ws, ref, { type: "ask", text: "Fix ERR_DUPLICATE_KEY in src/auth/oauth-callback.ts", at: AT });
  observe(ws, ref, {
    type: "tool",
    tool: "exec",
    params: { command: "npm test -- oauth" },
    error: "exit code 1",
    at: AT,
  });
}

const blocks = async (ws: Workspace) => parseDailyLog(await ws.readLog(TODAY_LOG), TODAY_LOG).snapshots;

/** What a model writes in the flush run: the block with the id the flush prompt gave it. */
async function writeFlushBlock(ws: Workspace, id: string, over: Partial<Snapshot> = {}): Promise<void> {
  const block = snapshot(id, {
    session: FLUSH.flushSessionKey,
    trigger: "flush",
    goal: "the model's own snapshot",
    ...over,
  });
  await appendFile(join(ws.dir, TODAY_LOG), `\n${renderSnapshot(block)}`);
}

/** A workspace whose log holds one block (so today's log exists) and a flush mark after it. */
async function flushing() {
  const t = await workspace();
  await t.ws.save(
    { ...emptyContent(), goal: "an earlier snapshot" },
    { trigger: "manual", session: "agent:main:other", agent: "main" },
  );
  await prepareFlush(t.ws, FLUSH, null, NOW, "UTC");
  return t;
}

describe("observe", () => {
  it("folds the event into the trail in memory, fills a missing agent, and writes it only when flushed", async () => {
    const { ws, another } = await workspace();
    observe(ws, { sessionKey: MAIN.sessionKey, agentId: null }, { type: "ask", text: "first ask", at: AT });
    observe(ws, MAIN, {
      type: "tool",
      tool: "read",
      params: { path: "src/a.ts" },
      at: "2026-11-22T12:00:05.000Z",
    });
    const s = await ws.session(MAIN.sessionKey, null).read();
    expect([s.agentId, s.trail.toolCalls, s.trail.files.map((f) => f.path), s.updatedAt]).toEqual([
      "main",
      1,
      ["src/a.ts"],
      "2026-11-22T12:00:05.000Z",
    ]);
    expect(existsSync(sessionStatePath(ws.stateDir, MAIN.sessionKey))).toBe(false);
    await ws.flushSessions();
    expect((await another().session(MAIN.sessionKey, null).read()).trail.toolCalls).toBe(1);
  });
});

describe("beginTurn", () => {
  it("records the ask and takes nothing when no restore is pending; an empty ask is not recorded", async () => {
    const { ws } = await workspace();
    const first = await beginTurn(ws, MAIN, "Fix the login", NOW);
    const second = await beginTurn(ws, MAIN, "", later(1));
    expect([first.pending, second.pending]).toEqual([[], []]);
    expect(second.state.turnOpen).toBe(true);
    expect(second.state.trail.asks.map((a) => a.text)).toEqual(["Fix the login"]);
    expect(second.state.updatedAt).toBe(later(1).toISOString());
  });

  it("takes a pending restore exactly once, writes that at once and records it as the last restore", async () => {
    const { ws, another } = await workspace();
    const queued = withPendingRestore;
    await ws
      .session(MAIN.sessionKey, MAIN.agentId)
      .update((s) => queued(s, { id: "2026-11-22-01", file: TODAY_LOG }, "compaction", AT));
    const taken = await beginTurn(ws, MAIN, "continue", later(1));
    expect(taken.pending).toEqual([{ id: "2026-11-22-01", file: TODAY_LOG, reason: "compaction", at: AT }]);
    expect(taken.state.lastRestore).toEqual({
      id: "2026-11-22-01",
      reason: "compaction",
      at: later(1).toISOString(),
    });
    expect((await beginTurn(ws, MAIN, "and now?", later(2))).pending).toEqual([]);
    const onDisk = await another().session(MAIN.sessionKey, null).read();
    expect([onDisk.pendingRestore, onDisk.lastRestore?.id, onDisk.trail.asks.length]).toEqual([
      null,
      "2026-11-22-01",
      1,
    ]);
  });

  it("gives a restore to one Workspace only when two on the same folder begin turns", async () => {
    const { ws, another } = await workspace();
    const other = another();
    const queue = (w: Workspace, id: string) =>
      w
        .session(MAIN.sessionKey, MAIN.agentId)
        .update((s) => withPendingRestore(s, { id, file: TODAY_LOG }, "reset", AT));
    await queue(ws, "2026-11-22-01");
    expect((await beginTurn(other, MAIN, "hello", NOW)).pending[0]?.id).toBe("2026-11-22-01");
    expect((await beginTurn(ws, MAIN, "hello again", NOW)).pending).toEqual([]);
    await queue(other, "2026-11-22-02");
    const both = await Promise.all([beginTurn(ws, MAIN, "a", NOW), beginTurn(other, MAIN, "b", NOW)]);
    expect(both.map((r) => r.pending[0]?.id ?? null).sort()).toEqual(["2026-11-22-02", null]);
  });

  it("takes the user's restore first and the automatic one behind it, and takes a resume's line of work only now", async () => {
    const { ws } = await workspace();
    const line = { name: "billing-export-v2", parent: null };
    await ws.session(MAIN.sessionKey, MAIN.agentId).update((s) =>
      withPendingRestore(
        withPendingRestore(s, { id: "2026-11-20-01", file: "memory/2026-11-20.md" }, "resume", AT, {
          line,
        }),
        { id: "2026-11-22-01", file: TODAY_LOG },
        "compaction",
        AT,
        { cycle: AT },
      ),
    );
    expect((await ws.session(MAIN.sessionKey, MAIN.agentId).read()).line).toBeNull();
    const taken = await beginTurn(ws, MAIN, "go on", later(1));
    expect(taken.pending.map((p) => [p.id, p.reason])).toEqual([
      ["2026-11-20-01", "resume"],
      ["2026-11-22-01", "compaction"],
    ]);
    expect([taken.state.line, taken.state.pendingRestore, taken.state.queue]).toEqual([line, null, []]);
  });
});

describe("requeueRestore", () => {
  it("puts a restore that did not fit back for the next turn, behind nothing the user asked for since", async () => {
    const { ws } = await workspace();
    const p = { id: "2026-11-22-01", file: TODAY_LOG, reason: "compaction" as const, at: AT, cycle: AT };
    await requeueRestore(ws, MAIN, p);
    expect((await beginTurn(ws, MAIN, "next", later(1))).pending).toEqual([p]);
  });
});

describe("endTurn", () => {
  it("counts the conversation's user turns and closes the turn; old provider markers of an unseen session are not new", async () => {
    const { ws } = await workspace();
    const marked = {
      role: "assistant",
      content: [{ type: "text", text: "done" }],
      providerReplay: { v: 1, type: "openai-responses-compaction", id: "cmp_1", data: "x" },
    };
    const messages = [
      { role: "user", content: "Fix the login" },
      marked,
      { role: "user", content: "and logout" },
    ];
    expect(await endTurn(ws, MAIN, messages)).toEqual([]);
    const s = await ws.session(MAIN.sessionKey, MAIN.agentId).read();
    expect([s.turnOpen, s.seen.messages, s.seen.summaries]).toEqual([false, 2, 0]);
    expect(
      await endTurn(ws, MAIN, [
        ...messages,
        { ...marked, providerReplay: { ...marked.providerReplay, id: "cmp_2" } },
      ]),
    ).toEqual(["openai-responses-compaction:cmp_1", "openai-responses-compaction:cmp_2"]);
  });
});

describe("runCycle on a provider's compaction", () => {
  const noticed = (marks: string[]): CycleHookEvent => ({ type: "noticed", path: "provider", at: AT, marks });
  const opts = { now: NOW, safetyNet: true, restore: true };

  it("captures once per marker, takes the marker in the update that queues the restore, and ignores it after", async () => {
    const { ws } = await workspace();
    work(ws);
    const first = await runCycle(ws, MAIN, noticed(["openai-responses-compaction:cmp_1"]), opts);
    expect(first?.source).toBe("safety-net");
    const s = await ws.session(MAIN.sessionKey, MAIN.agentId).read();
    expect(s.seen.providerMarks).toEqual(["openai-responses-compaction:cmp_1"]);
    expect(s.pendingRestore?.id).toBe(first?.id);
    // The turn's end sees the same marker: nothing moves, nothing more is written.
    expect(await runCycle(ws, MAIN, noticed(["openai-responses-compaction:cmp_1"]), opts)).toBeNull();
    const log = await readFile(join(ws.dir, TODAY_LOG), "utf8");
    expect(parseDailyLog(log, TODAY_LOG).snapshots).toHaveLength(1);
  });

  it("captures once when a turn's answer and its end report the marker at the same time", async () => {
    const { ws } = await workspace();
    work(ws);
    const mark = ["openai-responses-compaction:cmp_7"];
    const both = await Promise.all([
      runCycle(ws, MAIN, noticed(mark), opts),
      runCycle(ws, MAIN, noticed(mark), opts),
    ]);
    expect(both.filter((c) => c !== null)).toHaveLength(1);
    const log = await readFile(join(ws.dir, TODAY_LOG), "utf8");
    expect(parseDailyLog(log, TODAY_LOG).snapshots).toHaveLength(1);
  });
});

/**
 * A conversation as OpenClaw hands it to `before_compaction` (preflight) and the flush run's
 * `before_prompt_build` (pi-agent messages): turns the plugin did not observe (it loaded later, or the
 * gateway restarted), then the turn it did.
 */
const EARLIER_TURNS = [
  {
    role: "user",
    content: "Move billing exports to the v2 API in src/billing/export.ts",
    timestamp: 1795168800000,
  },
  {
    role: "assistant",
    content: [
      {
        type: "toolCall",
        id: "e1",
        name: "edit",
        arguments: { path: "src/billing/export.ts", oldText: "v1", newText: "v2" },
      },
      { type: "toolCall", id: "t1", name: "exec", arguments: { command: "npm test -- billing" } },
    ],
    timestamp: 1795168801000,
  },
  {
    role: "toolResult",
    toolCallId: "e1",
    toolName: "edit",
    content: [{ type: "text", text: "ok" }],
    timestamp: 1795168802000,
  },
  {
    role: "toolResult",
    toolCallId: "t1",
    toolName: "exec",
    content: [{ type: "text", text: "Error: unknown field (ERR_V2_SCHEMA)\n\n(Command exited with code 1)" }],
    details: { status: "completed", exitCode: 1 },
    timestamp: 1795168803000,
  },
  { role: "user", content: "also keep the CSV header order", timestamp: 1795168804000 },
];

/** What the plugin observed of the same session: only the last turn. */
function lateWork(ws: Workspace): void {
  observe(ws, MAIN, { type: "ask", text: "also keep the CSV header order", at: AT });
  observe(ws, MAIN, { type: "tool", tool: "read", params: { path: "src/billing/csv.ts" }, at: AT });
}

describe("prepareFlush", () => {
  it("marks where today's log ends and which id comes next, and asks for that block", async () => {
    const { ws } = await workspace();
    await ws.save({ ...emptyContent(), goal: "earlier" }, { trigger: "manual" });
    const prompt = await prepareFlush(ws, FLUSH, null, NOW, "UTC");
    expect(prompt).toContain(`\`${TODAY_LOG}\``);
    expect(prompt).toContain("<!-- snapshot-id: 2026-11-22-02 -->");
    expect(prompt).toContain("<!-- trigger: flush -->");
    expect((await ws.flushMarks().read()).marks).toEqual([
      {
        ...FLUSH,
        file: TODAY_LOG,
        offset: Buffer.byteLength(await ws.readLog(TODAY_LOG)),
        id: "2026-11-22-02",
        at: AT,
        sessionKey: null,
      },
    ]);
  });

  it("names the real session and includes its draft when the trail has substance", async () => {
    const { ws } = await workspace();
    work(ws);
    const target = await ws.session(MAIN.sessionKey, MAIN.agentId).read();
    const prompt = await prepareFlush(ws, FLUSH, target, NOW, "UTC");
    expect(prompt).toContain("<!-- session: agent:main:main -->");
    expect(prompt).toContain("<!-- snapshot-id: 2026-11-22-01 -->");
    expect(prompt).toContain("ERR_DUPLICATE_KEY");
  });

  it("drafts from the flush run's conversation what the session's trail missed (before_prompt_build.messages)", async () => {
    const { ws } = await workspace();
    lateWork(ws);
    const target = await ws.session(MAIN.sessionKey, MAIN.agentId).read();
    const prompt = await prepareFlush(ws, FLUSH, target, NOW, "UTC", EARLIER_TURNS);
    expect(prompt).toContain("Move billing exports to the v2 API");
    expect(prompt).toContain("ERR_V2_SCHEMA");
    expect(prompt).toContain("src/billing/export.ts");
    expect(prompt).toContain("src/billing/csv.ts");
  });

  it("keeps the 20 newest marks", async () => {
    const { ws } = await workspace();
    for (let i = 0; i < 21; i++)
      await prepareFlush(ws, { agentId: `a${i}`, flushSessionKey: null }, null, NOW, "UTC");
    const marks = (await ws.flushMarks().read()).marks;
    expect([marks.length, marks[0]?.agentId, marks.at(-1)?.agentId]).toEqual([20, "a1", "a20"]);
  });
});

describe("claimFlush", () => {
  it("returns the block appended after the agent's mark, once", async () => {
    const { ws } = await flushing();
    await writeFlushBlock(ws, "2026-11-22-02");
    const claimed = await claimFlush(ws, MAIN, later(1));
    expect([claimed?.snapshot.id, claimed?.snapshot.goal, claimed?.file]).toEqual([
      "2026-11-22-02",
      "the model's own snapshot",
      TODAY_LOG,
    ]);
    expect(claimed?.line).toBe((await blocks(ws))[1]?.line);
    expect(await claimFlush(ws, MAIN, later(1))).toBeNull();
  });

  it("leaves another agent's marks, and drops marks older than 15 minutes unclaimed", async () => {
    const { ws } = await flushing();
    await writeFlushBlock(ws, "2026-11-22-02");
    expect(await claimFlush(ws, { sessionKey: "agent:ops:main", agentId: "ops" }, later(1))).toBeNull();
    expect((await ws.flushMarks().read()).marks).toHaveLength(1);
    expect(await claimFlush(ws, MAIN, later(16))).toBeNull();
    expect((await ws.flushMarks().read()).marks).toEqual([]);
  });

  it("returns null when the flush run wrote nothing, and writes nothing when there are no marks", async () => {
    const { ws } = await flushing();
    expect(await claimFlush(ws, MAIN, later(1))).toBeNull();
    const { ws: bare } = await workspace();
    expect(await claimFlush(bare, MAIN, NOW)).toBeNull();
    expect(existsSync(join(bare.stateDir, "flush.json"))).toBe(false);
  });
});

describe("claimCycleFlush", () => {
  it("writes a claim when the block names another session, and every read then gives it to this one", async () => {
    const { ws } = await flushing();
    await writeFlushBlock(ws, "2026-11-22-02");
    const logAfter = await ws.readLog(TODAY_LOG);
    expect((await claimCycleFlush(ws, MAIN, later(1))).snapshot?.snapshot.session).toBe(
      FLUSH.flushSessionKey,
    );
    const claims = (await readFile(join(ws.dir, ".big-memory", "claims.jsonl"), "utf8")).trim().split("\n");
    expect(claims.map((l) => JSON.parse(l))).toEqual([
      {
        v: 1,
        at: later(1).toISOString(),
        file: TODAY_LOG,
        line: (await blocks(ws))[1]?.line,
        id: "2026-11-22-02",
        session: MAIN.sessionKey,
        agent: "main",
        trigger: "flush",
      },
    ]);
    expect((await ws.snapshotIn(TODAY_LOG, "2026-11-22-02"))?.snapshot).toMatchObject({
      session: MAIN.sessionKey,
      trigger: "flush",
    });
    expect(await ws.readLog(TODAY_LOG)).toBe(logAfter);
  });

  it("writes no claim when the block already names this session, its agent and the flush trigger", async () => {
    const { ws } = await flushing();
    await writeFlushBlock(ws, "2026-11-22-02", { session: MAIN.sessionKey, agent: "main" });
    expect((await claimCycleFlush(ws, MAIN, later(1))).snapshot?.snapshot.id).toBe("2026-11-22-02");
    expect(existsSync(join(ws.dir, ".big-memory", "claims.jsonl"))).toBe(false);
  });

  it("claims a block of this session that carries another trigger", async () => {
    const { ws } = await flushing();
    await writeFlushBlock(ws, "2026-11-22-02", {
      session: MAIN.sessionKey,
      agent: "main",
      trigger: "manual",
    });
    await claimCycleFlush(ws, MAIN, later(1));
    expect((await ws.snapshotIn(TODAY_LOG, "2026-11-22-02"))?.snapshot.trigger).toBe("flush");
  });
});

describe("runCycle", () => {
  const on = { now: NOW, safetyNet: true, restore: true };
  const ev = (type: "before-compaction" | "after-compaction" | "before-reset", at = AT): CycleHookEvent =>
    type === "before-reset" ? { type, at, path: "reset" } : { type, at, path: "manual" };
  const ledger = async (ws: Workspace) =>
    (await readFile(join(ws.stateDir, "ledger.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const state = (ws: Workspace) => ws.session(MAIN.sessionKey, MAIN.agentId).read();

  it("writes a safety-net snapshot to today's log at before-compaction, then closes the cycle at its after", async () => {
    const { ws } = await workspace();
    work(ws);
    const covered = await runCycle(ws, MAIN, ev("before-compaction"), on);
    expect(covered).toEqual({ id: "2026-11-22-01", file: TODAY_LOG, source: "safety-net" });
    const [block] = await blocks(ws);
    expect(block?.snapshot).toMatchObject({
      id: "2026-11-22-01",
      trigger: "compaction",
      session: MAIN.sessionKey,
      agent: "main",
    });
    expect(block?.snapshot.goal).toContain("ERR_DUPLICATE_KEY");
    expect((await state(ws)).cycle).toMatchObject({
      n: 0,
      compacting: true,
      captured: "2026-11-22-01",
      held: { id: "2026-11-22-01", file: TODAY_LOG, at: AT },
    });
    expect((await state(ws)).pendingRestore).toBeNull();
    expect(await runCycle(ws, MAIN, ev("after-compaction", later(1).toISOString()), on)).toBeNull();
    expect((await state(ws)).cycle).toMatchObject({ n: 1, compacting: false, captured: null, held: null });
    expect((await state(ws)).pendingRestore).toMatchObject({
      id: "2026-11-22-01",
      reason: "compaction",
      cycle: AT,
    });
    expect(await blocks(ws)).toHaveLength(1);
    expect(await ledger(ws)).toEqual([
      {
        v: 1,
        kind: "cycle",
        cycle: AT,
        session: MAIN.sessionKey,
        agent: "main",
        at: AT,
        path: "manual",
        flush: false,
        cover: "safety-net",
        snapshot: "2026-11-22-01",
        file: TODAY_LOG,
        outcome: "open",
      },
      {
        v: 1,
        kind: "outcome",
        cycle: AT,
        session: MAIN.sessionKey,
        at: later(1).toISOString(),
        outcome: "done",
      },
    ]);
  });

  it("restores nothing when the next turn shows the compaction did not happen, and records it failed", async () => {
    const { ws } = await workspace();
    work(ws);
    await runCycle(ws, MAIN, ev("before-compaction"), on);
    await runCycle(ws, MAIN, { type: "turn", at: later(1).toISOString(), compacted: false }, on);
    const s = await state(ws);
    expect([s.pendingRestore, s.cycle.compacting, s.cycle.captured]).toEqual([null, false, "2026-11-22-01"]);
    expect((await ledger(ws)).at(-1)).toMatchObject({ kind: "outcome", cycle: AT, outcome: "failed" });
  });

  it("writes no identical twin: a second cycle whose draft equals the last one points at it", async () => {
    const { ws } = await workspace();
    work(ws);
    await runCycle(ws, MAIN, { type: "thresholds", crossed: [0.7], at: AT }, { ...on, restore: false });
    const second = await runCycle(ws, MAIN, ev("after-compaction", later(1).toISOString()), {
      ...on,
      now: later(1),
    });
    expect(second).toEqual({ id: "2026-11-22-01", file: TODAY_LOG, source: "existing" });
    expect(await blocks(ws)).toHaveLength(1);
    expect((await ledger(ws)).at(-1)).toMatchObject({ cover: "existing", snapshot: "2026-11-22-01" });
  });

  it("covers an after-compaction that arrives alone", async () => {
    const { ws } = await workspace();
    work(ws);
    expect((await runCycle(ws, MAIN, ev("after-compaction"), on))?.source).toBe("safety-net");
    const s = await state(ws);
    expect([s.cycle.n, s.pendingRestore?.id, (await blocks(ws)).length]).toEqual([1, "2026-11-22-01", 1]);
  });

  it("closes a cycle whose after was lost when the next before arrives", async () => {
    const { ws } = await workspace();
    work(ws);
    await runCycle(ws, MAIN, ev("before-compaction"), on);
    observe(ws, MAIN, { type: "ask", text: "now the logout", at: later(5).toISOString() });
    const second = await runCycle(ws, MAIN, ev("before-compaction", later(6).toISOString()), {
      ...on,
      now: later(6),
    });
    expect(second?.id).toBe("2026-11-22-02");
    expect((await state(ws)).cycle).toMatchObject({ n: 0, compacting: true, captured: "2026-11-22-02" });
    expect((await ledger(ws)).map((l) => [l.kind, l.outcome])).toEqual([
      ["cycle", "open"],
      ["outcome", "failed"],
      ["cycle", "open"],
    ]);
  });

  it("fills what the trail missed from before_compaction's messages (the preflight path)", async () => {
    const { ws } = await workspace();
    lateWork(ws);
    await runCycle(ws, MAIN, ev("before-compaction"), { ...on, messages: EARLIER_TURNS });
    const [block] = await blocks(ws);
    const draft = block?.snapshot;
    expect(draft?.goal).toContain("Move billing exports to the v2 API");
    expect(draft?.files.map((f) => f.path)).toEqual(
      expect.arrayContaining(["src/billing/export.ts", "src/billing/csv.ts"]),
    );
    expect(draft?.blockers.join("\n")).toContain("npm test -- billing");
    expect(draft?.names.map((n) => n.value)).toContain("ERR_V2_SCHEMA");
  });

  it("drafts a reset's snapshot from its messages when the trail is empty, and queues a reset restore", async () => {
    const { ws } = await workspace();
    const messages = [
      {
        role: "user",
        content: [{ type: "text", text: "Migrate billing exports to the v2 API (INV-2026-00417)" }],
      },
    ];
    expect((await runCycle(ws, MAIN, ev("before-reset"), { ...on, messages }))?.source).toBe("safety-net");
    const [block] = await blocks(ws);
    expect([block?.snapshot.trigger, block?.snapshot.goal.includes("billing")]).toEqual(["reset", true]);
    const s = await state(ws);
    expect([s.pendingRestore?.reason, s.trail.turns, s.cycle.n]).toEqual(["reset", 0, 1]);
  });

  it("queues no restore when restore is off, and writes nothing without the safety net", async () => {
    const { ws } = await workspace();
    work(ws);
    expect((await runCycle(ws, MAIN, ev("before-compaction"), { ...on, safetyNet: false }))?.source).toBe(
      "none",
    );
    expect(await ws.readLog(TODAY_LOG)).toBe("");
    await runCycle(ws, MAIN, ev("before-reset"), { ...on, restore: false });
    const s = await state(ws);
    expect([s.pendingRestore, s.snapshots.map((x) => x.trigger)]).toEqual([null, ["reset"]]);
  });

  it("has nothing to draft for a session that observed nothing", async () => {
    const { ws } = await workspace();
    expect(await runCycle(ws, MAIN, ev("before-compaction"), on)).toEqual({
      id: "",
      file: "",
      source: "none",
    });
    expect([(await state(ws)).pendingRestore, await ws.readLog(TODAY_LOG)]).toEqual([null, ""]);
  });

  it("autosaves at crossed thresholds with the threshold trigger and no restore, a new one only for new work", async () => {
    const { ws } = await workspace();
    work(ws);
    await runCycle(ws, MAIN, { type: "thresholds", crossed: [0.7], at: AT }, { ...on, restore: false });
    await runCycle(ws, MAIN, { type: "thresholds", crossed: [0.9], at: AT }, { ...on, restore: false });
    expect((await blocks(ws)).map((b) => b.snapshot.trigger)).toEqual(["threshold"]);
    observe(ws, MAIN, { type: "ask", text: "now the logout page", at: later(1).toISOString() });
    await runCycle(ws, MAIN, { type: "thresholds", crossed: [0.95], at: AT }, { ...on, restore: false });
    expect((await blocks(ws)).map((b) => b.snapshot.trigger)).toEqual(["threshold", "threshold"]);
    const s = await state(ws);
    expect([s.cycle.thresholds, s.pendingRestore]).toEqual([[0.7, 0.9, 0.95], null]);
  });

  it("counts a snapshot written since the last observation as the cover, without a second block", async () => {
    const { ws } = await workspace();
    work(ws);
    const saved = await ws.save(
      { ...emptyContent(), goal: "saved by hand" },
      { trigger: "manual", session: MAIN.sessionKey },
    );
    await ws
      .session(MAIN.sessionKey, MAIN.agentId)
      .update((s) => withCapture(s, { ...saved, trigger: "manual", at: later(1).toISOString() }));
    expect(await runCycle(ws, MAIN, ev("before-compaction"), on)).toEqual({
      id: saved.id,
      file: TODAY_LOG,
      source: "existing",
    });
    expect(await blocks(ws)).toHaveLength(1);
  });

  it("takes the flush run's block as the cover instead of drafting one", async () => {
    const { ws } = await flushing();
    work(ws);
    await writeFlushBlock(ws, "2026-11-22-02");
    expect(await runCycle(ws, MAIN, ev("before-compaction"), { ...on, now: later(1) })).toEqual({
      id: "2026-11-22-02",
      file: TODAY_LOG,
      source: "flush",
    });
    expect(await blocks(ws)).toHaveLength(2);
    const s = await state(ws);
    expect([s.cycle.held?.id, s.snapshots.map((x) => [x.id, x.trigger])]).toEqual([
      "2026-11-22-02",
      [["2026-11-22-02", "flush"]],
    ]);
    expect((await ledger(ws))[0]).toMatchObject({ path: "preflight", flush: true, cover: "flush" });
  });

  it("leaves the flush marks alone at the after of a before", async () => {
    const { ws } = await workspace();
    work(ws);
    await runCycle(ws, MAIN, ev("before-compaction"), on);
    await prepareFlush(ws, FLUSH, null, NOW, "UTC");
    await runCycle(ws, MAIN, ev("after-compaction"), on);
    expect((await ws.flushMarks().read()).marks).toHaveLength(1);
  });
});

describe("two active sessions of one agent", () => {
  const user = (text: string) => ({
    role: "user",
    content: [{ type: "text", text: `[Sun 2026-11-22 12:00 UTC] ${text}` }],
  });

  it("gives each of two active sessions' flushes its own draft, and each compaction claims its own block", async () => {
    const { ws } = await workspace();
    const A = { sessionKey: "agent:main:a", agentId: "main" };
    const B = { sessionKey: "agent:main:b", agentId: "main" };
    work(ws, A);
    observe(ws, B, { type: "ask", text: "Migrate billing exports to the v2 API (INV-2026-00417)", at: AT });
    const convA = [user("Fix ERR_DUPLICATE_KEY in src/auth/oauth-callback.ts")];
    const promptA = await prepareFlush(ws, FLUSH, await flushTarget(ws, "main", convA), NOW, "UTC", convA);
    // B was written last: the flush run of A still drafts A.
    observe(ws, B, { type: "ask", text: "and the CSV header too", at: later(1).toISOString() });
    await ws.flushSessions();
    expect(promptA).toContain("ERR_DUPLICATE_KEY");
    expect(promptA).toContain("<!-- session: agent:main:a -->");
    expect(promptA).not.toContain("INV-2026-00417");
    const convB = [user("Migrate billing exports to the v2 API (INV-2026-00417)")];
    const promptB = await prepareFlush(ws, FLUSH, await flushTarget(ws, "main", convB), NOW, "UTC", convB);
    expect(promptB).toContain("INV-2026-00417");
    expect(promptB).not.toContain("ERR_DUPLICATE_KEY");
    // B compacts first: it takes its own mark only, and A's stays for A.
    expect((await takeFlushRan(ws, B)).ran).toBe(true);
    expect((await ws.flushMarks().read()).marks.map((m) => m.sessionKey)).toEqual(["agent:main:a"]);
  });
});

const takeFlushRan = (ws: Workspace, ref: SessionRef) => claimCycleFlush(ws, ref, later(1));
