import type { LocatedSnapshot } from "./snapshot.ts";

/**
 * The snapshot lifecycle as the logs record it, append-only: saving a name again adds a version
 * (the newest wins), and a tombstone block hides every earlier snapshot of its name until the name
 * is used again. Pure functions over snapshots in the order they were taken.
 */

/**
 * The snapshots still offered for list, recall and restore: tombstones left out, and so is every
 * snapshot of a name older than the newest tombstone of that name. `ordered` is oldest first.
 */
export function liveSnapshots(ordered: readonly LocatedSnapshot[]): LocatedSnapshot[] {
  return live(ordered, (s) => s.snapshot);
}

/** {@link liveSnapshots} over anything that carries a name and a tombstone flag (index refs, say). */
export function live<T>(
  ordered: readonly T[],
  meta: (item: T) => { name: string | null; tombstone: boolean },
): T[] {
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
