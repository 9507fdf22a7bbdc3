import { emptyTrail } from "../capture/trail.ts";
import type { LedgerFact, LedgerPath } from "../store/ledger.ts";
import { type SessionState, withPendingRestore } from "./session-state.ts";

/**
 * The compaction cycle of a session, as a pure transition: `cycleStep(state, event)` returns the next
 * state and the effects to apply. Compaction hooks arrive unpaired at times (a before with no after, an
 * after with no before); every path still ends with one snapshot for the cycle, and a restore only when
 * the compaction is known to have happened.
 *
 * - A `before-compaction` is covered at once (the safety net must not wait), but its snapshot is held: it
 *   is queued for the next turn only when the `after-compaction` arrives, or when the next turn's
 *   conversation shows the compaction happened (`turn` with `compacted: true`). A `turn` showing it did not
 *   (a failed, skipped or no-op compaction) drops it and records the failure.
 * - An `after-compaction` alone, a reset, a rollover, and a compaction noticed with no hook (a trimmed
 *   transcript, a provider's compaction) are covered and queued at once.
 *
 * Effects: `cover` (make sure a snapshot covers the cycle: the flush run's block, one written since the
 * last compaction, or a safety-net draft; the capture service applies it and feeds back what covered the
 * cycle as a `covered` event), and `record` (one fact for the compaction ledger, store/ledger.ts).
 */

/** The hook events that move the cycle, with the instant they arrived (ISO 8601). */
export type CycleHookEvent =
  | { type: "before-compaction"; at: string; path: LedgerPath }
  | { type: "after-compaction"; at: string; path: LedgerPath }
  | { type: "before-reset"; at: string; path: "reset" | "rollover" }
  /**
   * A compaction no hook announced, noticed in the conversation: a trimmed transcript, a provider's. A
   * provider's carries its markers: they are taken as handled in the update that settles the cycle (nothing
   * is taken by a process that dies before its snapshot is written), and markers all taken already move
   * nothing (two hooks of one turn, or two processes, see the same marker).
   */
  | { type: "noticed"; at: string; path: "trim" | "provider"; marks?: readonly string[] }
  /** A user turn begins: whether its conversation shows that the open compaction happened. */
  | { type: "turn"; at: string; compacted: boolean }
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
      /** Whether a pre-compaction flush ran for this cycle (a flush mark was taken). */
      flushRan?: boolean;
    };

/** Which trigger the snapshot drafted for a cover effect carries. */
export type CoverTrigger = "compaction" | "reset" | "threshold";

export type CycleEffect = { type: "cover"; trigger: CoverTrigger } | { type: "record"; fact: LedgerFact };

export interface CycleStep {
  state: SessionState;
  effects: CycleEffect[];
}

/** A state whose cycle is over: the next one starts with nothing captured. */
export function closeCycle(s: SessionState): SessionState {
  return {
    ...s,
    cycle: {
      n: s.cycle.n + 1,
      compacting: false,
      captured: null,
      thresholds: [],
      held: null,
      opened: null,
      path: null,
    },
    // The conversation after a compaction is shorter: what was counted before says nothing now.
    seen: { ...s.seen, messages: null },
  };
}

/** A state whose open compaction did not happen: nothing held, the snapshot still covers the context. */
function abandon(s: SessionState): SessionState {
  return { ...s, cycle: { ...s.cycle, compacting: false, held: null, opened: null, path: null } };
}

const cover = (trigger: CoverTrigger): CycleEffect => ({ type: "cover", trigger });

const outcome = (s: SessionState, at: string, result: "done" | "failed", note?: string): CycleEffect[] =>
  s.cycle.opened === null
    ? []
    : [
        {
          type: "record",
          fact: {
            kind: "outcome",
            cycle: s.cycle.opened,
            session: s.sessionKey,
            at,
            outcome: result,
            ...(note === undefined ? {} : { note }),
          },
        },
      ];

/** The open compaction happened: its held snapshot is queued, the cycle closes. */
function commit(s: SessionState, at: string, note?: string): CycleStep {
  const { held, opened } = s.cycle;
  const queued =
    held === null
      ? s
      : withPendingRestore(s, held, "compaction", at, opened === null ? {} : { cycle: opened });
  return { state: { ...closeCycle(queued), updatedAt: at }, effects: outcome(s, at, "done", note) };
}

