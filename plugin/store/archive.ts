import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { END_MARKER } from "../snapshot/format.ts";
import { parseDailyLog } from "../snapshot/parse.ts";
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { ARCHIVE_DIR, dailyLogLockPath, listDailyLogs, MEMORY_DIR } from "./daily-log.ts";
import { errorCode } from "./fs-durable.ts";
import { appendPrivateText, ensurePrivateDir, gateText, rewriteUserLog } from "./gate.ts";
import { withLock } from "./lock.ts";

/**
 * `big-memory archive --before DATE`: the one place where daily logs are rewritten, and only on
 * explicit request. The snapshot blocks of logs older than DATE move to `memory/.big-memory-archive/DATE.md`,
 * a folder of big-memory's own (a workspace's `memory/archive/` is often the user's: it is never written);
 * every moved block is read back from the archive and compared with the original before the log is
 * rewritten without them (or removed when nothing else was in it). A log whose blocks do not read
 * back identically is left untouched and reported. Notes between blocks stay where they were.
 */

export interface ArchivedLog {
  file: string;
  archive: string;
  snapshots: number;
  /** True when the daily log held nothing but snapshots and was removed. */
  removed: boolean;
}

export interface ArchiveResult {
  archived: ArchivedLog[];
  problems: { file: string; problem: string }[];
}

const HEADER = /(?:^|\n)(?:---\n+)?## Task Snapshot -- [^\n]*\n+$/;

/** Character spans of the given blocks in `text`: from the header before the start marker to the end marker line. */
function blockSpans(text: string, lines: number[]): [number, number][] | string {
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const spans: [number, number][] = [];
  for (const line of lines) {
    const start = lineStarts[line - 1];
    if (start === undefined) return `no line ${line}`;
    const endAt = text.indexOf(`\n${END_MARKER}`, start);
    if (endAt < 0) return `block at line ${line} has no end marker`;
    let end = endAt + 1 + END_MARKER.length;
    if (text.charAt(end) === "\n") end++;
    const header = HEADER.exec(text.slice(Math.max(0, start - 200), start));
    const from = header === null ? start : start - header[0].length + (header[0].startsWith("\n") ? 1 : 0);
    spans.push([from, end]);
  }
  return spans;
}

const comparable = (s: LocatedSnapshot) => ({ snapshot: s.snapshot, verified: s.verified });

/** Moves the snapshot blocks of daily logs dated before `before` (YYYY-MM-DD) into memory/.big-memory-archive/. */
export async function archiveBefore(workspaceDir: string, before: string): Promise<ArchiveResult> {
  const result: ArchiveResult = { archived: [], problems: [] };
  // Daily logs proper only, never an archive (which readers list too).
  const logs = (await listDailyLogs(workspaceDir)).filter(
    (l) => l.date < before && l.file === `${MEMORY_DIR}/${l.date}.md`,
  );
  if (logs.length === 0) return result;
  const archiveDir = join(workspaceDir, MEMORY_DIR, ARCHIVE_DIR);
  await ensurePrivateDir(archiveDir);
  await withLock(
    dailyLogLockPath(workspaceDir),
    async () => {
      for (const log of logs) {
        const text = await readFile(log.path, "utf8");
        const parsed = parseDailyLog(text, log.file);
        if (parsed.snapshots.length === 0) continue;
        const spans = blockSpans(
          text,
          parsed.snapshots.map((s) => s.line),
        );
        if (typeof spans === "string") {
          result.problems.push({ file: log.file, problem: `not archived: ${spans}` });
          continue;
        }
        // The blocks pass the persistence gate like every text big-memory writes; a block whose checksum
        // that would break does not read back identically below and stays where it is.
        const moved = gateText(spans.map(([a, b]) => text.slice(a, b)).join("\n")).text;
        const relArchive = `${MEMORY_DIR}/${ARCHIVE_DIR}/${log.date}.md`;
        const check = parseDailyLog(moved, relArchive);
        if (!isDeepStrictEqual(check.snapshots.map(comparable), parsed.snapshots.map(comparable))) {
          result.problems.push({
            file: log.file,
            problem: "not archived: its blocks do not read back identically on their own",
          });
          continue;
        }
        const archivePath = join(archiveDir, `${log.date}.md`);
        let before = "";
        try {
          before = await readFile(archivePath, "utf8");
        } catch (error) {
          if (errorCode(error) !== "ENOENT") throw error;
        }
        await appendPrivateText(
          archivePath,
          `${before === "" || before.endsWith("\n\n") ? "" : before.endsWith("\n") ? "\n" : "\n\n"}${moved}`,
        );
        const copied = parseDailyLog(await readFile(archivePath, "utf8"), relArchive).snapshots;
        const ids = new Map(copied.map((s) => [s.snapshot.id, s]));
        const missing = parsed.snapshots.filter((s) => {
          const c = ids.get(s.snapshot.id);
          return c === undefined || !isDeepStrictEqual(comparable(c), comparable(s));
        });
        if (missing.length > 0) {
          result.problems.push({
            file: log.file,
            problem: `not removed from the log: ${missing.length} block(s) did not read back from ${relArchive}`,
          });
          continue;
        }
        let rest = "";
        let at = 0;
        for (const [a, b] of spans) {
          rest += text.slice(at, a);
          at = b;
        }
        rest += text.slice(at);
        const removed = rest.replace(/^(?:\s|---)*$/, "") === "";
        if (removed) await rm(log.path);
        else await rewriteUserLog(log.path, rest);
        result.archived.push({
          file: log.file,
          archive: relArchive,
          snapshots: parsed.snapshots.length,
          removed,
        });
      }
    },
    { timeoutMs: 10_000, staleMs: 30_000 },
  );
  return result;
}
