import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import entry from "../../plugin/index.ts";

/**
 * Drives the plugin's registered handlers the way OpenClaw calls them, in-process, over a real
 * temporary workspace. Every `restart()` ends the registration as a process ends (its services stopped,
 * what it kept in memory written) and registers the plugin again with fresh objects, as a new
 * `openclaw agent --local` process or a restarted gateway would, so state must come from disk.
 */

type Handler = (event: unknown, ctx: unknown) => unknown;

export interface Registered {
  hooks: Map<string, Handler[]>;
  tools: ((ctx: Record<string, unknown>) => unknown)[];
  commands: { name: string; handler: (ctx: Record<string, unknown>) => unknown }[];
  warnings: string[];
  infos: string[];
  services: { stop?: () => unknown }[];
}

function register(pluginConfig: Record<string, unknown>, workspace: string): Registered {
  const reg: Registered = {
    hooks: new Map(),
    tools: [],
    commands: [],
    warnings: [],
    infos: [],
    services: [],
  };
  const api = {
    id: "big-memory",
    registrationMode: "full",
    config: { agents: { defaults: { workspace } } },
    pluginConfig,
    logger: {
      warn: (m: string) => reg.warnings.push(m),
      // A copy: a message may hold a slice of a longer text the plugin read (a restored goal of a whole log it
      // parsed), and V8 keeps a slice's parent alive; a host logger writes its line out, this list keeps every
      // message (before the restore read only its block, the hooks bench held a version of the log per cycle).
      info: (m: string) => reg.infos.push(Buffer.from(m).toString()),
      debug: () => {},
      error: (m: string) => reg.warnings.push(m),
    },
    on: (name: string, handler: Handler) => {
      reg.hooks.set(name, [...(reg.hooks.get(name) ?? []), handler]);
    },
    registerTool: (factory: (ctx: Record<string, unknown>) => unknown) => {
      reg.tools.push(factory);
    },
    registerCommand: (cmd: { name: string; handler: (ctx: Record<string, unknown>) => unknown }) => {
      reg.commands.push(cmd);
    },
    registerCli: () => {},
    registerService: (service: { stop?: () => unknown }) => {
      reg.services.push(service);
    },
  };
  entry.register(api as unknown as OpenClawPluginApi);
  return reg;
}

export interface Driver {
  workspace: string;
  reg: Registered;
  /** Calls every handler of `hook`; returns their results. */
  fire(hook: string, event: unknown, ctx?: Record<string, unknown>): Promise<unknown[]>;
  /** A user turn: before_prompt_build with trigger "user"; returns the prependContext, if any. */
  userTurn(text: string, ctx?: Record<string, unknown>): Promise<string | undefined>;
  tool(toolName: string, params: Record<string, unknown>, extra?: Record<string, unknown>): Promise<void>;
  /** The end of a turn: agent_end, as OpenClaw fires it after the last model call. */
  endTurn(ctx?: Record<string, unknown>): Promise<void>;
  command(args: string, ctx?: Record<string, unknown>): Promise<string>;
  callTool(
    name: string,
    params: unknown,
    ctx?: Record<string, unknown>,
  ): Promise<{ text: string; details: unknown }>;
  /** Ends this registration as its process would end, then registers the plugin again. */
  restart(): Promise<void>;
  /** Ends the registration, then removes the workspace (one the driver created). */
  dispose(): Promise<void>;
}

export const SESSION = "agent:main:main";

async function stop(reg: Registered): Promise<void> {
  for (const service of reg.services) await service.stop?.();
}

/** `opts.workspace`: drive an existing workspace (another process's too) instead of a fresh temporary one. */
export function createDriver(
  pluginConfig: Record<string, unknown> = {},
  opts: { workspace?: string } = {},
): Driver {
  const workspace = opts.workspace ?? mkdtempSync(join(tmpdir(), "big-memory-plugin-"));
  const base = { sessionKey: SESSION, agentId: "main", workspaceDir: workspace, sessionId: "s-1" };
  const d: Driver = {
    workspace,
    reg: register(pluginConfig, workspace),
    async fire(hook, event, ctx = {}) {
      const handlers = d.reg.hooks.get(hook) ?? [];
      return Promise.all(handlers.map((h) => h(event, { ...base, ...ctx })));
    },
    async userTurn(text, ctx = {}) {
      const [result] = await d.fire(
        "before_prompt_build",
        { prompt: text, messages: [] },
        { trigger: "user", ...ctx },
      );
      const prepend = (result as { prependContext?: string } | undefined)?.prependContext;
      return prepend;
    },
    async tool(toolName, params, extra = {}) {
      await d.fire("after_tool_call", { toolName, params, ...extra }, { toolName });
    },
    async endTurn(ctx = {}) {
      await d.fire("agent_end", { messages: [], success: true }, { trigger: "user", ...ctx });
    },
    async command(args, ctx = {}) {
      const cmd = d.reg.commands.find((c) => c.name === "big-memory");
      if (cmd === undefined) throw new Error("no /big-memory command registered");
      const reply = (await cmd.handler({
        args,
        sessionKey: SESSION,
        agentId: "main",
        channel: "test",
        isAuthorizedSender: true,
        commandBody: `/big-memory ${args}`,
        config: {},
        ...ctx,
      })) as { text: string };
      return reply.text;
    },
    async callTool(name, params, ctx = {}) {
      for (const factory of d.reg.tools) {
        const tool = factory({ ...base, ...ctx }) as {
          name: string;
          execute(id: string, p: unknown): Promise<{ content: { text: string }[]; details: unknown }>;
        };
        if (tool.name === name) {
          const r = await tool.execute("call-1", params);
          return { text: r.content.map((c) => c.text).join("\n"), details: r.details };
        }
      }
      throw new Error(`no tool ${name}`);
    },
    async restart() {
      await stop(d.reg);
      d.reg = register(pluginConfig, workspace);
    },
    async dispose() {
      await stop(d.reg);
      if (opts.workspace === undefined) rmSync(workspace, { recursive: true, force: true });
    },
  };
  return d;
}
