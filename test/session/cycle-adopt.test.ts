import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { observe, runCycle } from "../../plugin/session/capture-service.ts";
import { adoptCycle, adoptLostCycle, lostCycle } from "../../plugin/session/cycle-adopt.ts";
import { initialSessionState, sessionStatePath, withCapture } from "../../plugin/session/session-state.ts";
import type { Workspace } from "../../plugin/session/workspace.ts";
import { type LedgerRecord, readLedger } from "../../plugin/store/ledger.ts";
import { MAIN, NOW, TODAY_LOG, useWorkspaces } from "./fixtures.ts";

const workspace = useWorkspaces();
const AT = NOW.toISOString();
const BEFORE = "2026-11-22T11:59:00.000Z";
const LATER = "2026-11-22T12:05:00.000Z";

const open = (over: Partial<LedgerRecord> = {}): LedgerRecord => ({
  cycle: AT,
  session: MAIN.sessionKey,
  agent: "main",
  path: "overflow",
  flush: false,
  cover: "safety-net",
  snapshot: "2026-11-22-01",
  file: TODAY_LOG,
  outcome: "open",
  note: null,
  restore: null,
  ...over,
});
const stateAt = (updatedAt: string) => ({
  ...initialSessionState(MAIN.sessionKey, MAIN.agentId),
  updatedAt,
});

describe("lostCycle", () => {
  it("finds the session's last cycle when it is open and newer than the state's last write", () => {
    expect(lostCycle(stateAt(BEFORE), [open()])).toEqual(open());
    // The session's last cycle, not another session's later one.
    const other = open({ session: "agent:main:other", cycle: LATER });
    expect(lostCycle(stateAt(BEFORE), [open(), other])).toEqual(open());
  });

  it("finds nothing when the state knows the cycle, the cycle ended, or nothing was captured", () => {
    // The state was written at the cycle (before_compaction stamps it) or after.
    expect(lostCycle(stateAt(AT), [open()])).toBeNull();
    expect(lostCycle(stateAt(LATER), [open()])).toBeNull();
    // An open compaction in the state already.
    const compacting = { ...stateAt(BEFORE), cycle: { ...stateAt(BEFORE).cycle, compacting: true } };
    expect(lostCycle(compacting, [open()])).toBeNull();
    expect(lostCycle(stateAt(BEFORE), [open({ outcome: "done" })])).toBeNull();
    expect(lostCycle(stateAt(BEFORE), [open({ outcome: "failed" })])).toBeNull();
    expect(lostCycle(stateAt(BEFORE), [open({ snapshot: null, file: null, cover: "none" })])).toBeNull();
    // A later cycle of the session that ended hides an older open one.
    expect(lostCycle(stateAt(BEFORE), [open(), open({ cycle: LATER, outcome: "done" })])).toBeNull();
    expect(lostCycle(stateAt(BEFORE), [])).toBeNull();
  });
});

describe("lostCycle of a compaction noticed after the fact", () => {
  it("finds a provider's or a trim's cycle done with its restore not delivered, newer than the state", () => {
    const provider = open({ path: "provider", outcome: "done" });
    expect(lostCycle(stateAt(BEFORE), [provider])).toEqual(provider);
    expect(lostCycle(stateAt(BEFORE), [open({ path: "trim", outcome: "done" })])).not.toBeNull();
    // Delivered, known to the state, or not a noticed path: nothing to take up.
    const delivered = { ...provider, restore: { at: LATER, snapshot: "2026-11-22-01", tokens: 300 } };
    expect(lostCycle(stateAt(BEFORE), [delivered])).toBeNull();
    expect(lostCycle(stateAt(AT), [provider])).toBeNull();
    expect(lostCycle(stateAt(BEFORE), [open({ path: "manual", outcome: "done" })])).toBeNull();
  });

  it("goes by the provider markers its ledger line names, whatever the state's last write time", () => {
    const provider = open({ path: "provider", outcome: "done" });
    const marks = new Map([[`${MAIN.sessionKey}\u0000${AT}`, ["cmp_1"]]]);
    // Another hook of the turn wrote the state after the cycle began, without the cycle's changes.
    expect(lostCycle(stateAt(LATER), [provider], marks)).toEqual(provider);
    const handled = { ...stateAt(BEFORE), seen: { ...stateAt(BEFORE).seen, providerMarks: ["cmp_1"] } };
    expect(lostCycle(handled, [provider], marks)).toBeNull();
  });
});

describe("adoptCycle", () => {
  it("holds the cycle's snapshot for proof, as the state before_compaction writes", () => {
    const adopted = adoptCycle(stateAt(BEFORE), open());
    expect(adopted.cycle).toMatchObject({
      compacting: true,
      captured: "2026-11-22-01",
      held: { id: "2026-11-22-01", file: TODAY_LOG, at: AT },
      opened: AT,
      path: "overflow",
    });
    expect(adopted.snapshots).toEqual(
      withCapture(stateAt(BEFORE), { id: "2026-11-22-01", file: TODAY_LOG, trigger: "compaction", at: AT })
        .snapshots,
    );
    // Adopted once: the state now knows the cycle.
    expect(lostCycle(adopted, [open()])).toBeNull();
  });
});

