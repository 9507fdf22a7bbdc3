import { withPendingRestore } from "../recover/restore-service.ts";
import type { SessionState } from "../store/session-state.ts";
import type { Workspace } from "../workspace.ts";
import { ensureCycleSnapshot, type SessionRef } from "./capture-service.ts";
import { emptyTrail } from "./trail.ts";

/**
 * The compaction cycle of a session: the snapshot that covers it, the restore it queues, and how it
 * ends. Compaction hooks arrive unpaired at times (a before with no after, an after with no before);
 * every path still ends with exactly one snapshot for the cycle and one restore.
 */

export interface CycleOptions {
  now: Date;
  /** Draft from the trail when nothing covers the cycle. */
  safetyNet: boolean;
  /** Queue the cycle's snapshot for the next user turn. */
  restore: boolean;
  /** Transcript messages the event carried, used when the trail saw nothing. */
  messages?: unknown[] | undefined;
}

/** A state whose cycle is over: the next one starts with nothing captured. */
export function closeCycle(s: SessionState): SessionState {
  return { ...s, cycle: { n: s.cycle.n + 1, compacting: false, captured: null, thresholds: [] } };
}

function withMessages(opts: CycleOptions) {
  return {
    now: opts.now,
    safetyNet: opts.safetyNet,
    ...(opts.messages === undefined ? {} : { messages: opts.messages }),
  };
}

/** before_compaction: closes a cycle left open by a lost after, covers this one, queues its restore. */
export async function beforeCompaction(ws: Workspace, ref: SessionRef, opts: CycleOptions): Promise<void> {
  const session = ws.session(ref.sessionKey, ref.agentId);
  await session.update((s) => (s.cycle.compacting ? closeCycle(s) : s));
  const { capture } = await ensureCycleSnapshot(ws, ref, "compaction", withMessages(opts));
  await session.update((s) => {
    const marked = { ...s, cycle: { ...s.cycle, compacting: true } };
    return capture.source === "none" || !opts.restore
      ? marked
      : withPendingRestore(marked, capture, "compaction", opts.now);
  });
}

/** after_compaction: covers the cycle when no before came, queues its restore, and closes it. */
export async function afterCompaction(ws: Workspace, ref: SessionRef, opts: CycleOptions): Promise<void> {
  const session = ws.session(ref.sessionKey, ref.agentId);
  const open = !(await session.read()).cycle.compacting;
  const ensured = open ? await ensureCycleSnapshot(ws, ref, "compaction", withMessages(opts)) : null;
  const capture = ensured === null || ensured.capture.source === "none" ? null : ensured.capture;
  await session.update((s) => {
    const queued =
      capture !== null && opts.restore ? withPendingRestore(s, capture, "compaction", opts.now) : s;
    return { ...closeCycle(queued), updatedAt: opts.now.toISOString() };
  });
}

/** before_reset: covers the session's last state, queues its restore, and starts afresh. */
export async function beforeReset(ws: Workspace, ref: SessionRef, opts: CycleOptions): Promise<void> {
  const { capture } = await ensureCycleSnapshot(ws, ref, "reset", withMessages(opts));
  await ws.session(ref.sessionKey, ref.agentId).update((s) => {
    const fresh = { ...closeCycle(s), trail: emptyTrail() };
    return capture.source === "none" || !opts.restore
      ? fresh
      : withPendingRestore(fresh, capture, "reset", opts.now);
  });
}

/**
 * A model call crossed context thresholds not yet crossed in this cycle: one threshold snapshot for
 * them, and the thresholds marked. Returns the snapshot id, or null when there was nothing to draft.
 */
export async function crossThresholds(
  ws: Workspace,
  ref: SessionRef,
  crossed: number[],
  now: Date,
): Promise<string | null> {
  const { capture } = await ensureCycleSnapshot(ws, ref, "threshold", { now, safetyNet: true });
  await ws.session(ref.sessionKey, ref.agentId).update((s) => ({
    ...s,
    cycle: { ...s.cycle, thresholds: [...new Set([...s.cycle.thresholds, ...crossed])] },
  }));
  return capture.source === "none" ? null : capture.id;
}
