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
    const abs = resolve(io.cwd, dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) {
      throw new UsageError(`workspace ${abs} does not exist (expected a folder holding memory/)`);
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
