/**
 * The history through the workspace's search index (see history.ts): `History` answers list, show,
 * recall, status and search (with its closest matches) and rebuilds the index; `scanFirst` answers a
 * first search of a large workspace with no index yet by reading the logs. The plugin's Workspace asks
 * it over its open index (`History.over`), the CLI over an index opened for one command (`History.open`).
 */
import { claimOf, readClaims } from "../search/claims.ts";
import { absentNamed, closeMatches, planQuery } from "../search/query.ts";
import type { ScanResult } from "../search/scan.ts";
import type { ReindexReport, SearchResults, SearchService } from "../search/search-service.ts";
import type { QueryResult, Scope, SearchHit, SearchOptions, SnapshotRef } from "../search/snapshot-index.ts";
import { tallyOf } from "../search/tally.ts";
import { liveNewestFirst } from "../snapshot/lifecycle.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import {
  type HistoryStatus,
  type ListOptions,
  listed,
  resolve,
  type SearchAnswer,
  type SearchFilter,
} from "./history.ts";

export { absentNamed };

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
  const { match, missing, prefixes, suggestions } = result;
  const more = result.hits.length > limit;
  if (match === "exact")
    return { hits: result.hits.slice(0, limit), fuzzy: [], match, missing, prefixes, suggestions, more };
  const near =
    missing.length === 0
      ? { hits: result.hits.slice(0, limit), suggestions, more }
      : search === undefined
        ? { hits: [], suggestions, more: false }
        : await closeMatches(query, suggestions, limit, search, (h) => `${h.file}:${h.line}`);
  // Hits by prefix stay marked so (see snapshot-index.ts `QueryMatch`); the others are near matches.
  const fuzzy = near.hits.map((h) => ({ ...h, match: match === "prefix" ? match : ("fuzzy" as const) }));
  return { hits: [], fuzzy, match, missing, prefixes, suggestions: near.suggestions, more: near.more };
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
