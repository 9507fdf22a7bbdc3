import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";
import { parsePluginConfig } from "./config.ts";
import { Workspaces } from "./session/workspace.ts";
import { registerBigMemoryCli } from "./surface/cli-mount.ts";
import { registerCommands } from "./surface/commands.ts";
import type { SurfaceDeps } from "./surface/context.ts";
import { registerHooks } from "./surface/hooks.ts";
import { registerTools } from "./surface/tools.ts";
import { registerViewRoute } from "./surface/view-route.ts";

/**
 * big-memory: an agent never loses its place when its context is compacted or its session is
 * reset. This entry only wires factories; `register` touches no disk and starts no timer.
 */
export default definePluginEntry({
  id: "big-memory",
  name: "big-memory",
  description:
    "Captures a structured task snapshot before every compaction and reset, indexes it for instant recall, and restores it after.",
  register(api) {
    registerBigMemoryCli(api);
    if (api.registrationMode === "cli-metadata") return;
    const config = parsePluginConfig(api.pluginConfig);
    const logger = { warn: (m: string) => api.logger.warn(m), info: (m: string) => api.logger.info(m) };
    const now = () => new Date();
    // The gateway starts services and runs for long: only there does the index watch memory/.
    const lifetime = { longRunning: false };
    const deps: SurfaceDeps = {
      config,
      workspaces: new Workspaces({ config, logger, now, watch: () => lifetime.longRunning }),
      logger,
      now,
      sessionWorkspaces: new Map(),
      openclawConfig: api.config,
      env: process.env,
    };
    const hooks = registerHooks(api, deps);
    registerTools(api, deps);
    registerCommands(api, deps);
    registerViewRoute(api, deps);
    api.registerService({
      id: "big-memory",
      start: () => {
        lifetime.longRunning = true;
      },
      // Hooks OpenClaw does not await (a reset over RPC, the runtime's compaction) finish their writes first.
      stop: async () => {
        await hooks.idle();
        await deps.workspaces.closeAll();
      },
    });
  },
});
