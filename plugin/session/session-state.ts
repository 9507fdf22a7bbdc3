import { createHash } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { emptyTrail, Trail } from "../capture/trail.ts";

/**
 * What the plugin keeps per session between hooks and across processes (`openclaw agent --local`
 * runs every turn in a new process; gateways restart): the session trail, the compaction cycle,
 * the pending restore and the ids of the session's snapshots. One small file per session under
 * `.big-memory/sessions/`.
 */

export const RestoreReason = z.enum(["compaction", "reset", "amnesia", "resume", "recall"]);
export type RestoreReason = z.infer<typeof RestoreReason>;

/** A snapshot queued for the next user turn of the session. */
export const PendingRestore = z.object({
  id: z.string(),
  file: z.string(),
  reason: RestoreReason,
  at: z.string(),
});
export type PendingRestore = z.infer<typeof PendingRestore>;

export const SessionState = z.object({
  version: z.literal(1),
  sessionKey: z.string(),
  agentId: z.string().nullable(),
  trail: Trail,
  cycle: z.object({
    /** Compactions seen so far (closed cycles). */
    n: z.number().int().min(0),
    /** A before_compaction arrived and its after_compaction has not (yet). */
    compacting: z.boolean(),
    /** The snapshot that covers this cycle, or null when none was written since the last compaction. */
    captured: z.string().nullable(),
    /** Context thresholds already crossed in this cycle. */
    thresholds: z.array(z.number()),
  }),
  pendingRestore: PendingRestore.nullable(),
  /**
   * The line of work the session continues (`resume NAME`, or `resume NAME --as NEW`): its snapshots
   * carry this checkpoint name, and `parent` when the line branched from another checkpoint.
   */
  line: z.object({ name: z.string(), parent: z.string().nullable() }).nullable().default(null),
  /** Snapshots written for this session (ids and files), newest last, at most 50. */
  snapshots: z
    .array(z.object({ id: z.string(), file: z.string(), trigger: z.string(), at: z.string() }))
    .max(50),
  lastRestore: z.object({ id: z.string(), reason: RestoreReason, at: z.string() }).nullable(),
  updatedAt: z.string(),
});
export type SessionState = z.infer<typeof SessionState>;

/** A fresh state for a session. */
export function initialSessionState(sessionKey: string, agentId: string | null): SessionState {
  return {
    version: 1,
    sessionKey,
    agentId,
    trail: emptyTrail(),
    cycle: { n: 0, compacting: false, captured: null, thresholds: [] },
    pendingRestore: null,
    line: null,
    snapshots: [],
    lastRestore: null,
    updatedAt: new Date(0).toISOString(),
  };
}

/** Records a snapshot written for the session: it covers the current cycle. */
export function withCapture(
  state: SessionState,
  capture: { id: string; file: string; trigger: string; at: string },
): SessionState {
  return {
    ...state,
    cycle: { ...state.cycle, captured: capture.id },
    snapshots: [...state.snapshots.filter((s) => s.id !== capture.id), capture].slice(-50),
    updatedAt: capture.at,
  };
}

/** Queues `capture` for the next user turn of the session. */
export function withPendingRestore(
  s: SessionState,
  capture: { id: string; file: string },
  reason: RestoreReason,
  at: string,
): SessionState {
  return { ...s, pendingRestore: { id: capture.id, file: capture.file, reason, at } };
}

/** The state file of a session: a readable slug of the key plus a short hash (keys may hold any character). */
export function sessionStatePath(stateDir: string, sessionKey: string): string {
  const slug = sessionKey.replace(/[^a-zA-Z0-9_-]+/g, "-").slice(0, 60);
  const hash = createHash("sha256").update(sessionKey).digest("hex").slice(0, 10);
  return join(stateDir, "sessions", `${slug}-${hash}.json`);
}

/**
 * Where the flush run left off: the size of today's log when the pre-compaction flush began, so the
 * block the model appends can be claimed for the real session at before_compaction without
 * rewriting it.
 */
export const FlushMarks = z.object({
  version: z.literal(1),
  marks: z
    .array(
      z.object({
        agentId: z.string().nullable(),
        flushSessionKey: z.string().nullable(),
        file: z.string(),
        offset: z.number().int().min(0),
        id: z.string(),
        at: z.string(),
      }),
    )
    .max(20),
});
export type FlushMarks = z.infer<typeof FlushMarks>;

export function initialFlushMarks(): FlushMarks {
  return { version: 1, marks: [] };
}
