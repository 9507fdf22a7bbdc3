import { type LedgerRecord, readLedger } from "../store/ledger.ts";
import type { SessionRef } from "./capture-service.ts";
import { type SessionState, withCapture } from "./session-state.ts";
import type { Workspace } from "./workspace.ts";

/**
 * A compaction the session's state never heard of. `before_compaction` returns once its snapshot is durable
 * in the daily log and its journal and the ledger holds the cycle's `open` line; the session's state (the
 * held restore) is written just after, still under the session's lock (capture-service.ts `runCycle`). A
 * process killed in those milliseconds leaves the ledger ahead of the state: the next process takes the
 * cycle up from the ledger at the session's first turn, as if the state had been written, and the turn's
 * conversation then tells whether the compaction happened (restore) or not (nothing, `failed`).
 */

/**
 * The session's last cycle in the ledger when the state missed it: still `open` (no after, no outcome), with
 * a snapshot, newer than the state's last write, while the state holds no open compaction. Else null.
 */
export function lostCycle(state: SessionState, records: readonly LedgerRecord[]): LedgerRecord | null {
  if (state.cycle.compacting) return null;
  const last = records.findLast((r) => r.session === state.sessionKey);
  if (last === undefined || last.outcome !== "open" || last.snapshot === null || last.file === null)
    return null;
  // The state's write at before_compaction stamps it with the cycle's instant: older means never written.
  return state.updatedAt < last.cycle ? last : null;
}

/** `state` with the lost cycle taken up: its snapshot captured and held, the compaction open. */
export function adoptCycle(state: SessionState, cycle: LedgerRecord): SessionState {
  if (cycle.snapshot === null || cycle.file === null) return state;
  const captured = withCapture(state, {
    id: cycle.snapshot,
    file: cycle.file,
    trigger: cycle.cover === "flush" ? "flush" : "compaction",
    at: cycle.cycle,
  });
  return {
    ...captured,
    cycle: {
      ...captured.cycle,
      compacting: true,
      held: { id: cycle.snapshot, file: cycle.file, at: cycle.cycle },
      opened: cycle.cycle,
      path: cycle.path,
    },
  };
}

/**
 * Takes up the session's lost cycle, if any (see the module's doc), in one locked update; true when it did.
 * Reads the ledger: meant once per session and process, at its first turn.
 */
export async function adoptLostCycle(ws: Workspace, ref: SessionRef): Promise<boolean> {
  const session = ws.session(ref.sessionKey, ref.agentId);
  const state = await session.read();
  if (state.cycle.compacting) return false;
  const { records } = await readLedger(ws.dir);
  // Checked first without the lock: the usual session has nothing to take up, and pays no locked write.
  if (lostCycle(state, records) === null) return false;
  let adopted = false;
  await session.update((s) => {
    const cycle = lostCycle(s, records);
    adopted = cycle !== null;
    return cycle === null ? s : adoptCycle(s, cycle);
  });
  return adopted;
}
