/**
 * A month's saved snapshot refs, read from the header of its shard file (the layout codec.ts writes) without
 * the search engine: the fixed prefix and the header's checksum are checked, the JSON is parsed once, its
 * shape is checked once and each row by a cheap typed check (no schema library on this path: `list`,
 * `show`, `recall` and `status` read tens of thousands of rows). A header that fails any check is refused
 * whole with a message naming what is wrong. The postings' analysis is not checked: the refs do not depend
 * on it. Version 2 files keep their refs in the whole file and are left to codec.ts (`old`). Also where
 * the index's files are, so that a command reading refs does not load the code that writes shards.
 */
import { createHash } from "node:crypto";
import { closeSync, readSync } from "node:fs";
import { join, resolve } from "node:path";
import { crc32 } from "node:zlib";
import { TRIGGER_NAMES } from "../snapshot/format.ts";
import { errorCode } from "../store/fs-durable.ts";
import { openStateFileSync, RefusedFileError } from "../store/log-open.ts";
import type { LogProblem, LogRecord, RefTuple, ShardHeader } from "./codec.ts";
import type { Entry } from "./document.ts";
import { checkedTally, type Tally } from "./tally.ts";

/** The folder of a workspace's search index: `<workspace>/.big-memory/search/`, or `<stateDir>/search/<workspace hash>/`. */
export function indexDir(workspaceDir: string, stateDir?: string): string {
  if (stateDir === undefined) return join(workspaceDir, ".big-memory", "search");
  const key = createHash("sha256").update(resolve(workspaceDir)).digest("hex").slice(0, 16);
  return join(stateDir, "search", key);
}

/** The file of a month's shard. */
export function shardPath(dir: string, month: string): string {
  return join(dir, `${month}.bmx`);
}

const MAGIC = 0x42_4d_53_58; // "BMSX", as codec.ts writes it
/**
 * The version codec.ts writes; versions 3 and 4 lay their header out the same way (the rows in it), after
 * a shorter fixed prefix.
 */
const VERSION = 5;
const FIXED = 20; // magic, version, header length, crc32 of the header, crc32 of the body
const FIXED_V5 = 32; // and the length and crc32 of the header's meta, the crc32 of the lean part (codec.ts)

/**
 * What identifies the bytes of a version 3 or 4 shard file: the checksums of its header and body, which
 * decoding checks against the bytes, and its length; undefined for a version 2 file (one checksum).
 */
export function shardStamp(data: Buffer): string | undefined {
  if (data.length < FIXED || data.readUInt32LE(4) === 2) return undefined;
  return `${data.readUInt32LE(12)}-${data.readUInt32LE(16)}-${data.length}`;
}

/** The snapshot triggers a row may name. */
export const TRIGGERS: ReadonlySet<string> = new Set(TRIGGER_NAMES);

/** What reading a month's saved header gave. */
export type SavedHeader =
  | { kind: "missing" }
  | { kind: "old" }
  | { kind: "unreadable"; problem: string }
  | { kind: "loaded"; header: ShardHeader };

