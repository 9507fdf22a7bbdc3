import { statSync } from "node:fs";
import { dirname } from "node:path";
import type { z } from "zod";
import { errorCode, errorMessage } from "./fs-durable.ts";
import { ensurePrivateDir, syncWritten, writePrivateJson } from "./gate.ts";
import { ensurePrivateDirSync, writePrivateJsonSync } from "./gate-sync.ts";
import { lockForExitSync, withLock } from "./lock.ts";
import { RefusedFileError, readStateFile, readStateFileSync } from "./log-open.ts";

/**
 * Small versioned JSON files under `.big-memory/` (session trails, pending restores, flush marks).
 * Every write passes the persistence gate (redacted, atomic, mode 0600) and every read-modify-write runs under a
 * cross-process lock, so hooks of concurrent processes never lose each other's updates. A file that
 * is missing, corrupt or of an unknown version reads as the initial value, with one warning.
 */

/** The previous good copy of a state file, kept beside it. */
export const BACKUP_SUFFIX = ".bak";

/** Where the plugin's warnings and notes go: OpenClaw's `api.logger` in the plugin, stderr in the CLI. */
export interface Logger {
  warn(message: string): void;
  info?(message: string): void;
}

/** What one state file held: its value, or why not (`problem: null` when there is no file). */
type Loaded<T> = { ok: true; value: T } | { ok: false; problem: string | null };

/** Whether a load needs no previous copy: the file read well, or there is no file at all. */
function readable<T>(loaded: Loaded<T>): boolean {
  return loaded.ok || loaded.problem === null;
}

/** One JSON state file validated by a zod schema whose `version` field is a literal. */
export class JsonState<T> {
  readonly path: string;
  private readonly schema: z.ZodType<T>;
  private readonly initial: () => T;
  private readonly logger: Logger;
  private readonly prepare: () => Promise<unknown>;
  private warned = false;
  /** What {@link readCached} read last, and the file's stamp then. */
  private lastRead: { stamp: string; value: T } | null = null;
  /** The fsyncs of writes made durable behind (`durable: false`), in order; never rejects. */
  private behind: Promise<void> = Promise.resolve();

  /** `prepare` runs before every write (the Workspace makes its state folder private there). */
  constructor(
    path: string,
    schema: z.ZodType<T>,
    initial: () => T,
    logger: Logger,
    prepare: () => Promise<unknown> = async () => {},
  ) {
    this.path = path;
    this.schema = schema;
    this.initial = initial;
    this.logger = logger;
    this.prepare = prepare;
  }

  /**
   * The current value. When the file is corrupt (torn, not JSON, an unknown version or shape),
   * the previous good copy `<path>.bak` is read instead, with one warning per file and process; the initial
   * value only when neither holds. A missing file (a new session) is the initial value, silently.
   */
  async read(): Promise<T> {
    return (await this.readChecked()).value;
  }

  /**
   * {@link read}, answered from this process's previous `readCached` while the file's {@link stamp} is the same
   * (every write replaces the file): one `stat` instead of a read and a parse. The value is shared between
   * callers, who do not change it.
   */
  async readCached(): Promise<T> {
    // The stamp is taken first: a write landing during the read makes the next call read again.
    const stamp = this.stamp();
    // No file is the initial value, as `read` says of it (a previous copy is only read beside a bad file).
    if (stamp === "none") return this.initial();
    if (this.lastRead?.stamp === stamp) return this.lastRead.value;
    const value = await this.read();
    this.lastRead = { stamp, value };
    return value;
  }

