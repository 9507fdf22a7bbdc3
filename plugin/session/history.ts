/**
 * The read-only history of a workspace, as one query layer: what the plugin's tools and commands and the
 * CLI ask of the snapshots (list, show, recall, search, status), whatever the engine that answers
 * (the search index, its saved refs, or a first reading of the logs when no index exists yet). The
 * surface above asks this part and never the index or the files beneath it.
 *
 * {@link History} is the search index opened for queries; history-saved.ts answers from the index's
 * saved refs alone where it can; history-check.ts verifies the logs and reads the state files.
 */
import { claimOf, readClaims } from "../search/claims.ts";
import { absentNamed, closeMatches, planQuery } from "../search/query.ts";
import type { ScanResult } from "../search/scan.ts";
import type { ReindexReport, SearchResults, SearchService } from "../search/search-service.ts";
import type { QueryResult, Scope, SearchHit, SearchOptions, SnapshotRef } from "../search/snapshot-index.ts";
import { type Tally, tallyOf } from "../search/tally.ts";
import { live, liveNewestFirst } from "../snapshot/lifecycle.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";

export type { Suggestion } from "../search/query.ts";
export type { ReindexReport } from "../search/search-service.ts";
export type { QueryResult, SearchHit, SnapshotRef } from "../search/snapshot-index.ts";
export { NO_SESSION, type TalliedRef, type Tally } from "../search/tally.ts";
export { absentNamed };

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
export interface SearchAnswer extends Pick<QueryResult, "match" | "missing" | "suggestions"> {
  hits: SearchHit[];
  fuzzy: SearchHit[];
  /** Whether more were found than `limit` (of the hits, or else of the closest matches). */
  more: boolean;
}

/** How {@link History.open} opens the index: see SearchServiceOptions (search/service-types.ts). */
export interface HistoryOptions {
  /** Load refs without postings: list, show, recall and status answer, search finds nothing. */
  entriesOnly: boolean;
  /** Load nothing at open (for `reindex`, which builds every month anyway). */
  skipLoad?: boolean;
  /** Told every warning of the index (a month rebuilt, an index file of an unknown version). */
  warn(message: string): void;
  /** Told after each month is loaded or built. */
  onProgress?: (progress: { months: number; of: number; snapshots: number }) => void;
}

/** The query string's searched words: none means there is nothing to look for. */
export function searchedTerms(query: string): number {
  return planQuery(query).terms.length;
}

/**
 * A workspace's history through its search index, for one run of queries (no watcher): its refs, the
 * snapshot a name, an id or a location names, the newest in a scope, a search and its closest matches,
 * the status tally, and the rebuild of every month.
 */
export class History {
  readonly workspaceDir: string;
  private readonly index: SearchService;

  private constructor(workspaceDir: string, index: SearchService) {
    this.workspaceDir = workspaceDir;
    this.index = index;
  }

