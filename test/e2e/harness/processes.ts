/**
 * Child processes for the e2e harness: each runs in its own process group (so a CLI's own children die with
 * it), has a timeout, and is tracked in a caller-owned set so that everything left can be killed at the end.
 */
import { type ChildProcess, spawn } from "node:child_process";

/** Outcome of one CLI child process. */
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  /** stdout parsed as JSON (or its last JSON object/array) when it parses. */
  json?: unknown;
}

/** Where and how to spawn; `children` receives the child while it runs. */
export interface SpawnOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  children: Set<ChildProcess>;
}

/** Spawns `command` as the leader of a new process group with piped stdout/stderr, tracked in `children`. */
export function spawnGrouped(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  options.children.add(child);
  child.once("exit", () => options.children.delete(child));
  return child;
}

/**
 * Runs a command to completion and collects its output. After `timeoutMs` the group gets SIGTERM, then SIGKILL
 * 5 s later, and the result says `timedOut`. When the child closes, whatever is left in its group is SIGKILLed.
 */
export function runToCompletion(
  command: string,
  args: readonly string[],
  options: SpawnOptions & { timeoutMs: number },
): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawnGrouped(command, args, options);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      timedOut = true;
      void stopChild(child, 5_000);
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      options.children.delete(child);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      // The group may still hold grandchildren (e.g. a tool's shell): never leave them running.
      killGroup(child, "SIGKILL");
      const result: RunResult = { code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut };
      const json = parseJsonOutput(stdout);
      resolve(json === undefined ? result : { ...result, json });
    });
  });
}

/** Parses stdout as JSON; failing that, the last line-initial `{` or `[` block that parses. */
export function parseJsonOutput(stdout: string): unknown {
  const text = stdout.trim();
  if (text === "") return undefined;
  try {
    const whole: unknown = JSON.parse(text);
    return whole;
  } catch {
    const lines = text.split("\n");
    for (let i = lines.length - 1; i >= 0; i--) {
      const first = lines[i]?.trimStart()[0];
      if (first !== "{" && first !== "[") continue;
      try {
        const tail: unknown = JSON.parse(lines.slice(i).join("\n"));
        return tail;
      } catch {
        // Not the start of the JSON document; keep looking further up.
      }
    }
    return undefined;
  }
}

/** Signals the child's whole process group; a group that is already gone is ignored. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** SIGTERM to the child's process group, SIGKILL after `graceMs`; resolves once the child has exited. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    killGroup(child, "SIGTERM");
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }
  killGroup(child, "SIGKILL");
}
