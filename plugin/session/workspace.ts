import { join, resolve } from "node:path";
import type { PluginConfig } from "../config.ts";
import { appendClaim, type Claim, claimed, readClaims } from "../search/claims.ts";
import { SearchService } from "../search/search-service.ts";
import type { SnapshotFilter } from "../search/shard.ts";
import type { QueryResult, SnapshotRef } from "../search/snapshot-index.ts";
import { LogText } from "../snapshot/block-span.ts";
import { liveNewestFirst } from "../snapshot/lifecycle.ts";
import { parseDailyLog } from "../snapshot/parse.ts";
import type { LocatedSnapshot, SnapshotContent } from "../snapshot/snapshot.ts";
import { type CachedState, CachedStates } from "../store/cached-state.ts";
import { errorCode, errorMessage } from "../store/fs-durable.ts";
import { secureStateDir } from "../store/gate.ts";
import { journaledDate, recordClaim } from "../store/journal.ts";
import { judgedFor, noteJudged } from "../store/judged-memory.ts";
import { appendLedger, type LedgerFact } from "../store/ledger.ts";
import { readMemoryFile } from "../store/log-open.ts";
import { appendRestoreLog, type RestoreLogEntry } from "../store/restore-log.ts";
import { type SaveMeta, type SaveResult, saveSnapshot, tombstone } from "../store/save.ts";
import { JsonState, type Logger } from "../store/state.ts";
import { findBlockSpan, lineFeedsIn } from "./block-find.ts";
import { History } from "./history-index.ts";
import {
  FlushMarks,
  initialFlushMarks,
  initialSessionState,
  SessionState,
  sessionStatePath,
} from "./session-state.ts";

/** What a Workspace needs from outside: config, logger and clock are injected. */
export interface WorkspaceDeps {
  config: PluginConfig;
  logger: Logger;
  now: () => Date;
  /** Whether the search index should watch `memory/` (true in a long-running gateway). */
  watch?: () => boolean;
  /** How long a session's observed changes may stay in memory only, in ms. Default {@link SESSION_FLUSH_MS}. */
  sessionFlushMs?: number;
}

/**
 * Default delay of the timer that writes sessions' observed changes (trail updates) behind, in ms. They are
 * also written at the end of every turn, before compaction and reset, and when the process exits.
 */
export const SESSION_FLUSH_MS = 1000;

/**
 * The state of one workspace directory: its daily logs (the source of truth), the per-session
 * state files and the restore log under `.big-memory/`. Constructing one does no I/O; everything
 * is opened lazily on first use.
 */
export class Workspace {
  readonly dir: string;
  readonly stateDir: string;
  private readonly deps: WorkspaceDeps;
  private readonly sessions: CachedStates<SessionState>;
  private flushState: JsonState<FlushMarks> | null = null;
  private searchService: Promise<SearchService> | null = null;
  /** The index's refreshes after this process's own writes, still running (see refreshAfterWrite). */
  private refreshes: Promise<void> = Promise.resolve();
  private secured: Promise<unknown> | null = null;
  /** The journal's incidents already warned of (journal-check.ts `warnIncidents`), and the checks running. */
  private readonly journalWarned = new Set<string>();
  private journalChecks: Promise<void> = Promise.resolve();

  constructor(dir: string, deps: WorkspaceDeps) {
    this.dir = resolve(dir);
    this.stateDir = join(this.dir, ".big-memory");
    this.deps = deps;
    this.sessions = new CachedStates({
      root: this.dir,
      delayMs: deps.sessionFlushMs ?? SESSION_FLUSH_MS,
      logger: deps.logger,
    });
  }

  /**
   * The state of a session, kept in memory by this process and written behind (see store/cached-state.ts):
   * `change` is an in-memory update written within {@link SESSION_FLUSH_MS}, at {@link flushSessions} or at
   * exit; `update` writes at once, under the file's lock.
   */
  session(sessionKey: string, agentId: string | null): CachedState<SessionState> {
    return this.sessions.get(
      sessionKey,
      () =>
        new JsonState(
          sessionStatePath(this.stateDir, sessionKey),
          SessionState,
          () => initialSessionState(sessionKey, agentId),
          this.deps.logger,
          () => this.secureState(),
        ),
    );
  }

