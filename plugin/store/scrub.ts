/**
 * `big-memory scrub`: brings a workspace written by an older version up to the persistence gate's rules.
 * The plugin's own state (`.big-memory/`) is redacted and made private (0700 folders, 0600 files, a
 * `.gitignore`); the search index is removed so that it is rebuilt from redacted reads. Daily logs are
 * the user's: with `logs: true` scrub plans what it would change in them, and only big-memory's own
 * snapshot blocks (from a `<!-- BIG-MEMORY-SNAPSHOT v1 -->` line to its `<!-- /BIG-MEMORY-SNAPSHOT -->`
 * line) of the daily logs the readers read (daily-log.ts `listDailyLogs`: dated logs, their variants and
 * big-memory's archive); people's lines outside the blocks, torn blocks and every other file of `memory/`
 * (`rapport-profile.md`, sub-folders) are never opened for writing. With `apply: true` too, each log it
 * changes is first copied to a backup that is read back and compared, then rewritten keeping its mode, and
 * canonical blocks whose text redaction changed get a fresh checksum so they still verify.
 */
import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { chmod, readdir, readFile, rm, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { END_MARKER, START_MARKER_PREFIX } from "../snapshot/format.ts";
import { parseDailyLog } from "../snapshot/parse.ts";
import { type RedactionCounts, redact, redactDeep } from "../snapshot/redact.ts";
import { renderSnapshot } from "../snapshot/render.ts";
import type { Diagnostic } from "../snapshot/snapshot.ts";
import { dailyLogLockPath, listDailyLogs, readFailure, strayDailyLogs } from "./daily-log.ts";
import { errorCode } from "./fs-durable.ts";
import {
  addCounts,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  rewriteUserLog,
  STATE_DIR_NAME,
  secureStateDir,
  writePrivateBytes,
  writePrivateText,
} from "./gate.ts";
import { withLock } from "./lock.ts";
import { readMemoryFile, resolveMemoryFile } from "./log-open.ts";

/** One file scrub changed, workspace-relative, with the redactions by kind (never the values). */
export interface ScrubbedFile {
  file: string;
  redactions: RedactionCounts;
  total: number;
  /** Canonical blocks given a fresh checksum after redaction (daily logs only). */
  rechecksummed?: number;
}

/** One snapshot block of a daily log that redaction changes. */
export interface ScrubbedBlock {
  /** 1-based line of its start marker. */
  line: number;
  /** Its snapshot id as written, or null when it has none. */
  id: string | null;
  redactions: RedactionCounts;
  total: number;
}

/** What scrub changes (or would change) in one daily log: only the blocks listed. */
export interface LogPlan {
  file: string;
  blocks: ScrubbedBlock[];
  redactions: RedactionCounts;
  total: number;
}

/** What `scrub` did. */
export interface ScrubReport {
  /** Files whose text was redacted. */
  files: ScrubbedFile[];
  /** Permission changes and other fixes, as short phrases. */
  fixed: string[];
  /** The search index was removed (it is rebuilt from redacted reads). */
  indexRemoved: boolean;
  /**
   * With `logs`: the daily logs whose snapshot blocks redaction changes, and how; rewritten only when
   * `applied`. Empty without `logs`.
   */
  logs: LogPlan[];
  /** How many daily logs were checked (`logs`), or null without `logs`. */
  logsChecked: number | null;
  /** Whether the daily logs of {@link logs} were rewritten (`apply`), or only planned. */
  applied: boolean;
  /** Daily logs that could not be read or were refused (a link out of `memory/`, a FIFO), each named. */
  problems: Diagnostic[];
  /** With `logs`: sub-folders of `memory/` holding dated logs, which are not read and so not scrubbed. */
  strays: Diagnostic[];
  /** Where the original daily logs were copied before rewriting (workspace-relative), or null. */
  backup: string | null;
  /** Redactions over all files, by kind, and their sum. */
  counts: RedactionCounts;
  total: number;
}

export interface ScrubOptions {
  /** Also plan the redaction of the snapshot blocks of the daily logs (see the module comment). */
  logs?: boolean;
  /** With `logs`: rewrite those blocks, after a verified backup. Without it nothing of `memory/` changes. */
  apply?: boolean;
  /** The clock, for the backup folder's name. */
  now?: Date;
}

/** Scrubs the workspace's state (and with `logs`, its daily logs). See the module comment. */
export async function scrubWorkspace(workspaceDir: string, options: ScrubOptions = {}): Promise<ScrubReport> {
  const stateDir = join(workspaceDir, STATE_DIR_NAME);
  const report: ScrubReport = {
    files: [],
    fixed: [],
    indexRemoved: false,
    logs: [],
    logsChecked: null,
    applied: false,
    problems: [],
    strays: [],
    backup: null,
    counts: {},
    total: 0,
  };
  const add = (file: ScrubbedFile) => {
    if (file.total === 0 && (file.rechecksummed ?? 0) === 0) return;
    report.files.push(file);
    report.counts = addCounts(report.counts, file.redactions);
    report.total += file.total;
  };
  report.fixed.push(...(await secureStateDir(stateDir)));
  const searchDir = join(stateDir, "search");
  if (await isDirectory(searchDir)) {
    await rm(searchDir, { recursive: true, force: true });
    report.indexRemoved = true;
  }
  for (const path of await walk(stateDir)) {
    const rel = relative(workspaceDir, path);
    if (path.endsWith(".json") || path.endsWith(".jsonl"))
      add({ file: rel, ...(await scrubStateFile(path)) });
    report.fixed.push(...(await privateMode(path, rel)));
  }
  if (options.logs === true) {
    report.applied = options.apply === true;
    const backupRel = `${STATE_DIR_NAME}/scrub-backup/${stamp(options.now ?? new Date())}`;
    const scrubLogs = async () => {
      const seen = new Set<string>();
      const logs = await listDailyLogs(workspaceDir);
      report.logsChecked = logs.length;
      report.strays = strayDailyLogs(workspaceDir);
      for (const log of logs) {
        let planned: Awaited<ReturnType<typeof planLog>>;
        try {
          planned = await planLog(workspaceDir, log.file, seen);
        } catch (error) {
          const problem = readFailure(log.file, error);
          if (problem !== null) report.problems.push(problem);
          continue;
        }
        if (planned === null) continue;
        report.logs.push(planned.plan);
        if (!report.applied) continue;
        await rewriteLog(workspaceDir, planned, join(workspaceDir, backupRel));
        report.backup = backupRel;
        add({
          file: planned.plan.file,
          redactions: planned.plan.redactions,
          total: planned.plan.total,
          rechecksummed: planned.rechecksummed,
        });
      }
    };
    // Only a rewrite takes the lock that appends take; a plan reads, as every reader does.
    if (report.applied)
      await withLock(dailyLogLockPath(workspaceDir), scrubLogs, { timeoutMs: 10_000, staleMs: 30_000 });
    else await scrubLogs();
  }
  return report;
}

/** Redacts one JSON or JSON-lines state file in place (atomically); unparsable lines are redacted as text. */
async function scrubStateFile(path: string): Promise<{ redactions: RedactionCounts; total: number }> {
  const text = await readFile(path, "utf8");
  let counts: RedactionCounts = {};
  let total = 0;
  const lines = text.split("\n").map((line) => {
    if (line.trim() === "") return line;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      const r = redact(line);
      counts = addCounts(counts, r.counts);
      total += r.total;
      return r.text;
    }
    const r = redactDeep(json);
    counts = addCounts(counts, r.counts);
    total += r.total;
    return r.total === 0 ? line : JSON.stringify(r.value);
  });
  if (total > 0) await writePrivateText(path, lines.join("\n"));
  return { redactions: counts, total };
}

