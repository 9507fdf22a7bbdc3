/**
 * The snapshot refs a workspace's index has saved, read month by month and only as far as a question
 * needs: the newest snapshots from the newest months back, the blocks of an id or a name from the months
 * whose header mentions it, or everything. This is the read path of `list`, `show`, `recall` and
 * `status`: no search engine, no postings, and no log parsed unless it changed since it was indexed (a
 * changed log is re-read, as the search service does; nothing is saved). A month whose saved header is
 * missing, unreadable or of an older format cannot be answered here (`null`): the caller opens the
 * search service, which rebuilds it. A log that cannot be read (permissions, a disk error) is a
 * diagnostic of its file and its refs are left out; the other logs answer (the index saves no record of
 * such a log, so it is tried again on every run).
 */

import { END_MARKER, START_MARKER_PREFIX } from "../snapshot/format.ts";
import { latestCandidate, latestSettled } from "../snapshot/lifecycle.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { errorCode } from "../store/fs-durable.ts";
import { strayDailyLogs } from "../store/log-names.ts";
import { readMemoryFileSync } from "../store/log-open.ts";
import { at } from "./checked.ts";
import { type Claims, claimEntries, claimed, readClaims } from "./claims.ts";
import type { LogRecord } from "./codec.ts";
import { type Entry, entryOf } from "./document.ts";
import { LogBook } from "./log-book.ts";
import { contentHash, logsByMonth, statLogSync, unchanged } from "./log-files.ts";
import {
  decodeHeaderFiles,
  decodeHeaderJson,
  decodeHeaderPrefix,
  indexDir,
  readHeaderBytes,
} from "./saved-header.ts";
import { MONTH_SLACK_DAYS, monthOf, newerFirst } from "./shard.ts";
import { type Tally, tallyOf } from "./tally.ts";

/** The latest time a snapshot of a month (`YYYY-MM`) is taken to carry: the month's end plus its slack. */
export function latestTimeOf(month: string): number {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  return m === null
    ? Number.POSITIVE_INFINITY
    : Date.UTC(Number(m[1]), Number(m[2]), 1) + MONTH_SLACK_DAYS * 86_400_000;
}

/** The saved refs of one workspace, loaded on demand. */
export class SavedRefs {
  readonly workspaceDir: string;
  readonly #dir: string;
  /** Months with logs, newest first, and the logs listed in each. */
  readonly #months: string[];
  readonly #logs: Map<string, string[]>;
  /** Index of the first month in `#months` not looked at yet. */
  #next = 0;
  readonly #entries = new Map<string, Entry[]>();
  readonly #book = new LogBook();
  readonly #claims: Claims;
  readonly #claimProblems: Diagnostic[];
  /** Folders of `memory/` holding dated logs that are not read (store/log-open.ts `strayDailyLogs`). */
  readonly #strays: Diagnostic[];

  private constructor(
    workspaceDir: string,
    dir: string,
    logs: Map<string, string[]>,
    claims: { claims: Claims; problems: Diagnostic[] },
  ) {
    this.workspaceDir = workspaceDir;
    this.#dir = dir;
    this.#logs = logs;
    this.#months = [...logs.keys()].sort().reverse();
    this.#claims = claims.claims;
    this.#claimProblems = claims.problems;
    this.#strays = strayDailyLogs(workspaceDir);
  }

  /** Lists the logs and reads the claims of a workspace; reads no month yet. */
  static async open(workspaceDir: string, options: { stateDir?: string } = {}): Promise<SavedRefs> {
    return new SavedRefs(
      workspaceDir,
      indexDir(workspaceDir, options.stateDir),
      logsByMonth(workspaceDir),
      await readClaims(workspaceDir),
    );
  }

