/**
 * The daily logs `memory/YYYY-MM-DD.md` of a workspace: paths, snapshot id allocation, the locked durable
 * append, and reads. A daily log is append-only here: nothing in this module rewrites, truncates or reorders
 * one, and nothing outside `memory/` is touched.
 */
import { type BigIntStats, fstatSync, statSync } from "node:fs";
import { constants, type FileHandle, open, readdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  checkBlock,
  countLineEndings,
  factsAfter,
  factsOf,
  forgetFacts,
  highestIdNumber,
  type LogFacts,
  rememberedFacts,
  rememberFacts,
} from "./daily-log-facts.ts";
import { appendDurably, errorCode, errorMessage, freeSpace } from "./fs-durable.ts";
import {
  ensurePrivateDir,
  type GatedText,
  gatedTextOf,
  gateTextOnce,
  PRIVATE_FILE_MODE,
  refuseLinkedStateDir,
  resolveInside,
} from "./gate.ts";
import { holdsId, type JournalTail, readJournalTail, recordAppend } from "./journal.ts";
import { DEFAULT_LOCK_STALE_MS, DEFAULT_LOCK_TIMEOUT_MS, withLock } from "./lock.ts";
import { isDailyLogDate, isDailyLogName, strayDailyLogs } from "./log-names.ts";
import {
  ARCHIVE_DIR,
  MEMORY_DIR,
  RefusedFileError,
  readFailure,
  readMemoryFile,
  statMemoryFileSync,
} from "./log-open.ts";

export { ARCHIVE_DIR, isDailyLogDate, isDailyLogName, MEMORY_DIR, readFailure, strayDailyLogs };

/** The lock directory that serialises appends to every daily log of a workspace, inside {@link MEMORY_DIR}. */
export const LOCK_NAME = ".big-memory.lock";

/** The local calendar date of `at` as `YYYY-MM-DD`: the daily log a snapshot taken at `at` goes to. */
export function dailyLogDate(at: Date): string {
  const pad = (n: number, width: number) => String(n).padStart(width, "0");
  return `${pad(at.getFullYear(), 4)}-${pad(at.getMonth() + 1, 2)}-${pad(at.getDate(), 2)}`;
}

/** `memory/<date>.md`, always with `/`: how files are named in messages and in the CLI's JSON. */
export function dailyLogRelative(date: string): string {
  return `${MEMORY_DIR}/${checkDate(date)}.md`;
}

/** The absolute (or `workspaceDir`-relative) path of the daily log of `date`. Throws on a malformed date. */
export function dailyLogPath(workspaceDir: string, date: string): string {
  return join(workspaceDir, MEMORY_DIR, `${checkDate(date)}.md`);
}

/** The path of the lock directory that guards appends to the workspace's daily logs. */
export function dailyLogLockPath(workspaceDir: string): string {
  return join(workspaceDir, MEMORY_DIR, LOCK_NAME);
}

/**
 * The id the next snapshot of `date` gets in a daily log whose text is `text`: `<date>-NN`, where NN is one more
 * than the highest number among the `<!-- snapshot-id: <date>-NN -->` comments of that date found anywhere in the
 * text (torn blocks included, so an id is never reused), at least two digits, and growing past 99 (`100`).
 * Ids of other dates are ignored. Pure; a plain regular-expression scan, no markdown parsing.
 */
export function nextSnapshotId(text: string | Buffer, date: string): string {
  checkDate(date);
  return `${date}-${String(highestIdNumber(text, date) + 1n).padStart(2, "0")}`;
}

export interface AppendSnapshotOptions {
  /** The workspace folder holding `memory/`. `memory/` and missing ancestors are created. */
  workspaceDir: string;
  /** The daily log's date, `YYYY-MM-DD`. */
  date: string;
  /**
   * Renders the block for the allocated id. Called under the lock, once. The text must hold exactly one
   * `<!-- BIG-MEMORY-SNAPSHOT v1 -->` line, then `<!-- snapshot-id: <id> -->`, then one
   * `<!-- /BIG-MEMORY-SNAPSHOT -->` line. If it throws (or rejects), nothing is written.
   */
  render: (id: string) => string | GatedText | Promise<string | GatedText>;
  /** How long to wait for the workspace lock, in milliseconds. Default {@link DEFAULT_LOCK_TIMEOUT_MS}. */
  lockTimeoutMs?: number;
  /** Age of the holder's heartbeat after which its lock is broken, in ms. Default {@link DEFAULT_LOCK_STALE_MS}. */
  lockStaleMs?: number;
  /** This id instead of the next free one (`repair` puts a lost block back); refused if the log holds it. */
  keepId?: string;
  /** The session the block is written for, and the clock (default `new Date()`), for the journal's record. */
  session?: string | null;
  now?: Date;
}

