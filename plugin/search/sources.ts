/**
 * Reading the daily logs for the index: their list, and a month's shard built from them (one log at a
 * time through log-read.ts). A log that vanishes between listing and reading is simply gone, never an
 * error; one that cannot be read is reported and left out, and the others are read.
 */

import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { listDailyLogs } from "../store/daily-log.ts";
import { FrozenBuilder, type FrozenShard } from "./frozen-shard.ts";
import { contentHash, type LogStat, logsByMonth, statLog, statLogSync, unchanged } from "./log-files.ts";
import {
  isUnreadable,
  type LogRead,
  readLog,
  redactionsIn,
  snapshotsOf,
  type UnreadableLog,
} from "./log-read.ts";
import { monthOf } from "./shard.ts";

export {
  contentHash,
  isUnreadable,
  type LogRead,
  type LogStat,
  logsByMonth,
  readLog,
  redactionsIn,
  snapshotsOf,
  statLog,
  type UnreadableLog,
  unchanged,
};

/**
 * The snapshot `pick` finds among those of `file` as it reads now, or null; a log that cannot be read is
 * told to `told` (and gives none).
 */
export async function snapshotIn(
  workspaceDir: string,
  file: string,
  told: (unreadable: UnreadableLog["unreadable"]) => void,
  pick: (snapshots: LocatedSnapshot[]) => LocatedSnapshot | undefined,
): Promise<LocatedSnapshot | null> {
  const read = await readLog(workspaceDir, file);
  if (isUnreadable(read)) told(read.unreadable);
  return pick(snapshotsOf(read)) ?? null;
}

/** The daily logs of a workspace, oldest first (see daily-log.ts `listDailyLogs`). */
export async function listLogs(workspaceDir: string): Promise<LogStat[]> {
  const logs = await listDailyLogs(workspaceDir);
  return logs.map(({ file, size, mtimeMs }) => ({ file, size, mtimeMs }));
}

/**
 * The logs of a month listed by name alone (log-files.ts `logsByMonth`), in the order of `listDailyLogs`,
 * without those gone since or that are folders (a stat each): a month's logs are stat'ed as it loads, not
 * every log of the workspace before the first answer.
 */
export function presentLogs(workspaceDir: string, files: readonly string[]): string[] {
  const rank = (file: string) => {
    const date = file.slice(file.lastIndexOf("/") + 1).slice(0, 10);
    return `${date}${file === `memory/${date}.md` ? "0" : "1"}${file}`;
  };
  return files
    .filter((file) => statLogSync(workspaceDir, file) !== null)
    .sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
}

/** Logs grouped by the month of their date (see shard.ts `monthOf`). */
export function groupByMonth(logs: readonly LogStat[]): Map<string, LogStat[]> {
  const out = new Map<string, LogStat[]>();
  for (const log of logs) {
    const month = monthOf(log.file);
    const list = out.get(month) ?? [];
    list.push(log);
    out.set(month, list);
  }
  return out;
}

/** Snapshots indexed between two yields to the event loop while building. */
const BUILD_CHUNK = 64;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Builds the frozen shard of a month from its logs, yielding to the event loop between chunks of
 * snapshots so that no caller waits long; `onRead` gets each log as read, `onUnreadable` each log that
 * cannot be read (its snapshots are left out, the other logs are read). Undefined when the month holds
 * no snapshot.
 */
export async function buildMonth(
  workspaceDir: string,
  month: string,
  files: readonly string[],
  onRead: (file: string, read: LogRead) => void,
  onUnreadable: (file: string, read: UnreadableLog) => void,
): Promise<FrozenShard | undefined> {
  const builder = new FrozenBuilder(month);
  for (const file of files) {
    const read = await readLog(workspaceDir, file);
    if (read === null) continue;
    if (isUnreadable(read)) {
      onUnreadable(file, read);
      continue;
    }
    onRead(file, read);
    for (const located of read.snapshots) builder.add(located);
    await yieldToLoop();
  }
  if (builder.size === 0) return undefined;
  while (builder.step(BUILD_CHUNK)) await yieldToLoop();
  return builder.build();
}
