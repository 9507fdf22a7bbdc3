import type { LocatedSnapshot } from "./snapshot.ts";
import { timestampMillis } from "./time.ts";

/**
 * The snapshot lifecycle, every rule of it in one place, pure: what is live (the logs are append-only:
 * saving a name again adds a version, the newest wins, and a tombstone block hides every earlier snapshot
 * of its name until the name is used again), what is past retention, and who may see what (scope). The
 * plugin's index, the CLI's saved refs and the recall service all ask these functions.
 */

/** What the lifecycle reads of a snapshot, a ref or an index entry. */
export interface LifeMeta {
  name: string | null;
  tombstone: boolean;
}

/**
 * The snapshots still offered for list, recall and restore: tombstones left out, and so is every
 * snapshot of a name older than the newest tombstone of that name. `ordered` is oldest first.
 */
export function liveSnapshots(ordered: readonly LocatedSnapshot[]): LocatedSnapshot[] {
  return live(ordered, (s) => s.snapshot);
}

/** {@link liveSnapshots} over anything that carries a name and a tombstone flag (index refs, say). */
export function live<T>(ordered: readonly T[], meta: (item: T) => LifeMeta): T[] {
  const deletedAt = new Map<string, number>();
  ordered.forEach((s, i) => {
    const m = meta(s);
    if (m.tombstone && m.name !== null) deletedAt.set(m.name, i);
  });
  return ordered.filter((s, i) => {
    const m = meta(s);
    if (m.tombstone) return false;
    return m.name === null || (deletedAt.get(m.name) ?? -1) < i;
  });
}

/** {@link live} over items sorted newest first (the index's order), in that order. */
export function liveNewestFirst<T>(sorted: readonly T[], meta: (item: T) => LifeMeta): T[] {
  const deleted = new Set<string>();
  const out: T[] = [];
  for (const item of sorted) {
    const m = meta(item);
    if (m.tombstone) {
      if (m.name !== null) deleted.add(m.name);
    } else if (m.name === null || !deleted.has(m.name)) out.push(item);
  }
  return out;
}

/**
 * Whether an item can answer "the newest snapshot" (of `name`, when given): with a name, every version of
 * it, tombstones included (a tombstone ends the name); without, any snapshot but a tombstone. The newest
 * candidate is then settled by {@link latestSettled}.
 */
export function latestCandidate(m: LifeMeta, name: string | undefined): boolean {
  return name !== undefined ? m.name === name : !m.tombstone;
}

/** The newest candidate, unless it is a tombstone: a deleted name has no latest snapshot. */
export function latestSettled<T extends LifeMeta>(newest: T | undefined): T | undefined {
  return newest?.tombstone === true ? undefined : newest;
}

/** The newest live snapshot of a checkpoint name, or undefined. `ordered` is oldest first. */
export function newestOfName(ordered: readonly LocatedSnapshot[], name: string): LocatedSnapshot | undefined {
  const live = liveSnapshots(ordered).filter((s) => s.snapshot.name === name);
  return live[live.length - 1];
}

/** Every version of a name, tombstones included, oldest first: the checkpoint's history. */
export function historyOfName(ordered: readonly LocatedSnapshot[], name: string): LocatedSnapshot[] {
  return ordered.filter((s) => s.snapshot.name === name);
}

/**
 * True for group and shared-channel sessions (`agent:main:discord:channel:123`,
 * `agent:main:telegram:group:-100`): they never receive a direct session's snapshots.
 */
export function isSharedSession(sessionKey: string | null): boolean {
  return sessionKey !== null && /:(?:group|channel|space|room|thread|guild)(?::|$)/.test(sessionKey);
}

/** The retention a workspace keeps snapshots for (`retentionDays`, unset: forever), as of `now`. */
export interface Retention {
  retentionDays?: number | undefined;
  now: Date;
}

/** The instant (ms) before which a snapshot is past retention; -Infinity when there is no limit. */
export function retentionStart(r: Retention): number {
  return r.retentionDays === undefined
    ? Number.NEGATIVE_INFINITY
    : r.now.getTime() - r.retentionDays * 86_400_000;
}

/** Whether a snapshot taken at `timestamp` is within retention (an unreadable timestamp is not). */
export function withinRetention(timestamp: string, r: Retention): boolean {
  return r.retentionDays === undefined || timestampMillis(timestamp) >= retentionStart(r);
}

/** How far a requester sees: its own session, its agent's sessions, or the whole workspace. */
export type Scope = "session" | "agent" | "workspace";

/** Who asks, and how far they see. */
export interface Requester {
  scope: Scope;
  sessionKey: string | null;
  agentId: string | null;
}

/** The index filter that keeps a request inside its scope (the finer rules are {@link inScope}'s). */
export function scopeFilter(req: Requester): { session?: string; agent?: string } {
  if (req.scope === "session" && req.sessionKey !== null) return { session: req.sessionKey };
  if (req.scope !== "workspace" && req.agentId !== null) return { agent: req.agentId };
  return {};
}

/**
 * True when a snapshot may be shown to the requester: its own snapshots always (`own`: the ids written
 * for its session); in `agent` scope the agent's, in `workspace` scope any; but a group or shared-channel
 * session never sees a snapshot of a direct session (or one whose session is unknown).
 */
export function inScope(
  s: { id: string; session: string | null; agent: string | null },
  req: Requester,
  own: ReadonlySet<string>,
): boolean {
  if (own.has(s.id) || (req.sessionKey !== null && s.session === req.sessionKey)) return true;
  if (req.scope === "session") return false;
  if (isSharedSession(req.sessionKey) && !isSharedSession(s.session)) return false;
  if (req.scope === "workspace") return true;
  return (
    req.agentId === null || s.agent === req.agentId || (s.session ?? "").startsWith(`agent:${req.agentId}:`)
  );
}