  /**
   * Loads months newest first until `enough(sorted, olderThan)` says so: `sorted()` gives every ref
   * loaded, newest first, and no month left holds a ref newer than `olderThan` (epoch ms). The logs of
   * the months left are not touched: the answer does not depend on them (a log there that can no longer
   * be read is named by the commands that read it). False when a month has no usable saved header.
   */
  async loadNewest(enough: (sorted: () => Entry[], olderThan: number) => boolean): Promise<boolean> {
    while (this.#next < this.#months.length) {
      const month = at(this.#months, this.#next++);
      if (!(await this.#load(month, null))) return false;
      const rest = this.#months[this.#next];
      if (rest !== undefined && enough(() => this.sorted(), latestTimeOf(rest))) break;
    }
    return true;
  }

  /** Loads every month; false when a month has no usable saved header. */
  loadAll(): Promise<boolean> {
    return this.loadNewest(() => false);
  }

  /**
   * Loads the months whose saved header mentions `text` as a whole JSON string (any ref with that id,
   * name, session or agent), those of `months`, and those holding a log changed since it was indexed;
   * of the others, only the logs' records (their problems count). False as for {@link loadAll}.
   */
  async loadMentioning(text: string, months: ReadonlySet<string> = new Set()): Promise<boolean> {
    const needle = Buffer.from(JSON.stringify(text));
    while (this.#next < this.#months.length) {
      const month = at(this.#months, this.#next++);
      if (!(await this.#load(month, months.has(month) ? null : needle))) return false;
    }
    return true;
  }

  /** The months holding a claimed block, by the claims' files. */
  claimedMonths(session?: string): Set<string> {
    const out = new Set<string>();
    for (const claim of this.#claims.values())
      if (session === undefined || claim.session === session) out.add(monthOf(claim.file));
    return out;
  }

  /**
   * Loads one month: its refs when `needle` is null or its header holds it, else its logs' records
   * alone (its refs are then left out). Logs changed since the header was saved are re-read.
   */
  async #load(month: string, needle: Buffer | null): Promise<boolean> {
    const read = readHeaderBytes(this.#dir, month);
    if (read.kind === "missing") return await this.#withoutBlocks(month);
    if (read.kind !== "bytes") return false;
    const whole = needle === null || read.bytes.includes(needle);
    let files: Record<string, LogRecord>;
    let entries: Entry[] = [];
    try {
      if (whole) {
        const header = decodeHeaderJson(read.bytes);
        files = header.files;
        entries = header.entries;
      } else files = decodeHeaderFiles(read.bytes);
    } catch {
      return false;
    }
    const changed = this.#changed(month, files);
    if (!whole && changed.length > 0) return this.#load(month, null);
    this.#book.remember(files);
    if (whole) {
      for (const file of changed) entries = await this.#reread(file, entries);
      claimEntries(this.#claims, entries);
      this.#entries.set(month, entries);
    }
    return true;
  }

  /** The logs of a month changed since its header was saved (`files`: the header's records of them). */
  #changed(month: string, files: Record<string, LogRecord>): string[] {
    return [...new Set([...(this.#logs.get(month) ?? []), ...Object.keys(files)])].filter((file) => {
      const log = statLogSync(this.workspaceDir, file);
      return log === null ? files[file] !== undefined : !unchanged(log, files[file]);
    });
  }

  /**
   * The tally of every month (search/tally.ts), for `status`: the one saved in its header; or, for a month
   * whose header has none, that holds a claimed block, or a log changed since it was indexed, the tally of
   * its refs as read. Null when a month has no usable saved header (as {@link loadAll}).
   */
  async loadTallies(): Promise<Tally[] | null> {
    const claimedMonths = this.claimedMonths();
    const out: Tally[] = [];
    for (const month of this.#months) {
      const saved = claimedMonths.has(month) ? null : this.#savedTally(month);
      if (saved !== null) {
        out.push(saved);
        continue;
      }
      if (!(await this.#load(month, null))) return null;
      out.push(tallyOf(this.#entries.get(month) ?? []));
    }
    this.#next = this.#months.length;
    return out;
  }

  /** A month's saved tally, its logs' records taken; null when it has none or a log changed since. */
  #savedTally(month: string): Tally | null {
    const read = readHeaderBytes(this.#dir, month);
    if (read.kind !== "bytes") return null;
    let prefix: ReturnType<typeof decodeHeaderPrefix>;
    try {
      prefix = decodeHeaderPrefix(read.bytes);
    } catch {
      return null;
    }
    if (prefix.tally === null || this.#changed(month, prefix.files).length > 0) return null;
    this.#book.remember(prefix.files);
    return prefix.tally;
  }

  /**
   * A month with no saved shard is answered here only when none of its logs holds a block (the index
   * saves no shard for such a month): their records are taken from their bytes. A log that cannot be
   * read is a diagnostic here, as in the index. False otherwise.
   */
  async #withoutBlocks(month: string): Promise<boolean> {
    const records: [string, LogRecord][] = [];
    const unreadable: Diagnostic[] = [];
    for (const file of this.#logs.get(month) ?? []) {
      const bytes = await readLogBytes(this.workspaceDir, file);
      if (bytes !== null && !Buffer.isBuffer(bytes)) {
        unreadable.push(bytes);
        continue;
      }
      const log = statLogSync(this.workspaceDir, file);
      if (bytes === null || log === null) continue;
      if (bytes.includes(START_MARKER_PREFIX) || bytes.length !== log.size) return false;
      const { file: _file, ...times } = log;
      records.push([file, { ...times, crc32: contentHash(bytes), problems: [] }]);
    }
    this.#book.remember(Object.fromEntries(records));
    for (const problem of unreadable) this.#book.cannotRead(problem);
    this.#entries.set(month, []);
    return true;
  }

  /** `entries` with those of `file` replaced by a fresh read of it (none when it is gone). */
  async #reread(file: string, entries: Entry[]): Promise<Entry[]> {
    const { isUnreadable, readLog } = await import("./log-read.ts");
    const read = await readLog(this.workspaceDir, file, this.#book.record(file));
    if (read === null || isUnreadable(read)) {
      if (read === null) this.#book.gone(file);
      else this.#book.cannotRead(read.unreadable);
      return entries.filter((e) => e.file !== file);
    }
    this.#book.read(file, read);
    if (read.same) return entries;
    return [...entries.filter((e) => e.file !== file), ...read.snapshots.map(entryOf)];
  }

  /** Every ref loaded (claims laid over), newest first. */
  sorted(): Entry[] {
    return [...this.#entries.values()].flat().sort(newerFirst);
  }

  /** Every loaded ref with snapshot id `id`, newest first. */
  findAll(id: string): Entry[] {
    return this.sorted().filter((e) => e.id === id);
  }

  /**
   * Problems found in the logs whose records were read and in the claims file, and the folders of
   * `memory/` holding dated logs that are not read.
   */
  diagnostics(): Diagnostic[] {
    return [...this.#strays, ...this.#book.diagnostics(), ...this.#claimProblems];
  }

  /** The logs whose records were read: how many, their bytes, and the `[REDACTED:<kind>]` markers in their snapshots. */
  logs(): { files: number; bytes: number; redactions: Record<string, number> } {
    return this.#book.totals();
  }

  /**
   * The full snapshot of a loaded ref, claims laid over: only its block is parsed (and redacted), from
   * the line the fresh index gives to its end marker; the whole log when that block is not the ref's
   * (see {@link getAt}). Null when the log no longer holds it, or cannot be read (then a diagnostic).
   */
  async getRef(ref: { file: string; line: number; id: string }): Promise<LocatedSnapshot | null> {
    const bytes = await readLogBytes(this.workspaceDir, ref.file);
    if (bytes === null) return null;
    if (!Buffer.isBuffer(bytes)) {
      this.#book.cannotRead(bytes);
      return null;
    }
    const text = bytes.toString("utf8");
    let start = 0;
    for (let line = 1; line < ref.line && start >= 0; line++) start = text.indexOf("\n", start) + 1 || -1;
    const close = start < 0 ? -1 : text.indexOf(END_MARKER, start);
    const end = close < 0 ? -1 : text.indexOf("\n", close);
    if (start >= 0) {
      const { parseDailyLog } = await import("../snapshot/parse.ts");
      const block = parseDailyLog(text.slice(start, end < 0 ? text.length : end + 1), ref.file).snapshots[0];
      if (block?.line === 1 && block.snapshot.id === ref.id)
        return claimed(this.#claims, { ...block, line: ref.line });
    }
    return this.getAt(ref.file, ref.line);
  }

  /**
   * The full snapshot whose block starts at `file`:`line`, read from its log, claims laid over; null when
   * none, or when the log cannot be read (then a diagnostic).
   */
  async getAt(file: string, line: number): Promise<LocatedSnapshot | null> {
    const { isUnreadable, readLog, snapshotsOf } = await import("./log-read.ts");
    const read = await readLog(this.workspaceDir, file);
    if (isUnreadable(read)) this.#book.cannotRead(read.unreadable);
    const found = snapshotsOf(read).find((s) => s.line === line);
    return found === undefined ? null : claimed(this.#claims, found);
  }
}

/**
 * The bytes of a log; null when it is gone, its diagnostic when it cannot be read (the store's rule,
 * loaded only then: it brings the store's write path with it).
 */
async function readLogBytes(workspaceDir: string, file: string): Promise<Buffer | Diagnostic | null> {
  try {
    return readMemoryFileSync(workspaceDir, file).bytes;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    const { readFailure } = await import("../store/daily-log.ts");
    return readFailure(file, error);
  }
}

/**
 * The newest entry of `sorted` (newest first) in scope, never a tombstone: with `name`, the newest of
 * that name unless it is a tombstone (the lifecycle's rule, as the index's `latest` applies it).
 */
export function latestIn(
  sorted: readonly Entry[],
  scope: { session?: string; agent?: string; name?: string },
): Entry | undefined {
  return latestSettled(
    sorted.find(
      (e) =>
        latestCandidate(e, scope.name) &&
        (scope.session === undefined || e.session === scope.session) &&
        (scope.agent === undefined || e.agent === scope.agent),
    ),
  );
}
