/**
 * `big-memory scrub`: brings a workspace written by an older version up to the persistence gate's rules.
 * The plugin's own state (`.big-memory/`) is redacted and made private (0700 folders, 0600 files, a
 * `.gitignore`); the search index is removed so that it is rebuilt from redacted reads. Daily logs are
 * the user's: they are rewritten only with `logs: true`, after a backup that is read back and compared,
 * and canonical blocks whose text redaction changed get a fresh checksum so they still verify.
 */
import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { chmod, readdir, readFile, rm, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { END_MARKER, START_MARKER_PREFIX } from "../snapshot/format.ts";
import { parseDailyLog } from "../snapshot/parse.ts";
import { type RedactionCounts, redact, redactDeep } from "../snapshot/redact.ts";
import { renderSnapshot } from "../snapshot/render.ts";
import { ARCHIVE_DIR, dailyLogLockPath, MEMORY_DIR } from "./daily-log.ts";
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

/** One file scrub changed, workspace-relative, with the redactions by kind (never the values). */
export interface ScrubbedFile {
  file: string;
  redactions: RedactionCounts;
  total: number;
  /** Canonical blocks given a fresh checksum after redaction (daily logs only). */
  rechecksummed?: number;
}

/** What `scrub` did. */
export interface ScrubReport {
  /** Files whose text was redacted. */
  files: ScrubbedFile[];
  /** Permission changes and other fixes, as short phrases. */
  fixed: string[];
  /** The search index was removed (it is rebuilt from redacted reads). */
  indexRemoved: boolean;
  /** Where the original daily logs were copied before rewriting (workspace-relative), or null. */
  backup: string | null;
  /** Redactions over all files, by kind, and their sum. */
  counts: RedactionCounts;
  total: number;
}

export interface ScrubOptions {
  /** Also redact the daily logs `memory/*.md` and the archives `memory/archive/*.md`, `memory/.big-memory-archive/*.md` (a verified backup is kept). */
  logs?: boolean;
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
    const logs = await dailyLogs(workspaceDir);
    const backupRel = `${STATE_DIR_NAME}/scrub-backup/${stamp(options.now ?? new Date())}`;
    await withLock(
      dailyLogLockPath(workspaceDir),
      async () => {
        for (const rel of logs) {
          const scrubbed = await scrubLog(workspaceDir, rel, join(workspaceDir, backupRel));
          if (scrubbed === null) continue;
          report.backup = backupRel;
          add(scrubbed);
        }
      },
      { timeoutMs: 10_000, staleMs: 30_000 },
    );
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

/**
 * Redacts one daily log. The original is copied to `backupDir` and read back (sha256 compared) before the
 * log is rewritten, keeping its mode. Null when there was nothing to redact.
 */
async function scrubLog(workspaceDir: string, rel: string, backupDir: string): Promise<ScrubbedFile | null> {
  const path = join(workspaceDir, rel);
  const original = await readFile(path);
  const text = original.toString("utf8");
  const redacted = redact(text);
  if (redacted.total === 0) return null;
  const before = new Map(parseDailyLog(text, rel).snapshots.map((s) => [s.snapshot.id, s.verified]));
  const { text: fixed, rechecksummed } = rechecksum(redacted.text, rel, before);
  const backup = join(backupDir, rel);
  await writePrivateBytes(backup, original);
  const copy = await readFile(backup);
  if (sha256(copy) !== sha256(original)) {
    throw new Error(
      `big-memory: the backup of ${rel} did not read back identically; ${rel} was left as it was`,
    );
  }
  await rewriteUserLog(path, fixed);
  return { file: rel, redactions: redacted.counts, total: redacted.total, rechecksummed };
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

/** `memory/*.md`, `memory/archive/*.md` and `memory/.big-memory-archive/*.md`, workspace-relative. */
async function dailyLogs(workspaceDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const sub of [MEMORY_DIR, `${MEMORY_DIR}/archive`, `${MEMORY_DIR}/${ARCHIVE_DIR}`]) {
    const names = await readdir(join(workspaceDir, sub)).catch(() => [] as string[]);
    for (const name of names.sort()) {
      if (!name.endsWith(".md")) continue;
      const info = await stat(join(workspaceDir, sub, name)).catch(() => null);
      if (info?.isFile() === true) out.push(`${sub}/${name}`);
    }
  }
  return out;
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
