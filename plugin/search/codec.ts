/**
 * The on-disk form of a frozen shard: a small fixed header, a JSON header (format version, month, the
 * daily logs it covers with their fingerprints and the problems found reading them, where each section
 * lies, then the snapshot refs, one row each), then the body: the sections a loaded month keeps in
 * memory (term offsets, each term's document count, field lengths, where each snippet text and each ref
 * row starts), then the terms, the packed postings and the snippet texts. The JSON header has its own
 * CRC-32, so that `list`, `show` and `status` can read it alone; so has the part of it before the rows
 * (its "meta"), and so have the sections kept in memory (the "lean" part of the body), so that a month is
 * searchable from those alone (saved-month.ts), its rows, postings and texts read when a query asks for
 * them; the body has its CRC-32 too. Decoding a whole file validates everything and throws a message
 * saying what is wrong, so a corrupt, truncated or foreign file is refused whole, never half-read.
 * Version 2 files (no problems recorded, fingerprints without ctime), version 3 files (postings as
 * arrays) and version 4 files (no lean part) still load. Pure.
 */

import { crc32 } from "node:zlib";
import { z } from "zod";
import { Trigger } from "../snapshot/snapshot.ts";
import { at, u32 } from "./checked.ts";
import { align, bytesOf, layout, pairs, readArray, type Section } from "./codec-bytes.ts";
import { packedFromArrays } from "./codec-legacy.ts";
import { type Entry, FIELDS } from "./document.ts";
import { type FrozenParts, FrozenShard } from "./frozen-shard.ts";
import { countsFor, postingsProblem } from "./postings.ts";
import { MAX_QUERY_TERMS } from "./query.ts";
import {
  checkFiles,
  entriesOfHeader,
  entryFromRow,
  parseHeaderObject,
  rowFromEntry,
  shardStamp,
} from "./saved-header.ts";
import { SavedPostings } from "./saved-postings.ts";
import { SavedEntry, SavedTexts, type TextCache } from "./saved-texts.ts";
import type { SavedVocabulary } from "./saved-vocabulary.ts";
import { tallyOf } from "./tally.ts";
import { termsOf } from "./vocabulary.ts";

/**
 * Version of the shard file format written; 2, 3 (postings as arrays of documents and of field and
 * frequency, packed as they load) and 4 (no lean part: the whole file is read to load the month) are
 * still read, and written again in this one; any other is refused (and rebuilt).
 */
export const SHARD_FORMAT_VERSION = 5;
/**
 * What the stored postings depend on besides the format: the tokenizer and the fields. A file built
 * with another analysis is refused like an unknown version.
 */
export const ANALYSIS = `tokenizer-1;fields-${FIELDS.join(",")};terms-${MAX_QUERY_TERMS}`;

const MAGIC = 0x42_4d_53_58; // "BMSX"
const FIXED_V2 = 16; // magic, version, header length, crc32 of the rest (u32 each)
const FIXED = 20; // magic, version, header length, crc32 of the header, crc32 of the body
/** Version 5 adds the meta's length and its crc32, and the crc32 of the body's lean part. */
export const FIXED_V5 = 32;
/** What ends a header's meta, the rows following. */
export const ROWS_KEY = ',"entries":[';
/** What starts a version 5 header's tally, after the rows. */
export const TALLY_KEY = '],"tally":';

/**
 * What a daily log looked like when it was indexed. It is fresh while size, modification time, change
 * time and inode all match (a same-size edit with the modification time put back still moves the change
 * time, which no user can set); otherwise its bytes are read and compared by CRC-32.
 */
export const Fingerprint = z.object({
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  /** Absent in version 2 files: such a log is read once more, then fingerprinted in full. */
  ctimeMs: z.number().optional(),
  ino: z.number().optional(),
  /** CRC-32 of the bytes, 8 hex digits: enough to tell an edit from a touch, fast to compute. */
  crc32: z.string().regex(/^[0-9a-f]{8}$/),
});
export type Fingerprint = z.infer<typeof Fingerprint>;

