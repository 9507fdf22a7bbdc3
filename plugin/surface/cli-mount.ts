import type { Command } from "commander";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { type CliIO, runCli } from "./cli.ts";

/**
 * Mounts the `big-memory` CLI under `openclaw big-memory`. The arguments after `big-memory` go unparsed to the
 * same `runCli` the `big-memory` executable runs, so both behave alike: the same help, `--version`, JSON and
 * exit codes (0 found, 1 nothing found, 2 usage error, 3 environment failure), which OpenClaw's own option
 * parsing (exit 1 on any error) would otherwise replace.
 */
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
      program
        .command("big-memory")
        .description("Task snapshots that survive compaction: list, search, show, verify, save, doctor.")
        .helpOption(false)
        .allowUnknownOption(true)
        .allowExcessArguments(true)
        .passThroughOptions(true)
        .argument("[args...]", "a big-memory command and its options (big-memory --help lists them)")
        .action(async (args: string[] | undefined) => {
          const io: CliIO & { openclawConfig: unknown } = {
            stdout: (t) => process.stdout.write(t),
            stderr: (t) => process.stderr.write(t),
            readStdin: async () => {
              if (process.stdin.isTTY === true) return new Uint8Array();
              const chunks: Buffer[] = [];
              for await (const c of process.stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : c);
              return Buffer.concat(chunks);
            },
            color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
            columns: process.stdout.isTTY === true ? process.stdout.columns : undefined,
            cwd: process.cwd(),
            env: process.env,
            now: () => new Date(),
            defaultWorkspace: workspaceDir,
            openclawConfig: config,
          };
          process.exitCode = await runCli(args ?? [], io);
        });
    },
    {
      descriptors: [
        { name: "big-memory", description: "Task snapshots that survive compaction", hasSubcommands: true },
      ],
    },
  );
}
