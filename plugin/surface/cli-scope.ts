import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { EXIT } from "./cli-args.ts";
import type { WorkspaceChoice, WorkspaceIO } from "./cli-workspace.ts";

/**
 * What every `big-memory` command shares beyond its own options: `--version`, `--agent ID` (the agent whose
 * workspace to use, also on commands that did not declare it), and a "nothing found" that names the
 * workspace folder read. Applied to a program after its commands are defined.
 */

/** The package version, read from package.json (two folders up from both plugin/surface/ and dist/surface/). */
export function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  const version = typeof pkg === "object" && pkg !== null ? Reflect.get(pkg, "version") : undefined;
  return typeof version === "string" ? version : "unknown";
}

/** The CLI's IO with the agent named on the command line and a hook that learns the workspace chosen. */
export type ScopedIO<T extends WorkspaceIO> = T & {
  agent?: string | undefined;
  onWorkspace?: (choice: WorkspaceChoice) => void;
};

const AGENT_HELP = "the agent whose workspace to use, as OpenClaw's config sets it";

/**
 * The shared parts of a `big-memory` program: `io` is the IO to give its commands (it carries the parsed
 * `--agent` to workspace resolution); `apply(program)`, once the commands are defined, adds `--version` and
 * `--agent <id>` to each command that lacks it; `finish`, for a run that found nothing (exit 1) and printed
 * for people, writes to stderr the workspace folder read and why that one.
 */
export function cliScope<T extends WorkspaceIO & { stderr(text: string): void }>(
  io: T,
): { io: ScopedIO<T>; apply(program: Command): void; finish(code: number, argv: readonly string[]): void } {
  let chosen: WorkspaceChoice | undefined;
  const scoped: ScopedIO<T> = {
    ...io,
    onWorkspace: (choice) => {
      chosen = choice;
    },
  };
  return {
    io: scoped,
    apply(program) {
      program.version(packageVersion(), "--version", "print the version");
      for (const cmd of program.commands) {
        if (!cmd.options.some((o) => o.long === "--agent")) cmd.option("--agent <id>", AGENT_HELP);
      }
      program.hook("preAction", (_program, action) => {
        const agent: unknown = action.opts().agent;
        scoped.agent = typeof agent === "string" ? agent : undefined;
      });
    },
    finish(code, argv) {
      if (code !== EXIT.notFound || chosen === undefined || argv.includes("--json")) return;
      io.stderr(`big-memory: read the workspace ${chosen.dir} (${chosen.source})\n`);
    },
  };
}
