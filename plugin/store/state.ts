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

  /** The current value; the initial value when the file is missing or unreadable. */
  async read(): Promise<T> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if (errorCode(error) === "ENOENT") return this.initial();
      throw new Error(`big-memory: cannot read ${this.path}: ${errorMessage(error)}`, { cause: error });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.logger.warn(`big-memory: ${this.path} is not valid JSON (corrupt or torn); starting fresh`);
      return this.initial();
    }
    const parsed = this.schema.safeParse(json);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    this.logger.warn(
      `big-memory: ${this.path} has an unknown version or shape (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}); starting fresh`,
    );
    return this.initial();
  }

  /** Reads, applies `fn`, and writes the result atomically, under the file's lock. */
  async update(fn: (value: T) => T | Promise<T>): Promise<T> {
    await this.prepare();
    await ensurePrivateDir(dirname(this.path));
    return withLock(
      `${this.path}.lock`,
      async () => {
        return (await writePrivateJson(this.path, await fn(await this.read()))).value;
      },
      { timeoutMs: 10_000, staleMs: 30_000 },
    );
  }
}
