import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * OpenClaw's own path rules, re-stated so that the `big-memory` CLI (which runs without OpenClaw) finds the
 * same home, state folder, config file and agent workspace as OpenClaw 2026.9 does. Mirrors
 * `resolveStateDir`, `resolveConfigPath`, `resolveDefaultAgentWorkspaceDir` and `resolveAgentWorkspaceDir`
 * of `openclaw/dist` (docs/gateway/config-agents/workspace-and-bootstrap.md, docs/concepts/multi-agent.md).
 */

/** The environment and the folder relative paths resolve against (OpenClaw uses its process cwd). */
export interface PathEnv {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The id OpenClaw gives the one agent of a config without a roster. */
export const IMPLICIT_AGENT_ID = "main";

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" || trimmed === "undefined" || trimmed === "null"
    ? undefined
    : trimmed;
}

function osHome(env: NodeJS.ProcessEnv): string | undefined {
  return nonEmpty(env.HOME) ?? nonEmpty(env.USERPROFILE);
}

/** OpenClaw's home: `$OPENCLAW_HOME` (a leading `~` is the OS home), else `$HOME`, else the OS account's. */
export function openclawHome({ env, cwd }: PathEnv): string {
  const explicit = nonEmpty(env.OPENCLAW_HOME);
  if (explicit !== undefined) {
    const os = osHome(env) ?? homedir();
    return resolve(
      cwd,
      explicit.replace(/^~(?=$|[\\/])/, () => os),
    );
  }
  return resolve(cwd, osHome(env) ?? homedir());
}

/** A path as a user writes it in config or env: trimmed, `~` expanded to OpenClaw's home, made absolute. */
export function userPath(input: string, p: PathEnv): string {
  const trimmed = input.trim();
  if (trimmed.startsWith("~")) return resolve(trimmed.replace(/^~(?=$|[\\/])/, () => openclawHome(p)));
  return resolve(p.cwd, trimmed);
}

/**
 * OpenClaw's state folder: `$OPENCLAW_STATE_DIR`, else `~/.openclaw`, else the legacy `~/.clawdbot` when only
 * that one exists.
 */
export function stateDir(p: PathEnv): string {
  const override = nonEmpty(p.env.OPENCLAW_STATE_DIR);
  if (override !== undefined) return userPath(override, p);
  const fresh = join(openclawHome(p), ".openclaw");
  const legacy = join(openclawHome(p), ".clawdbot");
  return !existsSync(fresh) && existsSync(legacy) ? legacy : fresh;
}

/**
 * OpenClaw's config file: `$OPENCLAW_CONFIG_PATH`, else the first that exists of `openclaw.json` (or the
 * legacy `clawdbot.json`) in `$OPENCLAW_STATE_DIR`, `~/.openclaw`, `~/.clawdbot`; else `<state dir>/openclaw.json`.
 */
export function configPath(p: PathEnv): string {
  const explicit = nonEmpty(p.env.OPENCLAW_CONFIG_PATH);
  if (explicit !== undefined) return userPath(explicit, p);
  const override = nonEmpty(p.env.OPENCLAW_STATE_DIR);
  const dirs = [
    ...(override === undefined ? [] : [userPath(override, p)]),
    join(openclawHome(p), ".openclaw"),
    join(openclawHome(p), ".clawdbot"),
  ];
  const candidates = dirs.flatMap((d) => [join(d, "openclaw.json"), join(d, "clawdbot.json")]);
  return candidates.find((c) => existsSync(c)) ?? join(stateDir(p), "openclaw.json");
}

/** OpenClaw's canonical agent id: lower case, runs of other characters as `-`, at most 64; `main` if empty. */
export function normalizeAgentId(id: string): string {
  const trimmed = id.trim();
  if (/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(trimmed)) return trimmed.toLowerCase();
  const cleaned = trimmed
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+/, "")
    .replace(/-+$/, "")
    .slice(0, 64);
  return cleaned === "" ? IMPLICIT_AGENT_ID : cleaned;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const text = (v: unknown): string | undefined => (typeof v === "string" ? nonEmpty(v) : undefined);

/** One configured agent: its id as written and its own `workspace`, if any. */
export interface AgentEntry {
  id: string;
  workspace: string | undefined;
  default: boolean;
}

/**
 * The agents of a config: the keyed roster `agents.entries.<id>` (current), else the legacy array `agents.list`;
 * null when the config has neither (OpenClaw then runs one implicit agent, `main`).
 */