/** A problem found reading a log (a torn block, a duplicate id...), as `Diagnostic` without the file. */
export const LogProblem = z.object({
  line: z.number().int().nonnegative(),
  message: z.string(),
  id: z.string().optional(),
});
export type LogProblem = z.infer<typeof LogProblem>;

/** A daily log a shard covers: its fingerprint and, from version 3 on, the problems found reading it. */
export const LogRecord = Fingerprint.extend({
  problems: z.array(LogProblem).optional(),
  /** `[REDACTED:<kind>]` markers in its snapshots, by kind. */
  redactions: z.record(z.string(), z.number().int().nonnegative()).optional(),
});
export type LogRecord = z.infer<typeof LogRecord>;

const REF = [
  z.string(), // id
  z.string(), // timestamp
  z.string(), // file
  z.number().int().positive(), // line
  z.string().nullable(), // session
  z.string().nullable(), // agent
  Trigger.nullable(),
  z.string().nullable(), // name
  z.string().nullable(), // parent
  z.boolean(), // tombstone
  z.boolean().nullable(), // verified
  z.string(), // goal
] as const;
const RefRow = z.tuple(REF);
const EntryRowV2 = z.tuple([...REF, z.string()]);

const SectionSchema = z.object({
  offset: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
});
/** Sections of the postings as versions 2 and 3 wrote them: arrays of documents and of field and frequency. */
const ARRAYS = {
  terms: SectionSchema,
  termStart: SectionSchema,
  postDoc: SectionSchema,
  postFieldTf: SectionSchema,
  fieldLength: SectionSchema,
  avgFieldLength: SectionSchema,
};
const PACKED = {
  terms: SectionSchema,
  termStart: SectionSchema,
  postings: SectionSchema,
  fieldLength: SectionSchema,
  avgFieldLength: SectionSchema,
};
const TEXTS = { texts: SectionSchema, textStart: SectionSchema };
/**
 * A version 3 or 4 header but its logs' records and rows, which saved-header.ts checks (a cheap typed check
 * per row, against this schema's dozens of microseconds for the tens of thousands of rows of a long history).
 */
const Header = z.object({
  analysis: z.literal(ANALYSIS),
  month: z.string(),
  sections: z.union([z.object({ ...PACKED, ...TEXTS }), z.object({ ...ARRAYS, ...TEXTS })]),
});
const HeaderV2 = z.object({
  analysis: z.literal(ANALYSIS),
  month: z.string(),
  files: z.record(z.string(), Fingerprint),
  entries: z.array(EntryRowV2),
  sections: z.object(ARRAYS),
});

/** A decoded shard file. */
export interface ShardFile {
  shard: FrozenShard;
  /** The format version it was written in (an older one is written again in the current one). */
  version: number;
  /** The daily logs of the month, by workspace-relative path. */
  files: Record<string, LogRecord>;
}

/** What a shard file's header alone gives: the month's snapshot refs (no snippet text) and its logs. */
export interface ShardHeader {
  month: string;
  /** Entries with an empty `text`. */
  entries: Entry[];
  files: Record<string, LogRecord>;
}

/** Encodes a frozen shard and the records of its logs. */
export function encodeShard(shard: FrozenShard, files: Record<string, LogRecord>): Buffer {
  return layShard(shard, files).data;
}

/** A laid-out shard file: its bytes, and where its snippet texts and postings lie in them. */
export interface LaidShard {
  data: Buffer;
  /** Text i is bytes `[starts[i], starts[i + 1])` from `offset` (see saved-texts.ts). */
  texts: { offset: number; starts: Uint32Array };
  postings: Section;
}

/**
 * {@link encodeShard}, and where the snippet texts and postings lie in the file. Each part is written once,
 * into the file's bytes (a save of every month at 100k writes 150 MB).
 */
