/**
 * What the memory timeline reads, through the read paths `list`, `show` and `status` use: the snapshots of
 * the daily logs (parsed and redacted as every read is, claims laid over as `list` lays them), the
 * compaction ledger and the restore log. Nothing is written. {@link readWholeView} reads a workspace whole
 * (the file `big-memory view` writes); {@link readViewPage} one page of it, chosen from the search index's
 * refs, reading only the daily logs that page's snapshots are in (the Control UI route).
 */

import type { SnapshotRef } from "../session/history.ts";
import { claimedSnapshots, snapshotsOf } from "../session/history-check.ts";
import { readLedger, readRestoreLog } from "../session/state-files.ts";
import { timestampMillis } from "../snapshot/time.ts";
import { buildViewData, type ViewData, type ViewSource } from "./view-model.ts";

/** The ledger and the restore log, with their problems as sentences. */
async function readHistory(workspace: string): Promise<Pick<ViewSource, "ledger" | "restores" | "problems">> {
  const [ledger, restores] = await Promise.all([readLedger(workspace), readRestoreLog(workspace)]);
  const problems: string[] = [];
  if (ledger.problem !== null) problems.push(ledger.problem);
  if (ledger.bad > 0)
    problems.push(`.big-memory/ledger.jsonl: ${ledger.bad} line(s) skipped (torn or of another version)`);
  if (restores.problem !== null) problems.push(restores.problem);
  if (restores.bad > 0)
    problems.push(
      `.big-memory/restore-log.jsonl: ${restores.bad} line(s) skipped (torn or of another version)`,
    );
  return { ledger: ledger.records, restores: restores.entries, problems };
}

/** The view of a whole workspace: every daily log, the whole ledger, every restore. */
export async function readWholeView(workspace: string, now: Date): Promise<ViewData> {
  const [all, history] = await Promise.all([claimedSnapshots(workspace), readHistory(workspace)]);
  return buildViewData({ workspace, generated: now, ...all, ...history });
}

/** Snapshots per page of the Control UI route. */
export const VIEW_PAGE_SIZE = 1000;

/** What a page of the route needs from the workspace: its live refs, newest first (session/workspace.ts). */
export interface RefSource {
  liveRefs(): Promise<SnapshotRef[]>;
}

/** The query string of page `page` for `agent` (the page's own links). */
export function pageQuery(agent: string, page: number): string {
  return `?agent=${encodeURIComponent(agent)}&page=${page}`;
}

/**
 * Page `page` (1-based; past the last is the last) of a workspace's view: the live snapshots of that page
 * (the index's refs, newest first, {@link VIEW_PAGE_SIZE} a page), read from their daily logs only, and
 * the compactions and restores of the same stretch of time (a page runs from its oldest snapshot to the
 * oldest of the page before it; the first and last pages are open-ended), so that every entry is on one
 * page. A snapshot's diff is against the previous one of its session on the same page.
 */
export async function readViewPage(
  workspace: string,
  refs: RefSource,
  options: { agent: string; page: number; now: Date; size?: number },
): Promise<ViewData> {
  const size = options.size ?? VIEW_PAGE_SIZE;
  const live = await refs.liveRefs();
  const pages = Math.max(1, Math.ceil(live.length / size));
  const page = Math.min(Math.max(1, Math.floor(options.page)), pages);
  const slice = live.slice((page - 1) * size, page * size);
  const time = (r: SnapshotRef | undefined) => (r === undefined ? Number.NaN : timestampMillis(r.timestamp));
  const lower = page === pages ? Number.NEGATIVE_INFINITY : time(slice[slice.length - 1]);
  const upper = page === 1 ? Number.POSITIVE_INFINITY : time(live[(page - 1) * size - 1]);
  const within = (iso: string) => {
    const t = timestampMillis(iso);
    return Number.isNaN(t) ? page === 1 : t >= lower && t < upper;
  };
  const [snapshots, history] = await Promise.all([snapshotsOf(workspace, slice), readHistory(workspace)]);
  return buildViewData({
    workspace,
    generated: options.now,
    snapshots: snapshots.snapshots,
    diagnostics: snapshots.diagnostics,
    ledger: history.ledger.filter((r) => within(r.cycle)),
    restores: history.restores.filter((r) => within(r.at)),
    problems: history.problems,
    paging: {
      page,
      pages,
      size,
      total: live.length,
      newer: page > 1 ? pageQuery(options.agent, page - 1) : null,
      older: page < pages ? pageQuery(options.agent, page + 1) : null,
    },
  });
}
