import { lstat, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { END_MARKER } from "../snapshot/format.ts";
import { parseDailyLog } from "../snapshot/parse.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import {
  ARCHIVE_DIR,
  dailyLogLockPath,
  listDailyLogs,
  MEMORY_DIR,
  readFailure,
  strayDailyLogs,
} from "./daily-log.ts";
import { errorCode } from "./fs-durable.ts";
import { appendPrivateText, ensurePrivateDir, gateText, rewriteUserLog, writePrivateText } from "./gate.ts";
import { withLock } from "./lock.ts";
import { readMemoryFile, resolveMemoryFile } from "./log-open.ts";

/**
 * `big-memory archive --before DATE`: with `scrub --logs --apply`, the one place where daily logs are
 * rewritten, and only on explicit request. The snapshot blocks of every log the readers read that is dated
 * before DATE (`memory/DATE.md` and its variants `DATE-0431.md`, `DATE-slug.md`) move to
 * `memory/.big-memory-archive/<same name>`, a folder of big-memory's own that carries a `.gitignore` (a
 * workspace's `memory/archive/` is often the user's: it is never written); every moved block is read back
 * from the archive and compared with the original before the log is rewritten without them (or removed
 * when nothing else was in it). Each log left as it was is reported with the reason and its fix (a block
 * holding a secret: `scrub --logs`), as is each log that is not read (a FIFO, a link out of `memory/`), and
 * each sub-folder of `memory/` holding dated logs, which the readers do not read. Notes between blocks stay
 * where they were.
 */

/** The archive folder's `.gitignore`: its logs are big-memory's copies, never staged by `git add -A`. */
export const ARCHIVE_GITIGNORE =
  "# big-memory's archived snapshot blocks (big-memory archive): never commit them.\n*\n";

export interface ArchivedLog {
  file: string;
  archive: string;
  snapshots: number;
  /** True when the daily log held nothing but snapshots and was removed. */
  removed: boolean;
}

export interface ArchiveResult {
  archived: ArchivedLog[];
  /** Logs dated before the date whose blocks were left where they were, each with why and the fix. */
  problems: { file: string; problem: string }[];
  /** Sub-folders of `memory/` holding dated logs, which are not read and so not archived. */
  strays: Diagnostic[];
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
  const result: ArchiveResult = { archived: [], problems: [], strays: strayDailyLogs(workspaceDir) };
  // Every log the readers read, never an archive (which they list too).
  const logs = (await listDailyLogs(workspaceDir)).filter(
    (l) => l.date < before && !l.file.startsWith(`${MEMORY_DIR}/${ARCHIVE_DIR}/`),
  );
  if (logs.length === 0) return result;
  const archiveDir = join(workspaceDir, MEMORY_DIR, ARCHIVE_DIR);
  await ensureArchiveDir(archiveDir);
  const seen = new Set<string>();
  await withLock(
    dailyLogLockPath(workspaceDir),
    async () => {
      for (const log of logs) {
        let path: string;
        let text: string;
        try {
          path = await resolveMemoryFile(workspaceDir, log.file);
          text = (await readMemoryFile(workspaceDir, log.file)).toString("utf8");
        } catch (error) {
          const problem = readFailure(log.file, error);
          if (problem !== null)
            result.problems.push({ file: log.file, problem: `not archived: ${problem.message}` });
          continue;
        }
        // A link of memory/ to another log: that log is archived as itself.
        if (seen.has(path)) continue;
        seen.add(path);
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
        // The blocks pass the persistence gate like every text big-memory writes; a block that redaction
        // would change (a secret an older rule set let through) would not read back identically.
        const original = spans.map(([a, b]) => text.slice(a, b)).join("\n");
        const gated = gateText(original);
        if (gated.total > 0) {
          result.problems.push({
            file: log.file,
            problem: `not archived: its snapshot blocks hold ${gated.total === 1 ? "a value" : `${gated.total} values`} that redaction removes (a secret written before the current rules); run big-memory scrub --logs to see them and --logs --apply to redact them, then archive again`,
          });
          continue;
        }
        const moved = gated.text;
        const name = log.file.slice(`${MEMORY_DIR}/`.length);
        const relArchive = `${MEMORY_DIR}/${ARCHIVE_DIR}/${name}`;
        const check = parseDailyLog(moved, relArchive);
        if (!isDeepStrictEqual(check.snapshots.map(comparable), parsed.snapshots.map(comparable))) {
          result.problems.push({
            file: log.file,
            problem:
              "not archived: its blocks do not read back identically on their own (a block that runs into the next); run big-memory verify to see which, and fix the block by hand",
          });
          continue;
        }
        const archivePath = join(archiveDir, name);
        let previous = "";
        try {
          previous = await readFile(archivePath, "utf8");
        } catch (error) {
          if (errorCode(error) !== "ENOENT") throw error;
        }
        await appendPrivateText(
          archivePath,
          `${previous === "" || previous.endsWith("\n\n") ? "" : previous.endsWith("\n") ? "\n" : "\n\n"}${moved}`,
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
            problem: `not removed from the log: ${missing.length} block(s) did not read back from ${relArchive}; the log is as it was, and ${relArchive} holds copies: run big-memory verify`,
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
        if (removed) await rm(path);
        else await rewriteUserLog(path, rest);
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

/**
 * Makes the archive folder (0700) with its `.gitignore`, refusing one that is a link: its logs are read
 * as the daily logs are, and written only inside the workspace.
 */
async function ensureArchiveDir(dir: string): Promise<void> {
  const info = await lstat(dir).catch((error: unknown) => {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  });
  if (info !== null && !info.isDirectory()) {
    throw Object.assign(
      new Error(
        `big-memory: refusing to archive into ${MEMORY_DIR}/${ARCHIVE_DIR}: it is ${info.isSymbolicLink() ? "a link" : "not a folder"}; move it away (big-memory creates the folder)`,
      ),
      { code: "ENOTDIR" },
    );
  }
  await ensurePrivateDir(dir);
  const path = join(dir, ".gitignore");
  const current = await readFile(path, "utf8").catch(() => null);
  // Written by rename, so a link put in its place is replaced, never written through.
  if (current !== ARCHIVE_GITIGNORE) await writePrivateText(path, ARCHIVE_GITIGNORE);
}
