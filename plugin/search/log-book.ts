/**
 * What an index knows of each daily log, kept in one place for the search service and the saved refs:
 * its record (fingerprint, problems, redactions) as last read, the problems found reading it, and the
 * logs that could not be read. Such a log keeps no record, so that a saved shard never holds one (as
 * empty or as it was) and the next load reads the log again.
 */
import type { Diagnostic } from "../snapshot/snapshot.ts";
import type { LogRecord } from "./codec.ts";
import { logTotals } from "./log-files.ts";
import type { LogRead } from "./log-read.ts";
import { monthOf } from "./shard.ts";

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

  /** Takes a log that cannot be read (`problem` names it): its diagnostic, and no record. */
  cannotRead(problem: Diagnostic): void {
    this.#unreadable.add(problem.file);
    this.#records.delete(problem.file);
    this.#problems.set(problem.file, [problem]);
  }

  /** Tells that a log could not be read just now, keeping its record until it is looked at again. */
  told(problem: Diagnostic): void {
    this.#problems.set(problem.file, [problem]);
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
