/**
 * A throwaway OpenClaw instance in a temp directory (its own HOME, state dir, config, log file and workspace)
 * wired to a fake model, with helpers to run `openclaw agent --local` turns, any CLI command, and a gateway.
 * Every child process runs in its own process group with a timeout and is killed by `dispose()` or at exit.
 */
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ChatExchange, createGatewayControl, type GatewayInfo, type RunOptions } from "./gateway.ts";
import type { OpenClawInstall } from "./openclaw-install.ts";
import { killGroup, type RunResult, runToCompletion, stopChild } from "./processes.ts";

export type { ChatExchange, GatewayInfo, RunOptions } from "./gateway.ts";
export type { RunResult } from "./processes.ts";

/** A plugin to load from a local directory (TypeScript is compiled by OpenClaw through jiti). */
export interface PluginSpec {
  /** Absolute path of the plugin directory (holds package.json and openclaw.plugin.json). */
  dir: string;
  /** The manifest `id`, used as the `plugins.entries` key. */
  id: string;
  /** Value of `plugins.entries.<id>.config`. */
  config?: Record<string, unknown>;
}

/** Sizes accepted by OpenClaw's byte settings, e.g. `"4kb"` or a number of bytes. */
export type ByteSize = string | number;

/** The instance's directories, for options that need to point inside them. */
export interface InstanceLayout {
  root: string;
  home: string;
  stateDir: string;
  workspaceDir: string;
}

export interface InstanceOptions {
  install: OpenClawInstall;
  /** Base URL of the fake model (`FakeModel.url`), e.g. `http://127.0.0.1:PORT/v1`. */
  modelUrl: string;
  /** Plugins to load, or a function of the layout (e.g. to put a log file inside the temp dir). */
  plugins?: PluginSpec[] | ((layout: InstanceLayout) => PluginSpec[]);
  /** Forces compaction (`maxActiveTranscriptBytes`) and the memory flush (`forceFlushTranscriptBytes`). */
  compaction?: CompactionForcing;
  /** Deep-merged into the generated config last (objects merge, arrays and scalars replace). */
  config?: Record<string, unknown>;
  /** Default per-command timeout in ms (default 240 000). */
  timeoutMs?: number;
  /** Variables set in every OpenClaw process's environment after the isolation ones (e.g. `NODE_OPTIONS`). */
  env?: Record<string, string>;
}

export interface CompactionForcing {
  maxActiveTranscriptBytes?: ByteSize;
  forceFlushTranscriptBytes?: ByteSize;
}

export interface AgentTurnOptions extends RunOptions {
  /** Agent id (default `main`). */
  agent?: string;
  sessionId?: string;
  sessionKey?: string;
}

