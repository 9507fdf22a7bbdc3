import { Command, CommanderError } from "commander";
import { danglingClaims, readClaims } from "../search/claims.ts";
import { contentFromInput } from "../snapshot/input.ts";
import { newestOfName } from "../snapshot/lifecycle.ts";
import { nameProblem } from "../snapshot/naming.ts";
import { Trigger } from "../snapshot/snapshot.ts";
import { timeZoneProblem } from "../snapshot/time.ts";
import { decodeUtf8Strict } from "../snapshot/utf8.ts";
import { archiveBefore } from "../store/archive.ts";
import { isDailyLogDate } from "../store/daily-log.ts";
import { readAllSnapshots, saveSnapshot, tombstone } from "../store/snapshots.ts";
import { type CommonOptions, EXIT, environmentLine, resolveWorkspace, UsageError } from "./cli-args.ts";
import { defineDoctor } from "./cli-doctor.ts";
import { defineReadCommands } from "./cli-read.ts";
import { cliScope } from "./cli-scope.ts";
import { kindsText, runScrub, scrubText } from "./cli-scrub.ts";
import { styleFor } from "./cli-text.ts";

/**
 * The `big-memory` command line (also mounted as `openclaw big-memory`). Contract (DESIGN.md):
 * `big-memory <command> [--dir WORKSPACE] [--json]`; exit 0 on success, 1 when nothing was found,
 * 2 on a usage error (3 when the disk fails us); with `--json`, stdout is one JSON document.
 */

/** Everything the CLI touches outside itself, so it runs in-process in tests. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Standard input: bytes (checked as strict UTF-8) or, in tests, text. */
  readStdin(): Promise<string | Uint8Array>;
  color: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
  now(): Date;
  /** The workspace to use when neither --dir nor the current folder names one (OpenClaw's configured one). */
  defaultWorkspace?: string | undefined;
}

