import { withPendingRestore } from "../recover/restore-service.ts";
import type { SessionState } from "../store/session-state.ts";
import type { Workspace } from "../workspace.ts";
import { claimCycleFlush, coverCycle, type FlushClaim, type SessionRef } from "./capture-service.ts";
import { emptyTrail } from "./trail.ts";

/**
 * The compaction cycle of a session: the snapshot that covers it, the restore it queues, and how it
 * ends. Compaction hooks arrive unpaired at times (a before with no after, an after with no before);
 * every path still ends with exactly one snapshot for the cycle and one restore. Each path is one
 * locked, fsynced update of the session's state (with the trail observed so far written in it), so the
 * awaited compaction hooks pay for one state write and at most one appended block.
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

function coverOptions(opts: CycleOptions, claimed: FlushClaim) {
  return {
    now: opts.now,
    safetyNet: opts.safetyNet,
    claimed,
    ...(opts.messages === undefined ? {} : { messages: opts.messages }),
  };
}

/** before_compaction: closes a cycle left open by a lost after, covers this one, queues its restore. */
export async function beforeCompaction(ws: Workspace, ref: SessionRef, opts: CycleOptions): Promise<void> {
  const claimed = await claimCycleFlush(ws, ref, opts.now);
  await ws.session(ref.sessionKey, ref.agentId).update(async (s) => {
    const open = s.cycle.compacting ? closeCycle(s) : s;
    const { state, capture } = await coverCycle(ws, ref, open, "compaction", coverOptions(opts, claimed));
    const marked = { ...state, cycle: { ...state.cycle, compacting: true } };
    return capture.source === "none" || !opts.restore
      ? marked
      : withPendingRestore(marked, capture, "compaction", opts.now);
  });
}

/** after_compaction: covers the cycle when no before came, queues its restore, and closes it. */
export async function afterCompaction(ws: Workspace, ref: SessionRef, opts: CycleOptions): Promise<void> {
  const session = ws.session(ref.sessionKey, ref.agentId);
  const claimed = (await session.read()).cycle.compacting ? null : await claimCycleFlush(ws, ref, opts.now);
  await session.update(async (s) => {
    let queued = s;
    if (!s.cycle.compacting) {
      const { state, capture } = await coverCycle(ws, ref, s, "compaction", coverOptions(opts, claimed));
      queued =
        capture.source !== "none" && opts.restore
          ? withPendingRestore(state, capture, "compaction", opts.now)
          : state;
    }
    return { ...closeCycle(queued), updatedAt: opts.now.toISOString() };
  });
}

/** before_reset: covers the session's last state, queues its restore, and starts afresh. */
export async function beforeReset(ws: Workspace, ref: SessionRef, opts: CycleOptions): Promise<void> {
  const claimed = await claimCycleFlush(ws, ref, opts.now);
  await ws.session(ref.sessionKey, ref.agentId).update(async (s) => {
    const { state, capture } = await coverCycle(ws, ref, s, "reset", coverOptions(opts, claimed));
    const fresh = { ...closeCycle(state), trail: emptyTrail() };
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
  let id: string | null = null;
  await ws.session(ref.sessionKey, ref.agentId).update(async (s) => {
    const { state, capture } = await coverCycle(ws, ref, s, "threshold", {
      now,
      safetyNet: true,
      claimed: null,
    });
    id = capture.source === "none" ? null : capture.id;
    return {
      ...state,
      cycle: { ...state.cycle, thresholds: [...new Set([...state.cycle.thresholds, ...crossed])] },
    };
  });
  return id;
}
