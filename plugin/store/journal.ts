/**
 * The journal: big-memory's private copy of every block it wrote to a daily log or claimed there, so a log
 * that a model's `write`, an editor or a person replaced or cut loses no snapshot. One JSON line per record
 * (journal-schema.ts) in `.big-memory/journal/<date>.jsonl`, one file per daily log date, through the
 * persistence gate (redacted, 0600 in 0700). This module writes records; journal-check.ts reads them.
 *
 * - An append's record is written with the log's append, under the workspace lock, without an fsync of its
 *   own (the log itself was just fsynced; see gate.ts `AppendOptions`).
 * - Ids: a day's next id is above every id its journal holds too, so an id lost with a replaced log is
 *   never given to another snapshot.
 * - Bounded: a day's file stops keeping block texts past {@link JOURNAL_DAY_MAX_BYTES} (its records go on,
 *   marked `clipped`); when a new day's file is started, the oldest files go beyond
 *   {@link JOURNAL_MAX_DAYS} files or {@link JOURNAL_MAX_BYTES} in all.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { readdir, readFile, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errorCode, errorMessage } from "./fs-durable.ts";
import { appendPrivateText, type GatedText, gateJsonLineWith, gateText, STATE_DIR_NAME } from "./gate.ts";
import { appendPrivateTextUnsynced as appendUnsynced } from "./gate-sync.ts";
import type { BaselineReason, JournalRecord } from "./journal-schema.ts";

/** The journal's folder inside the state folder. */
export const JOURNAL_DIR = "journal";
/** Day files kept; the oldest go first. */
export const JOURNAL_MAX_DAYS = 92;
/** Bytes kept over all day files; the oldest go first. */
export const JOURNAL_MAX_BYTES = 64 * 1024 * 1024;
/** Size of a day's file past which its records no longer carry block texts. */
export const JOURNAL_DAY_MAX_BYTES = 8 * 1024 * 1024;

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;
const LOG_FILE = /^memory\/(\d{4}-\d{2}-\d{2})\.md$/;

/** The journal file of the daily log of `date`. */
export function journalPath(workspaceDir: string, date: string): string {
  return join(workspaceDir, STATE_DIR_NAME, JOURNAL_DIR, `${date}.jsonl`);
}

/** `.big-memory/journal/<date>.jsonl`: how the journal of a day is named in messages. */
export function journalRelative(date: string): string {
  return `${STATE_DIR_NAME}/${JOURNAL_DIR}/${date}.jsonl`;
}

/** The date of a daily log `memory/YYYY-MM-DD.md`, or null for any other file (variants are not journaled). */
export function journaledDate(file: string): string | null {
  return LOG_FILE.exec(file)?.[1] ?? null;
}