  /**
   * Which version of the file is on disk now, from one `stat` (no read): `"none"` when there is no file.
   * Every write replaces the file (a new inode, size and times), so a changed stamp means another write.
   */
  stamp(): string {
    const info = statSync(this.path, { bigint: true, throwIfNoEntry: false });
    return info === undefined ? "none" : `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  }

  /** Creates the file's folder (private), as every write does first. */
  private async ensureFolder(): Promise<void> {
    await this.prepare();
    await ensurePrivateDir(dirname(this.path));
  }

  /** {@link read}, and whether the file itself held the value (so it may become the previous good copy). */
  private async readChecked(): Promise<{ value: T; good: boolean }> {
    const current = await this.load(this.path);
    return this.checked(current, readable(current) ? null : await this.load(this.path + BACKUP_SUFFIX));
  }

  private readCheckedSync(): { value: T; good: boolean } {
    const current = this.loadSync(this.path);
    return this.checked(current, readable(current) ? null : this.loadSync(this.path + BACKUP_SUFFIX));
  }

  /** The value to use given the file and, when the file did not read well, its previous good copy. */
  private checked(current: Loaded<T>, backup: Loaded<T> | null): { value: T; good: boolean } {
    if (current.ok) return { value: current.value, good: true };
    if (current.problem === null || backup === null) return { value: this.initial(), good: false };
    if (!this.warned) {
      this.warned = true;
      this.logger.warn(
        `big-memory: ${this.path} ${current.problem}; ${backup.ok ? `using the previous copy ${this.path}${BACKUP_SUFFIX}` : "no previous copy either, starting fresh"}`,
      );
    }
    return { value: backup.ok ? backup.value : this.initial(), good: false };
  }

  /** One file's value, or why not (`problem: null` when the file does not exist). */
  private async load(path: string): Promise<Loaded<T>> {
    try {
      return this.parse((await readStateFile(path, path)).toString("utf8"));
    } catch (error) {
      return this.unreadable(path, error);
    }
  }

  private loadSync(path: string): Loaded<T> {
    try {
      return this.parse(readStateFileSync(path, path).toString("utf8"));
    } catch (error) {
      return this.unreadable(path, error);
    }
  }

  private unreadable(path: string, error: unknown): Loaded<T> {
    if (errorCode(error) === "ENOENT") return { ok: false, problem: null };
    // A FIFO, device, link or folder in its place is never opened for a blocking read: it reads as a bad
    // copy (the previous one, or fresh) and the next write replaces it.
    if (error instanceof RefusedFileError) return { ok: false, problem: `is not read: ${error.reason}` };
    // The environment failing (a folder in the way, permissions, I/O) is not corruption: say so.
    throw new Error(`big-memory: cannot read ${path}: ${errorMessage(error)}`, { cause: error });
  }

  private parse(text: string): Loaded<T> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, problem: "is not valid JSON (corrupt or torn)" };
    }
    const parsed = this.schema.safeParse(json);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      problem: `has an unknown version or shape (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"})`,
    };
  }

  /**
   * Reads, applies `fn`, and writes the result atomically, under the file's lock. When `fn` returns the
   * value it was given and the file held it, nothing is written. `onWritten` runs with the value as written
   * while the lock is still held (a caller's bookkeeping that must not lag behind the file). `fn` also gets
   * the file's {@link stamp} when its value is the caller's `known` one (the stamp was just compared), else null.
   *
   * With `durable: false` the new file is renamed into place without its fsyncs, which follow behind
   * ({@link settled}): every process reads it at once and it survives the writer's crash; a power cut before
   * the fsyncs may bring back the previous version. For what a hook must not wait on and can lose to a power
   * cut (a compaction's held restore: the snapshot itself is durable in its log and journal).
   */
  async update(
    fn: (value: T, stamp: string | null) => T | Promise<T>,
    opts: {
      onWritten?: (value: T) => void;
      durable?: boolean;
      /** The value the caller last saw in the file and the file's {@link stamp} then: used, not read, if still current. */
      known?: () => { stamp: string; value: T } | null;
    } = {},
  ): Promise<T> {
    const durable = opts.durable !== false;
    await this.ensureFolder();
    return withLock(
      `${this.path}.lock`,
      async () => {
        // Under the lock nobody else writes the file: a stamp unchanged since the caller saw it says it holds that value.
        const known = opts.known?.() ?? null;
        const stamp = known === null || known.stamp === "none" ? null : this.stamp();
        const { value, good } =
          known !== null && stamp === known.stamp
            ? { value: known.value, good: true }
            : await this.readChecked();
        const next = await fn(value, stamp === known?.stamp ? stamp : null);
        // The file replaced becomes the previous good copy only if it read well; a corrupt one is not kept.
        const written =
          good && next === value
            ? value
            : (
                await writePrivateJson(this.path, next, {
                  ...(good ? { keepPreviousAs: BACKUP_SUFFIX } : {}),
                  sync: durable,
                })
              ).value;
        if (!durable && written !== value) this.syncBehind();
        opts.onWritten?.(written);
        return written;
      },
      { timeoutMs: 10_000, staleMs: 30_000 },
    );
  }

  /** Resolves when every write made with `durable: false` so far is fsynced (or failed, with one warning). */
  settled(): Promise<void> {
    return this.behind;
  }

  private syncBehind(): void {
    this.behind = this.behind.then(() =>
      syncWritten(this.path).catch((error: unknown) =>
        this.logger.warn(`big-memory: could not fsync ${this.path}: ${errorMessage(error)}`),
      ),
    );
  }

  /**
   * {@link update} for a process that is exiting: synchronous, one attempt at the lock (which a pending
   * update of this process counts as holding, see `lockForExitSync`). Returns the value written, or `null`
   * when another process held the lock.
   */
  updateSync(fn: (value: T) => T): { value: T } | null {
    ensurePrivateDirSync(dirname(this.path));
    const release = lockForExitSync(`${this.path}.lock`);
    if (release === null) return null;
    try {
      const { value, good } = this.readCheckedSync();
      const next = fn(value);
      if (good && next === value) return { value };
      return {
        value: writePrivateJsonSync(this.path, next, good ? { keepPreviousAs: BACKUP_SUFFIX } : {}).value,
      };
    } finally {
      release();
    }
  }
}
