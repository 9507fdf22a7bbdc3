import type { PluginConfig } from "../config.ts";
import type { Logger } from "../session/state-files.ts";
import type { Workspaces } from "../session/workspace.ts";
import { agentWorkspace, defaultAgentId, IMPLICIT_AGENT_ID } from "./openclaw-paths.ts";

/** What every surface adapter (hooks, tools, commands) shares: config, workspaces, logger, clock. */
export interface SurfaceDeps {
  config: PluginConfig;
  workspaces: Workspaces;
  logger: Logger;
  now: () => Date;
  /** Session key to workspace, learned from hooks that carry `workspaceDir`, for hooks that do not. */
  sessionWorkspaces: Map<string, string>;
  /** The OpenClaw config (`api.config`), for the workspace of an agent. */
  openclawConfig: unknown;
  env: NodeJS.ProcessEnv;
}

/**
 * The workspace of an agent as OpenClaw configures it (see `agentWorkspace`): the agent's own `workspace`;
 * for the default agent `agents.defaults.workspace`, `OPENCLAW_WORKSPACE_DIR` or `<state dir>/workspace`;
 * for other agents `<agents.defaults.workspace>/<id>` or `<state dir>/workspace-<id>`. Without an agent id,
 * the config's default agent (`main` when the config names none).
 */
export function workspaceForAgent(
  openclawConfig: unknown,
  agentId: string | undefined,
  env: NodeJS.ProcessEnv,
): string {
  const id = agentId ?? defaultAgentId(openclawConfig) ?? IMPLICIT_AGENT_ID;
  return agentWorkspace(openclawConfig, id, { env, cwd: process.cwd() }).dir;
}

/** The workspace a hook or command is about: its own `workspaceDir`, the session's, or the agent's. */
export function workspaceOf(
  deps: SurfaceDeps,
  ctx: { workspaceDir?: string | undefined; sessionKey?: string | undefined; agentId?: string | undefined },
): string {
  if (ctx.workspaceDir !== undefined && ctx.workspaceDir !== "") {
    if (ctx.sessionKey !== undefined) deps.sessionWorkspaces.set(ctx.sessionKey, ctx.workspaceDir);
    return ctx.workspaceDir;
  }
  const known = ctx.sessionKey === undefined ? undefined : deps.sessionWorkspaces.get(ctx.sessionKey);
  return known ?? workspaceForAgent(deps.openclawConfig, ctx.agentId, deps.env);
}

/** The agent id of a session key `agent:<id>:<rest>`, or undefined. */
export function agentOfSessionKey(sessionKey: string | undefined): string | undefined {
  const m = /^agent:([^:]+):/.exec(sessionKey ?? "");
  return m?.[1];
}

/** True for the session keys OpenClaw uses for internal runs such as the memory flush. */
export function isInternalSessionKey(sessionKey: string | undefined): boolean {
  return sessionKey !== undefined && /:internal-/.test(sessionKey);
}

/** One warn line for a failed hook; hooks fail open. */
export function warnOnce(deps: SurfaceDeps, where: string, error: unknown): void {
  deps.logger.warn(
    `big-memory: ${where} failed (continuing without it): ${error instanceof Error ? error.message : String(error)}`,
  );
}
