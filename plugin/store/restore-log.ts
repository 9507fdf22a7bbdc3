import { join } from "node:path";
import { errorCode, errorMessage } from "./fs-durable.ts";
import { appendPrivateJsonLine, STATE_DIR_NAME } from "./gate.ts";
import { RefusedFileError, readStateFile } from "./log-open.ts";

/**
 * The restore log, `.big-memory/restore-log.jsonl`: one JSON line per snapshot put back in front of the
 * model (after compaction, on "you forgot", on resume, by the recall tool). Append-only, through the
 * persistence gate; read by `status` and `doctor`. This module is the format's one owner.
 */

/** The log's file name inside the state folder. */
export const RESTORE_LOG_FILE = "restore-log.jsonl";
/** Version of the lines written; lines without `v` were written before versions and read as version 1. */
export const RESTORE_LOG_VERSION = 1;

/** One line of the restore log. */
export interface RestoreLogEntry {
  /** Absent on lines written before versions. */
  v?: typeof RESTORE_LOG_VERSION;
  /** When, ISO 8601. */
  at: string;
  /** The snapshot restored. */
  id: string;
  session: string | null;
  /** What restored it: `compaction`, `amnesia`, `resume`, `recall`... */
  reason: string;
  /** Estimated tokens injected. */
  tokens?: number;
}

const isString = (value: unknown): value is string => typeof value === "string";

/**
 * The entry a parsed line holds, keeping only the entry's fields, or null when it is not one (a
 * field missing or of the wrong type, a later version). Checked by hand: `status` reads this log,
 * and loading a schema library would cost it more than reading the log.
 */
export function restoreLogEntryOf(value: unknown): RestoreLogEntry | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { v, at, id, session, reason, tokens } = value as Record<string, unknown>;
  if (v !== undefined && v !== RESTORE_LOG_VERSION) return null;
  if (!isString(at) || !isString(id) || !isString(reason)) return null;
  if (session !== null && !isString(session)) return null;
  if (tokens !== undefined && (typeof tokens !== "number" || !Number.isFinite(tokens))) return null;
  return {
    ...(v === undefined ? {} : { v }),
    at,
    id,
    session,
    reason,
    ...(tokens === undefined ? {} : { tokens }),
  };
}

/** Appends one line (versioned) to the restore log of the state folder `stateDir`. */
export async function appendRestoreLog(stateDir: string, entry: Omit<RestoreLogEntry, "v">): Promise<void> {
  await appendPrivateJsonLine(join(stateDir, RESTORE_LOG_FILE), { v: RESTORE_LOG_VERSION, ...entry });
}

/** What reading the restore log found. */
export interface RestoreLogRead {
  entries: RestoreLogEntry[];
  /** Lines that are not JSON or not an entry (a torn last line, a later version): counted, not fatal. */
  bad: number;
  /** A log that cannot be read (a folder in its place, permissions), naming it and what to do. */
  problem: string | null;
}

/** Reads the restore log of `workspace`; an absent log is an empty one. */
export async function readRestoreLog(workspace: string): Promise<RestoreLogRead> {
  const rel = `${STATE_DIR_NAME}/${RESTORE_LOG_FILE}`;
  let text = "";
  try {
    text = (await readStateFile(join(workspace, rel), rel)).toString("utf8");
  } catch (error) {
    const code = errorCode(error);
    if (error instanceof RefusedFileError && error.kind !== "folder") {
      return {
        entries: [],
        bad: 0,
        problem: `${rel} is not read: ${error.reason}; ${error.fix} (restores are not counted)`,
      };
    }
    if (code === "EISDIR" || error instanceof RefusedFileError) {
      return {
        entries: [],
        bad: 0,
        problem: `${rel} is a folder, not a file: move it away (restores are not counted)`,
      };
    }
    if (code !== "ENOENT") {
      return { entries: [], bad: 0, problem: `${rel} cannot be read (${errorMessage(error)})` };
    }
  }
  const entries: RestoreLogEntry[] = [];
  let bad = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      bad++;
      continue;
    }
    const read = restoreLogEntryOf(value);
    if (read === null) bad++;
    else entries.push(read);
  }
  return { entries, bad, problem: null };
}
