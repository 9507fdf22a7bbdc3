import { LogText } from "../snapshot/block-span.ts";
import { duplicateId, parseDailyLog } from "../snapshot/parse.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { timestampMillis } from "../snapshot/time.ts";
import { listDailyLogs, readFailure, strayDailyLogs } from "./daily-log.ts";
import { judgedFor, noteJudged } from "./judged-memory.ts";
import { readMemoryFile } from "./log-open.ts";

/** The read path of snapshots from the daily logs themselves; the write path is store/save.ts. */

/** Every snapshot of a workspace and every problem found reading it. */
export interface WorkspaceSnapshots {
  /** Oldest first (by timestamp, then id). */
  snapshots: LocatedSnapshot[];
  diagnostics: Diagnostic[];
  /** Folders of `memory/` holding dated logs that are not read (log-open.ts `strayDailyLogs`). */
  strays: Diagnostic[];
  /** Bytes of daily logs read. */
  bytes: number;
  /** Daily logs read. */
  files: number;
}

/** Orders snapshots by time, then id: the order in which they were taken. */
export function olderFirst(a: LocatedSnapshot, b: LocatedSnapshot): number {
  const ta = timestampMillis(a.snapshot.timestamp);
  const tb = timestampMillis(b.snapshot.timestamp);
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return a.snapshot.id < b.snapshot.id ? -1 : a.snapshot.id > b.snapshot.id ? 1 : 0;
}

/**
 * Reads and parses every daily log of a workspace. An id found in two files is reported where it
 * repeats (with the other location), and both blocks are kept: ids are unique per workspace as read,
 * so `file:line` tells them apart. A log that vanishes while reading is skipped; one that cannot be read
 * (permissions, a disk error) or is refused at the workspace's boundary (a link out of `memory/`, a FIFO:
 * log-open.ts) is a diagnostic (see daily-log.ts `readFailure`), and the others are read. Dated logs in
 * sub-folders of `memory/` are not read: each such folder is named in `strays`.
 */
export async function readAllSnapshots(workspaceDir: string): Promise<WorkspaceSnapshots> {
  const logs = await listDailyLogs(workspaceDir);
  const texts = await Promise.all(
    logs.map(async (log) => {
      try {
        return { log, text: new LogText(await readMemoryFile(workspaceDir, log.file)) };
      } catch (error) {
        return readFailure(log.file, error);
      }
    }),
  );
  const seen = new Map<string, LocatedSnapshot>();
  const snapshots: LocatedSnapshot[] = [];
  const diagnostics: Diagnostic[] = [];
  let bytes = 0;
  let files = 0;
  for (const entry of texts) {
    if (entry === null) continue;
    if (!("text" in entry)) {
      diagnostics.push(entry);
      continue;
    }
    files++;
    bytes += entry.text.byteLength;
    const parsed = parseDailyLog(entry.text, entry.log.file, { judged: judgedFor(workspaceDir) });
    noteJudged(workspaceDir);
    diagnostics.push(...parsed.diagnostics);
    for (const s of parsed.snapshots) {
      const first = seen.get(s.snapshot.id);
      if (first === undefined) seen.set(s.snapshot.id, s);
      else if (first.file !== s.file) diagnostics.push(duplicateId(s, first));
      snapshots.push(s);
    }
  }
  snapshots.sort(olderFirst);
  return { snapshots, diagnostics, strays: strayDailyLogs(workspaceDir), bytes, files };
}