/** The header bytes of a month's shard file (see {@link readSavedHeader}), or what stopped the read. */
export function readHeaderBytes(
  dir: string,
  month: string,
):
  | { kind: "missing" }
  | { kind: "old" }
  | { kind: "unreadable"; problem: string }
  | { kind: "bytes"; bytes: Buffer } {
  let fd: number;
  try {
    const path = shardPath(dir, month);
    fd = openStateFileSync(path, path).fd;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "missing" };
    if (error instanceof RefusedFileError) return { kind: "unreadable", problem: error.message };
    throw error;
  }
  try {
    const prefix = Buffer.alloc(FIXED);
    const got = readSync(fd, prefix, 0, FIXED, 0);
    if (got < 16) return { kind: "unreadable", problem: `file is truncated (${got} bytes)` };
    if (prefix.readUInt32LE(0) !== MAGIC)
      return { kind: "unreadable", problem: "not a big-memory search shard (bad magic number)" };
    const version = prefix.readUInt32LE(4);
    if (version === 2) return { kind: "old" };
    if (version !== VERSION && version !== 3 && version !== 4)
      return { kind: "unreadable", problem: `unknown format version ${version} (expected ${VERSION})` };
    const fixed = version === VERSION ? FIXED_V5 : FIXED;
    const length = prefix.readUInt32LE(8);
    const bytes = Buffer.allocUnsafe(length);
    const read = got < FIXED ? 0 : readSync(fd, bytes, 0, length, fixed);
    if (read !== length)
      return { kind: "unreadable", problem: "file is truncated (header runs past the end)" };
    if (crc32(bytes) !== prefix.readUInt32LE(12))
      return { kind: "unreadable", problem: "checksum mismatch (file is corrupt or truncated)" };
    return { kind: "bytes", bytes };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the refs and log records of a month's saved shard (no postings, no snippet text). Synchronous: a
 * command may read many months, and a trip through the thread pool per read costs more than the read.
 */
export function readSavedHeader(dir: string, month: string): SavedHeader {
  const read = readHeaderBytes(dir, month);
  if (read.kind !== "bytes") return read;
  try {
    return { kind: "loaded", header: decodeHeaderJson(read.bytes) };
  } catch (error) {
    return { kind: "unreadable", problem: error instanceof Error ? error.message : String(error) };
  }
}

function fail(message: string): never {
  throw new Error(message);
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
export const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isText = (v: unknown) => typeof v === "string";
const isTextOrNull = (v: unknown) => v === null || typeof v === "string";

/** Where the rows start in a header as codec.ts writes it: the logs' records come before. */
const ROWS = Buffer.from(',"entries":[');
/** Where a version 5 header's tally starts, after the rows (codec.ts `TALLY_KEY`). */
const TALLY = Buffer.from('],"tally":');

/** Decodes the JSON header of a version 3 or 4 shard (its bytes after the fixed prefix); throws naming the problem. */
export function decodeHeaderJson(bytes: Buffer): ShardHeader {
  const json = parseHeaderObject(bytes);
  const { month } = json;
  const files = checkFiles(json);
  if (typeof month !== "string") fail("header is invalid at month: expected a string");
  return { month, entries: entriesOfHeader(json, (r) => entryFromRow(r, "")), files };
}

/** The rows of a parsed header, each checked as a snapshot ref row and made into an entry by `make`. */
export function entriesOfHeader(
  json: Record<string, unknown>,
  make: (row: RefTuple, i: number) => Entry,
): Entry[] {
  const { entries } = json;
  if (!Array.isArray(entries)) fail("header is invalid at entries: expected an array");
  const out: Entry[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) out[i] = make(checkedRow(entries[i], i), i);
  return out;
}

/**
 * The logs' records of a header alone, without decoding its rows: the JSON before the rows is parsed
 * (a quote inside a JSON string is escaped, so the rows' key cannot occur earlier). The whole header,
 * when the rows are not where codec.ts puts them.
 */
export function decodeHeaderFiles(bytes: Buffer): Record<string, LogRecord> {
  return decodeHeaderPrefix(bytes).files;
}

/**
 * The logs' records and the month's tally (search/tally.ts; null when the header has none or a bad one),
 * without decoding the rows, as {@link decodeHeaderFiles} reads them.
 */
export function decodeHeaderPrefix(bytes: Buffer): { files: Record<string, LogRecord>; tally: Tally | null } {
  const at = bytes.indexOf(ROWS);
  const json =
    at < 0 ? parseObject(bytes.toString("utf8")) : parseObject(`${bytes.toString("utf8", 0, at)}}`);
  return { files: checkFiles(json), tally: checkedTally(json.tally ?? tallyAfterRows(bytes, at)) };
}

/**
 * The tally a version 5 header keeps after its rows (`],"tally":{...}}`, codec.ts), or null: a quote
 * inside a JSON string is escaped, so the key cannot occur inside a row.
 */
function tallyAfterRows(bytes: Buffer, rows: number): unknown {
  const at = bytes.lastIndexOf(TALLY);
  if (rows < 0 || at < rows || bytes[bytes.length - 1] !== 0x7d) return null;
  try {
    return JSON.parse(bytes.toString("utf8", at + TALLY.length, bytes.length - 1));
  } catch {
    return null;
  }
}

/** The JSON object of a header's bytes; throws when they are not one. */
export function parseHeaderObject(bytes: Buffer): Record<string, unknown> {
  return parseObject(bytes.toString("utf8"));
}

function parseObject(text: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    fail("header is not valid JSON");
  }
  if (!isObject(json)) fail("header is invalid at the top: expected an object");
  return json;
}

/** The logs' records of a parsed header, each checked; throws naming the first that is not one. */
export function checkFiles(json: Record<string, unknown>): Record<string, LogRecord> {
  const { files } = json;
  if (!isObject(files)) fail("header is invalid at files: expected an object");
  for (const [file, record] of Object.entries(files)) checkRecord(record, `files.${file}`);
  return files as Record<string, LogRecord>;
}

/** Checks a log record in place (the shape of codec.ts `LogRecord`). */
function checkRecord(r: unknown, where: string): void {
  const ok =
    isObject(r) &&
    isCount(r.size) &&
    typeof r.mtimeMs === "number" &&
    (r.ctimeMs === undefined || typeof r.ctimeMs === "number") &&
    (r.ino === undefined || typeof r.ino === "number") &&
    typeof r.crc32 === "string" &&
    /^[0-9a-f]{8}$/.test(r.crc32) &&
    (r.problems === undefined || (Array.isArray(r.problems) && r.problems.every(isProblem))) &&
    (r.redactions === undefined || (isObject(r.redactions) && Object.values(r.redactions).every(isCount)));
  if (!ok) fail(`header is invalid at ${where}: expected a log record`);
}

function isProblem(p: unknown): p is LogProblem {
  return isObject(p) && isCount(p.line) && isText(p.message) && (p.id === undefined || isText(p.id));
}

/** A header row `[id, timestamp, file, line, session, agent, trigger, name, parent, tombstone, verified, goal]`, checked. */
export function checkedRow(r: unknown, i: number): RefTuple {
  if (
    !Array.isArray(r) ||
    r.length !== 12 ||
    !isText(r[0]) ||
    !isText(r[1]) ||
    !isText(r[2]) ||
    !(Number.isInteger(r[3]) && r[3] > 0) ||
    !isTextOrNull(r[4]) ||
    !isTextOrNull(r[5]) ||
    !(r[6] === null || TRIGGERS.has(r[6])) ||
    !isTextOrNull(r[7]) ||
    !isTextOrNull(r[8]) ||
    typeof r[9] !== "boolean" ||
    !(r[10] === null || typeof r[10] === "boolean") ||
    !isText(r[11])
  )
    fail(`header is invalid at entries.${i}: expected a snapshot ref row`);
  return r as RefTuple;
}

/** The header row of an entry (the inverse of {@link entryFromRow}, but for the text). */
export function rowFromEntry(e: Entry): RefTuple {
  const { id, timestamp, file, line, session, agent, trigger, name, parent, tombstone, verified, goal } = e;
  return [id, timestamp, file, line, session, agent, trigger, name, parent, tombstone, verified, goal];
}

/** The entry of a checked header row, with `text` (empty when the postings are not loaded). */
export function entryFromRow(r: RefTuple, text: string): Entry {
  return {
    id: r[0],
    timestamp: r[1],
    time: Date.parse(r[1]),
    file: r[2],
    line: r[3],
    session: r[4],
    agent: r[5],
    trigger: r[6],
    name: r[7],
    parent: r[8],
    tombstone: r[9],
    verified: r[10],
    goal: r[11],
    text,
  };
}