/** Attaches the subcommands to `root` (the bin's program, or `openclaw big-memory`). */
export function defineCommands(root: Command, io: CliIO, setExit: (code: number) => void): void {
  const style = styleFor(io.color);
  const out = (json: boolean | undefined, doc: unknown, text: () => string) =>
    io.stdout(json === true ? `${JSON.stringify(doc, null, 2)}\n` : `${text()}\n`);
  const common = (cmd: Command) =>
    cmd
      .option("--dir <workspace>", "the workspace folder holding memory/")
      .option("--json", "print one JSON document");

  defineReadCommands(root, io, setExit, common);

  common(root.command("verify"))
    .description("check every snapshot: checksums, torn blocks, versions, duplicate ids")
    .action(async (o: CommonOptions) => {
      const workspaceDir = resolveWorkspace(o.dir, io);
      const ws = await readAllSnapshots(workspaceDir);
      const claims = await readClaims(workspaceDir);
      const diagnostics = [
        ...ws.diagnostics,
        ...claims.problems,
        ...danglingClaims(claims.claims, ws.snapshots),
      ];
      const problems = [
        ...ws.snapshots
          .filter((s) => s.verified === false)
          .map((s) => ({
            id: s.snapshot.id as string | null,
            file: s.file,
            line: s.line,
            problem:
              s.checksum === null
                ? "checksum line removed: the block carries big-memory's own metadata (a trigger other than flush, or a tombstone) but no checksum"
                : "checksum mismatch: the block was modified after it was written",
          })),
        ...diagnostics.map((d) => ({
          id: d.id ?? /snapshot (?:id )?(\d{4}-\d{2}-\d{2}-\d{2,})/.exec(d.message)?.[1] ?? null,
          file: d.file,
          line: d.line,
          problem: d.message,
        })),
      ].sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
      const ok = problems.length === 0;
      out(o.json, { ok, checked: ws.snapshots.length, problems }, () =>
        ok
          ? style.green(`ok: ${ws.snapshots.length} snapshots checked in ${ws.files} daily logs, no problems`)
          : [
              style.red(
                `${problems.length} problem${problems.length === 1 ? "" : "s"} in ${ws.snapshots.length} snapshots checked:`,
              ),
              ...problems.map((p) => `  ${p.file}:${p.line}  ${p.id ?? "-"}  ${p.problem}`),
            ].join("\n"),
      );
      setExit(ok ? EXIT.ok : EXIT.notFound);
    });

  common(root.command("delete"))
    .description("delete a checkpoint name (appends a tombstone; the history stays in the log)")
    .argument("<name>", "the checkpoint name")
    .option("--session <key>", "session key to attribute the deletion to")
    .action(async (name: string, o: CommonOptions & { session?: string }) => {
      const workspaceDir = resolveWorkspace(o.dir, io);
      const ws = await readAllSnapshots(workspaceDir);
      if (newestOfName(ws.snapshots, name) === undefined) {
        out(o.json, { deleted: null }, () => `No live checkpoint named "${name}".`);
        setExit(EXIT.notFound);
        return;
      }
      const saved = await tombstone({ workspaceDir, name, session: o.session ?? null, now: io.now() });
      out(
        o.json,
        { deleted: name, id: saved.id, file: saved.file, line: saved.line },
        () =>
          `deleted checkpoint ${name} (tombstone ${saved.id} in ${saved.file}:${saved.line}; list --all shows its history)`,
      );
      setExit(EXIT.ok);
    });

  common(root.command("archive"))
    .description(
      "move the snapshot blocks of daily logs older than DATE into memory/.big-memory-archive/ (verified first)",
    )
    .requiredOption("--before <date>", "YYYY-MM-DD: logs dated before this day are archived")
    .action(async (o: CommonOptions & { before: string }) => {
      if (!isDailyLogDate(o.before))
        throw new UsageError(`--before expects a date YYYY-MM-DD, received "${o.before}"`);
      const result = await archiveBefore(resolveWorkspace(o.dir, io), o.before);
      out(o.json, result, () =>
        [
          result.archived.length === 0 ? `Nothing to archive before ${o.before}.` : "",
          ...result.archived.map(
            (a) =>
              `${a.file}: ${a.snapshots} snapshot${a.snapshots === 1 ? "" : "s"} moved to ${a.archive}${a.removed ? " (the log held nothing else and was removed)" : ""}`,
          ),
          ...result.problems.map((p) => style.yellow(`${p.file}: ${p.problem}`)),
        ]
          .filter((l) => l !== "")
          .join("\n"),
      );
      setExit(result.archived.length === 0 ? EXIT.notFound : EXIT.ok);
    });

  common(root.command("scrub"))
    .description(
      "redact big-memory's own files written by older versions and make them private; --logs also redacts the daily logs (backup kept)",
    )
    .option("--logs", "also redact the daily logs and archives under memory/, after a verified backup")
    .action(async (o: CommonOptions & { logs?: boolean }) => {
      const report = await runScrub(resolveWorkspace(o.dir, io), { logs: o.logs === true, now: io.now() });
      out(o.json, report, () => scrubText(report, style));
      setExit(EXIT.ok);
    });

  common(root.command("save"))
    .description("save a snapshot read as JSON from stdin")
    .option("--name <name>", "checkpoint name (kebab-case, 3-64 characters)")
    .option("--session <key>", "session key to attribute the snapshot to")
    .option("--agent <id>", "agent id to attribute the snapshot to")
    .option("--trigger <trigger>", `what caused it: ${Trigger.options.join(", ")}`, "manual")
    .option("--time-zone <zone>", "IANA time zone for the daily log's date (default: this machine's)")
    .action(
      async (
        o: CommonOptions & {
          name?: string;
          session?: string;
          agent?: string;
          trigger: string;
          timeZone?: string;
        },
      ) => {
        const workspaceDir = resolveWorkspace(o.dir, io);
        const trigger = Trigger.safeParse(o.trigger);
        if (!trigger.success)
          throw new UsageError(
            `--trigger expects one of ${Trigger.options.join(", ")}, received "${o.trigger}"`,
          );
        if (o.timeZone !== undefined) {
          const problem = timeZoneProblem(o.timeZone);
          if (problem !== null) throw new UsageError(`--time-zone: ${problem}`);
        }
        const bytes = await io.readStdin();
        const decoded = decodeUtf8Strict(typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes);
        if (!decoded.ok) {
          throw new UsageError(`stdin is not valid UTF-8 text: ${decoded.problem} (nothing was saved)`);
        }
        const raw = decoded.text;
        let input: unknown;
        try {
          input = JSON.parse(raw);
        } catch (error) {
          throw new UsageError(
            `stdin is not valid JSON (${error instanceof Error ? error.message : String(error)}); expected one snapshot object such as {"goal": "...", "next": ["..."]}`,
          );
        }
        const content = contentFromInput(input);
        if (!content.ok) throw new UsageError(`invalid snapshot on stdin:\n${content.error}`);
        if (o.name !== undefined) {
          const problem = nameProblem(o.name, content.content.goal);
          if (problem !== null) throw new UsageError(problem);
        }
        const saved = await saveSnapshot({
          workspaceDir,
          content: content.content,
          meta: {
            trigger: trigger.data,
            session: o.session ?? null,
            agent: o.agent ?? null,
            name: o.name ?? null,
          },
          now: io.now(),
          ...(o.timeZone === undefined ? {} : { timeZone: o.timeZone }),
        });
        const redacted = { total: saved.redacted, kinds: saved.redactions };
        out(o.json, { id: saved.id, file: saved.file, line: saved.line, redacted }, () =>
          [
            `saved ${saved.id} to ${saved.file}:${saved.line}`,
            ...(saved.redacted > 0
              ? [
                  style.yellow(
                    `redacted ${saved.redacted} value${saved.redacted === 1 ? "" : "s"} before writing (${kindsText(saved.redactions)})`,
                  ),
                ]
              : []),
          ].join("\n"),
        );
        setExit(EXIT.ok);
      },
    );
}

/** Runs the CLI with `argv` (without the node and script paths) and returns the exit code. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  let code: number = EXIT.ok;
  const program = new Command("big-memory")
    .description("Task snapshots that survive context compaction: list, search, show, verify, save; doctor.")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .showHelpAfterError("(run big-memory --help for usage)");
  const scope = cliScope(io);
  const setExit = (c: number) => {
    code = c;
  };
  defineCommands(program, scope.io, setExit);
  defineDoctor(program, scope.io, styleFor(io.color), setExit);
  scope.apply(program);
  for (const cmd of program.commands) cmd.exitOverride();
  try {
    await program.parseAsync(argv, { from: "user" });
    scope.finish(code, argv);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof UsageError) {
      io.stderr(`big-memory: ${error.message}\n`);
      return EXIT.usage;
    }
    io.stderr(`${environmentLine(error)}\n`);
    return EXIT.failure;
  }
}