export function agentRoster(config: unknown): AgentEntry[] | null {
  const agents = rec(rec(config).agents);
  if (agents.entries !== undefined) {
    return Object.entries(rec(agents.entries))
      .filter(([, v]) => typeof v === "object" && v !== null)
      .map(([id, v]) => ({ id, workspace: text(rec(v).workspace), default: rec(v).default === true }));
  }
  if (agents.list !== undefined) {
    return (Array.isArray(agents.list) ? agents.list : [])
      .filter((v): v is Rec => typeof v === "object" && v !== null)
      .map((v) => ({ id: text(v.id) ?? "", workspace: text(v.workspace), default: v.default === true }));
  }
  return null;
}

/** The agent ids OpenClaw knows for a config (normalized, unique); `["main"]` without a roster. */
export function agentIds(config: unknown): string[] {
  const roster = agentRoster(config);
  if (roster === null) return [IMPLICIT_AGENT_ID];
  return [...new Set(roster.map((a) => normalizeAgentId(a.id)))];
}

/**
 * The agent that owns the shared workspace (OpenClaw's "legacy data owner"): the one marked `default: true`
 * (unless `agents.ownership` is `explicit`), else the sole agent, else `main` without a roster. Undefined in a
 * fleet of several agents with no such mark.
 */
export function owningAgentId(config: unknown): string | undefined {
  const roster = agentRoster(config);
  if (roster === null) return IMPLICIT_AGENT_ID;
  const explicit = rec(rec(config).agents).ownership === "explicit";
  const marked = explicit ? [] : roster.filter((a) => a.default);
  if (marked.length === 1 && marked[0] !== undefined) return normalizeAgentId(marked[0].id);
  return roster.length === 1 && roster[0] !== undefined ? normalizeAgentId(roster[0].id) : undefined;
}

/**
 * The agent a command works for when none is named: `agents.defaults.systemAgent.agentId`, else the owning
 * agent (see `owningAgentId`). Undefined when several agents are configured and none of those rules picks one.
 */
export function defaultAgentId(config: unknown): string | undefined {
  const system = text(rec(rec(rec(rec(config).agents).defaults).systemAgent).agentId);
  return system === undefined ? owningAgentId(config) : normalizeAgentId(system);
}

/** Where an agent's workspace comes from, for messages: the config key, env variable or default used. */
export type WorkspaceOrigin =
  | "agent's own workspace"
  | "agents.defaults.workspace"
  | "agents.defaults.workspace/<agent id>"
  | "OPENCLAW_WORKSPACE_DIR"
  | "the state folder's default";

/**
 * An agent's workspace as OpenClaw resolves it: the agent's own `workspace`; for the owning agent
 * `agents.defaults.workspace`, else `$OPENCLAW_WORKSPACE_DIR`, else `<state dir>/workspace` (for a named
 * `$OPENCLAW_PROFILE` without a state dir, `~/.openclaw-<profile>/workspace`); for other agents
 * `<agents.defaults.workspace>/<id>`, else `<state dir>/workspace-<id>`.
 */
export function agentWorkspace(
  config: unknown,
  agentId: string,
  p: PathEnv,
): { dir: string; origin: WorkspaceOrigin } {
  const id = normalizeAgentId(agentId);
  const roster = agentRoster(config);
  const own = roster?.find((a) => normalizeAgentId(a.id) === id)?.workspace;
  if (own !== undefined) return { dir: userPath(own, p), origin: "agent's own workspace" };
  const fallback = text(rec(rec(rec(config).agents).defaults).workspace);
  if (id === owningAgentId(config)) {
    if (fallback !== undefined) return { dir: userPath(fallback, p), origin: "agents.defaults.workspace" };
    return defaultWorkspace(p);
  }
  if (fallback !== undefined)
    return { dir: join(userPath(fallback, p), id), origin: "agents.defaults.workspace/<agent id>" };
  return { dir: join(stateDir(p), `workspace-${id}`), origin: "the state folder's default" };
}

function defaultWorkspace(p: PathEnv): { dir: string; origin: WorkspaceOrigin } {
  const fromEnv = nonEmpty(p.env.OPENCLAW_WORKSPACE_DIR);
  if (fromEnv !== undefined) return { dir: resolve(p.cwd, fromEnv), origin: "OPENCLAW_WORKSPACE_DIR" };
  const profile = nonEmpty(p.env.OPENCLAW_PROFILE);
  if (
    nonEmpty(p.env.OPENCLAW_STATE_DIR) === undefined &&
    profile !== undefined &&
    profile.toLowerCase() !== "default" &&
    /^[a-z0-9][a-z0-9_-]{0,63}$/i.test(profile)
  ) {
    return {
      dir: join(openclawHome(p), `.openclaw-${profile}`, "workspace"),
      origin: "the state folder's default",
    };
  }
  const root =
    nonEmpty(p.env.OPENCLAW_STATE_DIR) === undefined ? join(openclawHome(p), ".openclaw") : stateDir(p);
  return { dir: join(root, "workspace"), origin: "the state folder's default" };
}
