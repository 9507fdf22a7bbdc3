import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CliIO } from "./cli.ts";
import { UsageError } from "./cli-args.ts";
import { type OpenClawConfigFile, readOpenClawConfig } from "./openclaw-config.ts";
import { agentIds, agentWorkspace, configPath, defaultAgentId, normalizeAgentId } from "./openclaw-paths.ts";

/**
 * The workspace a `big-memory` command works on: `--dir`, an agent's workspace in OpenClaw's config, the
 * current folder, or the one OpenClaw passed in. Loaded by the commands that read or write a workspace
 * (with OpenClaw's config reader and JSON5), not by `--version` or help.
 */

const record = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

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
