/** Temporary workspaces for the session tests: a real Workspace over a real temp folder, removed after each test. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { parsePluginConfig } from "../../plugin/config.ts";
import type { SessionRef } from "../../plugin/session/capture-service.ts";
import { Workspace } from "../../plugin/session/workspace.ts";

/** The clock of every test workspace: noon UTC, so today's log is {@link TODAY_LOG}. */
export const NOW = new Date("2026-11-22T12:00:00Z");
export const TODAY_LOG = "memory/2026-11-22.md";
export const MAIN: SessionRef = { sessionKey: "agent:main:main", agentId: "main" };

export interface TestWorkspace {
  dir: string;
  ws: Workspace;
  warnings: string[];
  /** Another Workspace object on the same folder, as a second process would hold it. */
  another(): Workspace;
}

/**
 * Registers the cleanup (close every Workspace, remove the folder) and returns a maker of temp workspaces.
 * Writes behind wait an hour, so only an explicit flush, update or close writes a session's file.
 */
export function useWorkspaces(): () => Promise<TestWorkspace> {
  const made: { dir: string; open: Workspace[] }[] = [];
  afterEach(async () => {
    for (const { dir, open } of made.splice(0)) {
      for (const ws of open) await ws.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), "big-memory-session-"));
    const warnings: string[] = [];
    const open: Workspace[] = [];
    const make = () => {
      const ws = new Workspace(dir, {
        config: parsePluginConfig({ timeZone: "UTC" }),
        logger: { warn: (m) => warnings.push(m) },
        now: () => NOW,
        sessionFlushMs: 3_600_000,
      });
      open.push(ws);
      return ws;
    };
    made.push({ dir, open });
    return { dir, ws: make(), warnings, another: make };
  };
}
