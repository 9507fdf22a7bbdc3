import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runCli } from "../../plugin/surface/cli.ts";

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

/** Runs the CLI in-process and captures what it printed. */
export async function cli(
  argv: string[],
  opts: { stdin?: string | Uint8Array; now?: Date; cwd?: string; env?: NodeJS.ProcessEnv } = {},
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
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env ?? { HOME: "/nonexistent-home" },
    now: () => opts.now ?? new Date("2026-11-22T12:00:00Z"),
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

/** Runs the real `bin/big-memory.js` in a child process. */
export function binCli(argv: string[], stdin = ""): { code: number | null; stdout: string; stderr: string } {
  const bin = new URL("../../bin/big-memory.js", import.meta.url).pathname;
  const r = spawnSync(process.execPath, [bin, ...argv], {
    input: stdin,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
