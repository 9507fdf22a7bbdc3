/**
 * What the CLI writes to a workspace outside a running gateway: a snapshot saved by hand, a checkpoint
 * name deleted (a tombstone), old logs archived, big-memory's files and the logs' blocks scrubbed (the
 * search index rebuilt from redacted reads after), the logs repaired from the journal, and a private file
 * of its own (the memory timeline). Each goes through the store's gate (store/gate.ts) and lock; the
 * plugin's own writes go through workspace.ts, which keeps its open index in step. All but `save` load
 * what they need on use, so that `big-memory save` loads neither the parser nor the search engine.
 */
import type { ArchiveResult } from "../store/archive.ts";
import { addCounts, writePrivateBytes } from "../store/gate.ts";
import type { RepairReport } from "../store/journal-check.ts";
import { type SaveOptions, type SaveResult, saveSnapshot as save, tombstone } from "../store/save.ts";
import type { ScrubReport } from "../store/scrub.ts";

export type { ArchiveResult, RepairReport, SaveOptions, SaveResult, ScrubReport };
export { addCounts };

/** Saves `options.content` as a snapshot in today's daily log, redacted (store/save.ts). */
export function saveSnapshot(options: SaveOptions): Promise<SaveResult> {
  return save(options);
}

/**
 * Deletes the checkpoint name `name` with a tombstone, when it has a live snapshot (the saved refs read
 * as `show NAME` reads them); null when it has none, and nothing is written.
 */
export async function deleteCheckpoint(options: {
  workspaceDir: string;
  name: string;
  session: string | null;
  now: Date;
}): Promise<SaveResult | null> {
  const { hasLiveName } = await import("./history-saved.ts");
  if (!(await hasLiveName(options.workspaceDir, options.name))) return null;
  return tombstone(options);
}

/** Moves the snapshot blocks of the daily logs dated before `before` into the archive (store/archive.ts). */
export async function archiveBefore(workspaceDir: string, before: string): Promise<ArchiveResult> {
  const { archiveBefore: archive } = await import("../store/archive.ts");
  return archive(workspaceDir, before);
}

/**
 * Scrubs big-memory's own files (and with `logs` the snapshot blocks of the daily logs; with `apply` too
 * rewrites them, after a verified backup), then rebuilds the search index when it was removed, so that
 * no old index file keeps a secret: `reindexed` is the snapshots indexed again, or null.
 */
export async function scrub(
  workspaceDir: string,
  options: { logs: boolean; apply?: boolean; now: Date },
): Promise<ScrubReport & { reindexed: number | null }> {
  const { scrubWorkspace } = await import("../store/scrub.ts");
  const report = await scrubWorkspace(workspaceDir, options);
  let reindexed: number | null = null;
  if (report.indexRemoved) {
    const { History } = await import("./history-index.ts");
    const index = await History.open(workspaceDir, { entriesOnly: false, warn: () => {} });
    try {
      reindexed = (await index.reindex()).snapshots;
    } finally {
      await index.close();
    }
  }
  return { ...report, reindexed };
}

/** Appends again the blocks the daily logs lost, from the journal (`dryRun`: only tells what it would do). */
export async function repair(
  workspaceDir: string,
  options: { dryRun: boolean; now: Date },
): Promise<RepairReport> {
  const { repairJournal } = await import("../store/journal-check.ts");
  return repairJournal(workspaceDir, options);
}

/** Writes `bytes` to `path` as a private file (0600, atomically: store/gate.ts). */
export function writePrivateFile(path: string, bytes: Uint8Array): Promise<void> {
  return writePrivateBytes(path, bytes);
}
