/**
 * Builders shared by the tests: one typed snapshot, the same snapshot as found in a daily log, and a fresh
 * workspace per test with a way to save snapshots in it.
 */

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { emptyContent } from "../plugin/snapshot/sections.ts";
import type { LocatedSnapshot, Snapshot } from "../plugin/snapshot/snapshot.ts";
import { type SaveResult, saveSnapshot } from "../plugin/store/save.ts";

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

/**
 * A workspace folder holding an empty `memory/`, made anew before each test of the calling file and removed
 * after it (`dir`), and `save(goal, name)`: a compaction snapshot of `agent:main:main` with that goal (and
 * checkpoint name), written as the CLI's `save` writes it, dated `now` in UTC.
 */
export function workspaceEachTest(
  prefix: string,
  now: Date,
): { readonly dir: string; save: (goal: string, name?: string | null) => Promise<SaveResult> } {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), `big-memory-${prefix}-`));
    await mkdir(join(dir, "memory"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    save: (goal, name = null) =>
      saveSnapshot({
        workspaceDir: dir,
        content: { ...emptyContent(), goal },
        meta: { trigger: "compaction", session: "agent:main:main", name },
        now,
        timeZone: "UTC",
      }),
  };
}