export function layShard(shard: FrozenShard, files: Record<string, LogRecord>): LaidShard {
  const p = shard.whole();
  const n = p.entries.length;
  const textStart = new Uint32Array(n + 1);
  const rows: string[] = new Array(n);
  const rowStart = new Uint32Array(n + 1);
  let at = 0;
  let rowAt = 0;
  p.entries.forEach((e, i) => {
    at += Buffer.byteLength(e.text);
    textStart[i + 1] = at;
    const row = JSON.stringify(rowFromEntry(e));
    rows[i] = row;
    // Rows are joined by commas: a row's bytes end one before the next row's start.
    rowAt += Buffer.byteLength(row) + (i + 1 < n ? 1 : 0);
    rowStart[i + 1] = rowAt;
  });
  // The lean part first: what a loaded month keeps in memory (saved-month.ts).
  const blobs = {
    termStart: bytesOf(p.termStart),
    docCounts: bytesOf(shard.docCounts),
    fieldLength: bytesOf(p.fieldLength),
    avgFieldLength: bytesOf(p.avgFieldLength),
    textStart: bytesOf(textStart),
    rowStart: bytesOf(rowStart),
    terms: Buffer.from(p.terms.join("\n"), "utf8"),
    postings: bytesOf(p.postings),
  };
  const { sections, size } = layout({ ...blobs, texts: { length: at } });
  const leanLength = sections.rowStart.offset + sections.rowStart.length;
  const lean = { length: leanLength };
  const metaJson = JSON.stringify({ analysis: ANALYSIS, month: p.month, files, sections, lean, rows: n });
  const meta = Buffer.from(`${metaJson.slice(0, -1)}${ROWS_KEY}`);
  // The tally (status's alone) after the rows: a loaded month reads the meta alone.
  const rest = `${rows.join(",")}${TALLY_KEY}${JSON.stringify(tallyOf(p.entries))}}`;
  const headerLength = meta.length + Buffer.byteLength(rest);
  const bodyStart = align(FIXED_V5 + headerLength);
  const out = Buffer.alloc(bodyStart + size);
  meta.copy(out, FIXED_V5);
  out.write(rest, FIXED_V5 + meta.length, "utf8");
  for (const [blob, section] of pairs(blobs, sections)) blob.copy(out, bodyStart + section.offset);
  let textAt = bodyStart + sections.texts.offset;
  for (const e of p.entries) textAt += out.write(e.text, textAt, "utf8");
  const body = out.subarray(bodyStart);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(SHARD_FORMAT_VERSION, 4);
  out.writeUInt32LE(headerLength, 8);
  out.writeUInt32LE(crc32(out.subarray(FIXED_V5, FIXED_V5 + headerLength)), 12);
  out.writeUInt32LE(crc32(body), 16);
  out.writeUInt32LE(meta.length, 20);
  out.writeUInt32LE(crc32(meta), 24);
  out.writeUInt32LE(crc32(body.subarray(0, leanLength)), 28);
  const postings = { offset: bodyStart + sections.postings.offset, length: sections.postings.length };
  return { data: out, texts: { offset: bodyStart + sections.texts.offset, starts: textStart }, postings };
}

function fail(message: string): never {
  throw new Error(message);
}

/** The bytes before the JSON header in a file of `version`. */
export function fixedOf(version: number): number {
  return version === 2 ? FIXED_V2 : version === SHARD_FORMAT_VERSION ? FIXED_V5 : FIXED;
}

/** The version and header length of a shard file from its first bytes; throws on a foreign or unknown file. */
export function shardPrefix(data: Buffer): { version: 2 | 3 | 4 | 5; headerLength: number; fixed: number } {
  if (data.length < FIXED_V2) fail(`file is truncated (${data.length} bytes)`);
  if (data.readUInt32LE(0) !== MAGIC) fail("not a big-memory search shard (bad magic number)");
  const version = data.readUInt32LE(4);
  if (version !== SHARD_FORMAT_VERSION && version !== 2 && version !== 3 && version !== 4)
    fail(`unknown format version ${version} (expected ${SHARD_FORMAT_VERSION})`);
  const fixed = fixedOf(version);
  if (data.length < fixed) fail(`file is truncated (${data.length} bytes)`);
  return { version, headerLength: data.readUInt32LE(8), fixed };
}

