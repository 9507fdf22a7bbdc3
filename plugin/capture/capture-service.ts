import type { LocatedSnapshot, Trigger } from "../snapshot/snapshot.ts";
import { localTime } from "../snapshot/time.ts";
import { nextSnapshotId } from "../store/daily-log.ts";
import { type PendingRestore, type SessionState, withCapture } from "../store/session-state.ts";
import type { Workspace } from "../workspace.ts";
import { draftHasSubstance, draftSnapshot } from "./draft.ts";
import { flushPrompt } from "./flush-prompt.ts";
import { trailFromMessages } from "./messages.ts";
import { reduceTrail, type TrailEvent } from "./trail.ts";

/**
 * Capture, every path: the session trail turn by turn, the flush run's prompt and the claim of what
 * it wrote, and the safety net that drafts a snapshot when nothing covers the compaction cycle.
 * Each function reads and writes only the session's small state file and, when it must, appends
 * one block: no full scans, so the awaited compaction hooks stay fast.
 */

/** Who a hook is about. */
export interface SessionRef {
  sessionKey: string;
  agentId: string | null;
}

/** How long a flush mark stays claimable by the compaction that follows it. */
const FLUSH_MARK_TTL_MS = 15 * 60_000;

/** Folds one observed event into the session's trail. */
export async function observe(ws: Workspace, ref: SessionRef, event: TrailEvent): Promise<SessionState> {
  return ws.session(ref.sessionKey, ref.agentId).update((s) => ({
    ...s,
    agentId: s.agentId ?? ref.agentId,
    trail: reduceTrail(s.trail, event),
    updatedAt: event.at,
  }));
}

/**
 * A user turn begins: records the ask in the trail and takes the pending restore, exactly once,
 * in one locked update (a second turn or process cannot take it again).
 */
export async function beginTurn(
  ws: Workspace,
  ref: SessionRef,
  ask: string,
  now: Date,
): Promise<{ state: SessionState; pending: PendingRestore | null }> {
  let pending: PendingRestore | null = null;
  const at = now.toISOString();
  const state = await ws.session(ref.sessionKey, ref.agentId).update((s) => {
    const seen = ask === "" ? s : { ...s, trail: reduceTrail(s.trail, { type: "ask", text: ask, at }) };
    pending = seen.pendingRestore;
    const taken = pending === null ? null : { id: pending.id, reason: pending.reason, at };
    return {
      ...seen,
      agentId: s.agentId ?? ref.agentId,
      pendingRestore: null,
      lastRestore: taken ?? s.lastRestore,
      updatedAt: at,
    };
  });
  return { state, pending };
}

/**
 * Prepares the flush run: remembers where today's log ends and which id comes next, so the block
 * the model appends can be claimed for the real session, and returns the prompt to prepend.
 * `draftFrom` is the real session's state (the flush run has an internal session key), when known.
 */
export async function prepareFlush(
  ws: Workspace,
  flush: { agentId: string | null; flushSessionKey: string | null },
  draftFrom: SessionState | null,
  now: Date,
  timeZone: string | undefined,
): Promise<string> {
  const at = localTime(now, timeZone);
  const file = `memory/${at.date}.md`;
  const text = await ws.readLog(file);
  const offset = Buffer.byteLength(text);
  const id = nextSnapshotId(text, at.date);
  await ws.flushMarks().update((m) => ({
    ...m,
    marks: [...m.marks, { ...flush, file, offset, id, at: now.toISOString() }].slice(-20),
  }));
  const draft =
    draftFrom !== null && draftHasSubstance(draftFrom.trail) ? draftSnapshot(draftFrom.trail) : null;
  return flushPrompt({
    file,
    id,
    timestamp: at.iso,
    clock: at.clock,
    draft,
    session: draftFrom?.sessionKey ?? null,
    agent: flush.agentId ?? draftFrom?.agentId ?? null,
  });
}

/**
 * Takes the flush marks of an agent (recent ones only) and returns the newest valid snapshot
 * appended after them, or null. Marks are consumed either way.
 */
export async function claimFlush(
  ws: Workspace,
  agentId: string | null,
  now: Date,
): Promise<LocatedSnapshot | null> {
  let taken: { file: string; offset: number }[] = [];
  await ws.flushMarks().update((m) => {
    const fresh = (at: string) => now.getTime() - Date.parse(at) < FLUSH_MARK_TTL_MS;
    taken = m.marks.filter((x) => x.agentId === agentId && fresh(x.at));
    return { ...m, marks: m.marks.filter((x) => x.agentId !== agentId && fresh(x.at)) };
  });
  let newest: LocatedSnapshot | null = null;
  for (const mark of taken) {
    for (const s of await ws.snapshotsSince(mark.file, mark.offset)) newest = s;
  }
  return newest;
}

/** Where a cycle's snapshot came from. */
export type CycleCapture = { id: string; file: string; source: "flush" | "existing" | "safety-net" | "none" };

/**
 * Makes sure the session has a snapshot covering the current cycle: the block the flush run wrote
 * (claimed for this session), else one already written since the last compaction, else a draft from
 * the trail (or from `messages` when the trail is empty), written with `trigger`.
 */
export async function ensureCycleSnapshot(
  ws: Workspace,
  ref: SessionRef,
  trigger: Extract<Trigger, "compaction" | "reset" | "threshold">,
  opts: { now: Date; safetyNet: boolean; messages?: unknown[] },
): Promise<{ state: SessionState; capture: CycleCapture }> {
  const claimed = trigger === "threshold" ? null : await claimFlush(ws, ref.agentId, opts.now);
  // The model's block stays as written; when it does not name this session exactly, a claim does.
  if (
    claimed !== null &&
    (claimed.snapshot.session !== ref.sessionKey ||
      (ref.agentId !== null && claimed.snapshot.agent !== ref.agentId) ||
      claimed.snapshot.trigger !== "flush")
  ) {
    await ws.claim({
      at: opts.now.toISOString(),
      file: claimed.file,
      line: claimed.line,
      id: claimed.snapshot.id,
      session: ref.sessionKey,
      agent: ref.agentId,
    });
  }
  let capture: CycleCapture = { id: "", file: "", source: "none" };
  const state = await ws.session(ref.sessionKey, ref.agentId).update(async (s) => {
    const at = opts.now.toISOString();
    if (claimed !== null) {
      capture = { id: claimed.snapshot.id, file: claimed.file, source: "flush" };
      return withCapture(s, { id: claimed.snapshot.id, file: claimed.file, trigger: "flush", at });
    }
    const existing =
      s.cycle.captured === null ? undefined : s.snapshots.find((x) => x.id === s.cycle.captured);
    // An earlier snapshot covers the cycle only if nothing was observed after it.
    const current =
      existing !== undefined && (s.trail.updatedAt === null || s.trail.updatedAt <= existing.at);
    if (existing !== undefined && current && trigger !== "threshold") {
      capture = { id: existing.id, file: existing.file, source: "existing" };
      return s;
    }
    if (!opts.safetyNet) return s;
    const trail =
      !draftHasSubstance(s.trail) && opts.messages !== undefined && opts.messages.length > 0
        ? trailFromMessages(opts.messages, at)
        : s.trail;
    if (!draftHasSubstance(trail)) return s;
    const saved = await ws.save(draftSnapshot(trail), {
      trigger,
      session: ref.sessionKey,
      agent: ref.agentId,
      name: s.line?.name ?? null,
      parent: s.line?.parent ?? null,
    });
    capture = { id: saved.id, file: saved.file, source: "safety-net" };
    return withCapture(s, { id: saved.id, file: saved.file, trigger, at });
  });
  return { state, capture };
}
