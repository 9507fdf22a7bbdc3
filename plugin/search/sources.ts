/**
 * Reading the daily logs for the index: their list, and a month's shard built from them (one log at a
 * time through log-read.ts). A log that vanishes between listing and reading is simply gone, never an
 * error; one that cannot be read is reported and left out, and the others are read.
 */
import type { Diagnostic } from "../snapshot/snapshot.ts";
import { listDailyLogs } from "../store/daily-log.ts";
import type { LogRecord } from "./codec.ts";
import { FrozenBuilder, type FrozenShard } from "./frozen-shard.ts";
import { contentHash, type LogStat, logTotals, statLog, unchanged } from "./log-files.ts";
import {
  isUnreadable,
  type LogRead,
  readLog,
  redactionsIn,
  snapshotsOf,
  type UnreadableLog,
} from "./log-read.ts";
import { monthOf } from "./shard.ts";

export {
  contentHash,
  isUnreadable,
  type LogRead,
  type LogStat,
  readLog,
  redactionsIn,
  snapshotsOf,
  statLog,
  type UnreadableLog,
  unchanged,
};

/** The daily logs of a workspace, oldest first (see daily-log.ts `listDailyLogs`). */
export async function listLogs(workspaceDir: string): Promise<LogStat[]> {
  const logs = await listDailyLogs(workspaceDir);
  return logs.map(({ file, size, mtimeMs }) => ({ file, size, mtimeMs }));
}

/** Logs grouped by the month of their date (see shard.ts `monthOf`). */
export function groupByMonth(logs: readonly LogStat[]): Map<string, LogStat[]> {
  const out = new Map<string, LogStat[]>();
  for (const log of logs) {
    const month = monthOf(log.file);
    const list = out.get(month) ?? [];
    list.push(log);
    out.set(month, list);
  }
  return out;
}

/** Snapshots indexed between two yields to the event loop while building. */
const BUILD_CHUNK = 64;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Builds the frozen shard of a month from its logs, yielding to the event loop between chunks of
 * snapshots so that no caller waits long; `onRead` gets each log as read, `onUnreadable` each log that
 * cannot be read (its snapshots are left out, the other logs are read). Undefined when the month holds
 * no snapshot.
 */
export async function buildMonth(
  workspaceDir: string,
  month: string,
  files: readonly string[],
  onRead: (file: string, read: LogRead) => void,
  onUnreadable: (file: string, read: UnreadableLog) => void,
): Promise<FrozenShard | undefined> {
  const builder = new FrozenBuilder(month);
  for (const file of files) {
    const read = await readLog(workspaceDir, file);
    if (read === null) continue;
    if (isUnreadable(read)) {
      onUnreadable(file, read);
      continue;
    }
    onRead(file, read);
    for (const located of read.snapshots) builder.add(located);
    await yieldToLoop();
  }
  if (builder.size === 0) return undefined;
  while (builder.step(BUILD_CHUNK)) await yieldToLoop();
  return builder.build();
}

/**
 * What the index knows of each daily log: its record (fingerprint, problems, redactions) as last read,
 * the problems found reading it, and the logs that could not be read. Such a log keeps no record, so that
 * a saved shard never holds one (as empty or as it was) and the next load reads the log again.
 */
export class LogBook {
  readonly #records = new Map<string, LogRecord>();
  readonly #problems = new Map<string, Diagnostic[]>();
  readonly #unreadable = new Set<string>();

  /** The record of a log as last read; undefined when it was not read, or could not be. */
  record(file: string): LogRecord | undefined {
    return this.#records.get(file);
  }

  /** Takes the records of logs from a saved shard: fingerprints, and the problems found reading them. */
  remember(files: Record<string, LogRecord>): void {
    for (const [file, record] of Object.entries(files)) {
      this.#records.set(file, record);
      if (record.problems !== undefined)
        this.#problems.set(
          file,
          record.problems.map(({ id, ...p }) => ({ file, ...p, ...(id === undefined ? {} : { id }) })),
        );
    }
  }

  /** Takes a log as read; a read that found the bytes of its record (`same`) keeps the record's problems. */
  read(file: string, read: LogRead & { same?: boolean }): void {
    this.#unreadable.delete(file);
    const known = this.#records.get(file);
    if (read.same === true) {
      const { problems = [], redactions } = known ?? {};
      this.#records.set(file, {
        ...read.fingerprint,
        problems,
        ...(redactions === undefined ? {} : { redactions }),
      });
      return;
    }
    const problems = read.diagnostics.map(({ file: _file, ...problem }) => problem);
    this.#records.set(file, { ...read.fingerprint, problems, redactions: read.redactions });
    this.#problems.set(file, read.diagnostics);
  }

  /** Takes a log that cannot be read: its diagnostic, and no record. */
  cannotRead(file: string, read: UnreadableLog): void {
    this.#unreadable.add(file);
    this.#records.delete(file);
    this.#problems.set(file, [read.unreadable]);
  }

  /** Tells that a log could not be read just now, keeping its record until it is looked at again. */
  told(file: string, read: UnreadableLog): void {
    this.#problems.set(file, [read.unreadable]);
  }

  /** Forgets a log that is gone. */
  gone(file: string): void {
    this.#unreadable.delete(file);
    this.#records.delete(file);
    this.#problems.delete(file);
  }

  /** Forgets every log. */
  clear(): void {
    this.#records.clear();
    this.#problems.clear();
    this.#unreadable.clear();
  }

  /** The records of the logs of `month`, as a shard file saves them. */
  ofMonth(month: string): Record<string, LogRecord> {
    return Object.fromEntries([...this.#records].filter(([file]) => monthOf(file) === month));
  }

  /** Problems found in the logs, those that could not be read included. */
  diagnostics(): Diagnostic[] {
    return [...this.#problems.values()].flat();
  }

  /** The logs that could not be read when last looked at, oldest first. */
  unreadable(): string[] {
    return [...this.#unreadable].sort();
  }

  /** The logs read: how many, their bytes, and the `[REDACTED:<kind>]` markers in their snapshots. */
  totals(): { files: number; bytes: number; redactions: Record<string, number> } {
    return logTotals(this.#records.values());
  }
}
