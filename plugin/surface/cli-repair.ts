import type { Command } from "commander";
import { type RepairReport, repair } from "../session/maintenance.ts";
import type { CommandContext } from "./cli.ts";
import { type CommonOptions, EXIT } from "./cli-args.ts";
import { counted, type Style } from "./cli-text.ts";
import { resolveWorkspace } from "./cli-workspace.ts";

/**
 * `big-memory repair [--dry-run]`: appends again every snapshot big-memory wrote or claimed that a daily log
 * lost (from its journal, `.big-memory/journal/`), under its own id, locked and durable like every append;
 * never text others wrote, which big-memory never held. Exit 0 when every log is whole (or, dry, would be),
 * 1 when a log could not be repaired.
 */
export function defineRepair(root: Command, { io, setExit, common, style, out }: CommandContext): void {
  common(root.command("repair"))
    .description("append again the snapshots a daily log lost (from big-memory's journal)")
    .option("--dry-run", "say what would be appended, write nothing")
    .action(async (o: CommonOptions & { dryRun?: boolean }) => {
      const workspaceDir = resolveWorkspace(o.dir, io);
      const report = await repair(workspaceDir, { dryRun: o.dryRun === true, now: io.now() });
      const diagnostics = report.problems.map((d) => (d.line > 0 ? d : { ...d, line: null }));
      out(o.json, { dryRun: report.dryRun, logs: report.logs, diagnostics }, () => repairText(report, style));
      setExit(report.problems.some((p) => p.message.startsWith("not repaired")) ? EXIT.notFound : EXIT.ok);
    });
}

/** The repair report for people (also the chat's reply). */
export function repairText(report: RepairReport, style?: Style): string {
  const yellow = style?.yellow ?? ((s: string) => s);
  if (report.logs.length === 0 && report.problems.length === 0)
    return "Nothing to repair: every daily log holds the snapshots big-memory wrote there.";
  const verb = report.dryRun ? "would append" : "appended";
  const lines = report.logs.map((l) => {
    const cut =
      l.shrank === null
        ? ""
        : l.shrank.to === null
          ? "; the log was gone"
          : `; the log was cut from ${l.shrank.from} to ${l.shrank.to} bytes (text others wrote there is not kept by big-memory)`;
    const lost =
      l.unrecoverable.length === 0
        ? ""
        : `; no copy kept of ${l.unrecoverable.join(", ")} (the day's journal was full)`;
    const what =
      l.appended.length === 0
        ? "nothing to append"
        : `${verb} ${counted(l.appended.length, "snapshot")} (${l.appended.join(", ")})`;
    return `${l.file}: ${what}${cut}${lost}`;
  });
  const problems = report.problems.map((p) =>
    yellow(`big-memory: ${p.file}${p.line > 0 ? `:${p.line}` : ""}: ${p.message}`),
  );
  const done = report.dryRun ? ["Nothing was written (--dry-run)."] : [];
  return [...lines, ...problems, ...done].join("\n");
}
