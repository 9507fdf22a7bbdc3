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

/** What the user asked for: it outranks an automatic restore (compaction, reset). */
export const ASKED_REASONS: readonly RestoreReason[] = ["resume", "amnesia", "recall"];

/** The line of work a session continues: its snapshots carry this checkpoint name (and its parent). */
export const Line = z.object({ name: z.string(), parent: z.string().nullable() });
export type Line = z.infer<typeof Line>;

/** A snapshot queued for the next user turn of the session. */
export const PendingRestore = z.object({
  id: z.string(),
  file: z.string(),
  reason: RestoreReason,
  at: z.string(),
  /** The line of work the session takes when this restore is delivered (a resume), absent otherwise. */
  line: Line.optional(),
  /** The compaction ledger's cycle this restore answers (see store/ledger.ts), absent for the user's own. */
  cycle: z.string().optional(),
});
export type PendingRestore = z.infer<typeof PendingRestore>;

/** A compaction's snapshot held until the compaction is known to have happened (its after, or the next turn). */
export const HeldRestore = z.object({
  id: z.string(),
  file: z.string(),
  at: z.string(),
});
export type HeldRestore = z.infer<typeof HeldRestore>;

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
    /**
     * The snapshot a before_compaction captured, restored only once the compaction is known to have happened
     * (its after_compaction, or the next turn's shorter conversation); dropped when it did not.
     */
    held: HeldRestore.nullable().default(null),
    /** The ledger's id of the open cycle (the instant its first hook arrived), or null. */
    opened: z.string().nullable().default(null),
    /** How the open compaction began (a ledger path), or null. */
    path: z.string().nullable().default(null),
  }),
  pendingRestore: PendingRestore.nullable(),
  /** Restores waiting behind `pendingRestore` (at most one): what the user asked for goes first. */
  queue: z.array(PendingRestore).max(2).default([]),
  /** What the plugin last saw of the session's conversation, to notice what no hook announced. */
  seen: z
    .object({
      /** Messages in the conversation at the end of the last turn (agent_end), or null when unknown. */
      messages: z.number().int().min(0).nullable(),
      /** Compaction summaries in that conversation. */
      summaries: z.number().int().min(0).default(0),
      /** Provider compaction markers (their ids) already handled, newest last, at most 20. */
      providerMarks: z.array(z.string()).max(20),
    })
    .default({ messages: null, summaries: 0, providerMarks: [] }),
  /** A user turn began (before_prompt_build) and has not ended (agent_end): a compaction now is an overflow. */
  turnOpen: z.boolean().default(false),
  /** The content hash of the session's last drafted snapshot, to write no identical twin. */
  lastDraft: z.object({ hash: z.string(), id: z.string(), file: z.string() }).nullable().default(null),
  /**
   * The line of work the session continues (`resume NAME`, or `resume NAME --as NEW`): its snapshots
   * carry this checkpoint name, and `parent` when the line branched from another checkpoint.
   */
  line: Line.nullable().default(null),
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
    cycle: { n: 0, compacting: false, captured: null, thresholds: [], held: null, opened: null, path: null },
    pendingRestore: null,
    queue: [],
    seen: { messages: null, summaries: 0, providerMarks: [] },
    turnOpen: false,
    lastDraft: null,
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
    snapshots: withSnapshot(state.snapshots, capture),
    updatedAt: capture.at,
  };
}

/** The newest 50 of `snapshots` without `capture`'s id, then `capture`: a loop, no callback made per call. */
function withSnapshot<S extends { id: string }>(snapshots: readonly S[], capture: S): S[] {
  const out: S[] = [];
  for (const s of snapshots) if (s.id !== capture.id) out.push(s);
  out.push(capture);
  return out.length > 50 ? out.slice(-50) : out;
}

/**
 * Queues `capture` for the next user turn of the session, keeping intent: what the user asked for (resume,
 * "you forgot") goes first and is never replaced by an automatic restore; a newer restore of the same kind
 * replaces the older one; the same snapshot is queued once (the user's reason kept).
 */
export function withPendingRestore(
  s: SessionState,
  capture: { id: string; file: string },
  reason: RestoreReason,
  at: string,
  extra: { line?: Line; cycle?: string } = {},
): SessionState {
  const next: PendingRestore = { id: capture.id, file: capture.file, reason, at, ...extra };
  const asked = (p: PendingRestore) => ASKED_REASONS.includes(p.reason);
  const queued = [...(s.pendingRestore === null ? [] : [s.pendingRestore]), ...s.queue];
  if (queued.some((p) => p.id === next.id && asked(p) && !asked(next))) return s;
  const kept = queued.filter((p) => p.id !== next.id && asked(p) !== asked(next));
  const [head = null, ...rest] = [...kept, next].sort((a, b) => Number(asked(b)) - Number(asked(a)));
  return { ...s, pendingRestore: head, queue: rest };
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
        /** The real session the flush run works for, when its conversation named it; null when unknown. */
        sessionKey: z.string().nullable().default(null),
      }),
    )
    .max(20),
});
export type FlushMarks = z.infer<typeof FlushMarks>;

export function initialFlushMarks(): FlushMarks {
  return { version: 1, marks: [] };
}
