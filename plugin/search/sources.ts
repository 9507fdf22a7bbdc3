/**
 * Reading the daily logs for the index: their list, their fingerprints, their parsed snapshots, and
 * a month's shard built from them. A log that vanishes between listing and reading is simply gone
 * (null), never an error.
 */
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { parseDailyLog } from "../snapshot/parse.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { listDailyLogs } from "../store/daily-log.ts";
import { errorCode } from "../store/fs-durable.ts";
import type { Fingerprint, LogRecord } from "./codec.ts";
import { FrozenBuilder, type FrozenShard } from "./frozen-shard.ts";
import { monthOf } from "./shard.ts";

/** A daily log as listed: workspace-relative path, size, modification and change times, inode. */
export interface LogStat {
  file: string;
  size: number;
  mtimeMs: number;
  ctimeMs?: number;
  ino?: number;
}

/** A daily log as read: its fingerprint and what parsing found in it. */
export interface LogRead {
  fingerprint: Fingerprint;
  snapshots: LocatedSnapshot[];
  diagnostics: Diagnostic[];
  /** `[REDACTED:<kind>]` markers in its snapshots as read, by kind (for `status`). */
  redactions: Record<string, number>;
}

/** `[REDACTED:<kind>]` markers in the snapshots of a log, by kind. */
export function redactionsIn(snapshots: readonly LocatedSnapshot[]): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const s of snapshots) {
    for (const m of JSON.stringify(s.snapshot).matchAll(/\[REDACTED:([a-z0-9-]+)\]/g)) {
      const kind = m[1] ?? "";
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
  }
  return kinds;
}

/** The daily logs of a workspace, oldest first (see daily-log.ts `listDailyLogs`). */
export async function listLogs(workspaceDir: string): Promise<LogStat[]> {
  const logs = await listDailyLogs(workspaceDir);
  return logs.map(({ file, size, mtimeMs }) => ({ file, size, mtimeMs }));
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

/**
 * Size, times and inode of a log, or null when it does not exist. The stat is synchronous: opening the
 * index checks every log of a month at once, and a stat through the thread pool costs several times the
 * few microseconds the call itself takes.
 */
export async function statLog(workspaceDir: string, file: string): Promise<LogStat | null> {
  try {
    const info = statSync(join(workspaceDir, file), { throwIfNoEntry: false });
    return info?.isFile() === true
      ? { file, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino }
      : null;
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return null;
    throw error;
  }
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

/**
 * Reads a log and fingerprints exactly the bytes read: the times are taken before reading and the read
 * is repeated if the size moved meanwhile (a write in progress). `known` skips parsing when the content
 * hash is unchanged (only the times moved) and its problems were recorded. Null when the log is gone.
 */
export async function readLog(
  workspaceDir: string,
  file: string,
  known?: LogRecord,
): Promise<(LogRead & { same: boolean }) | null> {
  const path = join(workspaceDir, file);
  for (let attempt = 0; ; attempt++) {
    const before = await statLog(workspaceDir, file);
    if (before === null) return null;
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return null;
      throw error;
    }
    if (bytes.length !== before.size && attempt < 3) continue;
    const fingerprint: Fingerprint = {
      size: bytes.length,
      mtimeMs: before.mtimeMs,
      ...(before.ctimeMs === undefined ? {} : { ctimeMs: before.ctimeMs }),
      ...(before.ino === undefined ? {} : { ino: before.ino }),
      crc32: contentHash(bytes),
    };
    if (known?.problems !== undefined && known.crc32 === fingerprint.crc32) {
      return { fingerprint, snapshots: [], diagnostics: [], redactions: {}, same: true };
    }
    const parsed = parseDailyLog(bytes.toString("utf8"), file);
    return {
      fingerprint,
      snapshots: parsed.snapshots,
      diagnostics: parsed.diagnostics,
      redactions: redactionsIn(parsed.snapshots),
      same: false,
    };
  }
}

/** Snapshots indexed between two yields to the event loop while building. */
const BUILD_CHUNK = 64;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Builds the frozen shard of a month from its logs, yielding to the event loop between chunks of
 * snapshots so that no caller waits long; `onRead` gets each log as read. Undefined when the month
 * holds no snapshot.
 */
export async function buildMonth(
  workspaceDir: string,
  month: string,
  files: readonly string[],
  onRead: (file: string, read: LogRead) => void,
): Promise<FrozenShard | undefined> {
  const builder = new FrozenBuilder(month);
  for (const file of files) {
    const read = await readLog(workspaceDir, file);
    if (read === null) continue;
    onRead(file, read);
    for (const located of read.snapshots) builder.add(located);
    await yieldToLoop();
  }
  if (builder.size === 0) return undefined;
  while (builder.step(BUILD_CHUNK)) await yieldToLoop();
  return builder.build();
}