/** The text of a day's journal, "" when it has none. */
export async function readJournalDay(workspaceDir: string, date: string): Promise<string> {
  try {
    return await readFile(journalPath(workspaceDir, date), "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "";
    throw error;
  }
}

/** What an append needs of a day's journal: its size, and what its last record says. */
export interface JournalTail {
  bytes: number;
  /** The day's highest id the journal has seen, and how many ids of the day its log held, as last recorded. */
  max: string | null;
  count: number | null;
}

/**
 * The tail of a day's journal (its size, its last record's `max` and `count`), read from the end, 4 KB first,
 * synchronously and without blocking (a FIFO reads empty), as the lock reads; a torn last line is passed over.
 */
export async function readJournalTail(workspaceDir: string, date: string): Promise<JournalTail> {
  let fd: number;
  try {
    fd = openSync(journalPath(workspaceDir, date), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { bytes: 0, max: null, count: null };
    throw error;
  }
  try {
    const bytes = fstatSync(fd).size;
    for (let want = 4 * 1024; ; want *= 4) {
      const from = Math.max(0, bytes - want);
      const buffer = Buffer.alloc(bytes - from);
      readSync(fd, buffer, 0, buffer.length, from);
      const text = buffer.toString("utf8");
      const last = lastRecordIn(from === 0 ? text : text.slice(text.indexOf("\n") + 1));
      if (last !== null || from === 0) return { bytes, max: last?.max ?? null, count: last?.count ?? null };
    }
  } finally {
    closeSync(fd);
  }
}

/** The `max` and `count` of the last complete record in `text` (whole lines), or null. */
function lastRecordIn(text: string): { max: string | null; count: number | null } | null {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf("\n", end - 2) + 1;
    const line = text.slice(start, end).trim();
    end = start;
    if (line === "") continue;
    try {
      const value = JSON.parse(line) as Partial<JournalRecord>;
      return {
        max: typeof value.max === "string" ? value.max : null,
        count: typeof value.count === "number" ? value.count : null,
      };
    } catch {
      // A torn last line (a crash mid-write) says nothing: look further back.
    }
  }
  return null;
}

const KINDS = new Set(["append", "claim", "baseline"]);
const REASONS = new Set(["rewrite", "repair"]);
const FIELDS = new Set([
  "v",
  "kind",
  "at",
  "file",
  "ino",
  "base",
  "size",
  "id",
  "line",
  "session",
  "block",
  "clipped",
  "gap",
  "reason",
  "gone",
  "max",
  "count",
]);
const SNAPSHOT_ID = /^\d{4}-\d{2}-\d{2}-\d{2,}$/;
const isBytes = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * The record a parsed line holds, or what is wrong with it (the field and what was expected). The same
 * rules as journal-schema.ts's zod schema, which a test holds them to, checked by hand: `status` reads the
 * journal, and loading zod would cost it more than reading the journal.
 */
export function journalRecordOf(value: unknown): JournalRecord | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "expected a JSON object";
  const r = value as Record<string, unknown>;
  const unknown = Object.keys(r).find((k) => !FIELDS.has(k));
  if (unknown !== undefined) return `${unknown}: not a field of a record`;
  const problems: [boolean, string][] = [
    [r.v === 1, "v: expected 1"],
    [typeof r.kind === "string" && KINDS.has(r.kind), "kind: expected append, claim or baseline"],
    [typeof r.at === "string" && r.at !== "", "at: expected a time"],
    [typeof r.file === "string" && LOG_FILE.test(r.file), "file: expected memory/YYYY-MM-DD.md"],
    [typeof r.ino === "string" && /^\d+$/.test(r.ino), "ino: expected a decimal inode number"],
    [isBytes(r.base), "base: expected a byte count"],
    [isBytes(r.size), "size: expected a byte count"],
    [
      r.id === undefined || (typeof r.id === "string" && SNAPSHOT_ID.test(r.id)),
      "id: expected a snapshot id YYYY-MM-DD-NN",
    ],
    [
      r.line === undefined || (Number.isSafeInteger(r.line) && (r.line as number) > 0),
      "line: expected a line number",
    ],
    [
      r.session === undefined || r.session === null || typeof r.session === "string",
      "session: expected text or null",
    ],
    [r.block === undefined || typeof r.block === "string", "block: expected text"],
    [r.clipped === undefined || r.clipped === true, "clipped: expected true"],
    [r.gap === undefined || r.gap === true, "gap: expected true"],
    [
      r.reason === undefined || (typeof r.reason === "string" && REASONS.has(r.reason)),
      "reason: expected rewrite or repair",
    ],
    [
      r.gone === undefined || (Array.isArray(r.gone) && r.gone.every((g) => typeof g === "string")),
      "gone: expected a list of ids",
    ],
    [
      r.max === undefined || (typeof r.max === "string" && SNAPSHOT_ID.test(r.max)),
      "max: expected a snapshot id",
    ],
    [r.count === undefined || isBytes(r.count), "count: expected a number of ids"],
  ];
  const problem = problems.find(([ok]) => !ok);
  return problem === undefined ? (r as JournalRecord) : problem[1];
}

/** A record as the writers here make it (version and time added); its block may be a text the gate gave back. */
export type NewRecord = Omit<JournalRecord, "v" | "at" | "block"> & { block?: string | GatedText };

/**
 * Appends `record` to the journal of its log's date (through the gate: redacted, private), without an fsync
 * unless `sync`. A block is dropped (`clipped`) when the day's file (`dayBytes`, when the caller knows its size)
 * is already past {@link JOURNAL_DAY_MAX_BYTES}. A new day's file prunes the oldest ones.
 */
export async function appendRecord(
  workspaceDir: string,
  record: NewRecord,
  options: { at: Date; dayBytes?: number; sync?: boolean },
): Promise<void> {
  const date = journaledDate(record.file);
  if (date === null) throw new Error(`big-memory: ${record.file} is not a daily log the journal keeps`);
  const path = journalPath(workspaceDir, date);
  const dayBytes = options.dayBytes ?? (await sizeOf(path));
  const { block, ...rest } = record;
  const clipped = block !== undefined && dayBytes > JOURNAL_DAY_MAX_BYTES;
  const line = { v: 1, at: options.at.toISOString(), ...rest, ...(clipped ? { clipped: true } : {}) };
  const gated =
    block === undefined || clipped
      ? `${JSON.stringify(line)}\n`
      : typeof block === "string"
        ? `${JSON.stringify({ ...line, block })}\n`
        : gateJsonLineWith(line, "block", block);
  const { created } = options.sync ? await appendPrivateText(path, gated) : appendUnsynced(path, gated);
  if (created) await pruneJournal(workspaceDir);
}

