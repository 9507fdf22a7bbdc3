/**
 * A saved month made searchable from the lean part of its shard file (codec.ts, version 5): the fixed
 * prefix, the header's meta (its logs' records and where each section lies) and the sections a loaded
 * month keeps in memory (term offsets, each term's document count, field lengths, where each text and
 * ref row starts), each checked against its own checksum and against one another. The rest of the file
 * (the ref rows, terms, postings and snippet texts: nearly all of it) is read when a query asks for it,
 * each row and list checked as it is read, and is verified whole later (`verify`: the body's and the
 * header's checksums), by the search service once every month is searchable, or before the month is
 * thawed or written again. The descriptor stays open for the shard, which closes it.
 */
import { fstatSync, readSync } from "node:fs";
import { crc32 } from "node:zlib";
import { at } from "./checked.ts";
import { ANALYSIS, FIXED_V5, ROWS_KEY, SHARD_FORMAT_VERSION, type ShardFile } from "./codec.ts";
import { align, readArray, type Section } from "./codec-bytes.ts";
import { FIELDS } from "./document.ts";
import { type FrozenParts, FrozenShard } from "./frozen-shard.ts";
import { checkFiles, isCount, isObject, parseHeaderObject } from "./saved-header.ts";
import { SavedPostings } from "./saved-postings.ts";
import { SavedRows } from "./saved-rows.ts";
import { SavedTexts, type TextCache } from "./saved-texts.ts";
import type { SavedVocabulary } from "./saved-vocabulary.ts";
import { termsOf } from "./vocabulary.ts";

function fail(message: string): never {
  throw new Error(message);
}

/** `length` bytes of `fd` at `position`; throws when the file holds fewer. */
function readAt(fd: number, length: number, position: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, out, got, length - got, position + got);
    if (n === 0) fail("file is truncated (a section runs past the end)");
    got += n;
  }
  return out;
}

/**
 * The month of a version 5 shard file open as `fd`, from its lean part; undefined when the file is of
 * another version (the caller reads it whole). Throws naming the first problem found; the caller keeps
 * or closes `fd` as for a whole read.
 */
export function openSavedMonth(
  fd: number,
  cache: TextCache,
  vocabulary?: SavedVocabulary,
): ShardFile | undefined {
  const size = fstatSync(fd).size;
  if (size < 8) return undefined;
  const prefix = readAt(fd, Math.min(size, FIXED_V5), 0);
  const version = prefix.readUInt32LE(4);
  if (version !== SHARD_FORMAT_VERSION) return undefined;
  if (size < FIXED_V5) fail(`file is truncated (${size} bytes)`);
  const headerLength = prefix.readUInt32LE(8);
  const metaLength = prefix.readUInt32LE(20);
  if (metaLength > headerLength || FIXED_V5 + headerLength > size)
    fail("file is truncated (header runs past the end)");
  const meta = readAt(fd, metaLength, FIXED_V5);
  if (
    crc32(meta) !== prefix.readUInt32LE(24) ||
    !meta.toString("latin1", metaLength - ROWS_KEY.length).endsWith(ROWS_KEY)
  )
    fail("checksum mismatch (file is corrupt or truncated)");
  const json = parseHeaderObject(
    Buffer.concat([meta.subarray(0, metaLength - ROWS_KEY.length), Buffer.from("}")]),
  );
  const { month, sections: s, lean, rows } = metaOf(json);
  const files = checkFiles(json);
  const bodyStart = align(FIXED_V5 + headerLength);
  const bodyLength = size - bodyStart;
  for (const section of Object.values(s))
    if (section.offset + section.length > bodyLength) fail("a section runs past the end of the file");
  if (lean.length > bodyLength) fail("a section runs past the end of the file");
  const body = readAt(fd, lean.length, bodyStart);
  if (crc32(body) !== prefix.readUInt32LE(28)) fail("checksum mismatch (file is corrupt or truncated)");
  const stamp = `${prefix.readUInt32LE(12)}-${prefix.readUInt32LE(16)}-${size}`;
  const textStart = readArray(body, s.textStart, Uint32Array);
  checkStarts(textStart, rows, s.texts.length, "snippet");
  const texts = new SavedTexts(fd, bodyStart + s.texts.offset, textStart, cache);
  const rowStart = readArray(body, s.rowStart, Uint32Array);
  checkStarts(rowStart, rows, headerLength - metaLength, "ref rows");
  const termStart = readArray(body, s.termStart, Uint32Array);
  const terms = termStart.length - 1;
  checkStarts(termStart, terms, s.postings.length, "term");
  const docCounts =
    rows <= 0xffff ? readArray(body, s.docCounts, Uint16Array) : readArray(body, s.docCounts, Uint32Array);
  if (docCounts.length !== terms) fail("document counts do not match the vocabulary");
  for (let t = 0; t < terms; t++)
    if ((docCounts[t] ?? 0) > rows) fail("a term's document count is out of range");
  let shared = vocabulary?.shared(month, stamp);
  if (shared !== undefined && shared.ids.length !== terms) shared = undefined;
  const own = shared === undefined ? termsOf(readAt(fd, s.terms.length, bodyStart + s.terms.offset)) : [];
  if (shared === undefined && own.length !== terms) fail("term offsets do not match the vocabulary");
  for (let i = 1; i < own.length; i++) if (!(at(own, i - 1) < at(own, i))) fail("vocabulary is not sorted");
  const fieldLength = readArray(body, s.fieldLength, Uint16Array);
  const avgFieldLength = readArray(body, s.avgFieldLength, Float64Array);
  if (fieldLength.length !== rows * FIELDS.length) fail("field lengths do not match the snapshots");
  if (avgFieldLength.length !== FIELDS.length) fail("average field lengths do not match the fields");
  const saved = new SavedPostings(texts, bodyStart + s.postings.offset, s.postings.length, {
    docs: rows,
    fields: FIELDS.length,
  });
  const parts: FrozenParts = {
    month,
    entries: [],
    rows: new SavedRows(texts, FIXED_V5 + metaLength, rowStart),
    terms: own,
    termStart,
    postings: new Uint8Array(0),
    fieldLength,
    avgFieldLength,
    texts,
    docCounts,
    saved,
    verify: verifier(fd, prefix, size, saved),
  };
  if (shared !== undefined) parts.shared = shared;
  const shard = new FrozenShard(parts);
  shard.stamp = stamp;
  return { shard, files, version };
}

