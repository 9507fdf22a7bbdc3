/**
 * What changed between two snapshots of one session, as the memory timeline shows it: the goal, the files
 * in play, the failures and blockers, the decisions, the next steps. Items are compared by their text with
 * case and runs of white space ignored; what is reported is the text as written (escaped for the page).
 */
import type { Snapshot } from "../snapshot/snapshot.ts";
import { forTerminal } from "./terminal.ts";

/** The changes from a session's previous snapshot to the next; a list is absent when nothing changed in it. */
export interface SnapshotDiff {
  /** The previous snapshot's id. */
  from: string;
  /** The goal before, when it changed. */
  goal?: string;
  /** Files added to and gone from Files In Play (paths). */
  filesAdded?: string[];
  filesGone?: string[];
  /** Blockers and failures that are new, and those no longer listed (resolved). */
  failuresNew?: string[];
  failuresResolved?: string[];
  /** Decisions added, and decisions of the previous snapshot no longer held (reversed or dropped). */
  decisionsAdded?: string[];
  decisionsDropped?: string[];
  /** Next steps of the previous snapshot no longer listed (done or given up), and new ones. */
  nextDone?: string[];
  nextNew?: string[];
}

const key = (text: string) => text.trim().replace(/\s+/g, " ").toLowerCase();

/** Items of `after` whose key is not among `before`'s, in `after`'s order, each once. */
function added(before: readonly string[], after: readonly string[]): string[] {
  const had = new Set(before.map(key));
  const seen = new Set<string>();
  return after.filter((item) => {
    const k = key(item);
    if (k === "" || had.has(k) || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The failures and blockers a snapshot lists: its Blockers & Open Questions, and its Current State's
 * "blocked" line when it says yes (`yes -- waiting for access`).
 */
export function failuresOf(s: Snapshot): string[] {
  const blocked = s.state.blocked.trim();
  const says = /^(yes|true|blocked)\b/i.test(blocked) ? [blocked] : [];
  return [...s.blockers, ...says];
}

/**
 * What changed from `before` to `after` (the same session's snapshots, in that order), or null when
 * nothing the timeline shows did.
 */
export function snapshotDiff(before: Snapshot, after: Snapshot): SnapshotDiff | null {
  const show = (items: string[]) => items.map((t) => forTerminal(t, false));
  const parts: Omit<SnapshotDiff, "from"> = {};
  if (key(before.goal) !== key(after.goal)) parts.goal = forTerminal(before.goal, false);
  const lists: [keyof Omit<SnapshotDiff, "from" | "goal">, string[]][] = [
    [
      "filesAdded",
      added(
        before.files.map((f) => f.path),
        after.files.map((f) => f.path),
      ),
    ],
    [
      "filesGone",
      added(
        after.files.map((f) => f.path),
        before.files.map((f) => f.path),
      ),
    ],
    ["failuresNew", added(failuresOf(before), failuresOf(after))],
    ["failuresResolved", added(failuresOf(after), failuresOf(before))],
    [
      "decisionsAdded",
      added(
        before.decisions.map((d) => d.text),
        after.decisions.map((d) => d.text),
      ),
    ],
    [
      "decisionsDropped",
      added(
        after.decisions.map((d) => d.text),
        before.decisions.map((d) => d.text),
      ),
    ],
    ["nextDone", added(after.next, before.next)],
    ["nextNew", added(before.next, after.next)],
  ];
  for (const [name, items] of lists) if (items.length > 0) parts[name] = show(items);
  if (Object.keys(parts).length === 0) return null;
  return { from: forTerminal(before.id, false), ...parts };
}
