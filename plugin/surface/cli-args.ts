/**
 * Arguments of the `big-memory` CLI: exit codes, usage errors, numbers, environment failures. No imports: every
 * CLI process loads it, `--version` included (the workspace is chosen in cli-workspace.ts).
 */

/** Exit codes of the contract. */
export const EXIT = { ok: 0, notFound: 1, usage: 2, failure: 3 } as const;

/** How a usage message quotes what a person typed: echo.ts `echoed` (redacted, cleaned, cut, in quotes). */
export type Quote = (typed: string) => string;

/** What `UsageError.message` holds where its message quotes typed input; `text()` has the quote. */
export const UNQUOTED = "(what was typed)";

/**
 * A usage error: printed as one line, exit 2. A message that quotes what a person typed is given as a
 * function that builds it with a {@link Quote}. `text()` quotes through echo.ts `echoed`, and only then loads
 * the redactor, so that a CLI process that quotes nothing never loads it; `message` holds {@link UNQUOTED}
 * in the quote's place, so that it never carries the input verbatim either.
 */
export class UsageError extends Error {
  readonly #quoting: ((quote: Quote) => string) | undefined;

  constructor(message: string | ((quote: Quote) => string)) {
    super(typeof message === "string" ? message : message(() => UNQUOTED));
    this.#quoting = typeof message === "string" ? undefined : message;
  }

  /** The message to print: what was typed quoted as echo.ts `echoed` quotes it. */
  async text(): Promise<string> {
    if (this.#quoting === undefined) return this.message;
    const { echoed } = await import("../snapshot/echo.ts");
    return this.#quoting((typed) => echoed(typed));
  }
}

/** Options every command takes. */
export interface CommonOptions {
  dir?: string;
  json?: boolean;
  agent?: string;
}

/** `raw` as a whole number of at least 1 written in digits (Number() would also take 0x10, 1e3, +3), or null. */
function wholeAtLeastOne(raw: string): number | null {
  const n = Number(raw);
  return /^[0-9]+$/.test(raw) && n >= 1 && Number.isSafeInteger(n) ? n : null;
}

export function parsePositiveInt(raw: string, flag: string): number {
  const n = wholeAtLeastOne(raw);
  if (n === null)
    throw new UsageError((quote) => `${flag} expects a whole number of at least 1, received ${quote(raw)}`);
  return n;
}

/** A `--limit` that may also be `all` (no limit). */
export function parseLimitOrAll(raw: string, flag: string): number {
  if (raw === "all") return Number.POSITIVE_INFINITY;
  const n = wholeAtLeastOne(raw);
  if (n === null)
    throw new UsageError(
      (quote) => `${flag} expects a whole number of at least 1, or all, received ${quote(raw)}`,
    );
  return n;
}

/** What to do about an environment failure, by the system error code found in the error or its causes. */
const HINTS: Readonly<Record<string, string>> = {
  EROFS: "the file system is read-only: make it writable, or run with --dir on a writable workspace",
  EACCES: "permission denied: check the owner and mode of that path",
  EPERM: "operation not permitted: check the owner and mode of that path",
  ENOSPC: "the disk is full: free some space and run the command again",
  EDQUOT: "the disk quota is exceeded: free some space and run the command again",
  ENOTDIR: "a file stands where a folder is expected: move the file away",
  EISDIR: "a folder stands where a file is expected: move the folder away",
  ELOOP: "too many symbolic links: replace the link with a real folder",
  EIO: "the disk reported an I/O error: check the device",
};

/**
 * The one line printed for an environment failure (exit 3): the error's message, which names the path, and
 * what to do about it when the system error code says. Never a stack trace.
 */
export function environmentLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.startsWith("big-memory: ") ? message : `big-memory: ${message}`;
  for (let cause: unknown = error; cause !== undefined && cause !== null; ) {
    const code = typeof cause === "object" && "code" in cause ? String(cause.code) : undefined;
    const hint = code === undefined ? undefined : HINTS[code];
    if (hint !== undefined && !line.includes(hint)) return `${line} (${hint})`;
    cause = typeof cause === "object" && "cause" in cause ? cause.cause : undefined;
  }
  return line;
}
