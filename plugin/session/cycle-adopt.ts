import { cycleKey, type LedgerRecord, readLedger } from "../store/ledger.ts";
import type { SessionRef } from "./capture-service.ts";
import { closeCycle, withMarks } from "./cycle.ts";
import { type SessionState, withCapture, withPendingRestore } from "./session-state.ts";
import type { Workspace } from "./workspace.ts";

/**
 * A compaction the session's state never heard of. `before_compaction` returns once its snapshot is durable
 * in the daily log and its journal and the ledger holds the cycle's `open` line; the session's state (the
 * held restore) is written just after, still under the session's lock (capture-service.ts `runCycle`). A
 * process killed in those milliseconds leaves the ledger ahead of the state: the next process takes the
 * cycle up from the ledger at the session's first turn, as if the state had been written, and the turn's
 * conversation then tells whether the compaction happened (restore) or not (nothing, `failed`).
 *
 * A compaction noticed after the fact (the provider's marker, a trimmed transcript) is captured and closed in
 * one step, with its restore queued, often in a process about to exit (`openclaw agent --local`): killed
 * after its ledger line and before the state, it is taken up the same way, done, its restore queued and the
 * provider's markers it handled (on its ledger line) marked handled, so the next turn drafts no twin of it.
 */

/**
 * The session's last cycle in the ledger when the state missed it, with a snapshot: still `open` (no after,
 * no outcome), newer than the state's last write, while the state holds no open compaction; or a noticed
 * compaction (`provider`, `trim`) done with its restore not delivered, which the state does not know: a
 * provider marker of its ledger line (`marks`, by session NUL cycle) the state has not handled, else newer
 * than the state's last write. (A hook of the same turn may write the state after the cycle began without
 * the cycle's changes: the markers say it exactly.) Else null.
 */
export function lostCycle(
  state: SessionState,
  records: readonly LedgerRecord[],
  marks: ReadonlyMap<string, readonly string[]> = new Map(),
): LedgerRecord | null {
  if (state.cycle.compacting) return null;
  const last = records.findLast((r) => r.session === state.sessionKey);
  if (last === undefined || last.snapshot === null || last.file === null) return null;
  const noticed = (last.path === "provider" || last.path === "trim") && last.outcome === "done";
  if (last.outcome !== "open" && !(noticed && last.restore === null)) return null;
  const handled = marks.get(cycleKey(last.session, last.cycle)) ?? [];
  if (noticed && handled.length > 0)
    return handled.some((m) => !state.seen.providerMarks.includes(m)) ? last : null;
  // The state's write at the cycle stamps it with the cycle's instant: older means never written.
  return state.updatedAt < last.cycle ? last : null;
}

/**
 * `state` with the lost cycle taken up: its snapshot captured; an open compaction held, a noticed one's
 * restore queued (when `restore`) and its provider `marks` handled, the cycle closed.
 */
export function adoptCycle(
  state: SessionState,
  cycle: LedgerRecord,
  opts: { restore: boolean; marks: readonly string[] } = { restore: true, marks: [] },
): SessionState {
  if (cycle.snapshot === null || cycle.file === null) return state;
  const capture = { id: cycle.snapshot, file: cycle.file };
  const captured = withCapture(state, {
    ...capture,
    trigger: cycle.cover === "flush" ? "flush" : "compaction",
    at: cycle.cycle,
  });
  if (cycle.outcome === "done") {
    const queued = opts.restore
      ? withPendingRestore(captured, capture, "compaction", cycle.cycle, { cycle: cycle.cycle })
      : captured;
    return { ...withMarks(closeCycle(queued), opts.marks), updatedAt: cycle.cycle };
  }
  return {
    ...captured,
    cycle: {
      ...captured.cycle,
      compacting: true,
      held: { ...capture, at: cycle.cycle },
      opened: cycle.cycle,
      path: cycle.path,
    },
  };
}

/**
 * Takes up the session's lost cycle, if any (see the module's doc), in one locked update; true when it did.
 * Reads the ledger: meant once per session and process, at its first turn.
 */
export async function adoptLostCycle(ws: Workspace, ref: SessionRef, restore = true): Promise<boolean> {
  const session = ws.session(ref.sessionKey, ref.agentId);
  const state = await session.read();
  if (state.cycle.compacting) return false;
  const { records, marks } = await readLedger(ws.dir);
  // Checked first without the lock: the usual session has nothing to take up, and pays no locked write.
  if (lostCycle(state, records, marks) === null) return false;
  let adopted = false;
  await session.update((s) => {
    const cycle = lostCycle(s, records, marks);
    adopted = cycle !== null;
    if (cycle === null) return s;
    return adoptCycle(s, cycle, { restore, marks: marks.get(cycleKey(cycle.session, cycle.cycle)) ?? [] });
  });
  return adopted;
}
