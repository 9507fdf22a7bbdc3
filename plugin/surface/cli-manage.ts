import type { Command } from "commander";
import { verifyHistory } from "../session/history-check.ts";
import { archiveBefore, deleteCheckpoint } from "../session/maintenance.ts";
import { isDailyLogDate } from "../session/state-files.ts";
import { echoed } from "../snapshot/echo.ts";
import type { CommandContext } from "./cli.ts";
import { type CommonOptions, EXIT, UsageError } from "./cli-args.ts";
import { runScrub, scrubText } from "./cli-scrub.ts";
import { counted } from "./cli-text.ts";
import { resolveWorkspace } from "./cli-workspace.ts";

/** The CLI's maintenance commands: verify, delete (a checkpoint name), archive and scrub. */
export function defineManageCommands(
  root: Command,
  { io, setExit, common, style, out }: CommandContext,
): void {
  common(root.command("verify"))
    .description("check every snapshot: checksums, torn blocks, versions, duplicate ids")
    .action(async (o: CommonOptions) => {
      const workspaceDir = resolveWorkspace(o.dir, io);
      const ws = await verifyHistory(workspaceDir);
      const { problems, diagnostics } = ws;
      const ok = problems.length === 0;
      // A problem of a whole file (a log that cannot be read) has no line: null in JSON, where lines are 1-based.
      const lineOf = <T extends { line: number }>(p: T) => (p.line > 0 ? p : { ...p, line: null });
      const doc = {
        ok,
        checked: ws.checked,
        problems: problems.map(lineOf),
        // Dated logs left in sub-folders are not read: told, but not a problem of the snapshots checked.
        diagnostics: [...diagnostics, ...ws.strays].map(({ file, line, message }) =>
          lineOf({ file, line, message }),
        ),
      };
      out(o.json, doc, () =>
        [
          ok
            ? style.green(
                `ok: ${counted(ws.checked, "snapshot")} checked in ${counted(ws.files, "daily log")}, no problems`,
              )
            : [
                style.red(
                  `${counted(problems.length, "problem")} in ${counted(ws.checked, "snapshot")} checked:`,
                ),
                ...problems.map(
                  (p) => `  ${p.line > 0 ? `${p.file}:${p.line}` : p.file}  ${p.id ?? "-"}  ${p.problem}`,
                ),
              ].join("\n"),
          ...ws.strays.map((d) => style.yellow(`note: ${d.message}`)),
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
      const saved = await deleteCheckpoint({ workspaceDir, name, session: o.session ?? null, now: io.now() });
      if (saved === null) {
        out(o.json, { deleted: null }, () => `No live checkpoint named ${echoed(name)}.`);
        setExit(EXIT.notFound);
        return;
      }
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
      "move the snapshot blocks of daily logs older than DATE (their variants too) into memory/.big-memory-archive/ (verified first)",
    )
    .requiredOption("--before <date>", "YYYY-MM-DD: logs dated before this day are archived")
    .action(async (o: CommonOptions & { before: string }) => {
      if (!isDailyLogDate(o.before))
        throw new UsageError((quote) => `--before expects a date YYYY-MM-DD, received ${quote(o.before)}`);
      const result = await archiveBefore(resolveWorkspace(o.dir, io), o.before);
      const moved = result.archived.reduce((n, a) => n + a.snapshots, 0);
      const summary =
        result.problems.length === 0
          ? null
          : `Archived ${counted(moved, "snapshot")} from ${counted(result.archived.length, "log")}; ${counted(result.problems.length, "log")} left as ${result.problems.length === 1 ? "it was" : "they were"} (above), so this run is incomplete.`;
      const { strays, ...rest } = result;
      // The sub-folders holding dated logs are the document's diagnostics, as in every read command.
      const lineOf = (d: { file: string; line: number; message: string }) => ({
        ...d,
        line: d.line > 0 ? d.line : null,
      });
      out(o.json, { ...rest, complete: result.problems.length === 0, diagnostics: strays.map(lineOf) }, () =>
        [
          result.archived.length === 0 && result.problems.length === 0
            ? `Nothing to archive before ${o.before}.`
            : "",
          ...result.archived.map(
            (a) =>
              `${a.file}: ${a.snapshots} snapshot${a.snapshots === 1 ? "" : "s"} moved to ${a.archive}${a.removed ? " (the log held nothing else and was removed)" : ""}`,
          ),
          ...result.problems.map((p) => style.yellow(`${p.file}: ${p.problem}`)),
          ...result.strays.map((d) => style.yellow(`note: ${d.message}`)),
          summary === null ? "" : style.red(summary),
        ]
          .filter((l) => l !== "")
          .join("\n"),
      );
      // A partial run is not a success: a log that was to be archived is still as it was.
      setExit(result.problems.length > 0 || result.archived.length === 0 ? EXIT.notFound : EXIT.ok);
    });

  common(root.command("scrub"))
    .description(
      "redact big-memory's own files written by older versions and make them private; --logs also shows what it would redact in the snapshot blocks of the daily logs, --apply rewrites them (backup kept)",
    )
    .option(
      "--logs",
      "also check the snapshot blocks of the daily logs (a preview: nothing in memory/ changes)",
    )
    .option("--apply", "with --logs: rewrite those blocks, after a verified backup")
    .action(async (o: CommonOptions & { logs?: boolean; apply?: boolean }) => {
      if (o.apply === true && o.logs !== true)
        throw new UsageError(
          "--apply goes with --logs: scrub --logs shows what it would change, --logs --apply changes it",
        );
      const report = await runScrub(resolveWorkspace(o.dir, io), {
        logs: o.logs === true,
        apply: o.apply === true,
        now: io.now(),
      });
      const { strays, ...rest } = report;
      // As in every read command, the sub-folders holding dated logs are the document's diagnostics.
      const diagnostics = strays.map((d) => ({ ...d, line: d.line > 0 ? d.line : null }));
      out(o.json, { ...rest, diagnostics }, () => scrubText(report, style));
      setExit(EXIT.ok);
    });
}