/** The ids of the blocks a log holds, as their `<!-- snapshot-id: ... -->` comments write them. */
export const LOG_ID = /<!--\s*snapshot-id:\s*(\d{4}-\d{2}-\d{2}-\d{2,})\s*-->/g;

/** How many `<!-- snapshot-id: ... -->` comments of the date of `id` `text` holds. */
export function idsOfDay(text: string, id: string): number {
  const date = id.slice(0, 10);
  let n = 0;
  for (const m of text.matchAll(LOG_ID)) if (m[1]?.startsWith(date) === true) n++;
  return n;
}

/** Whether `text` holds a `<!-- snapshot-id: <id> -->` comment. */
export function holdsId(text: string, id: string): boolean {
  return new RegExp(`<!--\\s*snapshot-id:\\s*${id.replace(/[^\d-]/g, "")}\\s*-->`).test(text);
}

/** The later of two ids of one date (`2026-11-22-10` after `2026-11-22-09`). */
export function laterId(a: string, b: string): string {
  return BigInt(b.slice(b.lastIndexOf("-") + 1)) > BigInt(a.slice(a.lastIndexOf("-") + 1)) ? b : a;
}

/** What daily-log.ts knows of a block it just appended, under the workspace lock. */
export interface AppendedBlock {
  workspaceDir: string;
  file: string;
  id: string;
  line: number;
  /** The log's size before the append (its offset). */
  base: number;
  /** The block as written (as the gate gave it back), without the line feeds that separate it. */
  block: GatedText;
  /** The day's journal's tail, and how many id comments of the day the log held before this append. */
  journal: JournalTail;
  idsBefore: number;
  session?: string | null;
  now?: Date;
}

/**
 * Keeps the copy of a block just appended in the journal, with no fsync of its own (the log's append was
 * synced); `info`: the log's `fstat` after the append. Returns why it could not, or null; never throws.
 */
export async function recordAppend(info: { ino: bigint; size: bigint }, block: AppendedBlock) {
  try {
    // `base` below the previous record's size proves the log was cut meanwhile, and fewer ids in the log than
    // the previous record counted (`gap`) that it was rewritten: journal-check.ts reads the log then.
    const before = block.idsBefore;
    const gap = block.journal.count !== null && before < block.journal.count;
    const max = block.journal.max === null ? block.id : laterId(block.journal.max, block.id);
    await appendRecord(
      block.workspaceDir,
      {
        kind: "append",
        file: block.file,
        ino: info.ino.toString(),
        base: block.base,
        size: Number(info.size),
        id: block.id,
        line: block.line,
        session: block.session ?? null,
        block: block.block,
        max,
        count: before + 1,
        ...(gap ? { gap: true as const } : {}),
      },
      { at: block.now ?? new Date(), dayBytes: block.journal.bytes },
    );
    return null;
  } catch (error) {
    return `its copy could not be kept in the journal (${errorMessage(error)})`;
  }
}

/**
 * Records that the block of snapshot `claim.id` at `claim.file`:`claim.line` (a model wrote it in the flush)
 * belongs to `claim.session`, with the block's text as the log holds it now. A block that is not there (the
 * log changed meanwhile) is recorded without text. Only daily logs `memory/YYYY-MM-DD.md` are journaled.
 */
export async function recordClaim(
  workspaceDir: string,
  claim: { file: string; line: number; id: string; session: string | null },
  at: Date,
): Promise<void> {
  if (journaledDate(claim.file) === null) return;
  const path = join(workspaceDir, claim.file);
  const [text, info] = await Promise.all([readFile(path, "utf8"), stat(path, { bigint: true })]);
  const found = blockText(text, claim.line, claim.id);
  // A model wrote this block: redacted here as a block (line by line), before it goes into a JSON line.
  const block = found === null ? null : gateText(found).text;
  const size = Number(info.size);
  const tail = await readJournalTail(workspaceDir, journaledDate(claim.file) as string);
  await appendRecord(
    workspaceDir,
    {
      kind: "claim",
      file: claim.file,
      ino: info.ino.toString(),
      base: size,
      size,
      id: claim.id,
      line: claim.line,
      session: claim.session,
      ...(block === null ? {} : { block }),
      max: tail.max === null ? claim.id : laterId(tail.max, claim.id),
      count: idsOfDay(text, claim.id),
    },
    { at, dayBytes: tail.bytes },
  );
}