/**
 * The meta of a version 5 header (codec.ts), checked by hand: a month's meta is read at every load, and a
 * schema library's first use costs more than the whole check.
 */
function metaOf(json: Record<string, unknown>) {
  if (json.analysis !== ANALYSIS) fail("built by another version of the tokenizer or fields");
  const { month, sections, lean, rows } = json;
  if (typeof month !== "string") fail("header is invalid at month: expected a string");
  if (!isCount(rows)) fail("header is invalid at rows: expected a count");
  if (!isObject(lean) || !isCount(lean.length)) fail("header is invalid at lean");
  if (!isObject(sections)) fail("header is invalid at sections: expected an object");
  const section = (name: string): Section => {
    const at = sections[name];
    if (!isObject(at) || !isCount(at.offset) || !isCount(at.length))
      fail(`header is invalid at sections.${name}: expected a section`);
    return { offset: at.offset, length: at.length };
  };
  const s = {
    termStart: section("termStart"),
    docCounts: section("docCounts"),
    fieldLength: section("fieldLength"),
    avgFieldLength: section("avgFieldLength"),
    textStart: section("textStart"),
    rowStart: section("rowStart"),
    terms: section("terms"),
    postings: section("postings"),
    texts: section("texts"),
  };
  return { month, sections: s, lean: { length: lean.length }, rows };
}

/** Checks that `starts` holds `count + 1` offsets, from 0, never going back, the last at most `end`. */
function checkStarts(starts: Uint32Array, count: number, end: number, what: string): void {
  if (starts.length !== count + 1 || starts[0] !== 0) fail(`${what} offsets do not match their section`);
  // A local last value, no call: the loop runs fast before it is optimised (every month as it loads).
  let last = 0;
  for (let i = 1; i <= count; i++) {
    const start = starts[i] ?? -1;
    if (start < last) fail(`${what} offsets go backwards`);
    last = start;
  }
  if (last > end) fail(`${what} offsets run past their section`);
}

/**
 * Checks the whole file against the checksums of its header and body once; throws naming the problem
 * (the file is then to be rebuilt). The postings' lists are no longer checked one by one after.
 */
function verifier(fd: number, prefix: Buffer, size: number, postings: SavedPostings): () => void {
  let done = false;
  return () => {
    if (done) return;
    const headerLength = prefix.readUInt32LE(8);
    const header = readAt(fd, headerLength, FIXED_V5);
    const bodyStart = align(FIXED_V5 + headerLength);
    const body = readAt(fd, size - bodyStart, bodyStart);
    if (crc32(header) !== prefix.readUInt32LE(12) || crc32(body) !== prefix.readUInt32LE(16))
      fail("checksum mismatch (file is corrupt or truncated)");
    done = true;
    postings.verified();
  };
}