/** Where an appended block landed. */
export interface AppendedSnapshot {
  /** The allocated snapshot id, `2026-11-22-03`. */
  id: string;
  /** The daily log relative to the workspace, `memory/2026-11-22.md`. */
  file: string;
  /** The daily log's path as built from `workspaceDir`. */
  path: string;
  /** 1-based line of the block's start marker in the file after the append. */
  line: number;
  /** Byte offset where this append began: the file's size before it. */
  offset: number;
  /** Bytes written: up to two separating line feeds, then the block. */
  bytes: number;
  /** Why the block's copy is not in the journal (store/journal.ts), else null; the caller reports it. */
  journalProblem: string | null;
}

/**
 * Appends one snapshot block to the daily log of `date`, durably and atomically with respect to other
 * big-memory writers in any process: under the workspace lock it learns what it needs of the log (its size,
 * line count, last line and ids: remembered from this process's previous append when `fstat` and the log's
 * last bytes say it is unchanged since, else read whole; daily-log-facts.ts), allocates the next id (as
 * {@link nextSnapshotId} would over the log, and above the journal's), renders the block, and writes it with
 * a single write call on an `O_APPEND` handle, preceded by the line feeds needed for the block to start on a
 * fresh line after a blank line (also when the log ends mid-line or with a torn block). The file is fsynced,
 * and its folder too when the file is new. Rejects with `big-memory: cannot append to memory/<date>.md:
 * <reason>` (the original error as `cause`, a `LockTimeoutError` when the lock stayed busy), having written nothing.
 */
