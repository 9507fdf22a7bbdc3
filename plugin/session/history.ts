/**
 * The read-only history of a workspace, as one query layer: what the plugin's tools and commands and the
 * CLI ask of the snapshots (list, show, recall, search, status, verify), whatever the engine that answers
 * (the search index, its saved refs, or a first reading of the logs when no index exists yet). The
 * surface above asks this part and never the index or the files beneath it.
 *
 * This module holds what every answer shares and loads nothing heavy: which refs `list` keeps, which
 * snapshot a `show` argument names, and the types. history-index.ts is the search index opened for
 * queries (`History`); history-saved.ts answers from the index's saved refs alone where it can;
 * history-check.ts reads the logs whole (verify, the doctor, the timeline). A snapshot its log lost is
 * found here, in the journal, for `show` and `recall` that found nothing.
 */
import type { QueryResult, SearchHit, SnapshotRef } from "../search/snapshot-index.ts";
import type { Tally } from "../search/tally.ts";
import { live } from "../snapshot/lifecycle.ts";
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";

export type { Suggestion } from "../search/query.ts";
export type { ReindexReport } from "../search/search-service.ts";
export type { QueryResult, SearchHit, SnapshotRef } from "../search/snapshot-index.ts";
export { NO_SESSION, type TalliedRef, type Tally } from "../search/tally.ts";
export { logNameProblem } from "../store/log-names.ts";

/** A search's filter: the session and the agent its snapshots must belong to. */
export interface SearchFilter {
  session?: string;
  agent?: string;
}

/** What `status` counts: the tally of every snapshot, and the logs read with their redactions. */
export interface HistoryStatus {
  tally: Tally;
  files: number;
  bytes: number;
  /** `[REDACTED:<kind>]` markers in the snapshots as read, by kind. */
  redactions: Record<string, number>;
}

/** A search's answer: the hits holding the query as typed, or else its closest matches. */
export interface SearchAnswer extends Pick<QueryResult, "match" | "missing" | "prefixes" | "suggestions"> {
  hits: SearchHit[];
  fuzzy: SearchHit[];
  /** Whether more were found than `limit` (of the hits, or else of the closest matches). */
  more: boolean;
}

/** `list`'s options: the workspace, the session and agent kept, how many, and tombstones too (`all`). */
export interface ListOptions {
  dir: string;
  session?: string;
  agent?: string;
  limit: number;
  all: boolean;
}

/** The refs `list` keeps from `all` (every ref, tombstones included, newest first). */
export function listed<
  T extends { session: string | null; agent: string | null; name: string | null; tombstone: boolean },
>(all: readonly T[], o: ListOptions): T[] {
  const kept = o.all ? all : live([...all].reverse(), (r) => r).reverse();
  return kept
    .filter((r) => o.session === undefined || r.session === o.session)
    .filter((r) => o.agent === undefined || r.agent === o.agent)
    .slice(0, o.limit);
}

/** What `show` looks snapshots up in (the index is one); `getRef` reads the block of a known ref. */
export interface Lookup {
  findAll(id: string): SnapshotRef[];
  latest(scope: { name: string }): SnapshotRef | null;
  getAt(file: string, line: number): Promise<LocatedSnapshot | null>;
  getRef?(ref: SnapshotRef): Promise<LocatedSnapshot | null>;
}

/** `memory/2026-11-22.md:14` as a file and a line, or null. */
export function location(text: string): { file: string; line: number } | null {
  const m = /^(.+\.md):(\d+)$/.exec(text);
  return m?.[1] === undefined || m[2] === undefined ? null : { file: m[1], line: Number(m[2]) };
}

/**
 * The snapshot `what` names: `file:line`, an id (when blocks share it, the one in its own day's log,
 * with a warning naming the others), or a checkpoint name (its newest live version).
 */
export async function resolve(
  index: Lookup,
  what: string,
): Promise<{ found: LocatedSnapshot | null; warnings: string[] }> {
  const at = location(what);
  if (at !== null) return { found: await index.getAt(at.file, at.line), warnings: [] };
  const same = index.findAll(what);
  if (same.length > 0) {
    const own =
      same.find((r) => r.file.startsWith(`memory/${what.slice(0, 10)}`)) ?? (same[0] as SnapshotRef);
    const others = same.filter((r) => r !== own);
    return {
      found: await (index.getRef?.(own) ?? index.getAt(own.file, own.line)),
      warnings: others.map(
        (r) =>
          `snapshot id ${what} is also used by the block at ${r.file}:${r.line} (show it with "show ${r.file}:${r.line}")`,
      ),
    };
  }
  const named = index.latest({ name: what });
  if (named === null) return { found: null, warnings: [] };
  return { found: await (index.getRef?.(named) ?? index.getAt(named.file, named.line)), warnings: [] };
}

/**
 * The snapshot with id `id`, or the newest of checkpoint name `name`, that its daily log lost and the
 * journal still holds (claims laid over); null when the journal holds none, or when a log still holds a
 * version of the name (its newest a tombstone: deleted, not lost).
 */
export async function lostSnapshot(
  workspaceDir: string,
  want: { id: string } | { name: string },
): Promise<LocatedSnapshot | null> {
  // Loaded here only: a `show` that finds its snapshot reads none of these.
  const { findLost } = await import("../store/journal-check.ts");
  const lost = await findLost(workspaceDir, want);
  if (lost === null) return null;
  if ("name" in want) {
    const { readAllSnapshots } = await import("../store/snapshots.ts");
    if ((await readAllSnapshots(workspaceDir)).snapshots.some((s) => s.snapshot.name === want.name))
      return null;
  }
  const { claimed, readClaims } = await import("../search/claims.ts");
  return claimed((await readClaims(workspaceDir)).claims, lost);
}
