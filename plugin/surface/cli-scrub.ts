import { addCounts, type ScrubReport, scrub } from "../session/maintenance.ts";
import { counted, kindsText, type Style } from "./cli-text.ts";

/**
 * `big-memory scrub [--logs [--apply]]`: the runtime of the command declared in cli-manage.ts. Scrubs the
 * plugin's state, then rebuilds the search index from redacted reads so that no old index file keeps a
 * secret. With `--logs` it shows which snapshot blocks of which daily logs redaction would change (never
 * the values, never people's own lines, which it does not touch); with `--apply` too it rewrites those
 * blocks, after a verified backup.
 */
export async function runScrub(
  workspaceDir: string,
  options: { logs: boolean; apply?: boolean; now: Date },
): Promise<ScrubReport & { reindexed: number | null }> {
  return scrub(workspaceDir, options);
}

/** The scrub report for people: big-memory's own files, then the daily logs' blocks, then the backup. */
export function scrubText(report: ScrubReport & { reindexed: number | null }, style: Style): string {
  const own = report.files.filter((f) => !f.file.startsWith("memory/"));
  const ownTotal = own.reduce((n, f) => n + f.total, 0);
  const lines = [
    ownTotal === 0
      ? "No secrets found in big-memory's files."
      : `Redacted ${counted(ownTotal, "value")} in big-memory's files:`,
    ...own.map((f) => `  ${f.file}: ${f.total} (${kindsText(f.redactions)})`),
    ...report.fixed.map((f) => `  fixed: ${f}`),
    ...(report.indexRemoved
      ? [`  search index rebuilt from redacted reads (${report.reindexed ?? 0} snapshots)`]
      : []),
  ];
  if (report.logsChecked !== null) {
    const values = report.logs.reduce((n, l) => n + l.total, 0);
    const blocks = report.logs.reduce((n, l) => n + l.blocks.length, 0);
    const renewed = new Map(report.files.map((f) => [f.file, f.rechecksummed ?? 0]));
    if (report.logs.length === 0) {
      lines.push(`No secrets found in the snapshot blocks of ${counted(report.logsChecked, "daily log")}.`);
    } else {
      lines.push(
        `${report.applied ? "Redacted" : "Would redact"} ${counted(values, "value")} in ${counted(blocks, "snapshot block")} of ${counted(report.logs.length, "daily log")} (${kindsText(report.logs.reduce((c, l) => addCounts(c, l.redactions), {}))}); lines outside the blocks ${report.applied ? "are left as written" : "are never changed"}:`,
        ...report.logs.flatMap((l) => [
          ...l.blocks.map(
            (b) => `  ${l.file}:${b.line}  ${b.id ?? "-"}  ${b.total} (${kindsText(b.redactions)})`,
          ),
          ...((renewed.get(l.file) ?? 0) > 0
            ? [`  ${l.file}: ${counted(renewed.get(l.file) ?? 0, "block checksum")} renewed`]
            : []),
        ]),
      );
      if (!report.applied) {
        lines.push(
          style.yellow(
            "Nothing in memory/ was changed. Run the same command with --apply to rewrite these blocks (the original logs are kept in .big-memory/scrub-backup/).",
          ),
        );
      }
    }
  }
  lines.push(...report.problems.map((p) => style.yellow(`not scrubbed: ${p.message}`)));
  lines.push(...report.strays.map((d) => style.yellow(`note: ${d.message}`)));
  if (report.backup !== null) {
    lines.push(
      style.yellow(
        `The original daily logs were copied to ${report.backup}/ (private, git-ignored) and still hold the secrets: check the logs, then delete that folder.`,
      ),
    );
  }
  return lines.join("\n");
}
