import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  agentIds,
  agentWorkspace,
  configPath,
  defaultAgentId,
  normalizeAgentId,
  openclawHome,
  stateDir,
  userPath,
} from "../../plugin/surface/openclaw-paths.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
function home(): string {
  const dir = mkdtempSync(join(tmpdir(), "big-memory-home-"));
  roots.push(dir);
  return dir;
}
const at = (env: NodeJS.ProcessEnv) => ({ env, cwd: "/somewhere" });

describe("openclawHome", () => {
  it("prefers OPENCLAW_HOME, expanding ~ to HOME", () => {
    expect(openclawHome(at({ HOME: "/h", OPENCLAW_HOME: "~/oc" }))).toBe("/h/oc");
    expect(openclawHome(at({ HOME: "/h" }))).toBe("/h");
  });
});

describe("userPath", () => {
  it("expands ~ and resolves relative paths against the cwd", () => {
    expect(userPath(" ~/ws ", at({ HOME: "/h" }))).toBe("/h/ws");
    expect(userPath("ws", at({ HOME: "/h" }))).toBe("/somewhere/ws");
  });
});

describe("stateDir and configPath", () => {
  it("use OPENCLAW_STATE_DIR and OPENCLAW_CONFIG_PATH when set", () => {
    const env = { HOME: "/h", OPENCLAW_STATE_DIR: "~/state", OPENCLAW_CONFIG_PATH: "~/cfg.json5" };
    expect(stateDir(at(env))).toBe("/h/state");
    expect(configPath(at(env))).toBe("/h/cfg.json5");
  });

  it("fall back to ~/.openclaw/openclaw.json, or the legacy ~/.clawdbot when only that exists", () => {
    const h = home();
    expect([stateDir(at({ HOME: h })), configPath(at({ HOME: h }))]).toEqual([
      join(h, ".openclaw"),
      join(h, ".openclaw", "openclaw.json"),
    ]);
    mkdirSync(join(h, ".clawdbot"));
    expect(stateDir(at({ HOME: h }))).toBe(join(h, ".clawdbot"));
  });
});

describe("normalizeAgentId", () => {
  it("lower-cases and replaces runs of other characters with a dash", () => {
    expect([normalizeAgentId("Work"), normalizeAgentId(" my agent! "), normalizeAgentId("!!")]).toEqual([
      "work",
      "my-agent",
      "main",
    ]);
  });
});

describe("agentIds and defaultAgentId", () => {
  it("is main without a roster, the sole or default-marked agent with one, and none in an unmarked fleet", () => {
    expect([agentIds({}), defaultAgentId({})]).toEqual([["main"], "main"]);
    expect(defaultAgentId({ agents: { entries: { Work: {} } } })).toBe("work");
    expect(defaultAgentId({ agents: { list: [{ id: "a" }, { id: "b", default: true }] } })).toBe("b");
    expect(defaultAgentId({ agents: { entries: { a: {}, b: {} } } })).toBeUndefined();
    expect(
      defaultAgentId({ agents: { entries: { a: {}, b: {} }, defaults: { systemAgent: { agentId: "b" } } } }),
    ).toBe("b");
    expect(
      defaultAgentId({ agents: { ownership: "explicit", list: [{ id: "a" }, { id: "b", default: true }] } }),
    ).toBeUndefined();
  });
});

describe("agentWorkspace", () => {
  const env = { HOME: "/h" };
  it("uses the agent's own workspace first", () => {
    const config = { agents: { defaults: { workspace: "/d" }, entries: { main: { workspace: "~/mine" } } } };
    expect(agentWorkspace(config, "main", at(env))).toEqual({
      dir: "/h/mine",
      origin: "agent's own workspace",
    });
  });

  it("gives the owning agent agents.defaults.workspace and other agents a subfolder of it", () => {
    const config = {
      agents: { defaults: { workspace: "~/ws" }, list: [{ id: "main", default: true }, { id: "ops" }] },
    };
    expect(agentWorkspace(config, "main", at(env)).dir).toBe("/h/ws");
    expect(agentWorkspace(config, "ops", at(env))).toEqual({
      dir: "/h/ws/ops",
      origin: "agents.defaults.workspace/<agent id>",
    });
  });

  it("falls back to OPENCLAW_WORKSPACE_DIR, then <state dir>/workspace and <state dir>/workspace-<id>", () => {
    expect(agentWorkspace({}, "main", at({ ...env, OPENCLAW_WORKSPACE_DIR: "/w" })).dir).toBe("/w");
    expect(agentWorkspace({}, "main", at({ ...env, OPENCLAW_STATE_DIR: "/s" })).dir).toBe("/s/workspace");
    expect(agentWorkspace({}, "main", at(env)).dir).toBe("/h/.openclaw/workspace");
    expect(agentWorkspace({}, "main", at({ ...env, OPENCLAW_PROFILE: "dev" })).dir).toBe(
      "/h/.openclaw-dev/workspace",
    );
    const fleet = { agents: { entries: { main: {}, ops: {} } } };
    expect(agentWorkspace(fleet, "ops", at({ ...env, OPENCLAW_STATE_DIR: "/s" })).dir).toBe(
      "/s/workspace-ops",
    );
  });
});