describe("adoptLostCycle", () => {
  /** A before_compaction whose state write never landed: the state file put back as it was before it. */
  async function lostStateWrite(ws: Workspace): Promise<string> {
    observe(ws, MAIN, {
      type: "ask",
      text: "Fix ERR_DUPLICATE_KEY in src/auth/oauth-callback.ts",
      at: BEFORE,
    });
    observe(ws, MAIN, {
      type: "tool",
      tool: "exec",
      params: { command: "npm test -- oauth" },
      error: "exit code 1",
      at: BEFORE,
    });
    await ws.session(MAIN.sessionKey, MAIN.agentId).flush();
    const path = sessionStatePath(ws.stateDir, MAIN.sessionKey);
    const before = await readFile(path);
    const covered = await runCycle(
      ws,
      MAIN,
      { type: "before-compaction", path: "overflow", at: AT },
      { now: NOW, safetyNet: true, restore: true },
    );
    await ws.session(MAIN.sessionKey, MAIN.agentId).flush();
    await writeFile(path, before);
    return covered?.id ?? "";
  }

  it("takes up the cycle in the next process, which restores it once the compaction shows", async () => {
    const t = await workspace();
    const id = await lostStateWrite(t.ws);
    expect(id).toMatch(/^2026-11-22-\d+$/);
    const next = t.another();
    expect(await adoptLostCycle(next, MAIN)).toBe(true);
    const state = await next.session(MAIN.sessionKey, MAIN.agentId).read();
    expect(state.cycle).toMatchObject({ compacting: true, held: { id }, path: "overflow" });
    // Once: a second look finds the state knows it.
    expect(await adoptLostCycle(next, MAIN)).toBe(false);
    await runCycle(
      next,
      MAIN,
      { type: "turn", at: LATER, compacted: true },
      {
        now: new Date(LATER),
        safetyNet: true,
        restore: true,
      },
    );
    const after = await next.session(MAIN.sessionKey, MAIN.agentId).read();
    expect(after.pendingRestore?.id).toBe(id);
    const ledger = await readLedger(t.dir);
    expect(ledger.records).toHaveLength(1);
    expect(ledger.records[0]).toMatchObject({ snapshot: id, outcome: "done" });
  });

  it("takes up a provider's compaction whose state write was lost: its restore queued once, its marker handled", async () => {
    const t = await workspace();
    observe(t.ws, MAIN, {
      type: "ask",
      text: "Fix ERR_DUPLICATE_KEY in src/auth/oauth-callback.ts",
      at: BEFORE,
    });
    await t.ws.session(MAIN.sessionKey, MAIN.agentId).flush();
    const path = sessionStatePath(t.ws.stateDir, MAIN.sessionKey);
    const before = await readFile(path);
    const noticed = { type: "noticed", path: "provider", at: AT, marks: ["cmp_exit_1"] } as const;
    const covered = await runCycle(t.ws, MAIN, noticed, { now: NOW, safetyNet: true, restore: true });
    await t.ws.session(MAIN.sessionKey, MAIN.agentId).flush();
    await writeFile(path, before);
    const next = t.another();
    expect(await adoptLostCycle(next, MAIN)).toBe(true);
    const state = await next.session(MAIN.sessionKey, MAIN.agentId).read();
    expect(state.pendingRestore).toMatchObject({ id: covered?.id, reason: "compaction", cycle: AT });
    expect(state.seen.providerMarks).toEqual(["cmp_exit_1"]);
    expect(state.cycle.compacting).toBe(false);
    expect(await adoptLostCycle(next, MAIN)).toBe(false);
    // The same marker seen again in the next turn's conversation is no new compaction.
    expect(
      await runCycle(
        next,
        MAIN,
        { ...noticed, at: LATER },
        { now: new Date(LATER), safetyNet: true, restore: true },
      ),
    ).toBeNull();
    expect((await readLedger(t.dir)).records.map((r) => [r.path, r.snapshot])).toEqual([
      ["provider", covered?.id],
    ]);
    // With restores after compactions off, it is taken up without one.
    await writeFile(path, before);
    const quiet = t.another();
    expect(await adoptLostCycle(quiet, MAIN, false)).toBe(true);
    expect((await quiet.session(MAIN.sessionKey, MAIN.agentId).read()).pendingRestore).toBeNull();
  });

  it("takes up nothing when the state was written", async () => {
    const t = await workspace();
    observe(t.ws, MAIN, { type: "ask", text: "Fix ERR_DUPLICATE_KEY", at: BEFORE });
    await runCycle(
      t.ws,
      MAIN,
      { type: "before-compaction", path: "manual", at: AT },
      { now: NOW, safetyNet: true, restore: true },
    );
    await t.ws.session(MAIN.sessionKey, MAIN.agentId).flush();
    expect(await adoptLostCycle(t.another(), MAIN)).toBe(false);
  });
});
