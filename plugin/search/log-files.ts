/**
 * The daily logs as the index sees them before reading any: their names by month, and the stat that
 * says whether a log still looks the way its fingerprint recorded it. Light on purpose (no parser, no
 * persistence gate): the commands that read saved refs need only this to know which months are fresh.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { errorCode } from "../store/fs-durable.ts";
import { RefusedFileError, statMemoryFileSync } from "../store/log-open.ts";
import type { Fingerprint, LogRecord } from "./codec.ts";
import { monthOf } from "./shard.ts";

/** A daily log as listed: workspace-relative path, size, modification and change times, inode. */
export interface LogStat {
  file: string;
  size: number;
  mtimeMs: number;
  ctimeMs?: number;
  ino?: number;
}

/**
 * Size, times and inode of a log, or null when it does not exist. The stat is synchronous: opening the
 * index checks every log of a month at once, and a stat through the thread pool costs several times the
 * few microseconds the call itself takes.
 */
export async function statLog(workspaceDir: string, file: string): Promise<LogStat | null> {
  return statLogSync(workspaceDir, file);
}

/**
 * {@link statLog}, synchronously. A plain file costs one `lstat`. An entry that big-memory does not read
 * (a link out of `memory/`, a loop of links, a FIFO, a device: see store/log-open.ts) gets a stat of size 0
 * and no change time, which no fingerprint matches, so the caller reads it and is told why it is refused;
 * a folder is no log (null).
 */
export function statLogSync(workspaceDir: string, file: string): LogStat | null {
  const info = statMemoryFileSync(workspaceDir, file);
  if (info === null) return null;
  if (info instanceof RefusedFileError) return info.kind === "folder" ? null : { file, size: 0, mtimeMs: 0 };
  return { file, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino };
}

/**
 * Whether a log still looks the way its fingerprint says: same size, modification time, change time and
 * inode. Putting the modification time back after a same-size edit does not fool it: the change time
 * moved, and no user can set that. A fingerprint without a change time (older index) never matches.
 */
export function unchanged(log: LogStat, fingerprint: Fingerprint | undefined): boolean {
  return (
    fingerprint !== undefined &&
    fingerprint.ctimeMs !== undefined &&
    fingerprint.size === log.size &&
    fingerprint.mtimeMs === log.mtimeMs &&
    fingerprint.ctimeMs === log.ctimeMs &&
    fingerprint.ino === log.ino
  );
}

/** CRC-32 of a log's bytes, 8 hex digits. */
export function contentHash(bytes: Buffer): string {
  return crc32(bytes).toString(16).padStart(8, "0");
}

/** `YYYY-MM-DD` at the start of a log's name, then anything but a digit, then `.md` (daily-log.ts). */
const DATED_NAME = /^(\d{4})-(\d{2})-(\d{2})(?:\D[^/\\]*)?\.md$/;

/** Whether a name is a daily log's: a dated `.md` name whose date exists on the calendar. */
function isLogName(name: string): boolean {
  const m = DATED_NAME.exec(name);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(0);
  at.setUTCFullYear(y, mo - 1, d);
  return (
    at.getUTCFullYear() * 10_000 + (at.getUTCMonth() + 1) * 100 + at.getUTCDate() ===
    y * 10_000 + mo * 100 + d
  );
}

function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return [];
    throw error;
  }
}

/**
 * The daily logs of a workspace by month (workspace-relative paths; the names `listDailyLogs` lists,
 * archived ones included), from the folder listings alone: nothing is stat'ed or read.
 */
export function logsByMonth(workspaceDir: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (file: string) => {
    const month = monthOf(file);
    const list = out.get(month);
    if (list === undefined) out.set(month, [file]);
    else list.push(file);
  };
  for (const name of namesIn(join(workspaceDir, "memory"))) if (isLogName(name)) add(`memory/${name}`);
  const archive = "memory/.big-memory-archive";
  for (const name of namesIn(join(workspaceDir, archive))) if (isLogName(name)) add(`${archive}/${name}`);
  return out;
}

/** Logs by their records: how many, their bytes, and the `[REDACTED:<kind>]` markers in their snapshots. */
export function logTotals(records: Iterable<LogRecord>): {
  files: number;
  bytes: number;
  redactions: Record<string, number>;
} {
  const redactions: Record<string, number> = {};
  let bytes = 0;
  let files = 0;
  for (const record of records) {
    files++;
    bytes += record.size;
    for (const [kind, n] of Object.entries(record.redactions ?? {}))
      redactions[kind] = (redactions[kind] ?? 0) + n;
  }
  return { files, bytes, redactions };
}
