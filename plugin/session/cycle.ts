import { emptyTrail } from "../capture/trail.ts";
import { type SessionState, withPendingRestore } from "./session-state.ts";

/**
 * The compaction cycle of a session, as a pure transition: `cycleStep(state, event)` returns the next
 * state and the effects to apply. Compaction hooks arrive unpaired at times (a before with no after, an
 * after with no before); every path still ends with exactly one snapshot for the cycle and one restore.
 *
 * The one effect is `cover`: make sure a snapshot covers the cycle (the flush run's block, one written
 * since the last compaction, or a safety-net draft). The capture service applies it and feeds back what
 * covered the cycle as a `covered` event, which settles the state (the restore queued, the cycle closed).
 */

/** The hook events that move the cycle, with the instant they arrived (ISO 8601). */
export type CycleHookEvent =
  | { type: "before-compaction"; at: string }
  | { type: "after-compaction"; at: string }
  | { type: "before-reset"; at: string }
  | { type: "thresholds"; crossed: readonly number[]; at: string };

/** What covered the cycle (`source: "none"`: nothing to draft), after a `cover` effect. */
export interface CycleCapture {
  id: string;
  file: string;
  source: "flush" | "existing" | "safety-net" | "none";
}

export type CycleEvent =
  | CycleHookEvent
  | {
      type: "covered";
      /** The hook event whose `cover` effect this answers. */
      after: CycleHookEvent;
      capture: CycleCapture;
      /** Queue the capture for the next user turn (`restore.afterCompaction` / `afterReset`). */
      restore: boolean;
    };

/** Which trigger the snapshot drafted for a cover effect carries. */
export type CoverTrigger = "compaction" | "reset" | "threshold";

export type CycleEffect = { type: "cover"; trigger: CoverTrigger };

export interface CycleStep {
  state: SessionState;
  effects: CycleEffect[];
}

/** A state whose cycle is over: the next one starts with nothing captured. */
export function closeCycle(s: SessionState): SessionState {
  return { ...s, cycle: { n: s.cycle.n + 1, compacting: false, captured: null, thresholds: [] } };
}

const cover = (trigger: CoverTrigger): CycleEffect[] => [{ type: "cover", trigger }];

/** The next state of the cycle and the effects to apply. */
export function cycleStep(s: SessionState, e: CycleEvent): CycleStep {
  switch (e.type) {
    // A before whose after was lost closes the old cycle first.
    case "before-compaction":
      return { state: s.cycle.compacting ? closeCycle(s) : s, effects: cover("compaction") };
    // After its before, the cycle is covered already: it closes. Alone, it is covered first.
    case "after-compaction":
      return s.cycle.compacting
        ? { state: { ...closeCycle(s), updatedAt: e.at }, effects: [] }
        : { state: s, effects: cover("compaction") };
    case "before-reset":
      return { state: s, effects: cover("reset") };
    case "thresholds":
      return { state: s, effects: cover("threshold") };
    case "covered":
      return { state: settle(s, e.after, e.capture, e.restore), effects: [] };
  }
}

/** Whether the hook event looks for the block the flush run wrote (taken before the session's update). */
export function claimsFlush(s: SessionState, e: CycleHookEvent): boolean {
  return (
    e.type === "before-compaction" ||
    e.type === "before-reset" ||
    (e.type === "after-compaction" && !s.cycle.compacting)
  );
}

function settle(
  s: SessionState,
  after: CycleHookEvent,
  capture: CycleCapture,
  restore: boolean,
): SessionState {
  const queue = (state: SessionState, reason: "compaction" | "reset") =>
    capture.source === "none" || !restore ? state : withPendingRestore(state, capture, reason, after.at);
  switch (after.type) {
    case "before-compaction":
      return queue({ ...s, cycle: { ...s.cycle, compacting: true } }, "compaction");
    case "after-compaction":
      return { ...closeCycle(queue(s, "compaction")), updatedAt: after.at };
    case "before-reset":
      return queue({ ...closeCycle(s), trail: emptyTrail() }, "reset");
    case "thresholds":
      return {
        ...s,
        cycle: { ...s.cycle, thresholds: [...new Set([...s.cycle.thresholds, ...after.crossed])] },
      };
  }
}
