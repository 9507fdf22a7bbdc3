/**
 * Reading one daily log for the index: its fingerprint taken on exactly the bytes read, and the
 * snapshots and problems parsing finds in it. A log that vanishes before it is read is simply gone
 * (null), never an error; one that cannot be read (permissions, a disk error) is told as such, with the
 * diagnostic naming it, and gets no fingerprint, so that it is read again once it can be.
 */
import { LogText } from "../snapshot/block-span.ts";
import { parseDailyLog } from "../snapshot/parse.ts";
import type { JudgedBlocks } from "../snapshot/redact-judged.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { readFailure } from "../store/daily-log.ts";
import { judgedFor, noteJudged } from "../store/judged-memory.ts";
import { openMemoryFile } from "../store/log-open.ts";
import type { Fingerprint, LogRecord } from "./codec.ts";
import { contentHash } from "./log-files.ts";

/** A daily log as read: its fingerprint and what parsing found in it. */
export interface LogRead {
  fingerprint: Fingerprint;
  snapshots: LocatedSnapshot[];
  diagnostics: Diagnostic[];
  /** `[REDACTED:<kind>]` markers in its snapshots as read, by kind (for `status`). */
  redactions: Record<string, number>;
}

/** A daily log that exists but cannot be read: the diagnostic naming it, the cause and the fix. */
export interface UnreadableLog {
  unreadable: Diagnostic;
}

/** Whether a read came back {@link UnreadableLog}. */
export function isUnreadable(read: object | null): read is UnreadableLog {
  return read !== null && "unreadable" in read;
}

/** The snapshots of a read: none when the log is gone or cannot be read. */
export function snapshotsOf(read: LogRead | UnreadableLog | null): LocatedSnapshot[] {
  return read === null || isUnreadable(read) ? [] : read.snapshots;
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

/**
 * Reads a log and fingerprints exactly the bytes read: the times are those of the open handle, taken
 * before reading, and the read is repeated if the size moved meanwhile (a write in progress). The log is
 * opened within the workspace's boundary (store/log-open.ts: its real path inside `memory/`, a regular
 * file, never blocking). `known` skips parsing when the content hash is unchanged (only the times moved)
 * and its problems were recorded; `judged` spares the redaction of blocks judged clean before (see
 * `parseDailyLog`). Null when the log is gone, {@link UnreadableLog} when it cannot be read or is refused
 * (see daily-log.ts `readFailure`).
 */
export async function readLog(
  workspaceDir: string,
  file: string,
  known?: LogRecord,
  judged?: JudgedBlocks,
): Promise<(LogRead & { same: boolean }) | UnreadableLog | null> {
  for (let attempt = 0; ; attempt++) {
    let before: Awaited<ReturnType<typeof openMemoryFile>>["info"];
    let bytes: Buffer;
    try {
      const opened = await openMemoryFile(workspaceDir, file);
      try {
        before = opened.info;
        bytes = await opened.handle.readFile();
      } finally {
        await opened.handle.close();
      }
    } catch (error) {
      const problem = readFailure(file, error);
      return problem === null ? null : { unreadable: problem };
    }
    if (bytes.length !== before.size && attempt < 3) continue;
    const fingerprint: Fingerprint = {
      size: bytes.length,
      mtimeMs: before.mtimeMs,
      ctimeMs: before.ctimeMs,
      ino: before.ino,
      crc32: contentHash(bytes),
    };
    if (known?.problems !== undefined && known.crc32 === fingerprint.crc32) {
      return { fingerprint, snapshots: [], diagnostics: [], redactions: {}, same: true };
    }
    const parsed = parseDailyLog(new LogText(bytes), file, { judged: judged ?? judgedFor(workspaceDir) });
    noteJudged(workspaceDir);
    return {
      fingerprint,
      snapshots: parsed.snapshots,
      diagnostics: parsed.diagnostics,
      redactions: redactionsIn(parsed.snapshots),
      same: false,
    };
  }
}
