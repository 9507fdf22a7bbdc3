import { type ScrubReport, scrubWorkspace } from "../store/scrub.ts";
import { kindsText, type Style } from "./cli-text.ts";

/**
 * `big-memory scrub [--logs]`: the runtime of the command declared in cli-manage.ts. Scrubs the plugin's state
 * (and with `--logs` the daily logs, after a verified backup), then rebuilds the search index from
 * redacted reads so that no old index file keeps a secret.
 */
export async function runScrub(
  workspaceDir: string,
  options: { logs: boolean; now: Date },
): Promise<ScrubReport & { reindexed: number | null }> {
  const report = await scrubWorkspace(workspaceDir, options);
  let reindexed: number | null = null;
  if (report.indexRemoved) {
    const { SearchService } = await import("../search/search-service.ts");
    const index = await SearchService.open(workspaceDir, { logger: { warn: () => {} }, watch: false });
    try {
      reindexed = (await index.reindex()).snapshots;
    } finally {
      await index.close();
    }
  }
  return { ...report, reindexed };
}

/** The scrub report for people. */
export function scrubText(report: ScrubReport & { reindexed: number | null }, style: Style): string {
  const lines = [
    report.total === 0
      ? "No secrets found in big-memory's files."
      : `Redacted ${report.total} value${report.total === 1 ? "" : "s"} (${kindsText(report.counts)}):`,
    ...report.files.map(
      (f) =>
        `  ${f.file}: ${f.total} (${kindsText(f.redactions)})${f.rechecksummed ? `; ${f.rechecksummed} block checksum${f.rechecksummed === 1 ? "" : "s"} renewed` : ""}`,
    ),
    ...report.fixed.map((f) => `  fixed: ${f}`),
    ...(report.indexRemoved
      ? [`  search index rebuilt from redacted reads (${report.reindexed ?? 0} snapshots)`]
      : []),
  ];
  if (report.backup !== null) {
    lines.push(
      style.yellow(
        `The original daily logs were copied to ${report.backup}/ (private, git-ignored) and still hold the secrets: check the logs, then delete that folder.`,
      ),
    );
  }
  return lines.join("\n");
}
