/**
 * What an append needs to know of a daily log, without reading it whole each time: its size, its number of
 * line endings, how a block appended after it must be separated, the highest snapshot number of its date and
 * how many id comments of that date it holds. Worked out from the log's text once, then carried forward append
 * by append ({@link factsAfter}) and remembered per log in this process, keyed by what `fstat` says of the
 * open log (device, inode, size, modification and change times) and checked against the log's last bytes.
 * Anything else (another process appended, a person edited, cut or replaced the log) misses, and the caller
 * reads the log whole again. Pure text functions, and a bounded in-process memory; nothing is written here.
 */
import { type BigIntStats, readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { idsOfDay } from "./journal.ts";

/** A daily log's facts as an append uses them. */
export interface LogFacts {
  /** The log's size in bytes. */
  bytes: number;
  /** Its `\n`, `\r\n` and lone `\r` line endings, counted as markdown counts them. */
  lines: number;
  /** Whether its last character is a `\r` (a `\n` after it would join that line ending). */
  endsWithCr: boolean;
  /** The line feeds a block appended after it needs ({@link separatorBefore}). */
  separator: string;
  /** The highest number NN among the `<!-- snapshot-id: <date>-NN -->` comments of the date, 0 when none. */
  highest: bigint;
  /** How many complete id comments of the date it holds (journal.ts `idsOfDay`). */
  ids: number;
}

/**
 * The highest NN among the id comments of `date` anywhere in `log` (torn blocks included), 0 when none. On the
 * log's bytes, the answer is the decoded text's and nothing the size of the log is decoded.
 */
export function highestIdNumber(log: string | Buffer, date: string): bigint {
  if (typeof log !== "string") return highestIdNumberIn(log, date);
  const text = log;
  let max = 0n;
  if (!text.includes(date)) return max;
  // The date is digits and hyphens only (the caller checks it), so it needs no escaping.
  const pattern = new RegExp(`<!--\\s*snapshot-id:\\s*${date}-(\\d+)(?!\\d)`, "gi");
  for (const match of text.matchAll(pattern)) {
    const n = BigInt(match[1] ?? "0");
    if (n > max) max = n;
  }
  return max;
}

/** Between a comment's opening and the date, as the pattern above reads it. */
const ID_HEAD = /^<!--\s*snapshot-id:\s*$/i;

/**
 * {@link highestIdNumber} on bytes: each `<date>-` followed by digits, read back to the nearest `<!--` (a match
 * of the pattern holds no other, so its opening is that one) and that head alone decoded and tested.
 */
function highestIdNumberIn(bytes: Buffer, date: string): bigint {
  let max = 0n;
  const needle = `${date}-`;
  for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) {
    const digits = at + needle.length;
    let end = digits;
    for (let c = bytes[end]; c !== undefined && c >= 48 && c <= 57; c = bytes[++end]);
    const open = bytes.lastIndexOf("<!--", at);
    if (end === digits || open < 0 || !ID_HEAD.test(bytes.toString("utf8", open, at))) continue;
    const n = BigInt(bytes.toString("latin1", digits, end));
    if (n > max) max = n;
  }
  return max;
}

/**
 * The line feeds that make a block appended after `text` start on a fresh line after a blank line:
 * none for an empty file or one ending with a blank line, one after a final line ending, two mid-line
 * (a torn write, a line being typed, a lone `\r`).
 */
export function separatorBefore(text: string): string {
  if (text === "") return "";
  if (!text.endsWith("\n")) return "\n\n";
  let end = text.length - 1;
  if (text[end - 1] === "\r") end--;
  let start = end;
  while (start > 0 && (text[start - 1] === " " || text[start - 1] === "\t")) start--;
  const lastLineBlank = start === 0 || text[start - 1] === "\n" || text[start - 1] === "\r";
  return lastLineBlank ? "" : "\n";
}

/** Counts `\n`, `\r\n` and lone `\r`, as markdown (micromark) does when it numbers lines. */
export function countLineEndings(text: string): number {
  let count = 0;
  if (!text.includes("\r")) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) count++;
    return count;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) count++;
    else if (c === 13) {
      count++;
      if (text.charCodeAt(i + 1) === 10) i++;
    }
  }
  return count;
}

/** The facts of a log whose whole text is `text` (`bytes` long on disk), for appends of `date`. */
export function factsOf(text: string, date: string, bytes = Buffer.byteLength(text, "utf8")): LogFacts {
  return {
    bytes,
    lines: countLineEndings(text),
    endsWithCr: text.endsWith("\r"),
    separator: separatorBefore(text),
    highest: highestIdNumber(text, date),
    ids: idsOfDay(text, `${date}-00`),
  };
}

/**
 * The facts of the log once `appended` (the separator and the block) follows it: {@link factsOf} of the
 * joined text, counted from `appended` alone. The one difference would be an id comment straddling the join,
 * which needs a log ending in an unfinished `<!-- snapshot-id:` and a block whose first line is a date; a
 * rendered block opens with `---` or its start marker.
 */
export function factsAfter(facts: LogFacts, appended: string, date: string): LogFacts {
  // A CR at the log's end and an LF opening the appended text are one line ending.
  const joined = facts.endsWithCr && appended.startsWith("\n") ? 1 : 0;
  let highest = highestIdNumber(appended, date);
  if (facts.highest > highest) highest = facts.highest;
  return {
    bytes: facts.bytes + Buffer.byteLength(appended, "utf8"),
    lines: facts.lines + countLineEndings(appended) - joined,
    endsWithCr: appended === "" ? facts.endsWithCr : appended.endsWith("\r"),
    // A block holds line endings before its last line (three marker lines at least), so its end alone decides.
    separator: appended === "" ? facts.separator : separatorBefore(appended),
    highest,
    ids: facts.ids + idsOfDay(appended, `${date}-00`),
  };
}

