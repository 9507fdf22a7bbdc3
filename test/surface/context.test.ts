import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePluginConfig } from "../../plugin/config.ts";
import { Workspaces } from "../../plugin/session/workspace.ts";
import {
  agentOfSessionKey,
  isInternalSessionKey,
  type SurfaceDeps,
  warnOnce,
  workspaceForAgent,
  workspaceOf,
} from "../../plugin/surface/context.ts";

const STATE = "/srv/openclaw-state";
const env = { OPENCLAW_STATE_DIR: STATE };
const roster = {
  agents: {
    defaults: { workspace: "/srv/ws" },
    list: [{ id: "main", default: true }, { id: "ops", workspace: "/srv/ops-ws" }, { id: "docs" }],
  },
};

function deps(openclawConfig: unknown, warnings: string[] = []): SurfaceDeps {
  const config = parsePluginConfig({});
  const logger = { warn: (m: string) => warnings.push(m) };
  const now = () => new Date("2026-11-22T12:00:00Z");
  return {
    config,
    workspaces: new Workspaces({ config, logger, now }),
    logger,
    now,
    sessionWorkspaces: new Map(),
    openclawConfig,
    env,
  };
}

describe("workspaceForAgent", () => {
  it("gives an agent its own workspace, the default agent the defaults' and others a folder under it", () => {
    expect(["ops", "main", "docs"].map((id) => workspaceForAgent(roster, id, env))).toEqual([
      "/srv/ops-ws",
      "/srv/ws",
      join("/srv/ws", "docs"),
    ]);
  });

  it("takes the config's default agent when none is named, main without a roster", () => {
    expect(workspaceForAgent(roster, undefined, env)).toBe("/srv/ws");
    expect(workspaceForAgent({}, undefined, env)).toBe(join(STATE, "workspace"));
  });

  it("falls back to the state folder for a config with no workspace", () => {
    expect(workspaceForAgent({}, "helper", env)).toBe(join(STATE, "workspace-helper"));
  });
});

describe("workspaceOf", () => {
  it("takes the hook's own workspace first and remembers it for the session", () => {
    const d = deps(roster);
    expect(workspaceOf(d, { workspaceDir: "/tmp/a", sessionKey: "agent:ops:x", agentId: "ops" })).toBe(
      "/tmp/a",
    );
    expect(workspaceOf(d, { sessionKey: "agent:ops:x", agentId: "ops" })).toBe("/tmp/a");
  });

  it("falls back to the agent's workspace for a session it has not seen, and ignores an empty workspaceDir", () => {
    const d = deps(roster);
    expect(workspaceOf(d, { workspaceDir: "", sessionKey: "agent:ops:y", agentId: "ops" })).toBe(
      "/srv/ops-ws",
    );
    expect(d.sessionWorkspaces.size).toBe(0);
  });

  it("uses the default agent's workspace when it knows neither session nor agent", () => {
    expect(workspaceOf(deps(roster), {})).toBe("/srv/ws");
  });
});

describe("agentOfSessionKey", () => {
  it("reads the agent id of agent:<id>:<rest>", () => {
    expect(agentOfSessionKey("agent:ops:telegram:42")).toBe("ops");
  });

  it("returns undefined for other keys and for none", () => {
    expect([agentOfSessionKey("main"), agentOfSessionKey("agent:ops"), agentOfSessionKey(undefined)]).toEqual(
      [undefined, undefined, undefined],
    );
  });
});

describe("isInternalSessionKey", () => {
  it("is true for OpenClaw's internal runs, false for others and for none", () => {
    expect(
      ["agent:main:internal-memory-flush", "agent:main:main", "internal-x", undefined].map(
        isInternalSessionKey,
      ),
    ).toEqual([true, false, false, false]);
  });
});

describe("warnOnce", () => {
  it("logs one line naming where it failed and why, and that it continues", () => {
    const warnings: string[] = [];
    const d = deps({}, warnings);
    warnOnce(d, "before_compaction hook", new Error("disk full"));
    warnOnce(d, "agent_end hook", "not an error");
    expect(warnings).toEqual([
      "big-memory: before_compaction hook failed (continuing without it): disk full",
      "big-memory: agent_end hook failed (continuing without it): not an error",
    ]);
  });
});
