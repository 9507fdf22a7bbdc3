import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { PluginConfig } from "../config.ts";
import type { Workspaces } from "../workspace.ts";

/** What every surface adapter (hooks, tools, commands) shares: config, workspaces, logger, clock. */
export interface SurfaceDeps {
  config: PluginConfig;
  workspaces: Workspaces;
  logger: { warn(message: string): void; info?(message: string): void };
  now: () => Date;
  /** Session key to workspace, learned from hooks that carry `workspaceDir`, for hooks that do not. */
  sessionWorkspaces: Map<string, string>;
  /** The OpenClaw config (`api.config`), for the workspace of an agent. */
  openclawConfig: unknown;
  env: NodeJS.ProcessEnv;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function userPath(p: string, env: NodeJS.ProcessEnv): string {
  const expanded = p.startsWith("~") ? join(env.HOME ?? homedir(), p.slice(1)) : p;
  return isAbsolute(expanded) ? expanded : resolve(expanded);
}

/**
 * The workspace of an agent as OpenClaw configures it: the agent's own `workspace`, else
 * `agents.defaults.workspace`, else `OPENCLAW_WORKSPACE_DIR`, else `<state dir>/workspace`
 * (`workspace-<id>` for agents other than `main`).
 */
export function workspaceForAgent(
  openclawConfig: unknown,
  agentId: string | undefined,
  env: NodeJS.ProcessEnv,
): string {
  const agents = record(record(openclawConfig).agents);
  const list = Array.isArray(agents.list) ? agents.list : [];
  const own = list.map(record).find((a) => a.id === agentId);
  const configured =
    str(own?.workspace) ?? str(record(agents.defaults).workspace) ?? str(env.OPENCLAW_WORKSPACE_DIR);
  if (configured !== undefined) return userPath(configured, env);
  const stateDir = str(env.OPENCLAW_STATE_DIR) ?? join(env.HOME ?? homedir(), ".openclaw");
  return join(
    userPath(stateDir, env),
    agentId === undefined || agentId === "main" ? "workspace" : `workspace-${agentId}`,
  );
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
