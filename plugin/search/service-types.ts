/** The options and results of the search service (search-service.ts). */
import type { Diagnostic } from "../snapshot/snapshot.ts";
import type { Logger } from "../store/state.ts";
import type { QueryResult } from "./snapshot-index.ts";

export interface SearchServiceOptions {
  logger: Logger;
  /** Keep the index under `<stateDir>/search/<workspace hash>/` instead of `<workspace>/.big-memory/search/`. */
  stateDir?: string;
  /** Watch `memory/` for changes made by anyone. Default true. */
  watch?: boolean;
  /** Quiet time before a changed log is re-read, in ms. Default 50. */
  debounceMs?: number;
  /** Quiet time before changed months are saved, in ms. Default 1000. */
  saveDelayMs?: number;
  /**
   * Load saved months by their snapshot refs only (no postings): `list`, `latest`, `find`, `get` and
   * `status` answer, `search` finds nothing. Months with no saved shard are built and saved as usual;
   * logs changed since are re-read, but such months are not saved. Default false.
   */
  entriesOnly?: boolean;
  /** Load nothing at open (for `reindex`, which builds every month anyway). Default false. */
  skipLoad?: boolean;
  /** Told after a log was looked at again (on a change the watcher saw, or {@link SearchService.refreshFile}). */
  onRefreshed?: (file: string) => void;
  /** Told after each month is loaded or built: months done of all, and snapshots so far. */
  onProgress?: (progress: { months: number; of: number; snapshots: number }) => void;
}

/** Search results (see SnapshotIndex.query), and whether every month was loaded when they were computed. */
export interface SearchResults extends QueryResult {
  complete: boolean;
}

/** What `reindex` did. */
export interface ReindexReport {
  snapshots: number;
  logs: number;
  months: number;
  diagnostics: Diagnostic[];
  ms: number;
}
