import { existsSync } from "node:fs";
import type { JsonState, Logger } from "./state.ts";

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
  /**
   * The file's stamp when this process last read or wrote it, that value with the queued changes applied, and
   * (`wrote`) the value itself when this process wrote it (a read may have fallen back on the previous copy).
   */
  private view: { stamp: string; current: T; wrote: { value: T } | null } | null = null;
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
   * Applies `change` in memory now and queues it for the next write. No I/O on the caller's path. Returns
   * the value in memory now, or null when this process has not read the file yet.
   */
  change(change: Change<T>): T | null {
    this.queued.push(change);
    if (this.view !== null) this.view.current = change(this.view.current);
    this.onChange();
    return this.view?.current ?? null;
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
   * the result is on disk. Resolves with the value written. With `durable: false`, the fsyncs follow
   * behind (see JsonState `update`): in place for every process, and surviving this one's crash.
   */
  update(fn: (value: T) => T | Promise<T>, opts: { durable?: boolean } = {}): Promise<T> {
    return this.serial(async () => {
      const changes = this.queued.slice();
      const writing = { changes: changes.length, readStamp: null as string | null };
      this.writing = writing;
      try {
        return await this.file.update(
          async (value, stamp) => {
            // Under the lock, right after the read: nobody else writes the file until this update ends.
            writing.readStamp = stamp ?? this.file.stamp();
            // The file as this process wrote it, and no change since the queue was taken: the value in memory
            // is those changes applied to it already (each change is applied once, not replayed).
            const view = this.view;
            const same =
              view !== null && view.wrote?.value === value && this.queued.length === changes.length;
            return fn(same ? view.current : replay(changes, value));
          },
          {
            onWritten: (written) => this.settle(written, this.file.stamp(), changes.length, true),
            // The file as this process last saw it, when its stamp says it is still the one on disk: not read again.
            known: () => {
              const wrote = this.view?.wrote;
              return this.view === null || wrote == null
                ? null
                : { stamp: this.view.stamp, value: wrote.value };
            },
            ...(opts.durable === false ? { durable: false } : {}),
          },
        );
      } finally {
        this.writing = null;
      }
    });
  }

  /** Writes the queued changes, if any, and waits for the fsyncs of writes made durable behind. */
  async flush(): Promise<void> {
    if (this.queued.length > 0) await this.update((value) => value);
    await this.file.settled();
  }

  /**
   * Writes the queued changes synchronously, for a process that is exiting: one attempt at the lock. A
   * write of this process caught in the middle never resumes: its changes are written here, unless its
   * file already landed (then only the later ones are). Returns false when nothing could be written (another
   * process holds the lock, or the disk refuses).
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
      this.settle(written.value, this.file.stamp(), this.queued.length, true);
      return true;
    } catch {
      return false;
    }
  }

  /** Records the file's value and stamp, drops the `written` oldest queued changes, reapplies the rest. */
  private settle(value: T, stamp: string, written: number, wrote = false): T {
    this.queued.splice(0, written);
    this.view = { stamp, current: replay(this.queued, value), wrote: wrote ? { value } : null };
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

/** What {@link CachedStates} needs: the folder it writes into, its timer's delay, where to warn. */
export interface CachedStatesOptions {
  /** The folder the states live in: when it is gone, nothing is written back (that would recreate it). */
  root: string;
  /** How long a change may stay in memory only, in ms. */
  delayMs: number;
  logger: Logger;
}

/**
 * The cached states of one folder, written behind together: by a short unref'd timer after a change, at the
 * process's `beforeExit` (asynchronously) and at its `exit` (synchronously, best effort). The timer and the
 * process listeners exist only while a change waits to be written.
 */
export class CachedStates<T> {
  private readonly states = new Map<string, CachedState<T>>();
  private readonly opts: CachedStatesOptions;
  private timer: NodeJS.Timeout | null = null;
  private hooks: { beforeExit: () => void; exit: () => void } | null = null;
  private warned = false;

  constructor(opts: CachedStatesOptions) {
    this.opts = opts;
  }

  /** The state of `key`, made from `file()` on first use. */
  get(key: string, file: () => JsonState<T>): CachedState<T> {
    let state = this.states.get(key);
    if (state === undefined) {
      state = new CachedState(file(), () => this.arm());
      this.states.set(key, state);
    }
    return state;
  }

  /** Writes every state's changes still in memory. Rejects with the first failure, after trying all. */
  async flush(): Promise<void> {
    const results = await Promise.allSettled([...this.states.values()].map((s) => s.flush()));
    if (![...this.states.values()].some((s) => s.dirty)) this.disarm();
    const failed = results.find((r) => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  }

  /** Writes what waits (unless the folder is gone), then forgets every state. */
  async close(): Promise<void> {
    try {
      if (existsSync(this.opts.root)) await this.flush();
    } finally {
      this.disarm();
      this.states.clear();
    }
  }

  private arm(): void {
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flushBehind();
      }, this.opts.delayMs);
      this.timer.unref();
    }
    if (this.hooks === null) {
      const hooks = {
        beforeExit: () => {
          this.disarm();
          void this.flushBehind();
        },
        exit: () => {
          if (!existsSync(this.opts.root)) return;
          for (const s of this.states.values()) s.flushSync();
        },
      };
      process.on("beforeExit", hooks.beforeExit);
      process.on("exit", hooks.exit);
      this.hooks = hooks;
    }
  }

  private disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.hooks !== null) {
      process.off("beforeExit", this.hooks.beforeExit);
      process.off("exit", this.hooks.exit);
    }
    this.hooks = null;
  }

  /** A flush nobody awaits: a failure is warned about once until a flush succeeds again. */
  private async flushBehind(): Promise<void> {
    if (!existsSync(this.opts.root)) {
      this.disarm();
      return;
    }
    try {
      await this.flush();
      this.warned = false;
    } catch (error) {
      if (this.warned) return;
      this.warned = true;
      this.opts.logger.warn(
        `big-memory: could not write state in ${this.opts.root} (retrying at the next change): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