/** How many of a log's last bytes are kept and compared before its remembered facts are trusted. */
export const CHECKED_TAIL_BYTES = 256;
/** Logs remembered per process: the days a long-running gateway appends to, and some. */
const REMEMBERED_LOGS = 64;

interface Remembered {
  /** `fstat`'s device, inode, size, mtime and ctime (nanoseconds) when the facts were taken. */
  stamp: string;
  facts: LogFacts;
  /** The log's last bytes then (at most {@link CHECKED_TAIL_BYTES}). */
  tail: Buffer;
}

const remembered = new Map<string, Remembered>();

function stampOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/**
 * The facts remembered for the log at `path`, if `info` (a fresh `fstat` of `handle`) says it is the file they
 * were taken of, unchanged since, and its last bytes are still those remembered; otherwise null (and forgotten).
 */
export async function rememberedFacts(
  path: string,
  handle: FileHandle,
  info: BigIntStats,
): Promise<LogFacts | null> {
  const known = remembered.get(path);
  if (known === undefined) return null;
  if (known.stamp !== stampOf(info) || known.facts.bytes !== Number(info.size)) {
    remembered.delete(path);
    return null;
  }
  // A change within the clock's resolution that kept the size could keep the stamp: the last bytes tell it.
  const tail = Buffer.alloc(known.tail.length);
  const bytesRead = readSync(handle.fd, tail, 0, tail.length, known.facts.bytes - tail.length);
  if (bytesRead !== tail.length || !tail.equals(known.tail)) {
    remembered.delete(path);
    return null;
  }
  return known.facts;
}

/**
 * Remembers `facts` for the log at `path` as `info` (a `fstat` right after this process's append) describes
 * it, with `written` (the append's bytes) giving its last bytes. Forgets instead when the size says someone
 * else wrote too (a program appending outside the lock between the write and the `fstat`).
 */
export function rememberFacts(path: string, info: BigIntStats, facts: LogFacts, written: Buffer): void {
  remembered.delete(path);
  if (Number(info.size) !== facts.bytes || written.length === 0) return;
  if (remembered.size >= REMEMBERED_LOGS) {
    const oldest = remembered.keys().next().value;
    if (oldest !== undefined) remembered.delete(oldest);
  }
  const tail = Buffer.from(written.subarray(Math.max(0, written.length - CHECKED_TAIL_BYTES)));
  remembered.set(path, { stamp: stampOf(info), facts, tail });
}

/** Forgets what is remembered of the log at `path` (a failed append, whatever it left). */
export function forgetFacts(path: string): void {
  remembered.delete(path);
}

/** An id comment alone on its line; the id is the run of non-space characters before `-->`. */
const ID_LINE = /^\s*<!--\s*snapshot-id:\s*(\S+?)\s*-->\s*$/;
const START_MARKER = /^[ \t]*<!--[ \t]*BIG-MEMORY-SNAPSHOT[ \t]+v\d+[ \t]*-->[ \t]*$/;
const END_MARKER = /^[ \t]*<!--[ \t]*\/BIG-MEMORY-SNAPSHOT[ \t]*-->[ \t]*$/;

/**
 * Validates a rendered block against the allocated id and returns the 0-based line of its start marker.
 * A block without its own id, or with two start markers, would break id allocation or parsing later.
 */
export function checkBlock(block: string, id: string): number {
  // Only the lines holding a marker are cut out of the block (it is not split into all its lines).
  const starts: Span[] = [];
  const ends: Span[] = [];
  for (let at = block.indexOf("BIG-MEMORY-SNAPSHOT"); at !== -1; ) {
    const line = lineAround(block, at);
    const text = block.slice(line.start, line.end);
    if (START_MARKER.test(text)) starts.push(line);
    else if (text.includes("/BIG-MEMORY-SNAPSHOT") && END_MARKER.test(text)) ends.push(line);
    at = block.indexOf("BIG-MEMORY-SNAPSHOT", line.end);
  }
  const [start] = starts;
  if (starts.length !== 1 || start === undefined) {
    throw new Error(
      `rendered block has ${starts.length} start marker lines (expected exactly one <!-- BIG-MEMORY-SNAPSHOT v1 -->)`,
    );
  }
  const end = ends.find((line) => line.start > start.end);
  if (end === undefined) {
    throw new Error(
      "rendered block has no end marker after its start marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)",
    );
  }
  let carried = false;
  for (let at = block.indexOf("snapshot-id", start.end); at !== -1 && at < end.start && !carried; ) {
    const line = lineAround(block, at);
    // One pattern for every id (a pattern made per id was compiled again at every append), its id compared.
    carried = ID_LINE.exec(block.slice(line.start, line.end))?.[1] === id;
    at = block.indexOf("snapshot-id", line.end);
  }
  if (!carried) {
    throw new Error(
      `rendered block does not carry its id (expected <!-- snapshot-id: ${id} --> inside the block)`,
    );
  }
  return countLineEndings(block.slice(0, start.start));
}

/** The line (between line endings: `\r\n`, `\r` or `\n`) holding the character at `at`. */
function lineAround(text: string, at: number): Span {
  const start = Math.max(text.lastIndexOf("\n", at), text.lastIndexOf("\r", at)) + 1;
  const lf = text.indexOf("\n", at);
  const cr = text.indexOf("\r", at);
  const end = lf === -1 ? (cr === -1 ? text.length : cr) : cr === -1 ? lf : Math.min(lf, cr);
  return { start, end };
}

type Span = { start: number; end: number };