  /** Writes every session's changes still in memory. Rejects with the first failure, after trying all. */
  flushSessions(): Promise<void> {
    return this.sessions.flush();
  }

  /** Marks left by pre-compaction flush runs. */
  flushMarks(): JsonState<FlushMarks> {
    this.flushState ??= new JsonState(
      join(this.stateDir, "flush.json"),
      FlushMarks,
      initialFlushMarks,
      this.deps.logger,
      () => this.secureState(),
    );
    return this.flushState;
  }

  /** Redacts and appends a snapshot to today's log. */
  async save(content: SnapshotContent, meta: SaveMeta): Promise<SaveResult> {
    const saved = await saveSnapshot({
      workspaceDir: this.dir,
      content,
      meta,
      now: this.deps.now(),
      ...(this.deps.config.timeZone === undefined ? {} : { timeZone: this.deps.config.timeZone }),
    });
    if (saved.journalProblem !== null)
      this.deps.logger.warn(`big-memory: ${saved.id} is in ${saved.file}, but ${saved.journalProblem}`);
    this.refreshAfterWrite(saved.file);
    return saved;
  }

  /** Deletes a checkpoint name by appending a tombstone (see store/save.ts). */
  async deleteName(
    name: string,
    meta: { session: string | null; agent: string | null },
  ): Promise<SaveResult> {
    const saved = await tombstone({
      workspaceDir: this.dir,
      name,
      ...meta,
      now: this.deps.now(),
      ...(this.deps.config.timeZone === undefined ? {} : { timeZone: this.deps.config.timeZone }),
    });
    this.refreshAfterWrite(saved.file);
    return saved;
  }

  /** The text of a workspace-relative daily log, "" when it does not exist. */
  async readLog(file: string): Promise<string> {
    return (await this.readLogBytes(file)).toString("utf8");
  }

  /** The bytes of a workspace-relative daily log, none when it does not exist. */
  async readLogBytes(file: string): Promise<Buffer> {
    try {
      return await readMemoryFile(this.dir, file);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return Buffer.alloc(0);
      throw error;
    }
  }

  /**
   * Snapshots appended to `file` at or after byte `offset` (what a flush run wrote), read without
   * scanning the rest of the log.
   */
  async snapshotsSince(file: string, offset: number): Promise<LocatedSnapshot[]> {
    const buffer = await this.readLogBytes(file);
    const firstLine = lineFeedsIn(buffer, Math.min(offset, buffer.length)) + 1;
    const tail = new LogText(buffer.subarray(Math.min(offset, buffer.length)));
    return this.#parse(tail, file).map((s) => ({ ...s, line: s.line + firstLine - 1 }));
  }