/** A daily log's plan, with what rewriting it needs: its real path, its bytes as read, its new text. */
interface PlannedLog {
  plan: LogPlan;
  path: string;
  original: Buffer;
  text: string;
  rechecksummed: number;
}

const START_LINE = /^[ \t]*<!--[ \t]*BIG-MEMORY-SNAPSHOT[ \t]+v\d+[ \t]*-->[ \t]*$/;
const END_LINE = /^[ \t]*<!--[ \t]*\/BIG-MEMORY-SNAPSHOT[ \t]*-->[ \t]*$/;
const ID_LINE = /<!--\s*snapshot-id:\s*([^\s>]+)\s*-->/;

/**
 * The complete snapshot blocks of `text` as character spans, each from the start of its start-marker line
 * to the end of its end-marker line (line ending excluded), with its 1-based line. A start marker with no
 * end marker before the next start marker is a torn block: it is not a span, so nothing after it (people's
 * notes, maybe) is ever taken for block text.
 */
export function blockSpans(text: string): { line: number; start: number; end: number }[] {
  const spans: { line: number; start: number; end: number }[] = [];
  let open: { line: number; start: number } | null = null;
  let line = 0;
  for (let at = 0; at <= text.length; ) {
    line++;
    const lf = text.indexOf("\n", at);
    const stop = lf < 0 ? text.length : lf;
    const content = text.slice(at, stop).replace(/\r$/, "");
    if (START_LINE.test(content)) open = { line, start: at };
    else if (open !== null && END_LINE.test(content)) {
      spans.push({ ...open, end: at + content.length });
      open = null;
    }
    if (lf < 0) break;
    at = lf + 1;
  }
  return spans;
}

