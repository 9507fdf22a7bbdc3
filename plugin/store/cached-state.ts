import type { JsonState } from "./state.ts";

/**
 * A state file kept in memory by the process that works on it, written behind. Small changes (a session's
 * trail growing tool call by tool call) are applied in memory at once and queued; the queue is written in
 * one locked, fsynced read-modify-write by {@link CachedState.flush}, {@link CachedState.update} or, when
 * the process exits, {@link CachedState.flushSync}. Queued changes are functions, replayed onto the file
 * as it is when they are written, so changes another process made in the meantime are kept.
 *
 * What must not be lost (a pending restore, the snapshots of a cycle) goes through
 * {@link CachedState.update}: synchronous with the file, under its lock, as before.
 *
 * Reads answer from memory while the file is unchanged since this process last read or wrote it (one
 * `stat`), and reload it otherwise.
 */

/** A change to a state value: pure, so it can be replayed onto a newer value. */
export type Change<T> = (value: T) => T;

function replay<T>(changes: readonly Change<T>[], value: T): T {
  let out = value;
  for (const change of changes) out = change(out);
  return out;
}

export class CachedState<T> {
  readonly file: JsonState<T>;
  private readonly onChange: () => void;
  /** The file's stamp when this process last read or wrote it, and that value with the queued changes applied. */
  private view: { stamp: string; current: T } | null = null;
  /** Changes applied in memory and not yet written, oldest first. */
  private readonly queued: Change<T>[] = [];
  /** Reloads and writes of this process run one at a time, in order. */
  private tail: Promise<unknown> = Promise.resolve();
  private running = 0;
  /**
   * The write in progress: how many queued changes it takes, and the file's stamp when it read the file
   * under the lock (null before), so an exit in the middle of it can tell whether it landed.
   */
  private writing: { changes: number; readStamp: string | null } | null = null;
  private folder: Promise<void> | null = null;

  /** `onChange` runs after every queued change (the owner arms its flush timer there). */
  constructor(file: JsonState<T>, onChange: () => void = () => {}) {
    this.file = file;
    this.onChange = onChange;
  }

  /** Whether changes are waiting to be written. */
  get dirty(): boolean {
    return this.queued.length > 0;
  }

  /**
   * Applies `change` in memory now and queues it for the next write. No I/O on the caller's path; the
   * first change also starts creating the file's folder, so that a synchronous write at exit finds it.
   */
  change(change: Change<T>): void {
    this.queued.push(change);
    if (this.view !== null) this.view.current = change(this.view.current);
    // Once: a failure here is the next write's to report.
    this.folder ??= this.file.ensureFolder().catch(() => {});
    this.onChange();
  }

  /** The current value: the file as this process last saw it, with the queued changes applied. */
  async read(): Promise<T> {
    const view = this.view;
    if (view !== null && this.running === 0 && view.stamp === this.file.stamp()) return view.current;
    return this.serial(async () => {
      const known = this.view;
      if (known !== null && known.stamp === this.file.stamp()) return known.current;
      // The stamp is taken first: a write landing during the read makes the next check reload again.
      const stamp = this.file.stamp();
      return this.settle(await this.file.read(), stamp, 0);
    });
  }

  /**
   * Writes the queued changes and `fn` together, under the file's lock, fsynced: when this resolves,
   * the result is on disk. Resolves with the value written.
   */
  update(fn: (value: T) => T | Promise<T>): Promise<T> {
    return this.serial(async () => {
      const changes = this.queued.slice();
      const writing = { changes: changes.length, readStamp: null as string | null };
      this.writing = writing;
      try {
        return await this.file.update(
          async (value) => {
            // Under the lock, right after the read: nobody else writes the file until this update ends.
            writing.readStamp = this.file.stamp();
            return fn(replay(changes, value));
          },
          { onWritten: (written) => this.settle(written, this.file.stamp(), changes.length) },
        );
      } finally {
        this.writing = null;
      }
    });
  }

  /** Writes the queued changes, if any. */
  async flush(): Promise<void> {
    if (this.queued.length > 0) await this.update((value) => value);
  }

  /**
   * Writes the queued changes synchronously, for a process that is exiting: one attempt at the lock. A
   * write of this process caught in the middle never resumes: its changes are written here, unless its
   * file already landed (then only the later ones are). Returns false when nothing could be written (another
   * process holds the lock, or the folder does not exist yet).
   */
  flushSync(): boolean {
    if (this.queued.length === 0) return true;
    const interrupted = this.writing;
    try {
      const written = this.file.updateSync((value) => {
        const landed =
          interrupted !== null &&
          interrupted.readStamp !== null &&
          this.file.stamp() !== interrupted.readStamp;
        return replay(this.queued.slice(landed ? interrupted.changes : 0), value);
      });
      if (written === null) return false;
      this.settle(written.value, this.file.stamp(), this.queued.length);
      return true;
    } catch {
      return false;
    }
  }

  /** Records the file's value and stamp, drops the `written` oldest queued changes, reapplies the rest. */
  private settle(value: T, stamp: string, written: number): T {
    this.queued.splice(0, written);
    this.view = { stamp, current: replay(this.queued, value) };
    return this.view.current;
  }

  private serial<R>(fn: () => Promise<R>): Promise<R> {
    this.running++;
    const run = this.tail.then(fn).finally(() => {
      this.running--;
    });
    this.tail = run.catch(() => {});
    return run;
  }
}