export async function appendSnapshotBlock(options: AppendSnapshotOptions): Promise<AppendedSnapshot> {
  const { workspaceDir, date, render } = options;
  const file = dailyLogRelative(date);
  try {
    // A log or `memory/` that is a link out of the workspace is refused, never written through (checked before
    // `memory/` is made; when it is a folder already, the one check below sees the same).
    const memory = join(workspaceDir, MEMORY_DIR);
    if (statSync(memory, { throwIfNoEntry: false })?.isDirectory() !== true) {
      await resolveInside(workspaceDir, dailyLogPath(workspaceDir, date));
      await ensurePrivateDir(memory);
    } else refuseLinkedStateDir(memory);
    const path = await resolveInside(workspaceDir, dailyLogPath(workspaceDir, date));
    const appended = await withLock(
      dailyLogLockPath(workspaceDir),
      () => appendLocked(path, file, date, render, { ...options, workspaceDir }),
      {
        timeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
        staleMs: options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS,
      },
    );
    return { ...appended, path: dailyLogPath(workspaceDir, date) };
  } catch (error) {
    throw new Error(`big-memory: cannot append to ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

/** The append proper; the caller holds the lock. */
async function appendLocked(
  path: string,
  file: string,
  date: string,
  render: (id: string) => string | GatedText | Promise<string | GatedText>,
  options: AppendSnapshotOptions,
): Promise<AppendedSnapshot> {
  // The day's journal: its ids are never given again, and the append's record goes into it.
  let journal: JournalTail = { bytes: 0, max: null, count: null };
  let journalProblem: string | null = null;
  try {
    journal = await readJournalTail(options.workspaceDir, date);
  } catch (error) {
    journalProblem = `its journal could not be read (${errorMessage(error)})`;
  }
  // Another program (not big-memory, so not under our lock) may create the file between our read and our
  // exclusive create; then read again rather than guess where the block landed.
  for (let attempt = 1; ; attempt++) {
    let opened = await openForAppend(path, false);
    let handle: FileHandle | null = opened?.handle ?? null;
    try {
      const facts = opened === null ? factsOf("", date) : await logFacts(path, opened, date, options.keepId);
      const seen = journal.max === null ? 0n : highestIdNumber(`<!-- snapshot-id: ${journal.max} -->`, date);
      const next = (seen > facts.highest ? seen : facts.highest) + 1n;
      const id = options.keepId ?? `${date}-${String(next).padStart(2, "0")}`;
      // The persistence gate: every appended byte is redacted, here or (a block the gate gave back) already.
      const rendered = await render(id);
      const gated = gatedBlock(rendered);
      const block = gatedTextOf(gated);
      const markerLine = checkBlock(block, id);
      const { separator } = facts;
      const created = handle === null;
      if (handle === null) {
        opened = await openForAppend(path, true);
        handle = opened?.handle ?? null;
      }
      if (handle === null) {
        if (attempt < 3) continue;
        throw new Error(`${file} keeps appearing while being created`);
      }
      const offset = facts.bytes;
      const payload = Buffer.from(separator + block, "utf8");
      let bytes: number;
      try {
        bytes = await appendDurably(handle, payload, { dir: dirname(path), created });
      } catch (error) {
        forgetFacts(path);
        throw await undoAppend(handle, path, offset, created, error);
      }
      const after = factsAfter(facts, separator + block, date);
      const joined = facts.endsWithCr && separator.startsWith("\n") ? 1 : 0;
      const line = facts.lines + countLineEndings(separator) - joined + markerLine + 1;
      const info = fstatSync(handle.fd, { bigint: true });
      // Remembered only when nobody else wrote between our write and this fstat (rememberFacts checks the size).
      rememberFacts(path, info, after, payload);
      if (journalProblem === null)
        journalProblem = await recordAppend(info, {
          ...options,
          file,
          id,
          line,
          base: offset,
          block: gated,
          journal,
          idsBefore: facts.ids,
        });
      return { id, file, path, line, offset, bytes, journalProblem };
    } finally {
      await handle?.close();
    }
  }
}

/**
 * The facts of an open log: remembered from this process's last append when `fstat` and its last bytes say
 * it is unchanged since, else read whole. With `keepId` it is always read whole, to refuse an id it holds.
 */
async function logFacts(
  path: string,
  opened: OpenedLog,
  date: string,
  keepId: string | undefined,
): Promise<LogFacts> {
  if (keepId === undefined) {
    const known = await rememberedFacts(path, opened.handle, opened.info);
    if (known !== null) return known;
  }
  const buffer = await opened.handle.readFile();
  const existing = buffer.toString("utf8");
  if (keepId !== undefined && holdsId(existing, keepId))
    throw new Error(`${dailyLogRelative(date)} already holds a block of snapshot ${keepId}`);
  // Its size in bytes as read (invalid UTF-8 decodes to more bytes than the file holds).
  return factsOf(existing, date, buffer.length);
}

/**
 * After a failed write (a full disk, a quota, an I/O error), cuts the log back to its length before the append
 * (removing it when the append had created it), so no partial block is left for readers to trip on, and
 * returns the error to throw: what failed, the free space where the log lives, and what was undone.
 */
async function undoAppend(
  handle: FileHandle,
  path: string,
  offset: number,
  created: boolean,
  error: unknown,
): Promise<Error> {
  const free = await freeSpace(dirname(path));
  try {
    await handle.truncate(offset);
    await handle.sync();
    if (created && offset === 0) await unlink(path);
  } catch (undo) {
    return new Error(
      `${errorMessage(error)} (${free}); the partial block could not be removed (${errorMessage(undo)}): verify reports it as torn from byte ${offset}`,
      { cause: error },
    );
  }
  return new Error(`${errorMessage(error)} (${free}); nothing was written, the log is as it was`, {
    cause: error,
  });
}

/**
 * Opens the log for reading and appending. Without `create`: `null` when it does not exist. With `create`:
 * creates it exclusively, `null` when it appeared meanwhile.
 */
async function openForAppend(path: string, create: boolean): Promise<OpenedLog | null> {
  // `path` is the log's real path (links resolved and checked), so a link swapped in meanwhile is not followed.
  const flags =
    constants.O_RDWR |
    constants.O_APPEND |
    constants.O_NOFOLLOW |
    (create ? constants.O_CREAT | constants.O_EXCL : 0);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO in the log's place must not block the open (nor, below, the read).
    handle = await open(path, flags | constants.O_NONBLOCK, PRIVATE_FILE_MODE);
  } catch (error) {
    if (errorCode(error) === (create ? "EEXIST" : "ENOENT")) return null;
    if (errorCode(error) === "ENXIO")
      throw new Error("it is a socket, not a regular file: move it out of memory/");
    throw error;
  }
  // Only a regular file is a log, as the open handle says: a FIFO or a device is never read or written.
  // Synchronous on the descriptor, as the append's other small calls (fs-durable.ts `writeAll` says why).
  const info = fstatSync(handle.fd, { bigint: true });
  if (!info.isFile()) {
    await handle.close();
    throw new Error(
      `it is ${info.isFIFO() ? "a FIFO (named pipe)" : info.isDirectory() ? "a folder" : "a special file"}, not a regular file: move it out of memory/`,
    );
  }
  return { handle, info };
}

/** A log open for reading and appending, and what `fstat` said of it when it was opened. */
interface OpenedLog {
  handle: FileHandle;
  info: BigIntStats;
}

const withFinalLineEnding = (block: string): string => (block.endsWith("\n") ? block : `${block}\n`);

/**
 * The block as it is written: a text the gate gave back already (a {@link GatedText} ending with a line feed)
 * as it is; any other text through the gate, with its final line feed. The journal's copy takes it as it is.
 */
function gatedBlock(rendered: string | GatedText): GatedText {
  if (typeof rendered !== "string") {
    const text = gatedTextOf(rendered);
    if (text.endsWith("\n")) return rendered;
    return gateTextOnce(withFinalLineEnding(text)).gated;
  }
  return gateTextOnce(withFinalLineEnding(rendered)).gated;
}

/**
 * The text of the daily log of `date`, or `null` when it does not exist. Rejects with
 * `big-memory: cannot read memory/<date>.md: <reason>` on any other failure.
 */
export async function readDailyLog(workspaceDir: string, date: string): Promise<string | null> {
  const file = dailyLogRelative(date);
  try {
    return (await readMemoryFile(workspaceDir, file)).toString("utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw new Error(`big-memory: cannot read ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

/** A daily log found by {@link listDailyLogs}. */
export interface DailyLogFile {
  /** `YYYY-MM-DD`, from the start of the name. */
  date: string;
  /** `memory/<name>`: `memory/2026-11-22.md`, or a date-prefixed variant such as `memory/2026-11-22-0431.md`. */
  file: string;
  /** The path as built from `workspaceDir`. */
  path: string;
  /** Size in bytes. */
  size: number;
  /** Last modification, in milliseconds since the epoch. */
  mtimeMs: number;
}

/**
 * The daily logs of a workspace, oldest date first: the entries directly in `memory/` whose name is
 * `YYYY-MM-DD.md` or starts with a real date (`2026-11-22-0431.md`, `2026-11-22-slug.md`, as OpenClaw's
 * session memory names them); of one date, `YYYY-MM-DD.md` comes first, then the others by name. The logs
 * of big-memory's own archive (`memory/.big-memory-archive/<date>.md`) are listed too, after the logs of
 * their date, so archived snapshots stay findable. Folders and other names are ignored (dated logs in
 * sub-folders are named by {@link strayDailyLogs}). An entry with a log's name that big-memory does not
 * read (a link out of `memory/`, a loop of links, a FIFO, a device) is listed with size 0, so that every
 * reader names it when it reads it (log-open.ts refuses it with the reason and the fix). A missing
 * `memory/` gives `[]`, and a file deleted while listing is left out. Nothing is opened.
 */
export async function listDailyLogs(workspaceDir: string): Promise<DailyLogFile[]> {
  const names = await namesIn(workspaceDir, MEMORY_DIR);
  const archived = (await namesIn(workspaceDir, `${MEMORY_DIR}/${ARCHIVE_DIR}`)).map(
    (n) => `${ARCHIVE_DIR}/${n}`,
  );
  const dated = [...names, ...archived].flatMap((name) => {
    const base = name.slice(name.lastIndexOf("/") + 1);
    return isDailyLogName(base) ? [{ date: base.slice(0, 10), name }] : [];
  });
  const found = dated.map(({ date, name }) => statDailyLog(workspaceDir, date, name));
  const rank = (l: DailyLogFile) =>
    `${l.date}${l.file === `${MEMORY_DIR}/${l.date}.md` ? "0" : "1"}${l.file}`;
  return found
    .filter((log) => log !== null)
    .sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
}

/** The names in a workspace folder, `[]` when it does not exist. */
async function namesIn(workspaceDir: string, rel: string): Promise<string[]> {
  try {
    return await readdir(join(workspaceDir, rel));
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return [];
    throw new Error(`big-memory: cannot list ${rel}/: ${errorMessage(error)}`, { cause: error });
  }
}

function statDailyLog(workspaceDir: string, date: string, name: string): DailyLogFile | null {
  const file = `${MEMORY_DIR}/${name}`;
  const path = join(workspaceDir, MEMORY_DIR, name);
  const info = statMemoryFileSync(workspaceDir, file);
  if (info === null) return null;
  // A folder with a log's name cannot hold blocks; the walk for stray logs looks into it.
  if (info instanceof RefusedFileError) {
    return info.kind === "folder" ? null : { date, file, path, size: 0, mtimeMs: 0 };
  }
  return { date, file, path, size: info.size, mtimeMs: info.mtimeMs };
}

function checkDate(date: string): string {
  if (!isDailyLogDate(date)) {
    throw new Error(`big-memory: invalid daily log date ${JSON.stringify(date)} (expected YYYY-MM-DD)`);
  }
  return date;
}
