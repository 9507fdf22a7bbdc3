import type { LocatedSnapshot, Snapshot } from "./snapshot.ts";

/**
 * The JSON shapes of the CLI contract (DESIGN.md): a SnapshotRef names a snapshot and where it is;
 * a SnapshotJson adds every section. Absent values are `null`; strings are as written.
 */
export interface SnapshotRef {
  id: string;
  timestamp: string;
  file: string;
  line: number;
  session: string | null;
  agent: string | null;
  trigger: string | null;
  name: string | null;
  goal: string;
  verified: boolean | null;
  score?: number;
}

export type SnapshotJson = SnapshotRef &
  Pick<
    Snapshot,
    "state" | "files" | "decisions" | "code" | "names" | "blockers" | "next" | "extra" | "parent"
  >;

/** The reference fields of a located snapshot. */
export function refJson(l: LocatedSnapshot): SnapshotRef {
  const s = l.snapshot;
  return {
    id: s.id,
    timestamp: s.timestamp,
    file: l.file,
    line: l.line,
    session: s.session,
    agent: s.agent,
    trigger: s.trigger,
    name: s.name,
    goal: s.goal,
    verified: l.verified,
  };
}

/** The whole snapshot, in the CLI's JSON shape. */
export function snapshotJson(l: LocatedSnapshot): SnapshotJson {
  const s = l.snapshot;
  return {
    ...refJson(l),
    state: s.state,
    files: s.files,
    decisions: s.decisions,
    code: s.code,
    names: s.names,
    blockers: s.blockers,
    next: s.next,
    extra: s.extra,
    parent: s.parent,
  };
}