  /** The snapshots of a log, with the workspace's memory of judged blocks (the one every reader shares). */
  #parse(log: LogText | string, file: string, remember = false): LocatedSnapshot[] {
    const { snapshots } = parseDailyLog(log, file, { judged: judgedFor(this.dir), remember });
    noteJudged(this.dir);
    return snapshots;
  }

  /**
   * One snapshot by id from one daily log, or null. Reads that file only, and parses only the block's span when
   * block-find.ts can tell the whole parse would read the same block there (else the whole log).
   */
  async snapshotIn(file: string, id: string): Promise<LocatedSnapshot | null> {
    try {
      const bytes = await readMemoryFile(this.dir, file);
      const found =
        this.#blockIn(bytes, file, id) ??
        this.#parse(new LogText(bytes), file).find((s) => s.snapshot.id === id);
      if (found !== undefined) return claimed((await readClaims(this.dir)).claims, found);
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
    }
    return this.fromJournal({ id });
  }

  /**
   * The snapshot `id` read from its block's span alone (see block-find.ts), else undefined. The span is found on
   * the bytes and only it is decoded: nothing the size of the log is allocated, nothing holds a slice of it.
   */
  #blockIn(bytes: Buffer, file: string, id: string): LocatedSnapshot | undefined {
    const span = findBlockSpan(bytes, id);
    if (span === null) return undefined;
    const read = this.#parse(bytes.toString("utf8", span.start, span.end), file, true);
    const [one] = read;
    if (read.length !== 1 || one === undefined || one.line !== 1 || one.snapshot.id !== id) return undefined;
    return { ...one, line: span.line };
  }

  /** A snapshot whose log lost it, from big-memory's journal (store/journal-check.ts), or null. */
  private async fromJournal(want: { id: string } | { name: string }): Promise<LocatedSnapshot | null> {
    const { findLost } = await import("../store/journal-check.ts");
    const found = await findLost(this.dir, want);
    return found === null ? null : claimed((await readClaims(this.dir)).claims, found);
  }

  /**
   * Checks the journal's logs (those of `file` only, when given) and warns once per incident in the gateway
   * log. Called when the watcher sees a log change and when the index opens; never throws.
   */
  checkJournal(file?: string): Promise<void> {
    const date = file === undefined ? undefined : journaledDate(file);
    if (date === null) return this.journalChecks;
    const run = async () => {
      const { warnIncidents } = await import("../store/journal-check.ts");
      await warnIncidents(
        this.dir,
        this.journalWarned,
        (m) => this.deps.logger.warn(m),
        date === undefined ? undefined : [date],
      );
    };
    this.journalChecks = this.journalChecks
      .then(run)
      .catch((error: unknown) =>
        this.deps.logger.warn(
          `big-memory: could not check the daily logs against the journal: ${errorMessage(error)}`,
        ),
      );
    return this.journalChecks;
  }

  /**
   * The live snapshots of the workspace as the index holds them (claims laid over), newest first: tombstones
   * and every snapshot of a name older than its newest tombstone left out (the lifecycle's rule).
   */
  async liveRefs(): Promise<SnapshotRef[]> {
    const history = await this.history();
    await history.ready();
    return history.liveRefs();
  }

  /** The workspace's history over its open index: the query layer the CLI asks too (history.ts). */
  async history(): Promise<History> {
    return History.over(this.dir, await this.index());
  }

  /**
   * Records that the block at `file`:`line` (a model wrote it in the flush run) belongs to `session`,
   * without touching the block (see search/claims.ts). The open index takes it at once.
   */
  async claim(claim: Omit<Claim, "v" | "trigger">): Promise<void> {
    await this.secureState();
    const full = await appendClaim(this.dir, claim);
    if (this.searchService !== null) (await this.searchService).claim(full);
    await recordClaim(this.dir, claim, this.deps.now()).catch((error: unknown) =>
      this.deps.logger.warn(
        `big-memory: ${claim.id} is claimed, but its copy could not be kept in the journal: ${errorMessage(error)}`,
      ),
    );
  }

  /**
   * The workspace's search index, opened on first use (never in a compaction hook): the newest month
   * answers at once, older months load in the background. It watches `memory/` only in a long-running
   * process (the gateway); one-shot processes refresh it after their own writes.
   */
  async index(): Promise<SearchService> {
    if (this.searchService === null) {
      const watch = this.deps.watch?.() ?? false;
      this.searchService = SearchService.open(this.dir, {
        logger: this.deps.logger,
        watch,
        // A log the watcher saw change is checked against the journal (a model's write may have replaced it).
        ...(watch ? { onRefreshed: (file: string) => void this.checkJournal(file) } : {}),
      });
      if (watch) void this.checkJournal();
    }
    const service = await this.searchService;
    await this.refreshes;
    return service;
  }

  /**
   * Takes this process's own write of `file` into the open index (none open: nothing to do). The writer
   * does not wait for it (a compaction hook would pay for re-reading the day's log); every read of the
   * index does (see {@link index}), so a read after a write always sees it.
   */
  private refreshAfterWrite(file: string): void {
    const service = this.searchService;
    if (service === null) return;
    const refresh = service
      .then((s) => s.refreshFile(file))
      .catch((error: unknown) =>
        this.deps.logger.warn(`big-memory: could not index ${file} after writing it: ${errorMessage(error)}`),
      );
    this.refreshes = Promise.all([this.refreshes, refresh]).then(() => undefined);
  }

  /** A snapshot by id, or null. */
  async byId(id: string): Promise<LocatedSnapshot | null> {
    return (await (await this.index()).get(id)) ?? this.fromJournal({ id });
  }

  /** The newest live snapshot carrying a checkpoint name, or null (none, or deleted). */
  async byName(name: string): Promise<LocatedSnapshot | null> {
    const index = await this.index();
    await index.ready();
    const ref = index.latest({ name });
    if (ref !== null) return index.get(ref.id);
    // From the journal only when no log holds any version of the name (a deleted name stays deleted).
    return index.all().some((e) => e.name === name) ? null : this.fromJournal({ name });
  }

  /**
   * Whether a snapshot read from its log is still offered: not deleted, that is no tombstone of its name
   * is newer (the lifecycle's rule, over every version of the name the index holds).
   */
  async isLive(located: LocatedSnapshot): Promise<boolean> {
    const { name } = located.snapshot;
    if (located.snapshot.tombstone) return false;
    if (name === null) return true;
    const index = await this.index();
    await index.ready();
    const versions = index.all().filter((e) => e.name === name);
    const at = (e: { file: string; line: number }) => e.file === located.file && e.line === located.line;
    return !versions.some(at) || liveNewestFirst(versions, (e) => e).some(at);
  }

  /** The newest live snapshot that `visible` accepts (judged on its ref; only that one is read from its log). */
  async latestVisible(visible: (s: SnapshotRef) => boolean): Promise<LocatedSnapshot | null> {
    const ref = (await this.liveRefs()).find(visible);
    return ref === undefined ? null : (await this.index()).getAt(ref.file, ref.line);
  }

  /**
   * Best matches for `query`, best first, with the matching line. Snapshots of deleted checkpoint
   * names are left out.
   */
  async searchSnapshots(
    query: string,
    opts: { limit: number; filter: SnapshotFilter },
  ): Promise<{ located: LocatedSnapshot; score: number; snippet: string }[]> {
    return (await this.query(query, opts)).hits;
  }

  /**
   * {@link searchSnapshots} with how the hits match (`fuzzy`: no snapshot holds an identifier of the
   * query as typed), the identifiers no snapshot holds, and the closest ones that exist (from every
   * snapshot of the workspace: callers scope them).
   */
  async query(
    query: string,
    opts: { limit: number; filter: SnapshotFilter },
  ): Promise<{
    hits: { located: LocatedSnapshot; score: number; snippet: string }[];
    match: QueryResult["match"];
    missing: string[];
    prefixes: QueryResult["prefixes"];
    suggestions: { word: string; closest: string[] }[];
  }> {
    const history = await this.history();
    const result = history.find(query, { ...opts, suggest: true });
    const found = await Promise.all(
      result.hits.map(async (h) => {
        if (h.name !== null && history.latest({ name: h.name }) === null) return null;
        const located = await history.getAt(h.file, h.line);
        return located === null ? null : { located, score: h.score, snippet: h.snippet };
      }),
    );
    return {
      hits: found.filter((f) => f !== null),
      match: result.match,
      missing: result.missing,
      prefixes: result.prefixes,
      suggestions: result.suggestions,
    };
  }

  /** Appends one line to the restore log (through the persistence gate). */
  async logRestore(entry: Omit<RestoreLogEntry, "v">): Promise<void> {
    await this.secureState();
    await appendRestoreLog(this.stateDir, entry);
  }

  /** Appends facts to the compaction ledger (through the persistence gate, without an fsync of its own). */
  async recordLedger(facts: readonly LedgerFact[]): Promise<void> {
    await this.secureState();
    await appendLedger(this.stateDir, facts);
  }

  /**
   * Once per process: a state folder left by an older version becomes private (0700, `.gitignore`) before
   * anything more is written into it; a new one is created that way by the gate.
   */
  private secureState(): Promise<unknown> {
    this.secured ??= secureStateDir(this.stateDir).catch((error: unknown) => {
      this.secured = null;
      throw error;
    });
    return this.secured;
  }

  /** Writes the sessions' changes, then releases what the workspace holds open: the index (saved) and its watcher. */
  async close(): Promise<void> {
    await this.refreshes;
    await this.journalChecks;
    const index = this.searchService;
    this.searchService = null;
    try {
      await this.sessions.close();
    } finally {
      if (index !== null) await (await index).close();
    }
  }
}

/** One Workspace per directory, created on first use. */
export class Workspaces {
  private readonly open = new Map<string, Workspace>();
  private readonly deps: WorkspaceDeps;

  constructor(deps: WorkspaceDeps) {
    this.deps = deps;
  }

  get(dir: string): Workspace {
    const key = resolve(dir);
    let ws = this.open.get(key);
    if (ws === undefined) {
      ws = new Workspace(key, this.deps);
      this.open.set(key, ws);
    }
    return ws;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.values()].map((w) => w.close()));
    this.open.clear();
  }
}
