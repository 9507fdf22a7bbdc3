import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach } from "vitest";
import { runCli } from "../../plugin/surface/cli.ts";
import { UsageError } from "../../plugin/surface/cli-args.ts";

/** A daily log in the original skill's hand-written format: two blocks, 2026-11-20-01 and -02. */
export const SKILL_LOG = readFileSync(
  new URL("../snapshot/fixtures/skill-format.md", import.meta.url),
  "utf8",
);

/** A typical `save` input: every section but code, blockers and extra. */
export const SAVE_INPUT = {
  goal: "Fix ERR_DUPLICATE_KEY in the OAuth callback so second logins work",
  state: { phase: "debugging", branch: "fix/oauth-dup", blocked: "no" },
  files: [{ path: "src/auth/oauth-callback.ts", note: "dedupe sessions" }],
  decisions: [{ text: "Unique index on (user_id, device_id)", rationale: "the race is in the database" }],
  names: [{ label: "Error", value: "ERR_DUPLICATE_KEY" }],
  next: ["Write the migration", "Re-run the login e2e"],
};

/** A throwaway workspace folder; `files` maps workspace-relative paths to their text. */
export function tempWorkspace(files: Record<string, string> = {}): { dir: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), "big-memory-ws-"));
  mkdirSync(join(dir, "memory"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * For one test file: a maker of throwaway workspaces (see `tempWorkspace`), each removed after the test that
 * made it. Call at the top level of the file.
 */
export function workspaces(): (files?: Record<string, string>) => string {
  const made: (() => void)[] = [];
  afterEach(() => {
    for (const dispose of made.splice(0)) dispose();
  });
  return (files = {}) => {
    const ws = tempWorkspace(files);
    made.push(ws.dispose);
    return ws.dir;
  };
}

/** Runs the CLI in-process and captures what it printed. */
export async function cli(
  argv: string[],
  opts: {
    stdin?: string | Uint8Array;
    now?: Date;
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    /** A terminal this wide (default: none, as when the output goes to a file). */
    columns?: number;
  } = {},
): Promise<{ code: number; stdout: string; stderr: string; json(): unknown }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    readStdin: async () => opts.stdin ?? "",
    color: false,
    columns: opts.columns,
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env ?? { HOME: "/nonexistent-home" },
    now: () => opts.now ?? new Date("2026-11-22T12:00:00Z"),
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

/** The executable's module, run by `bin/big-memory.js` in a checkout. */
export const CLI_MAIN = new URL("../../plugin/surface/cli-main.ts", import.meta.url).pathname;

/** Runs `plugin/surface/cli-main.ts` in a child process, without colour, and waits for it to exit. */
export function processCli(
  argv: string[],
  opts: { stdin?: string | Uint8Array; env?: NodeJS.ProcessEnv } = {},
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI_MAIN, ...argv], {
    input: opts.stdin ?? "",
    encoding: "utf8",
    env: opts.env ?? { ...process.env, NO_COLOR: "1" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The UsageError `run` throws, as the CLI prints it (`text()`, quoting what was typed), beside its `message`. */
export async function thrownUsage(run: () => unknown): Promise<{ text: string; message: string }> {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  if (!(thrown instanceof UsageError)) throw new Error(`expected a UsageError, received ${String(thrown)}`);
  return { text: await thrown.text(), message: thrown.message };
}
