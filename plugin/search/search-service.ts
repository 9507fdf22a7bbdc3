/**
 * The search index of one workspace, kept fresh and on disk. `SearchService.open` loads the newest
 * month (from its saved shard, or from the logs) and resolves; older months load in the background,
 * newest first, and every query answers at once from what is loaded (`complete` says whether that is
 * everything). Saved shards are trusted only for logs whose fingerprint still matches; anything else
 * is re-read. A corrupt, truncated or unknown-version shard is rebuilt from the logs with one warning.
 * A log that cannot be read is a diagnostic of its file and keeps no fingerprint (it is read again on
 * every load). A watcher re-reads logs that change; index changes are saved shortly after, atomically.
 */
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { strayDailyLogs } from "../store/log-names.ts";
import { type Claim, type Claims, claimed, claimMonths, readClaims } from "./claims.ts";
import { type Entry, refOf } from "./document.ts";
import { FrozenShard } from "./frozen-shard.ts";
import { LogBook } from "./log-book.ts";
import {
  indexDir,
  listShardFiles,
  loadSavedMonth,
  removeShardFile,
  ShardProblems,
  saveMonth,
  VocabularyFile,
} from "./persist.ts";
import { TextCache } from "./saved-texts.ts";
import type { ReindexReport, SearchResults, SearchServiceOptions } from "./service-types.ts";
import { monthOf, type SnapshotFilter } from "./shard.ts";
import { type Scope, type SearchOptions, SnapshotIndex, type SnapshotRef } from "./snapshot-index.ts";
import {
  buildMonth,
  groupByMonth,
  isUnreadable,
  listLogs,
  logsByMonth,
  presentLogs,
  readLog,
  snapshotIn,
  statLog,
  unchanged,
} from "./sources.ts";
import type { LogWatcher } from "./watch.ts";

export type { ReindexReport, SearchResults, SearchServiceOptions } from "./service-types.ts";

/** The search index of one workspace. */
export class SearchService {
  readonly workspaceDir: string;
  /** Folder holding the saved shards. */
  readonly indexDir: string;
  readonly #options: SearchServiceOptions;
  readonly #index = new SnapshotIndex();
  readonly #book = new LogBook();
  /** The snippet texts last read from saved months (see saved-texts.ts). */
  readonly #texts = new TextCache();
  /** Months not loaded yet, with their logs as listed (by name) at open. */
  readonly #pending = new Map<string, string[]>();
  readonly #dirty = new Set<string>();
  readonly #problems: ShardProblems;
  /** The index's vocabulary file (persist.ts; unless only entries load), written after loading and at close. */
  #words: VocabularyFile | undefined;
  #queue: Promise<void> = Promise.resolve();
  #ready: Promise<void> = Promise.resolve();
  #searchable: Promise<void> = Promise.resolve();
  #watcher: LogWatcher | undefined;
  #saveTimer: NodeJS.Timeout | undefined;
  #failures = 0;
  #closed = false;
  #monthsTotal = 0;
  #monthsDone = 0;
  #claims: Claims = new Map();
  #claimProblems: Diagnostic[] = [];

  private constructor(workspaceDir: string, options: SearchServiceOptions) {
    this.workspaceDir = workspaceDir;
    this.#options = options;
    this.indexDir = indexDir(workspaceDir, options.stateDir);
    this.#problems = new ShardProblems(this.indexDir, (message) => this.#warn(message));
  }

  /** Opens the index of a workspace; resolves once the newest month is searchable. */
  static async open(workspaceDir: string, options: SearchServiceOptions): Promise<SearchService> {
    const service = new SearchService(workspaceDir, options);
    await service.#start();
    return service;
  }

