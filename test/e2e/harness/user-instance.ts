/**
 * OpenClaw on the user's own configuration (for the demo's `--real` mode): an overlay config in a temp
 * directory `$include`s the user's config (`$OPENCLAW_CONFIG_PATH`, else `$OPENCLAW_STATE_DIR/openclaw.json`,
 * else `~/.openclaw/openclaw.json`), which is read and never written, and adds a throwaway workspace, local
 * plugins, debug file logs and, on request, forced compaction. HOME and the state dir stay the user's (their
 * credentials live there); turns run on a session key of their own, so the user's sessions are not touched.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import type { AgentTurnOptions, Instance } from "./instance.ts";
import type { OpenClawInstall } from "./openclaw-install.ts";
import { killGroup, type RunResult, runToCompletion } from "./processes.ts";

/** A running overlay on the user's config. */
export interface UserInstance {
  /** What the task helpers need: the workspace, turns on the instance's session key, config patches. */
  instance: Pick<Instance, "workspaceDir" | "runAgentTurn" | "updateConfig" | "root" | "env">;
  /** `agent:main:big-memory-demo-<UTC time>`. */
  sessionKey: string;
  logFile: string;
  /**
   * The strings of the session's trajectory export (`openclaw sessions export-trajectory`) that `keep`
   * accepts, in the bundle's order, without repeats: the prompts as submitted, prepended context included.
   */
  exportedStrings(keep: (text: string) => boolean): Promise<string[]>;
  /** Kills what is still running and removes the temp directory. */
  dispose(): Promise<void>;
}

/** The user's OpenClaw config file, or undefined when there is none. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const stateDir = env.OPENCLAW_STATE_DIR ?? path.join(env.HOME ?? homedir(), ".openclaw");
  const file = env.OPENCLAW_CONFIG_PATH ?? path.join(stateDir, "openclaw.json");
  return existsSync(file) ? file : undefined;
}

/** The parent environment without test-runner markers and OpenClaw overrides (the state dir is kept). */
function userEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("VITEST") || key.startsWith("JEST_") || key === "NODE_ENV" || key === "NODE_OPTIONS")
      continue;
    if (key.startsWith("OPENCLAW_") && key !== "OPENCLAW_STATE_DIR") continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** `agents.defaults.compaction` of a config patch, if it has one. */
function compactionOf(patch: Record<string, unknown>): Record<string, unknown> {
  const defaults: unknown = Reflect.get(Object(patch.agents), "defaults");
  const compaction: unknown = Reflect.get(Object(defaults), "compaction");
  return compaction === undefined ? {} : { compaction };
}

/**
 * Creates the overlay for `plugins` (local plugin specs as for the harness instance); throws when the user has
 * no OpenClaw config. `updateConfig` only takes `agents.defaults.compaction` from its patch.
 */
export async function createUserInstance(input: {
  install: OpenClawInstall;
  plugins: { dir: string; id: string; config?: Record<string, unknown> }[];
}): Promise<UserInstance> {
  const userConfig = userConfigPath();
  if (userConfig === undefined) {
    throw new Error("no OpenClaw config found ($OPENCLAW_CONFIG_PATH, or openclaw.json in ~/.openclaw)");
  }
  const { install, plugins } = input;
  const root = await mkdtemp(path.join(tmpdir(), "big-memory-demo-"));
  const workspaceDir = path.join(root, "workspace");
  const configPath = path.join(root, "openclaw.json");
  const logFile = path.join(root, "openclaw.log");
  await mkdir(workspaceDir, { recursive: true });
  const sessionKey = `agent:main:big-memory-demo-${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}`;
  const env = userEnv({
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_INCLUDE_ROOTS: path.dirname(userConfig),
    OPENCLAW_NO_AUTO_UPDATE: "1",
    NO_COLOR: "1",
    PATH: `${path.dirname(install.nodeBin)}${path.delimiter}${process.env.PATH ?? ""}`,
  });
  const updateConfig = async (patch: Record<string, unknown>): Promise<void> => {
    const overlay = {
      $include: [userConfig],
      logging: { file: logFile, level: "debug" },
      agents: { defaults: { workspace: workspaceDir, ...compactionOf(patch) } },
      plugins: {
        load: { paths: plugins.map((p) => p.dir) },
        entries: Object.fromEntries(
          plugins.map((p) => [
            p.id,
            { enabled: true, hooks: { allowConversationAccess: true }, config: p.config ?? {} },
          ]),
        ),
      },
    };
    await writeFile(configPath, `${JSON.stringify(overlay, null, 2)}\n`);
  };
  await updateConfig({});
  const children = new Set<ChildProcess>();
  const run = (args: readonly string[]): Promise<RunResult> =>
    runToCompletion(install.nodeBin, [install.openclawEntry, ...args], {
      env,
      cwd: root,
      children,
      timeoutMs: 300_000,
    });
  const turn = (message: string, options: AgentTurnOptions = {}): Promise<RunResult> =>
    run([
      "agent",
      "--local",
      "--agent",
      "main",
      "--session-key",
      options.sessionKey ?? sessionKey,
      "--message",
      message,
      "--json",
    ]);
  return {
    instance: { root, env, workspaceDir, updateConfig, runAgentTurn: turn },
    sessionKey,
    logFile,
    async exportedStrings(keep) {
      const name = `export-${Date.now()}`;
      const args = [
        "sessions",
        "export-trajectory",
        "--session-key",
        sessionKey,
        "--workspace",
        workspaceDir,
      ];
      const exported = await run([...args, "--output", name, "--json"]);
      if (exported.code !== 0) {
        throw new Error(`export-trajectory exited ${exported.code}: ${exported.stderr.slice(-1500)}`);
      }
      const dir = path.join(workspaceDir, ".openclaw", "trajectory-exports", name);
      const file = existsSync(path.join(dir, "prompts.json")) ? "prompts.json" : "events.jsonl";
      const text = await readFile(path.join(dir, file), "utf8");
      const strings: string[] = [];
      const collect = (value: unknown): void => {
        if (typeof value === "string") {
          if (keep(value)) strings.push(value);
        } else if (Array.isArray(value)) value.forEach(collect);
        else if (typeof value === "object" && value !== null) Object.values(value).forEach(collect);
      };
      for (const line of file === "prompts.json" ? [text] : text.split("\n")) {
        if (line.trim() !== "") collect(JSON.parse(line));
      }
      return [...new Set(strings)];
    },
    async dispose() {
      for (const child of children) killGroup(child, "SIGKILL");
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
