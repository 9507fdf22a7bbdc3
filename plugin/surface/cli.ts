import type { Command } from "commander";
import { EXIT, environmentLine, UsageError } from "./cli-args.ts";
import { cliScope, packageVersion } from "./cli-scope.ts";
import type { Style } from "./cli-text.ts";
import { forTerminal, jsonDocument } from "./terminal.ts";

/**
 * The `big-memory` command line (also mounted as `openclaw big-memory`). Contract (references/cli-contract.md):
 * `big-memory <command> [--dir WORKSPACE] [--json]`; exit 0 on success, 1 when nothing was found,
 * 2 on a usage error (3 when the disk fails us); with `--json`, stdout is one JSON document.
 *
 * Commands are declared in groups, each in its own module with what it needs at run time. A run loads
 * only the group of the command it names (all of them for help or an unknown command), so a `save`
 * started by a script does not load the search engine or the markdown parser. `big-memory --version`
 * alone loads no group and no option parser: it reads package.json and prints.
 */

/** Everything the CLI touches outside itself, so it runs in-process in tests. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Standard input: bytes (checked as strict UTF-8) or, in tests, text. */
  readStdin(): Promise<string | Uint8Array>;
  color: boolean;
  /**
   * The terminal's width, which tables fit; undefined when stdout is not a terminal (a file, a pipe): whole
   * lines, and JSON on one line.
   */
  columns?: number | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
  now(): Date;
  /** The workspace to use when neither --dir nor the current folder names one (OpenClaw's configured one). */
  defaultWorkspace?: string | undefined;
}

/** What every group of commands gets from the program that declares it. */
export interface CommandContext {
  io: CliIO;
  setExit(code: number): void;
  /** Adds the options every command takes (`--dir`, `--json`). */
  common(cmd: Command): Command;
  style: Style;
  /** Prints `doc` as JSON when `json`, else the text for people. */
  out(json: boolean | undefined, doc: unknown, text: () => string): void;
}

/** A group of commands: the names it declares and how to load its declarations. */
export interface CommandGroup {
  names: readonly string[];
  load(): Promise<(root: Command, context: CommandContext) => void>;
}

/** Every group, in the order `--help` lists them. */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  {
    names: ["list", "show", "recall", "status", "search", "reindex"],
    load: async () => {
      const { defineReadCommands } = await import("./cli-read.ts");
      return (root, c) => defineReadCommands(root, c.io, c.setExit, c.common);
    },
  },
  {
    names: ["verify", "delete", "archive", "scrub"],
    load: async () => (await import("./cli-manage.ts")).defineManageCommands,
  },
  { names: ["save"], load: async () => (await import("./cli-save.ts")).defineSave },
  { names: ["repair"], load: async () => (await import("./cli-repair.ts")).defineRepair },
  { names: ["view"], load: async () => (await import("./view-cli.ts")).defineView },
  {
    names: ["doctor"],
    load: async () => {
      const { defineDoctor } = await import("./cli-doctor.ts");
      return (root, c) => defineDoctor(root, c.io, c.style, c.setExit);
    },
  },
];

/**
 * The groups a run needs: the one declaring the command named first in `argv`; none for `--version` alone
 * (the program answers it); else all (help, an unknown word).
 */
export function groupsFor(argv: readonly string[]): readonly CommandGroup[] {
  const named = argv.find((arg) => !arg.startsWith("-"));
  if (named === undefined && argv.includes("--version") && !argv.some((a) => a === "--help" || a === "-h"))
    return [];
  const group = COMMAND_GROUPS.find((g) => named !== undefined && g.names.includes(named));
  return group === undefined ? COMMAND_GROUPS : [group];
}

/**
 * Runs the CLI with `argv` (without the node and script paths) and returns the exit code. Everything it
 * prints, to stdout and stderr, shows control characters instead of letting the terminal obey them
 * (terminal.ts): a snapshot's text cannot reach the terminal raw.
 */
export async function runCli(argv: string[], raw: CliIO): Promise<number> {
  const io: CliIO = {
    ...raw,
    stdout: (text) => raw.stdout(forTerminal(text, raw.color)),
    stderr: (text) => raw.stderr(forTerminal(text, raw.color)),
  };
  if (argv.length === 1 && argv[0] === "--version") {
    try {
      io.stdout(`${packageVersion()}\n`);
      return EXIT.ok;
    } catch (error) {
      io.stderr(`${environmentLine(error)}\n`);
      return EXIT.failure;
    }
  }
  const groups = groupsFor(argv);
  const [{ Command, CommanderError }, { styleFor }] = await Promise.all([
    import("commander"),
    import("./cli-text.ts"),
  ]);
  let code: number = EXIT.ok;
  // Commander's own errors quote what was typed (`unknown option '--token=...'`): held, then printed
  // redacted, so a secret typed in a wrong option is not echoed.
  let commanderErr = "";
  const program = new Command("big-memory")
    .description("Task snapshots that survive context compaction: list, search, show, verify, save; doctor.")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => {
        commanderErr += s;
      },
    })
    .showHelpAfterError("(run big-memory --help for usage)");
  const scope = cliScope(io);
  const context: CommandContext = {
    io: scope.io,
    setExit: (c) => {
      code = c;
    },
    common: (cmd) =>
      cmd
        .option("--dir <workspace>", "the workspace folder holding memory/")
        .option("--json", "print one JSON document"),
    style: styleFor(io.color),
    out: (json, doc, text) =>
      io.stdout(json === true ? jsonDocument(doc, io.columns !== undefined) : `${text()}\n`),
  };
  try {
    for (const group of groups) (await group.load())(program, context);
    scope.apply(program);
    for (const cmd of program.commands) cmd.exitOverride();
    await program.parseAsync(argv, { from: "user" });
    if (commanderErr !== "") io.stderr((await import("../snapshot/redact.ts")).redact(commanderErr).text);
    scope.finish(code, argv);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (commanderErr !== "") {
        const { redact } = await import("../snapshot/redact.ts");
        io.stderr(redact(commanderErr).text);
      }
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof UsageError) {
      io.stderr(`big-memory: ${await error.text()}\n`);
      return EXIT.usage;
    }
    io.stderr(`${environmentLine(error)}\n`);
    return EXIT.failure;
  }
}
