/** Builders shared by the tests: one typed snapshot, and the same snapshot as found in a daily log. */

import { emptyContent } from "../plugin/snapshot/sections.ts";
import type { LocatedSnapshot, Snapshot } from "../plugin/snapshot/snapshot.ts";

/**
 * A valid snapshot with id `id` (`YYYY-MM-DD-NN`): its date gives the timestamp (10:00 UTC), the goal is
 * `goal of <id>`, it is attributed to `agent:main:main` / `main` with trigger `manual`, every other section
 * is empty; `over` replaces any field.
 */
export function snapshot(id: string, over: Partial<Snapshot> = {}): Snapshot {
  return {
    version: 1,
    id,
    timestamp: `${id.slice(0, 10)}T10:00:00+00:00`,
    session: "agent:main:main",
    agent: "main",
    trigger: "manual",
    name: null,
    parent: null,
    tombstone: false,
    ...emptyContent(),
    goal: `goal of ${id}`,
    ...over,
  };
}

/** `snapshot` as a hand-written block reads: no session, agent or trigger. */
export function handSnapshot(id: string, over: Partial<Snapshot> = {}): Snapshot {
  return snapshot(id, { session: null, agent: null, trigger: null, ...over });
}

/**
 * A snapshot as found in its daily log (`memory/<date of its id>.md`) at `line`, verified, with no checksum
 * recorded; `over` replaces any field of the location.
 */
export function located(
  s: Snapshot,
  line = 1,
  over: Partial<Omit<LocatedSnapshot, "snapshot">> = {},
): LocatedSnapshot {
  return {
    snapshot: s,
    file: `memory/${s.id.slice(0, 10)}.md`,
    line,
    verified: true,
    checksum: null,
    ...over,
  };
}
