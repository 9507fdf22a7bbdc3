import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parsePluginConfig } from "../../plugin/config.ts";
import { Workspaces } from "../../plugin/session/workspace.ts";
import { createConsentCheck, missingConsent, silentSessionWarning } from "../../plugin/surface/consent.ts";
import type { SurfaceDeps } from "../../plugin/surface/context.ts";
import { createDriver } from "./plugin-driver.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
const entry = (hooks: Record<string, unknown>) => ({
  plugins: { entries: { "big-memory": { enabled: true, hooks } } },
});

describe("missingConsent", () => {
  it("names allowConversationAccess unless it is true, and allowPromptInjection when it is false", () => {
    expect(missingConsent({})).toEqual(["plugins.entries.big-memory.hooks.allowConversationAccess: true"]);
    expect(missingConsent(entry({ allowConversationAccess: true }))).toEqual([]);
    expect(missingConsent(entry({ allowConversationAccess: true, allowPromptInjection: false }))).toEqual([
      "plugins.entries.big-memory.hooks.allowPromptInjection: true",
    ]);
  });
});

describe("silentSessionWarning", () => {
  it("names the session, the dropped hook and the setting to change", () => {
    expect(silentSessionWarning("agent:main:main", missingConsent({}))).toBe(
      "big-memory: session agent:main:main was compacted, but OpenClaw never passed big-memory one of its user turns (before_prompt_build), so nothing will be restored: set plugins.entries.big-memory.hooks.allowConversationAccess: true in openclaw.json (openclaw config set <key> true --strict-json); `big-memory doctor` checks the rest",
    );
  });
});

describe("createConsentCheck", () => {
  function setup(openclawConfig: unknown) {
    const dir = mkdtempSync(join(tmpdir(), "big-memory-consent-"));
    roots.push(dir);
    const warnings: string[] = [];
    const config = parsePluginConfig({});
    const logger = { warn: (m: string) => warnings.push(m) };
    const workspaces = new Workspaces({ config, logger, now: () => new Date("2026-11-22T12:00:00Z") });
    const deps: SurfaceDeps = {
      config,
      workspaces,
      logger,
      now: () => new Date("2026-11-22T12:00:00Z"),
      sessionWorkspaces: new Map(),
      openclawConfig,
      env: {},
    };
    return { ws: workspaces.get(dir), check: createConsentCheck(deps), warnings };
  }
  const ref = { sessionKey: "agent:main:main", agentId: "main" };

  it("warns once per session when a compacted session never had a user turn observed", async () => {
    const { ws, check, warnings } = setup({});
    await check(ws, ref);
    await check(ws, ref);
    expect(warnings).toEqual([silentSessionWarning("agent:main:main", missingConsent({}))]);
  });

  it("stays silent when a user turn was observed", async () => {
    const { ws, check, warnings } = setup({});
    await ws.session(ref.sessionKey, "main").update((s) => ({ ...s, trail: { ...s.trail, turns: 2 } }));
    await check(ws, ref);
    expect(warnings).toEqual([]);
  });
});

describe("after_compaction with no user turn observed (through the registered hooks)", () => {
  it("logs the consent warning once; a session with a user turn logs nothing", async () => {
    const d = createDriver();
    try {
      await d.fire("before_compaction", { messageCount: 4 });
      await d.fire("after_compaction", { messageCount: 2, compactedCount: 2 });
      await d.fire("after_compaction", { messageCount: 2, compactedCount: 2 });
      await d.userTurn("Fix the login bug on Safari", { sessionKey: "agent:main:other" });
      await d.fire("after_compaction", { messageCount: 2 }, { sessionKey: "agent:main:other" });
      expect(d.reg.warnings).toEqual([silentSessionWarning("agent:main:main", missingConsent({}))]);
    } finally {
      await d.dispose();
    }
  });
});