function parseHeader<T extends z.ZodType>(schema: T, bytes: Buffer): z.infer<T> {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    fail("header is not valid JSON");
  }
  return checkHeader(schema, json);
}

function checkHeader<T extends z.ZodType>(schema: T, json: unknown): z.infer<T> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") ?? "";
    if (where === "analysis") fail("built by another version of the tokenizer or fields");
    fail(`header is invalid at ${where || "the top"}: ${issue?.message ?? "unknown problem"}`);
  }
  return parsed.data;
}

/** A header row: `[id, timestamp, file, line, session, agent, trigger, name, parent, tombstone, verified, goal]`. */
export type RefTuple = z.infer<typeof RefRow>;

/**
 * Decodes the header of a version 3, 4 or 5 shard file from its first bytes up to the header's end (more may
 * follow); throws an Error naming the first problem found. Version 2 headers need the whole file
 * ({@link decodeShard}).
 */
export function decodeShardHeader(data: Buffer): ShardHeader {
  const { version, headerLength, fixed } = shardPrefix(data);
  if (version === 2) fail(`version ${version} headers are read with the whole file`);
  if (fixed + headerLength > data.length) fail("file is truncated (header runs past the end)");
  const header = data.subarray(fixed, fixed + headerLength);
  if (crc32(header) !== data.readUInt32LE(12)) fail("checksum mismatch (file is corrupt or truncated)");
  const json = parseHeaderObject(header);
  const h = checkHeader(Header, json);
  const files = checkFiles(json);
  return { month: h.month, entries: entriesOfHeader(json, (r) => entryFromRow(r, "")), files };
}

/**
 * Decodes a shard file; throws an Error naming the first problem found. With `saved` (its open descriptor,
 * then the shard's, and the index's text cache), snippet texts (and version 4 postings) stay on disk, and
 * a month whose file bears the stamp saved in `vocabulary` takes its terms as positions there.
 */
export function decodeShard(
  data: Buffer,
  saved?: { fd: number; cache: TextCache; vocabulary?: SavedVocabulary | undefined },
): ShardFile {
  const { version, headerLength, fixed } = shardPrefix(data);
  if (fixed + headerLength > data.length) fail("file is truncated (header runs past the end)");
  const header = data.subarray(fixed, fixed + headerLength);
  const bodyStart = align(fixed + headerLength);
  const body = data.subarray(bodyStart);
  if (version === 2) {
    if (crc32(data.subarray(FIXED_V2)) !== data.readUInt32LE(12))
      fail("checksum mismatch (file is corrupt or truncated)");
    const h = parseHeader(HeaderV2, header);
    const entries = h.entries.map((r) => entryFromRow(r.slice(0, 12) as RefTuple, r[12]));
    return { shard: new FrozenShard(partsOf(h.month, entries, body, h.sections)), files: h.files, version };
  }
  if (crc32(header) !== data.readUInt32LE(12) || crc32(body) !== data.readUInt32LE(16))
    fail("checksum mismatch (file is corrupt or truncated)");
  const json = parseHeaderObject(header);
  const h = checkHeader(Header, json);
  const files = checkFiles(json);
  const s = h.sections;
  const textStart = readArray(body, s.textStart, Uint32Array);
  if (!Array.isArray(json.entries)) fail("header is invalid at entries: expected an array");
  const rows = json.entries.length;
  if (textStart.length !== rows + 1) fail("snippet offsets do not match the snapshots");
  const texts = body.subarray(s.texts.offset, s.texts.offset + s.texts.length);
  for (let i = 0; i < rows; i++) {
    if (u32(textStart, i) > u32(textStart, i + 1) || u32(textStart, i + 1) > texts.length)
      fail("snippet offsets run past their section");
  }
  // The file, session and agent of a row repeat across a month's rows: one string each, not one a row.
  const seen = new Map<string, string>();
  const once = (v: string): string => {
    const known = seen.get(v);
    if (known !== undefined) return known;
    seen.set(v, v);
    return v;
  };
  const reader = saved && new SavedTexts(saved.fd, bodyStart + s.texts.offset, textStart, saved.cache);
  const entries = entriesOfHeader(json, (r, i) => {
    r[2] = once(r[2]);
    if (r[4] !== null) r[4] = once(r[4]);
    if (r[5] !== null) r[5] = once(r[5]);
    if (reader !== undefined) return new SavedEntry(r, reader, i);
    return entryFromRow(r, texts.toString("utf8", u32(textStart, i), u32(textStart, i + 1)));
  });
  const stamp = shardStamp(data);
  const parts = partsOf(h.month, entries, body, s, saved?.vocabulary?.shared(h.month, stamp));
  if (reader !== undefined) parts.texts = reader;
  // Checked whole above (checkParts); each list is read from the file when asked (saved-postings.ts).
  if (reader !== undefined && "postings" in s) {
    parts.saved = new SavedPostings(reader, bodyStart + s.postings.offset, s.postings.length);
    parts.postings = new Uint8Array(0);
  }
  const shard = new FrozenShard(parts);
  shard.stamp = stamp;
  return { shard, files, version };
}

