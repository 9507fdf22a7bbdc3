import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { CliIO } from "./cli.ts";

/** Arguments of the `big-memory` CLI: exit codes, usage errors, the workspace, numbers. */

/** Exit codes of the contract. */
export const EXIT = { ok: 0, notFound: 1, usage: 2, failure: 3 } as const;

/** A usage error: printed as one line, exit 2. */
export class UsageError extends Error {}

/** Options every command takes. */
export interface CommonOptions {
  dir?: string;
  json?: boolean;
}

/**
 * The workspace a command works on: `--dir`, else the current folder when it has `memory/`, else
 * OpenClaw's default workspace (`$OPENCLAW_STATE_DIR/workspace`, or `~/.openclaw/workspace`).
 */
export function resolveWorkspace(
  dir: string | undefined,
  io: Pick<CliIO, "cwd" | "env" | "defaultWorkspace">,
): string {
  if (dir !== undefined) {
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
  if (existsSync(join(io.cwd, "memory"))) return io.cwd;
  if (io.defaultWorkspace !== undefined) return io.defaultWorkspace;
  const stateDir = io.env.OPENCLAW_STATE_DIR ?? join(io.env.HOME ?? homedir(), ".openclaw");
  return join(stateDir, "workspace");
}

export function parsePositiveInt(raw: string, flag: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} expects a whole number of at least 1, received "${raw}"`);
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