  async #start(): Promise<void> {
    // Watch before listing, so that a change made meanwhile is seen by one or the other.
    if (this.#options.watch !== false) {
      // Loaded here, so that a command that does not watch (the CLI) does not load the watcher.
      const { watchLogs } = await import("./watch.ts");
      this.#watcher = watchLogs(this.workspaceDir, {
        debounceMs: this.#options.debounceMs ?? 50,
        onChange: (file) => void this.refreshFile(file),
        onError: (error) => this.#warn(`big-memory: watching memory/ failed: ${messageOf(error)}`),
      });
    }
    await this.#readClaims();
    if (this.#options.skipLoad === true) return;
    if (this.#options.entriesOnly !== true) this.#words = new VocabularyFile(this.indexDir);
    for (const [month, files] of logsByMonth(this.workspaceDir)) this.#pending.set(month, files);
    const months = [...this.#pending.keys()].sort().reverse();
    this.#monthsTotal = months.length;
    const newest = months[0];
    if (newest !== undefined) await this.#enqueue(() => this.#loadMonth(newest));
    const watching = this.#watcher?.ready ?? Promise.resolve();
    this.#searchable = this.#loadRest(months.slice(1));
    this.#ready = Promise.all([this.#searchable.then(() => this.#verifyAll()), watching]).then(() => {});
  }

  /**
   * Checks every month loaded from its lean part against its file's checksums (saved-month.ts), a month a
   * task, so that queries and refreshes go on meanwhile; a month whose file fails is rebuilt from its logs.
   */
  async #verifyAll(): Promise<void> {
    for (const month of this.#index.months()) {
      if (this.#closed) return;
      await this.#enqueue(async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        const shard = this.#index.shard(month);
        const problem = shard instanceof FrozenShard ? shard.verify() : undefined;
        if (problem === undefined) return;
        this.#problems.bad(month, problem);
        await this.#build(month, presentLogs(this.workspaceDir, Object.keys(this.#book.ofMonth(month))));
      });
    }
    this.#problems.summary();
  }

  async #loadRest(months: readonly string[]): Promise<void> {
    await this.#enqueue(async () => await this.#words?.read(this.#index));
    for (const month of months) {
      if (this.#closed) return;
      await this.#enqueue(() => this.#loadMonth(month));
    }
    await this.#enqueue(async () => {
      const known = new Set(this.#index.months());
      for (const month of await listShardFiles(this.indexDir)) {
        if (!known.has(month)) await removeShardFile(this.indexDir, month);
      }
      if (this.#options.entriesOnly !== true) this.#index.vocabulary();
    });
    void this.#enqueue(async () => this.#words?.save(this.#index, this.complete));
    this.#scheduleSave();
  }

  /** Reads the claims file again and lays its claims over every entry. */
  async #readClaims(): Promise<void> {
    const read = await readClaims(this.workspaceDir);
    this.#claims = read.claims;
    this.#claimProblems = read.problems;
    this.#claimMonth();
  }

  /** Lays the claims over the entries of the months holding a claimed log (of `month` alone, when given). */
  #claimMonth(month?: string): void {
    claimMonths(this.#claims, (m) => this.#index.shard(m)?.documents() ?? [], month);
  }

  /** Records a claim made in this process (see claims.ts) and lays it over its entry at once. */
  claim(claim: Claim): void {
    const claims = new Map(this.#claims);
    claims.set(`${claim.file}:${claim.line}`, claim);
    this.#claims = claims;
    this.#claimMonth(monthOf(claim.file));
  }

  /** Runs index work one task at a time, in order; a failed task is reported, never fatal. */
  #enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(task).catch((error: unknown) => {
      this.#failures++;
      this.#warn(`big-memory: search index update failed: ${messageOf(error)}`);
    });
    this.#queue = run;
    return run;
  }

  #warn(message: string): void {
    this.#options.logger.warn(message);
  }

  async #loadMonth(month: string): Promise<void> {
    const listed = this.#pending.get(month);
    if (listed === undefined) return; // loaded meanwhile (by reindex)
    this.#pending.delete(month);
    const full =
      this.#options.entriesOnly === true ? undefined : { cache: this.#texts, vocabulary: this.#words?.saved };
    const saved = await loadSavedMonth(this.indexDir, month, this.#problems, full);
    if (saved === undefined) await this.#build(month, presentLogs(this.workspaceDir, listed));
    else {
      this.#index.setShard(saved.shard);
      this.#book.remember(saved.files);
      if (saved.rewrite) this.#dirty.add(month);
      // Each log listed is checked against its fingerprint now (one stat each; one gone since, or a folder,
      // stats as null and is forgotten), not against the listing made at open. Only a build needs the list
      // itself cleared of those first (presentLogs).
      await this.#refreshChanged([...listed, ...Object.keys(saved.files)]);
      this.#scheduleSave();
    }
    this.#claimMonth(month);
    const progress = { months: ++this.#monthsDone, of: this.#monthsTotal, snapshots: this.#index.size };
    this.#options.onProgress?.(progress);
  }

  /** Stats `files` together and re-reads those whose fingerprint no longer holds (see sources.ts `unchanged`). */
  async #refreshChanged(files: readonly string[]): Promise<void> {
    const unique = [...new Set(files)];
    const stats = await Promise.all(unique.map((file) => statLog(this.workspaceDir, file)));
    for (const [i, file] of unique.entries()) {
      const log = stats[i];
      if (!(log && unchanged(log, this.#book.record(file)))) await this.#refresh(file);
    }
  }

  /** Builds a month from its logs, yielding to the event loop as it goes, and installs it. */
  async #build(month: string, files: readonly string[]): Promise<void> {
    const book = this.#book;
    const shard = await buildMonth(
      this.workspaceDir,
      month,
      files,
      (file, read) => book.read(file, read),
      (_file, read) => book.cannotRead(read.unreadable),
    );
    if (shard === undefined) this.#index.dropShard(month);
    else {
      this.#index.setShard(shard);
      this.#claimMonth(month);
    }
    this.#dirty.add(month);
    this.#scheduleSave();
  }

  /** Re-reads one log if it changed (or vanished) since it was indexed. */
  async #refresh(file: string): Promise<void> {
    const month = monthOf(file);
    if (this.#pending.has(month)) return; // its month loads later and will see the file as it is then
    const known = this.#book.record(file);
    const log = await statLog(this.workspaceDir, file);
    if (log !== null && unchanged(log, known)) return;
    const read = log === null ? null : await readLog(this.workspaceDir, file, known);
    if (read === null || isUnreadable(read)) {
      if (read === null) this.#book.gone(file);
      else this.#book.cannotRead(read.unreadable);
      // Nothing of it was indexed: the index has nothing to drop, and nothing to save.
      if (known === undefined) return;
      this.#index.replaceFile(file, []);
    } else {
      this.#book.read(file, read);
      if (!read.same) {
        this.#index.replaceFile(file, read.snapshots);
        this.#claimMonth(month);
      }
    }
    this.#dirty.add(month);
    this.#scheduleSave();
  }

  /** Saves the changed months shortly; while months load, once every month is loaded (#loadRest). */
  #scheduleSave(): void {
    if (this.#closed || this.#dirty.size === 0 || !this.complete) return;
    clearTimeout(this.#saveTimer);
    const save = () => void this.#enqueue(() => this.#save());
    this.#saveTimer = setTimeout(save, this.#options.saveDelayMs ?? 1000).unref();
  }

  /** Writes every changed month (the newest stays hot, older ones are frozen again), and the vocabulary file. */
  async #save(vocabulary = false): Promise<void> {
    const newest = this.#index.months()[0];
    for (const month of [...this.#dirty]) {
      this.#dirty.delete(month);
      const files = this.#book.ofMonth(month);
      await saveMonth(this.indexDir, this.#index, month, files, month === newest, this.#texts, this.#words);
    }
    if (vocabulary) await this.#words?.save(this.#index, this.complete);
  }

  /**
   * Resolves when every month is loaded (and fresh as of its loading), checked against its saved file's
   * checksums, and the watcher is running.
   */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Resolves when every month is searchable ({@link ready} also waits for their files to be verified). */
  searchable(): Promise<void> {
    return this.#searchable;
  }

  /** Whether every month is loaded. */
  get complete(): boolean {
    return this.#pending.size === 0;
  }

  /** Best matches for `query` among the loaded months, best first. Never waits. */
  search(query: string, options: SearchOptions = {}): SearchResults {
    return { ...this.#index.query(query, options), complete: this.complete };
  }

  /** The newest snapshot in scope among the loaded months (see SnapshotIndex.latest), or null. */
  latest(scope: Scope = {}): SnapshotRef | null {
    const entry = this.#index.latest(scope);
    return entry === undefined ? null : refOf(entry);
  }

  /** Loaded snapshots passing `filter`, newest first. */
  list(filter: SnapshotFilter = {}): SnapshotRef[] {
    return this.#index.list(filter).map(refOf);
  }

  /** Problems found in the logs read so far (torn blocks, unknown versions...) and in the claims file. */
  diagnostics(): Diagnostic[] {
    return [...strayDailyLogs(this.workspaceDir), ...this.#book.diagnostics(), ...this.#claimProblems];
  }

  /** The logs indexed: how many, their bytes, and the `[REDACTED:<kind>]` markers in their snapshots. */
  logs(): { files: number; bytes: number; redactions: Record<string, number> } {
    return this.#book.totals();
  }

  /** The logs that could not be read when last looked at, oldest first; their snapshots are left out. */
  unreadable(): string[] {
    return this.#book.unreadable();
  }

  /** How many index updates failed since the service opened (each one was told to the logger). */
  get failures(): number {
    return this.#failures;
  }

  /** Counts for `status`. */
  status(): { snapshots: number; months: number; pendingMonths: number; complete: boolean } {
    const months = this.#index.months().length;
    const { complete } = this;
    return { snapshots: this.#index.size, months, pendingMonths: this.#pending.size, complete };
  }

  /** The full snapshot with id `id`, read from its log; null when there is none. */
  async get(id: string): Promise<LocatedSnapshot | null> {
    await this.#ready;
    for (let attempt = 0; attempt < 2; attempt++) {
      const entry = this.#index.find(id);
      if (entry === undefined) return null;
      const found = await snapshotIn(
        this.workspaceDir,
        entry.file,
        (u) => this.#book.told(u),
        (all) =>
          all.find((s) => s.line === entry.line && s.snapshot.id === id) ??
          all.find((s) => s.snapshot.id === id),
      );
      if (found !== null) return claimed(this.#claims, found);
      // Changed, gone or unreadable since it was indexed: the refresh says which, and drops its refs.
      await this.refreshFile(entry.file);
    }
    return null;
  }

  /** Every loaded snapshot, tombstones included, newest first. */
  all(): (SnapshotRef & { tombstone: boolean })[] {
    return this.#index.all().map(refWithTombstone);
  }

  /** Every loaded snapshot with id `id` (ids repeat when a block was copied), newest first. */
  findAll(id: string): SnapshotRef[] {
    return this.#index.findAll(id).map(refOf);
  }

  /** The full snapshot whose block starts at `file`:`line`, read from its log; null when there is none. */
  async getAt(file: string, line: number): Promise<LocatedSnapshot | null> {
    await this.#ready;
    const found = await snapshotIn(
      this.workspaceDir,
      file,
      (u) => this.#book.told(u),
      (all) => all.find((s) => s.line === line),
    );
    return found === null ? null : claimed(this.#claims, found);
  }

  /** Re-reads one log (workspace-relative path) if it changed; resolves when the index reflects it. */
  refreshFile(file: string): Promise<void> {
    return this.#enqueue(async () => {
      await this.#refresh(file);
      await this.#readClaims();
      this.#options.onRefreshed?.(file);
    });
  }

  /**
   * Rebuilds every month from the logs in the background; searches keep answering meanwhile. The report
   * counts the logs indexed; those that could not be read are in its diagnostics and {@link unreadable}.
   */
  reindex(): Promise<ReindexReport> {
    const started = performance.now();
    let report: ReindexReport = { snapshots: 0, logs: 0, months: 0, diagnostics: [], ms: 0 };
    return this.#enqueue(async () => {
      const logs = await listLogs(this.workspaceDir);
      const byMonth = groupByMonth(logs);
      this.#pending.clear();
      this.#book.clear();
      for (const month of this.#index.months()) if (!byMonth.has(month)) this.#index.dropShard(month);
      const months = [...byMonth.keys()].sort().reverse();
      for (const [i, month] of months.entries()) {
        await this.#build(
          month,
          (byMonth.get(month) ?? []).map((l) => l.file),
        );
        this.#options.onProgress?.({ months: i + 1, of: months.length, snapshots: this.#index.size });
      }
      report = {
        snapshots: this.#index.size,
        logs: logs.length - this.#book.unreadable().length,
        months: byMonth.size,
        diagnostics: this.diagnostics(),
        ms: 0,
      };
      await this.#save();
    }).then(() => ({ ...report, ms: performance.now() - started }));
  }

  /** Saves changed months now. */
  flush(): Promise<void> {
    clearTimeout(this.#saveTimer);
    return this.#enqueue(() => this.#save());
  }

  /** Stops watching, finishes queued work and saves. The service answers nothing useful after. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#saveTimer);
    await this.#watcher?.close();
    await this.#enqueue(() => this.#save(true).then(() => this.#index.close()));
  }
}

/** One object per snapshot (not a ref and then its copy): `list` of a long history makes tens of thousands. */
function refWithTombstone(e: Entry): SnapshotRef & { tombstone: boolean } {
  const { id, timestamp, file, line, session, agent, trigger, name, goal, verified, tombstone } = e;
  return { id, timestamp, file, line, session, agent, trigger, name, goal, verified, tombstone };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
