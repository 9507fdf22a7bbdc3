import type { Command } from "commander";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { defineCommands } from "./cli.ts";
import { workspaceForAgent } from "./context.ts";

/** Mounts the `big-memory` CLI under `openclaw big-memory`. */
export function registerBigMemoryCli(api: OpenClawPluginApi): void {
  api.registerCli(
    ({
      program,
      config,
      workspaceDir,
    }: {
      program: Command;
      config: unknown;
      workspaceDir?: string | undefined;
    }) => {
      const root = program
        .command("big-memory")
        .description("Task snapshots: list, search, show, verify, save, status.");
      defineCommands(
        root,
        {
          stdout: (t) => process.stdout.write(t),
          stderr: (t) => process.stderr.write(t),
          readStdin: async () => {
            const chunks: Buffer[] = [];
            for await (const c of process.stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : c);
            return Buffer.concat(chunks).toString("utf8");
          },
          color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
          cwd: process.cwd(),
          env: process.env,
          now: () => new Date(),
          defaultWorkspace: workspaceDir ?? workspaceForAgent(config, undefined, process.env),
        },
        (code) => {
          process.exitCode = code;
        },
      );
    },
    {
      descriptors: [
        { name: "big-memory", description: "Task snapshots that survive compaction", hasSubcommands: true },
      ],
    },
  );
}