/** The next state of the cycle and the effects to apply. */
export function cycleStep(s: SessionState, e: CycleEvent): CycleStep {
  switch (e.type) {
    // A before whose after never came: that compaction restores nothing, and says so.
    case "before-compaction":
      return s.cycle.compacting
        ? {
            state: abandon(s),
            effects: [
              ...outcome(s, e.at, "failed", "no after_compaction came before the next compaction"),
              cover("compaction"),
            ],
          }
        : { state: s, effects: [cover("compaction")] };
    // After its before, the cycle is covered already: its snapshot is queued. Alone, it is covered first.
    case "after-compaction":
      return s.cycle.compacting ? commit(s, e.at) : { state: s, effects: [cover("compaction")] };
    case "turn":
      if (!s.cycle.compacting) return { state: s, effects: [] };
      return e.compacted
        ? commit(s, e.at, "no after_compaction; the next turn's conversation was compacted")
        : {
            state: abandon(s),
            effects: outcome(
              s,
              e.at,
              "failed",
              "no after_compaction, and the next turn's conversation was not compacted",
            ),
          };
    case "before-reset":
      return { state: s, effects: [cover("reset")] };
    case "noticed":
      return (e.marks ?? []).length > 0 && freshMarks(s, e.marks ?? []).length === 0
        ? { state: s, effects: [] }
        : { state: s, effects: [cover("compaction")] };
    case "thresholds":
      return { state: s, effects: [cover("threshold")] };
    case "covered":
      return settle(s, e.after, e.capture, e.restore, e.flushRan ?? false);
  }
}

/** The provider markers among `marks` the session has not handled. */
export function freshMarks(s: SessionState, marks: readonly string[]): string[] {
  return [...new Set(marks)].filter((m) => !s.seen.providerMarks.includes(m));
}

/** The session with `marks` recorded as handled provider markers (the last 20 kept). */
export function withMarks(s: SessionState, marks: readonly string[]): SessionState {
  const fresh = freshMarks(s, marks);
  return fresh.length === 0
    ? s
    : { ...s, seen: { ...s.seen, providerMarks: [...s.seen.providerMarks, ...fresh].slice(-20) } };
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
  flushRan: boolean,
): CycleStep {
  const queue = (state: SessionState, reason: "compaction" | "reset") =>
    capture.source === "none" || !restore
      ? state
      : withPendingRestore(state, capture, reason, after.at, { cycle: after.at });
  const marks = after.type === "noticed" ? freshMarks(s, after.marks ?? []) : [];
  // OpenClaw's hooks do not say which path compacts; the flush runs only before a preflight compaction.
  const record = (hinted: LedgerPath, result: "open" | "done"): CycleEffect => {
    const path = hinted === "manual" && flushRan ? "preflight" : hinted;
    return {
      type: "record",
      fact: {
        kind: "cycle",
        cycle: after.at,
        session: s.sessionKey,
        agent: s.agentId,
        at: after.at,
        path,
        flush: flushRan,
        cover: capture.source,
        snapshot: capture.source === "none" ? null : capture.id,
        file: capture.source === "none" ? null : capture.file,
        outcome: result,
        ...(marks.length === 0 ? {} : { marks }),
      },
    };
  };
  switch (after.type) {
    case "before-compaction": {
      const held =
        capture.source === "none" || !restore ? null : { id: capture.id, file: capture.file, at: after.at };
      return {
        state: { ...s, cycle: { ...s.cycle, compacting: true, held, opened: after.at, path: after.path } },
        effects: [record(after.path, "open")],
      };
    }
    case "after-compaction":
    case "noticed":
      return {
        state: {
          ...withMarks(closeCycle(queue(s, "compaction")), marks),
          updatedAt: after.at,
        },
        effects: [record(after.path, "done")],
      };
    case "before-reset":
      return {
        state: queue({ ...closeCycle(s), trail: emptyTrail() }, "reset"),
        effects: [record(after.path, "done")],
      };
    case "thresholds":
      return {
        state: {
          ...s,
          cycle: { ...s.cycle, thresholds: [...new Set([...s.cycle.thresholds, ...after.crossed])] },
        },
        effects: [],
      };
    case "turn":
      return { state: s, effects: [] };
  }
}