function partsOf(
  month: string,
  entries: Entry[],
  body: Buffer,
  s: Record<keyof typeof PACKED, Section> | Record<keyof typeof ARRAYS, Section>,
  shared?: FrozenParts["shared"],
): FrozenParts {
  let termStart: Uint32Array = readArray(body, s.termStart, Uint32Array);
  // Positions that do not fit the month's postings are passed over: the month's own terms are read.
  if (shared !== undefined && shared.ids.length !== termStart.length - 1) shared = undefined;
  const terms = shared ? [] : termsOf(body.subarray(s.terms.offset, s.terms.offset + s.terms.length));
  let postings: Uint8Array;
  if ("postings" in s) postings = readArray(body, s.postings, Uint8Array);
  else {
    const postDoc = readArray(body, s.postDoc, Uint32Array);
    const postFieldTf = readArray(body, s.postFieldTf, Uint16Array);
    ({ bytes: postings, starts: termStart } = packedFromArrays(
      termStart,
      postDoc,
      postFieldTf,
      entries.length,
    ));
  }
  const parts: FrozenParts = {
    month,
    entries,
    terms,
    termStart,
    postings,
    fieldLength: readArray(body, s.fieldLength, Uint16Array),
    avgFieldLength: readArray(body, s.avgFieldLength, Float64Array),
  };
  if (shared !== undefined) parts.shared = shared;
  checkParts(parts);
  return parts;
}

/** Structural checks that keep a search from reading out of bounds. */
function checkParts(p: FrozenParts): void {
  const docs = p.entries.length;
  const F = FIELDS.length;
  // Terms held as positions in a saved vocabulary were checked sorted with it (saved-vocabulary.ts).
  const count = p.shared?.ids.length ?? p.terms.length;
  if (p.termStart.length !== count + 1) fail("term offsets do not match the vocabulary");
  for (let i = 1; i < p.terms.length; i++) {
    if (!(at(p.terms, i - 1) < at(p.terms, i))) fail("vocabulary is not sorted");
  }
  p.docCounts = countsFor(count, docs);
  const problem = postingsProblem(p.postings, p.termStart, docs, F, p.docCounts);
  if (problem !== undefined) fail(problem);
  if (p.fieldLength.length !== docs * F) fail("field lengths do not match the snapshots");
  if (p.avgFieldLength.length !== F) fail("average field lengths do not match the fields");
}