export interface Instance {
  root: string;
  home: string;
  stateDir: string;
  configPath: string;
  logFile: string;
  workspaceDir: string;
  env: NodeJS.ProcessEnv;
  /** The config as last written or read back by `updateConfig`. */
  readonly config: Record<string, unknown>;
  /**
   * Deep-merges `patch` into the config file as it is on disk now (CLI commands such as `plugins install` or
   * `config set` rewrite it); takes effect for the next process started.
   */
  updateConfig(patch: Record<string, unknown>): Promise<void>;
  /** `openclaw agent --local --agent main --message <message> --json`. */
  runAgentTurn(message: string, options?: AgentTurnOptions): Promise<RunResult>;
  /** `openclaw config validate`. */
  validateConfig(options?: RunOptions): Promise<RunResult>;
  /** Any `openclaw` CLI command, e.g. `["plugins", "inspect", "probe", "--runtime", "--json"]`. */
  cli(args: readonly string[], options?: RunOptions): Promise<RunResult>;
  /** Starts `openclaw gateway run` on a free loopback port with token auth and waits until `health` answers. */
  startGateway(options?: RunOptions): Promise<GatewayInfo>;
  /** `openclaw gateway call <method> --json`; rejects when the call fails or prints no JSON. */
  gatewayCall(method: string, params?: Record<string, unknown>, options?: RunOptions): Promise<unknown>;
  /** `chat.send`, then polls `chat.history` until an assistant message newer than the send appears. */
  chatSend(sessionKey: string, message: string, options?: RunOptions): Promise<ChatExchange>;
  /** Messages of `chat.history` for a session key. */
  chatHistory(sessionKey: string): Promise<Record<string, unknown>[]>;
  /** Sends SIGTERM to the gateway's process group, SIGKILL after 10 s. */
  stopGateway(): Promise<void>;
  /** The gateway's captured stdout and stderr so far. */
  gatewayOutput(): string;
  /** Kills every child process left and removes the temp directory. */
  dispose(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 240_000;

/** Creates the temp directory layout and config; nothing is spawned until a method is called. */
export async function createInstance(options: InstanceOptions): Promise<Instance> {
  const root = await mkdtemp(path.join(tmpdir(), "openclaw-e2e-"));
  const home = path.join(root, "home");
  const stateDir = path.join(root, "state");
  const workspaceDir = path.join(root, "workspace");
  const configPath = path.join(root, "openclaw.json");
  const logFile = path.join(root, "logs", "openclaw.log");
  await Promise.all(
    [home, stateDir, workspaceDir, path.dirname(logFile)].map((dir) => mkdir(dir, { recursive: true })),
  );
  const { install } = options;
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const env = { ...instanceEnv({ home, stateDir, configPath, nodeBin: install.nodeBin }), ...options.env };
  const layout: InstanceLayout = { root, home, stateDir, workspaceDir };
  const plugins = typeof options.plugins === "function" ? options.plugins(layout) : (options.plugins ?? []);
  let config = deepMerge(baseConfig({ options, plugins, workspaceDir, logFile }), options.config ?? {});
  await writeConfig(configPath, config);

  const children = new Set<ChildProcess>();
  const killAll = (): void => {
    for (const child of children) killGroup(child, "SIGKILL");
  };
  process.on("exit", killAll);
  const run = (args: readonly string[], runOptions: RunOptions = {}): Promise<RunResult> =>
    runToCompletion(install.nodeBin, [install.openclawEntry, ...args], {
      env,
      cwd: root,
      children,
      timeoutMs: runOptions.timeoutMs ?? defaultTimeout,
    });

  const updateConfig = async (patch: Record<string, unknown>): Promise<void> => {
    const current = await readConfig(configPath);
    if (!isPlainObject(current)) throw new Error(`instance: ${configPath}: expected a JSON object`);
    config = deepMerge(current, patch);
    await writeConfig(configPath, config);
  };
  const gateway = createGatewayControl({ install, env, cwd: root, children, run, configure: updateConfig });

  return {
    root,
    home,
    stateDir,
    configPath,
    logFile,
    workspaceDir,
    env,
    get config() {
      return config;
    },
    updateConfig,
    runAgentTurn(message, turnOptions = {}) {
      const args = [
        "agent",
        "--local",
        "--agent",
        turnOptions.agent ?? "main",
        "--message",
        message,
        "--json",
      ];
      if (turnOptions.sessionId !== undefined) args.push("--session-id", turnOptions.sessionId);
      if (turnOptions.sessionKey !== undefined) args.push("--session-key", turnOptions.sessionKey);
      return run(args, turnOptions);
    },
    validateConfig: (runOptions) => run(["config", "validate"], runOptions),
    cli: (args, runOptions) => run(args, runOptions),
    startGateway: (startOptions) => gateway.start(startOptions),
    gatewayCall: (method, params, callOptions) => gateway.call(method, params, callOptions),
    chatSend: (sessionKey, message, sendOptions) => gateway.chatSend(sessionKey, message, sendOptions),
    chatHistory: (sessionKey) => gateway.chatHistory(sessionKey),
    stopGateway: () => gateway.stop(),
    gatewayOutput: () => gateway.output(),
    async dispose() {
      await gateway.stop();
      await Promise.all([...children].map((child) => stopChild(child, 5_000)));
      process.off("exit", killAll);
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** The generated config before `options.config` is merged in. */
function baseConfig(input: {
  options: InstanceOptions;
  plugins: PluginSpec[];
  workspaceDir: string;
  logFile: string;
}): Record<string, unknown> {
  const { options, plugins, workspaceDir, logFile } = input;
  const compaction: Record<string, unknown> = {};
  if (options.compaction?.maxActiveTranscriptBytes !== undefined) {
    compaction.maxActiveTranscriptBytes = options.compaction.maxActiveTranscriptBytes;
  }
  if (options.compaction?.forceFlushTranscriptBytes !== undefined) {
    compaction.memoryFlush = { forceFlushTranscriptBytes: options.compaction.forceFlushTranscriptBytes };
  }
  return {
    logging: { file: logFile },
    update: { checkOnStart: false },
    models: {
      providers: {
        fake: {
          baseUrl: options.modelUrl,
          api: "openai-completions",
          apiKey: "x",
          models: [
            { id: "fake-model", name: "Fake", input: ["text"], contextWindow: 128_000, maxTokens: 4096 },
          ],
        },
      },
    },
    agents: {
      defaults: {
        model: { primary: "fake/fake-model" },
        workspace: workspaceDir,
        ...(Object.keys(compaction).length > 0 ? { compaction } : {}),
      },
    },
    tools: { toolSearch: false },
    plugins: {
      // No `load` key at all without local plugins (an installed package must load without one).
      ...(plugins.length > 0 ? { load: { paths: plugins.map((plugin) => plugin.dir) } } : {}),
      entries: Object.fromEntries(
        plugins.map((plugin) => [
          plugin.id,
          { enabled: true, hooks: { allowConversationAccess: true }, config: plugin.config ?? {} },
        ]),
      ),
    },
  };
}

/**
 * Parent variables a child must not inherit: OpenClaw's own settings, and the test runner's markers
 * (OpenClaw silences its console and stdout when it sees VITEST or NODE_ENV=test, so `--json` prints nothing).
 */
function inherited(key: string): boolean {
  if (key.startsWith("OPENCLAW_") || key.startsWith("VITEST") || key.startsWith("JEST_")) return false;
  return key !== "NODE_ENV" && key !== "TEST" && key !== "NODE_OPTIONS";
}

/** The parent environment without {@link inherited} exclusions, plus the instance's isolation variables. */
function instanceEnv(input: {
  home: string;
  stateDir: string;
  configPath: string;
  nodeBin: string;
}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (inherited(key)) env[key] = value;
  }
  return {
    ...env,
    HOME: input.home,
    OPENCLAW_STATE_DIR: input.stateDir,
    OPENCLAW_CONFIG_PATH: input.configPath,
    // Keep the run offline and in-process: no update checks, mDNS, channels, respawns or login-shell probes.
    OPENCLAW_NO_AUTO_UPDATE: "1",
    OPENCLAW_DISABLE_BONJOUR: "1",
    OPENCLAW_SKIP_CHANNELS: "1",
    OPENCLAW_NO_RESPAWN: "1",
    OPENCLAW_EXEC_SHELL_SNAPSHOT: "0",
    NO_COLOR: "1",
    // Child processes OpenClaw spawns (exec tool, workers) get the same Node first on PATH.
    PATH: `${path.dirname(input.nodeBin)}${path.delimiter}${process.env.PATH ?? ""}`,
  };
}

async function writeConfig(configPath: string, config: Record<string, unknown>): Promise<void> {
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);
}

/** Reads the config file back (e.g. after a CLI command rewrote it). */
export async function readConfig(configPath: string): Promise<unknown> {
  const config: unknown = JSON.parse(await readFile(configPath, "utf8"));
  return config;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Recursive merge: plain objects merge key by key; arrays and scalars from `patch` replace. */
export function deepMerge(
  base: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}