/**
 * Plans the redaction of one daily log's snapshot blocks: null when no block changes (or the log's real
 * file was planned already, through a link of `memory/`). Rejects as daily-log.ts `readFailure` expects
 * when the log cannot be read or is refused at the boundary.
 */
async function planLog(workspaceDir: string, rel: string, seen: Set<string>): Promise<PlannedLog | null> {
  const path = await resolveMemoryFile(workspaceDir, rel);
  if (seen.has(path)) return null;
  seen.add(path);
  const original = await readMemoryFile(workspaceDir, rel);
  const text = original.toString("utf8");
  const blocks: ScrubbedBlock[] = [];
  let counts: RedactionCounts = {};
  let total = 0;
  let out = "";
  let at = 0;
  for (const span of blockSpans(text)) {
    const block = text.slice(span.start, span.end);
    const redacted = redact(block);
    if (redacted.total === 0) continue;
    blocks.push({
      line: span.line,
      id: ID_LINE.exec(block)?.[1] ?? null,
      redactions: redacted.counts,
      total: redacted.total,
    });
    counts = addCounts(counts, redacted.counts);
    total += redacted.total;
    out += text.slice(at, span.start) + redacted.text;
    at = span.end;
  }
  if (total === 0) return null;
  out += text.slice(at);
  const before = new Map(parseDailyLog(text, rel).snapshots.map((s) => [s.snapshot.id, s.verified]));
  const { text: fixed, rechecksummed } = rechecksum(out, rel, before);
  return {
    plan: { file: rel, blocks, redactions: counts, total },
    path,
    original,
    text: fixed,
    rechecksummed,
  };
}

/**
 * Rewrites one planned log: the original is copied to `backupDir` and read back (sha256 compared) before
 * the log is rewritten, keeping its mode.
 */
async function rewriteLog(workspaceDir: string, planned: PlannedLog, backupDir: string): Promise<void> {
  const rel = planned.plan.file;
  const backup = join(backupDir, rel);
  await writePrivateBytes(backup, planned.original);
  const copy = await readFile(backup);
  if (sha256(copy) !== sha256(planned.original)) {
    throw new Error(
      `big-memory: the backup of ${rel} did not read back identically; ${rel} was left as it was`,
    );
  }
  // The log may have changed since it was read (a person typing): rewrite only the bytes that were planned.
  const now = await readMemoryFile(workspaceDir, rel);
  if (sha256(now) !== sha256(planned.original)) {
    throw new Error(
      `big-memory: ${rel} changed while it was being scrubbed; it was left as it was, run scrub again`,
    );
  }
  await rewriteUserLog(planned.path, planned.text);
}

/** Re-renders canonical blocks that verified before redaction and no longer do, so their checksum holds. */
function rechecksum(
  text: string,
  rel: string,
  verifiedBefore: Map<string, boolean | null>,
): { text: string; rechecksummed: number } {
  const broken = parseDailyLog(text, rel).snapshots.filter(
    (s) => s.verified === false && verifiedBefore.get(s.snapshot.id) === true,
  );
  if (broken.length === 0) return { text, rechecksummed: 0 };
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  let out = "";
  let at = 0;
  let rechecksummed = 0;
  for (const s of broken.sort((a, b) => a.line - b.line)) {
    const start = lineStarts[s.line - 1];
    const endAt = start === undefined ? -1 : text.indexOf(END_MARKER, start);
    if (start === undefined || endAt < 0 || start < at) continue;
    const rendered = renderSnapshot(s.snapshot);
    out += text.slice(at, start) + rendered.slice(rendered.indexOf(START_MARKER_PREFIX)).replace(/\n$/, "");
    at = endAt + END_MARKER.length;
    rechecksummed++;
  }
  return { text: out + text.slice(at), rechecksummed };
}

/** Every file under `dir` except the scrub backups (which hold the originals on purpose), depth first. */
async function walk(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (errorCode(error) === "ENOENT") return [];
    throw error;
  }
  const out: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      await chmod(path, PRIVATE_DIR_MODE);
      if (entry.name !== "scrub-backup") out.push(...(await walk(path)));
    } else if (entry.isFile()) out.push(path);
  }
  return out;
}

async function privateMode(path: string, rel: string): Promise<string[]> {
  const mode = (await stat(path)).mode & 0o777;
  if (mode === PRIVATE_FILE_MODE) return [];
  await chmod(path, PRIVATE_FILE_MODE);
  return [`${rel} mode ${mode.toString(8)} -> 600`];
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() === true;
}

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function stamp(now: Date): string {
  return now.toISOString().replace(/[:.]/g, "-");
}
