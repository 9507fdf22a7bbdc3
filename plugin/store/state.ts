import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { z } from "zod";
import { errorCode, errorMessage } from "./fs-durable.ts";
import { ensurePrivateDir, writePrivateJson } from "./gate.ts";
import { withLock } from "./lock.ts";

/**
 * Small versioned JSON files under `.big-memory/` (session trails, pending restores, flush marks).
 * Every write passes the persistence gate (redacted, atomic, mode 0600) and every read-modify-write runs under a
 * cross-process lock, so hooks of concurrent processes never lose each other's updates. A file that
 * is missing, corrupt or of an unknown version reads as the initial value, with one warning.
 */

/** The previous good copy of a state file, kept beside it. */
export const BACKUP_SUFFIX = ".bak";

export interface StateLogger {
  warn(message: string): void;
}

/** One JSON state file validated by a zod schema whose `version` field is a literal. */
export class JsonState<T> {
  readonly path: string;
  private readonly schema: z.ZodType<T>;
  private readonly initial: () => T;
  private readonly logger: StateLogger;
  private readonly prepare: () => Promise<unknown>;
  private warned = false;

  /** `prepare` runs before every write (the Workspace makes its state folder private there). */
  constructor(
    path: string,
    schema: z.ZodType<T>,
    initial: () => T,
    logger: StateLogger,
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

  /** {@link read}, and whether the file itself held the value (so it may become the previous good copy). */
  private async readChecked(): Promise<{ value: T; good: boolean }> {
    const current = await this.load(this.path);
    if (current.ok) return { value: current.value, good: true };
    if (current.problem === null) return { value: this.initial(), good: false };
    const backup = await this.load(`${this.path}${BACKUP_SUFFIX}`);
    if (!this.warned) {
      this.warned = true;
      this.logger.warn(
        `big-memory: ${this.path} ${current.problem}; ${backup.ok ? `using the previous copy ${this.path}${BACKUP_SUFFIX}` : "no previous copy either, starting fresh"}`,
      );
    }
    return { value: backup.ok ? backup.value : this.initial(), good: false };
  }

  /** One file's value, or why not (`problem: null` when the file does not exist). */
  private async load(path: string): Promise<{ ok: true; value: T } | { ok: false; problem: string | null }> {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if (errorCode(error) === "ENOENT") return { ok: false, problem: null };
      // The environment failing (a folder in the way, permissions, I/O) is not corruption: say so.
      throw new Error(`big-memory: cannot read ${path}: ${errorMessage(error)}`, { cause: error });
    }
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

  /** Reads, applies `fn`, and writes the result atomically, under the file's lock. */
  async update(fn: (value: T) => T | Promise<T>): Promise<T> {
    await this.prepare();
    await ensurePrivateDir(dirname(this.path));
    return withLock(
      `${this.path}.lock`,
      async () => {
        const { value, good } = await this.readChecked();
        const next = await fn(value);
        // The file replaced becomes the previous good copy only if it read well; a corrupt one is not kept.
        return (await writePrivateJson(this.path, next, good ? { keepPreviousAs: BACKUP_SUFFIX } : {})).value;
      },
      { timeoutMs: 10_000, staleMs: 30_000 },
    );
  }
}
