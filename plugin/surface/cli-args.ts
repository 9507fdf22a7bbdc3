import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CliIO } from "./cli.ts";
import { type OpenClawConfigFile, readOpenClawConfig } from "./openclaw-config.ts";
import { agentIds, agentWorkspace, configPath, defaultAgentId, normalizeAgentId } from "./openclaw-paths.ts";

const record = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Arguments of the `big-memory` CLI: exit codes, usage errors, the workspace, numbers. */

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

/** The workspace a command works on, and why that one (for "nothing found" lines and `doctor`). */
export interface WorkspaceChoice {
  dir: string;
  /** How it was chosen, for people: `--dir`, `the current folder, which has memory/`, a config key... */
  source: string;
  /** The agent whose workspace it is, when it came from OpenClaw's config. */
  agent: string | null;
  /** The OpenClaw config file read (or that would be read), and whether it exists. */
  config: OpenClawConfigFile | null;
}

/**
 * What resolving the workspace needs from the CLI's surroundings; `openclawConfig` is the config the host
 * already loaded (under `openclaw big-memory`), used instead of reading the file again.
 */
export type WorkspaceIO = Pick<CliIO, "cwd" | "env" | "defaultWorkspace"> & {
  openclawConfig?: unknown;
  /** `--agent ID` as parsed for the running command (see cli-scope.ts), used when no agent is passed. */
  agent?: string | undefined;
  /** Told the workspace chosen, so that a "nothing found" can name it. */
  onWorkspace?: ((choice: WorkspaceChoice) => void) | undefined;
};

function checkedDir(dir: string, io: WorkspaceIO): string {
  if (dir.trim() === "") {
    throw new UsageError("--dir is empty (expected the path of a workspace folder holding memory/)");
  }
  const abs = resolve(io.cwd, dir);
  if (!existsSync(abs)) {
    throw new UsageError(
      `workspace ${abs} does not exist (expected a folder holding memory/; create it or pass the right --dir)`,
    );
  }
  if (!statSync(abs).isDirectory()) {
    throw new UsageError(
      `--dir ${abs} is a file, not a folder (expected a workspace folder holding memory/)`,
    );
  }
  return abs;
}

/**
 * Chooses the workspace as the contract says: `--dir`; else with `--agent ID` that agent's workspace in
 * OpenClaw's config; else the current folder when it has `memory/`; else the workspace OpenClaw passed in
 * (under `openclaw big-memory`); else the default agent's workspace as OpenClaw resolves it (its config file
 * `$OPENCLAW_CONFIG_PATH` or `~/.openclaw/openclaw.json`, the agent's own `workspace`,
 * `agents.defaults.workspace`, `$OPENCLAW_WORKSPACE_DIR`, `<state dir>/workspace`).
 * Throws a UsageError for a bad `--dir`, an unknown agent or a fleet without a default agent, and an Error
 * (exit 3) when the config file cannot be read.
 */
export function chooseWorkspace(
  opts: { dir?: string | undefined; agent?: string | undefined },
  io: WorkspaceIO,
): WorkspaceChoice {
  if (opts.dir !== undefined)
    return { dir: checkedDir(opts.dir, io), source: "--dir", agent: null, config: null };
  const p = { env: io.env, cwd: io.cwd };
  if (opts.agent === undefined) {
    if (existsSync(join(io.cwd, "memory"))) {
      return { dir: io.cwd, source: "the current folder, which has memory/", agent: null, config: null };
    }
    if (io.defaultWorkspace !== undefined) {
      return {
        dir: io.defaultWorkspace,
        source: "OpenClaw's workspace for this agent",
        agent: null,
        config: null,
      };
    }
  }
  const file: OpenClawConfigFile =
    io.openclawConfig === undefined
      ? readOpenClawConfig(p)
      : {
          path: configPath(p),
          exists: true,
          config: record(io.openclawConfig),
          problem: null,
          missingEnv: [],
        };
  if (file.problem !== null) {
    throw new Error(
      `big-memory: cannot read OpenClaw's config: ${file.problem} (fix it, check it with \`openclaw config validate\`, or pass --dir WORKSPACE)`,
    );
  }
  const known = agentIds(file.config);
  const where = file.exists ? file.path : `${file.path} (absent: OpenClaw's defaults apply)`;
  if (opts.agent !== undefined) {
    if (opts.agent.trim() === "")
      throw new UsageError("--agent is empty (expected an agent id such as main)");
    const id = normalizeAgentId(opts.agent);
    if (!known.includes(id)) {
      const typed = opts.agent;
      throw new UsageError(
        (quote) => `unknown agent ${quote(typed)} in ${where} (configured: ${known.join(", ")})`,
      );
    }
  }
  const agent = opts.agent === undefined ? defaultAgentId(file.config) : normalizeAgentId(opts.agent);
  if (agent === undefined) {
    throw new UsageError(
      `several agents are configured in ${where} (${known.join(", ")}) and none is the default: pass --agent ID or --dir WORKSPACE`,
    );
  }
  const ws = agentWorkspace(file.config, agent, p);
  return { dir: ws.dir, source: `agent ${agent}: ${ws.origin}, from ${where}`, agent, config: file };
}

/**
 * The workspace folder of `chooseWorkspace` (`opts` is `--dir` alone, or `--dir` and `--agent`; without an
 * agent, the one parsed into `io.agent`), reported to `io.onWorkspace`.
 */
export function resolveWorkspace(
  opts: string | undefined | { dir?: string | undefined; agent?: string | undefined },
  io: WorkspaceIO,
): string {
  const given = typeof opts === "object" ? opts : { dir: opts };
  const choice = chooseWorkspace({ dir: given.dir, agent: given.agent ?? io.agent }, io);
  io.onWorkspace?.(choice);
  const memory = join(choice.dir, "memory");
  if (existsSync(memory) && !statSync(memory).isDirectory()) {
    // Read as "no logs", a file in place of the folder would make every answer a silent "nothing found".
    throw Object.assign(new Error(`${memory} is not a folder: the daily logs cannot be read or written`), {
      code: "ENOTDIR",
    });
  }
  return choice.dir;
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