/**
 * Records the daily log `file` as it stands now as the journal's new baseline: what is missing from it or
 * cut before this record is no longer reported (`repair` after re-appending, archive and scrub after
 * rewriting). Nothing is recorded for a log the journal does not know of (no journal file for its date).
 */
export async function recordBaseline(
  workspaceDir: string,
  file: string,
  reason: BaselineReason,
  at: Date,
  gone: readonly string[] = [],
): Promise<boolean> {
  const date = journaledDate(file);
  if (date === null) return false;
  const tail = await readJournalTail(workspaceDir, date);
  if (tail.bytes === 0) return false;
  let ino = "0";
  let text = "";
  try {
    const info = await stat(join(workspaceDir, file), { bigint: true });
    ino = info.ino.toString();
    text = await readFile(join(workspaceDir, file), "utf8");
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
  const size = Buffer.byteLength(text);
  // The day's highest id carries on, so that ids archived or lost before this baseline are never given again.
  await appendRecord(
    workspaceDir,
    {
      kind: "baseline",
      file,
      ino,
      base: size,
      size,
      reason,
      ...(gone.length === 0 ? {} : { gone: [...gone] }),
      ...(tail.max === null ? {} : { max: tail.max }),
      count: idsOfDay(text, `${date}-00`),
    },
    { at, sync: true, dayBytes: tail.bytes },
  );
  return true;
}

/** {@link recordBaseline} `rewrite` for a daily log path big-memory just rewrote (gate.ts `rewriteUserLog`). */
export async function recordRewrite(path: string): Promise<void> {
  const memory = dirname(path);
  if (basename(memory) !== "memory") return;
  await recordBaseline(dirname(memory), `memory/${basename(path)}`, "rewrite", new Date());
}

/**
 * The text of the block of snapshot `id` in `text`: the one whose start marker is on `line` (1-based), else
 * the first carrying that id; from its start marker to the end of its end marker's line. Null when none.
 */
export function blockText(text: string, line: number, id: string): string | null {
  const starts = [...text.matchAll(/^[ \t]*<!--[ \t]*BIG-MEMORY-SNAPSHOT[ \t]+v\d+[ \t]*-->[ \t]*$/gm)];
  const ends = /^[ \t]*<!--[ \t]*\/BIG-MEMORY-SNAPSHOT[ \t]*-->[ \t]*(?:\r\n|\r|\n|$)/gm;
  const idComment = new RegExp(`<!--\\s*snapshot-id:\\s*${id.replace(/[^\d-]/g, "")}\\s*-->`);
  const blocks = starts.flatMap((start) => {
    ends.lastIndex = start.index;
    const end = ends.exec(text);
    if (end === null) return [];
    const body = text.slice(start.index, end.index + end[0].length);
    if (!idComment.test(body)) return [];
    const at = text.slice(0, start.index).split(/\r\n|\r|\n/).length;
    return [{ at, body: body.endsWith("\n") || body.endsWith("\r") ? body : `${body}\n` }];
  });
  return (blocks.find((b) => b.at === line) ?? blocks[0])?.body ?? null;
}

/** The day files of the journal, oldest date first, with their sizes. */
export async function journalDays(workspaceDir: string): Promise<{ date: string; bytes: number }[]> {
  const dir = join(workspaceDir, STATE_DIR_NAME, JOURNAL_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return [];
    throw new Error(`big-memory: cannot list ${STATE_DIR_NAME}/${JOURNAL_DIR}/: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const days = await Promise.all(
    names.flatMap((name) => {
      const date = DAY_FILE.exec(name)?.[1];
      return date === undefined ? [] : [sizeOf(join(dir, name)).then((bytes) => ({ date, bytes }))];
    }),
  );
  return days.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** Removes the oldest day files beyond {@link JOURNAL_MAX_DAYS} files or {@link JOURNAL_MAX_BYTES} bytes. */
export async function pruneJournal(
  workspaceDir: string,
  limits: { days: number; bytes: number } = { days: JOURNAL_MAX_DAYS, bytes: JOURNAL_MAX_BYTES },
): Promise<string[]> {
  const days = await journalDays(workspaceDir);
  let total = days.reduce((sum, d) => sum + d.bytes, 0);
  const removed: string[] = [];
  // The newest day is never removed: it holds the record just written.
  for (let i = 0; i < days.length - 1 && (days.length - i > limits.days || total > limits.bytes); i++) {
    const day = days[i] as { date: string; bytes: number };
    await rm(journalPath(workspaceDir, day.date), { force: true });
    total -= day.bytes;
    removed.push(day.date);
  }
  return removed;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return 0;
    throw error;
  }
}