  /** Opens the index of `workspaceDir`; the engine loads on use, so that a short command does not pay for it. */
  static async open(workspaceDir: string, options: HistoryOptions): Promise<History> {
    const { SearchService } = await import("../search/search-service.ts");
    const index = await SearchService.open(workspaceDir, {
      logger: { warn: options.warn },
      watch: false,
      entriesOnly: options.entriesOnly,
      skipLoad: options.skipLoad === true,
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
    return new History(workspaceDir, index);
  }

  /** The history of an index already open (the plugin's, session/workspace.ts). */
  static over(workspaceDir: string, index: SearchService): History {
    return new History(workspaceDir, index);
  }

  /** Resolves when every month is loaded. */
  ready(): Promise<void> {
    return this.index.ready();
  }

  /** Problems in the logs and the index's own. */
  diagnostics(): Diagnostic[] {
    return this.index.diagnostics();
  }

  /** Daily logs that could not be read, left out of every answer. */
  unreadable(): string[] {
    return this.index.unreadable();
  }

  /** Index updates that failed. */
  get failures(): number {
    return this.index.failures;
  }

  /** Every ref, tombstones included, newest first. */
  refs(): (SnapshotRef & { tombstone: boolean })[] {
    return this.index.all();
  }

  /** The live refs (claims laid over), newest first: tombstones and what a name's newest tombstone deleted left out. */
  liveRefs(): SnapshotRef[] {
    return liveNewestFirst(this.index.all(), (e) => e).map(({ tombstone: _t, ...ref }) => ref);
  }

  /** The refs `list` shows (see {@link listed}), with one more than `limit` to tell whether older exist. */
  list(options: ListOptions): SnapshotRef[] {
    const wanted = { ...options, limit: options.limit + 1 };
    return listed(this.index.all(), wanted).map(({ tombstone: _t, ...ref }) => ref);
  }

  /** The snapshot `what` names (see {@link resolve}). */
  show(what: string): Promise<{ found: LocatedSnapshot | null; warnings: string[] }> {
    return resolve(this, what);
  }

  /** The refs of the blocks with id `id`. */
  findAll(id: string): SnapshotRef[] {
    return this.index.findAll(id);
  }

  /** The newest live snapshot in `scope`, or null. */
  latest(scope: Scope = {}): SnapshotRef | null {
    return this.index.latest(scope);
  }

  /** The block at `file:line`, parsed, or null. */
  getAt(file: string, line: number): Promise<LocatedSnapshot | null> {
    return this.index.getAt(file, line);
  }

  /** The newest snapshot in `scope`, read from its log, or null. */
  async recall(scope: { session?: string; name?: string }): Promise<LocatedSnapshot | null> {
    const ref = this.index.latest(scope);
    return ref === null ? null : this.index.getAt(ref.file, ref.line);
  }

  /** The status tally: a claimed flush block counts as a capture (search/tally.ts `isCapture`). */
  async status(): Promise<HistoryStatus> {
    const { claims } = await readClaims(this.workspaceDir);
    const refs = this.index
      .all()
      .map((r) => ({ ...r, claimed: claimOf(claims, r.file, r.line, r.id) !== undefined }));
    return { tally: tallyOf(refs), ...this.index.logs() };
  }

  /**
   * The best `limit` hits holding `query` as typed (found with one more, to tell whether there are
   * more), or else its closest matches: the snapshots of the identifiers suggested when one is missing
   * (see query.ts `closeMatches`).
   */
  async search(query: string, options: { limit: number; filter: SearchFilter }): Promise<SearchAnswer> {
    const wanted = { ...options, limit: options.limit + 1 };
    const result = this.find(query, { ...wanted, suggest: true });
    const search = (asked: string) => {
      const found = this.find(asked, wanted);
      return found.match === "exact" ? found.hits : [];
    };
    return searchAnswer(query, result, options.limit, search);
  }

  /** The index's hits for `query` as ranked, how they match, and the closest identifiers when asked (`suggest`). */
  find(query: string, options: SearchOptions = {}): SearchResults {
    return this.index.search(query, options);
  }

  /** Rebuilds every month from the daily logs. */
  reindex(): Promise<ReindexReport> {
    return this.index.reindex();
  }

  /** Saves what changed and closes the index. */
  close(): Promise<void> {
    return this.index.close();
  }
}

/**
 * Splits a result found with `limit + 1` hits: hits when they hold the query as typed; otherwise the
 * closest matches, found through the suggestions by `search` when an identifier is missing (none
 * without `search`), or the result's own hits when every identifier exists but none with the others.
 */
export async function searchAnswer(
  query: string,
  result: QueryResult,
  limit: number,
  search?: (query: string) => readonly SearchHit[],
): Promise<SearchAnswer> {
  const { match, missing, suggestions } = result;
  const more = result.hits.length > limit;
  if (match === "exact")
    return { hits: result.hits.slice(0, limit), fuzzy: [], match, missing, suggestions, more };
  const near =
    missing.length === 0
      ? { hits: result.hits.slice(0, limit), suggestions, more }
      : search === undefined
        ? { hits: [], suggestions, more: false }
        : await closeMatches(query, suggestions, limit, search, (h) => `${h.file}:${h.line}`);
  const fuzzy = near.hits.map((h) => ({ ...h, match: "fuzzy" as const }));
  return { hits: [], fuzzy, match, missing, suggestions: near.suggestions, more: near.more };
}

/**
 * A first search of a workspace with no index yet and at least `threshold` bytes of logs: answered by
 * reading the logs (search/scan.ts, `limit` hits), instead of waiting for the whole index to build. Null
 * when an index exists or the logs are smaller (the index is built at once).
 */
export async function scanFirst(
  workspaceDir: string,
  query: string,
  options: {
    limit: number;
    filter: SearchFilter;
    threshold: number;
    /** Called before the reading starts, then with its progress. */
    onStart(): void;
    onProgress(done: number, of: number): void;
  },
): Promise<ScanResult | null> {
  // The index's files and the scan load here only: the saved refs' answers (history-saved.ts) need neither.
  const { indexDir, listShardFiles } = await import("../search/persist.ts");
  if ((await listShardFiles(indexDir(workspaceDir))).length > 0) return null;
  const { listDailyLogs } = await import("../store/daily-log.ts");
  const logs = await listDailyLogs(workspaceDir);
  if (logs.reduce((n, l) => n + l.size, 0) < options.threshold) return null;
  options.onStart();
  const { claims } = await readClaims(workspaceDir);
  const { scanSearch } = await import("../search/scan.ts");
  return scanSearch(workspaceDir, query, {
    limit: options.limit,
    filter: options.filter,
    claims,
    onProgress: options.onProgress,
  });
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
