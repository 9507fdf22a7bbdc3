/**
 * The names of the daily logs: which files of `memory/` the readers read (`YYYY-MM-DD.md` and the
 * date-prefixed variants, directly in `memory/` or in big-memory's archive), why another name is not one,
 * and the dated logs left in sub-folders of `memory/`, which no command reads and every read command names.
 */
import type { Dirent } from "node:fs";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "../snapshot/snapshot.ts";
import { ARCHIVE_DIR, MEMORY_DIR, memoryRelative } from "./log-open.ts";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A markdown file whose name starts with a date: `2026-11-22.md`, `2026-11-22-0431.md`, `2026-11-22-slug.md`. */
const DATED_NAME = /^(\d{4}-\d{2}-\d{2})(?:\D[^/\\]*)?\.md$/;

/** `true` when `date` is a real calendar date written `YYYY-MM-DD` (`2026-02-30` is not). */
export function isDailyLogDate(date: string): boolean {
  const match = DATE.exec(date);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const probe = new Date(0);
  probe.setUTCFullYear(year, month - 1, day);
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/** Whether `name` is a daily log's: a dated `.md` name whose date exists on the calendar. */
export function isDailyLogName(name: string): boolean {
  const date = DATED_NAME.exec(name)?.[1];
  return date !== undefined && isDailyLogDate(date);
}

/** How deep {@link strayDailyLogs} looks under `memory/`. */
const STRAY_DEPTH = 4;

/**
 * Dated logs that big-memory does not read because they sit in a sub-folder of `memory/` (it reads the
 * daily logs directly in `memory/`, where it writes them, and its own archive): one diagnostic per such
 * folder (line 0), naming the folder, how many dated logs it holds, the first of them, and what to do.
 * Hidden folders (`.obsidian`, big-memory's own) and links to folders are not entered; folders are looked
 * into up to four levels deep. Nothing is opened or read but folder listings.
 */
export function strayDailyLogs(workspaceDir: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const visit = (rel: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(workspaceDir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    if (rel !== MEMORY_DIR) {
      const logs = entries
        .filter((e) => !e.isDirectory() && isDailyLogName(e.name))
        .map((e) => `${rel}/${e.name}`)
        .sort();
      if (logs.length > 0) {
        out.push({
          file: `${rel}/`,
          line: 0,
          message: `${rel}/ holds ${logs.length === 1 ? "a dated log" : `${logs.length} dated logs`} (${logs[0]}${logs.length > 1 ? ", ..." : ""}) that big-memory does not read: it reads the daily logs directly in ${MEMORY_DIR}/; move a log that holds snapshots up to ${MEMORY_DIR}/ for them to be found`,
        });
      }
    }
    if (depth >= STRAY_DEPTH) return;
    for (const e of entries) {
      if (e.isDirectory() && !e.name.startsWith(".")) visit(`${rel}/${e.name}`, depth + 1);
    }
  };
  visit(MEMORY_DIR, 0);
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/**
 * Why `file` (workspace-relative) is not a daily log that the readers read, or null when it is one:
 * `memory/<dated name>.md` or `memory/.big-memory-archive/<dated name>.md` (see {@link isDailyLogName}).
 */
export function logNameProblem(file: string): string | null {
  const rel = memoryRelative(file);
  if (rel === null) return "it is outside the workspace's memory/ folder";
  const parts = rel.split("/");
  const name = parts[parts.length - 1] ?? "";
  const folder = parts.slice(1, -1).join("/");
  if (folder !== "" && folder !== ARCHIVE_DIR)
    return `it is in a sub-folder of memory/, where big-memory reads no daily log`;
  if (!isDailyLogName(name))
    return "it is not a daily log (memory/YYYY-MM-DD.md, or a name starting with a date)";
  return null;
}
