/**
 * The on-disk form of a frozen shard: a small fixed header, a JSON header (format version, month, the
 * daily logs it covers with their fingerprints and the problems found reading them, the snapshot refs),
 * then the entries' snippet text and the typed arrays. The JSON header has its own CRC-32, so that
 * `list`, `show` and `status` can read it alone; the body has another. Decoding validates everything and
 * throws a message saying what is wrong, so a corrupt, truncated or foreign file is refused whole, never
 * half-read. Version 2 files (no problems recorded, fingerprints without ctime) and version 3 files
 * (postings as arrays) still load. Pure.
 */

import { crc32 } from "node:zlib";
import { z } from "zod";
import { Trigger } from "../snapshot/snapshot.ts";
import { at, u16, u32 } from "./checked.ts";
import { type Entry, FIELDS } from "./document.ts";
import { type FrozenParts, FrozenShard } from "./frozen-shard.ts";
import { countsFor, packArrays, postingsProblem } from "./postings.ts";
import { MAX_QUERY_TERMS } from "./query.ts";
import { checkFiles, entriesOfHeader, entryFromRow, parseHeaderObject, shardStamp } from "./saved-header.ts";
import { SavedPostings } from "./saved-postings.ts";
import { SavedEntry, SavedTexts, type TextCache } from "./saved-texts.ts";
import type { SavedVocabulary } from "./saved-vocabulary.ts";
import { tallyOf } from "./tally.ts";
import { termsOf } from "./vocabulary.ts";

/**
 * Version of the shard file format written; 2 and 3 (postings as arrays of documents and of field and
 * frequency, packed as they load) are still read, any other is refused (and rebuilt).
 */
export const SHARD_FORMAT_VERSION = 4;
/**
 * What the stored postings depend on besides the format: the tokenizer and the fields. A file built
 * with another analysis is refused like an unknown version.
 */
export const ANALYSIS = `tokenizer-1;fields-${FIELDS.join(",")};terms-${MAX_QUERY_TERMS}`;

const MAGIC = 0x42_4d_53_58; // "BMSX"
const FIXED_V2 = 16; // magic, version, header length, crc32 of the rest (u32 each)
const FIXED = 20; // magic, version, header length, crc32 of the header, crc32 of the body

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

const Section = z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() });
/** Sections of the postings as versions 2 and 3 wrote them: arrays of documents and of field and frequency. */
const ARRAYS = {
  terms: Section,
  termStart: Section,
  postDoc: Section,
  postFieldTf: Section,
  fieldLength: Section,
  avgFieldLength: Section,
};
const PACKED = {
  terms: Section,
  termStart: Section,
  postings: Section,
  fieldLength: Section,
  avgFieldLength: Section,
};
const TEXTS = { texts: Section, textStart: Section };
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

const align = (n: number) => (n + 7) & ~7;

function bytesOf(a: ArrayBufferView): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/** Encodes a frozen shard and the records of its logs. */
export function encodeShard(shard: FrozenShard, files: Record<string, LogRecord>): Buffer {
  return layShard(shard, files).data;
}

/**
 * {@link encodeShard}, and where the snippet texts lie in the file: text i is bytes
 * `[starts[i], starts[i + 1])` from `offset` (see saved-texts.ts).
 */
export function layShard(
  shard: FrozenShard,
  files: Record<string, LogRecord>,
): { data: Buffer; texts: { offset: number; starts: Uint32Array }; postings: Section } {
  const p = shard.whole();
  const textStart = new Uint32Array(p.entries.length + 1);
  const texts: Buffer[] = [];
  let at = 0;
  p.entries.forEach((e, i) => {
    const b = Buffer.from(e.text, "utf8");
    texts.push(b);
    at += b.length;
    textStart[i + 1] = at;
  });
  const blobs = {
    terms: Buffer.from(p.terms.join("\n"), "utf8"),
    termStart: bytesOf(p.termStart),
    postings: bytesOf(p.postings),
    fieldLength: bytesOf(p.fieldLength),
    avgFieldLength: bytesOf(p.avgFieldLength),
    texts: Buffer.concat(texts),
    textStart: bytesOf(textStart),
  };
  const { sections, size } = layout(blobs);
  const entries = p.entries.map((e) => [
    e.id,
    e.timestamp,
    e.file,
    e.line,
    e.session,
    e.agent,
    e.trigger,
    e.name,
    e.parent,
    e.tombstone,
    e.verified,
    e.goal,
  ]);
  const header = Buffer.from(
    JSON.stringify({
      analysis: ANALYSIS,
      month: p.month,
      files,
      tally: tallyOf(p.entries),
      entries,
      sections,
    }),
  );
  const bodyStart = align(FIXED + header.length);
  const out = Buffer.alloc(bodyStart + size);
  header.copy(out, FIXED);
  for (const [blob, section] of pairs(blobs, sections)) blob.copy(out, bodyStart + section.offset);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(SHARD_FORMAT_VERSION, 4);
  out.writeUInt32LE(header.length, 8);
  out.writeUInt32LE(crc32(header), 12);
  out.writeUInt32LE(crc32(out.subarray(bodyStart)), 16);
  const postings = { offset: bodyStart + sections.postings.offset, length: sections.postings.length };
  return { data: out, texts: { offset: bodyStart + sections.texts.offset, starts: textStart }, postings };
}

function fail(message: string): never {
  throw new Error(message);
}

/** Where a section of the body lies, in bytes from the start of the body. */
type Section = z.infer<typeof Section>;

/** Sections for `blobs`, in the order given, each starting 8-byte aligned; `size` is the body's length. */
function layout<K extends string>(blobs: Record<K, Buffer>): { sections: Record<K, Section>; size: number } {
  const sections: Partial<Record<K, Section>> = {};
  let offset = 0;
  for (const name of Object.keys(blobs) as K[]) {
    sections[name] = { offset, length: blobs[name].length };
    offset = align(offset + blobs[name].length);
  }
  return { sections: sections as Record<K, Section>, size: offset };
}

/** Each blob with its section. */
function pairs<K extends string>(
  blobs: Record<K, Buffer>,
  sections: Record<K, Section>,
): [Buffer, Section][] {
  return (Object.keys(blobs) as K[]).map((name) => [blobs[name], sections[name]]);
}

/** A typed array type: its element size and a constructor over a whole buffer. */
interface ArrayType<T> {
  readonly BYTES_PER_ELEMENT: number;
  new (buffer: ArrayBuffer): T;
}

/**
 * The typed array of a section, in a buffer of its own (a file's bytes may be unaligned for the element
 * type); throws when the section runs past the body or is not a whole number of elements.
 */
function readArray<T>(body: Buffer, s: Section, type: ArrayType<T>): T {
  if (s.offset + s.length > body.length || s.length % type.BYTES_PER_ELEMENT !== 0)
    fail("a section runs past the end of the file");
  const copy = new ArrayBuffer(s.length);
  new Uint8Array(copy).set(body.subarray(s.offset, s.offset + s.length));
  return new type(copy);
}

/** The version and header length of a shard file from its first bytes; throws on a foreign or unknown file. */
export function shardPrefix(data: Buffer): { version: 2 | 3 | 4; headerLength: number; fixed: number } {
  if (data.length < FIXED_V2) fail(`file is truncated (${data.length} bytes)`);
  if (data.readUInt32LE(0) !== MAGIC) fail("not a big-memory search shard (bad magic number)");
  const version = data.readUInt32LE(4);
  if (version !== SHARD_FORMAT_VERSION && version !== 2 && version !== 3)
    fail(`unknown format version ${version} (expected ${SHARD_FORMAT_VERSION})`);
  return { version, headerLength: data.readUInt32LE(8), fixed: version === 2 ? FIXED_V2 : FIXED };
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
 * Decodes the header of a version 3 or 4 shard file from its first `FIXED + headerLength` bytes (more may
 * follow); throws an Error naming the first problem found. Version 2 headers need the whole file
 * ({@link decodeShard}).
 */
export function decodeShardHeader(data: Buffer): ShardHeader {
  const { version, headerLength } = shardPrefix(data);
  if (version === 2) fail(`version ${version} headers are read with the whole file`);
  if (FIXED + headerLength > data.length) fail("file is truncated (header runs past the end)");
  const header = data.subarray(FIXED, FIXED + headerLength);
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
    return { shard: new FrozenShard(partsOf(h.month, entries, body, h.sections)), files: h.files };
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
  return { shard, files };
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
    checkArrays(termStart, postDoc, postFieldTf, entries.length);
    ({ bytes: postings, starts: termStart } = packArrays(termStart, postDoc, postFieldTf));
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

/** Structural checks of postings laid out as arrays (versions 2 and 3), before they are packed. */
function checkArrays(
  termStart: Uint32Array,
  postDoc: Uint32Array,
  postFieldTf: Uint16Array,
  docs: number,
): void {
  const terms = termStart.length - 1;
  if (terms < 0) fail("term offsets do not match the vocabulary");
  if (postDoc.length !== postFieldTf.length) fail("posting arrays differ in length");
  if (termStart[0] !== 0 || termStart[terms] !== postDoc.length)
    fail("term offsets do not cover the postings");
  for (let t = 0; t < terms; t++) {
    const end = u32(termStart, t + 1);
    if (u32(termStart, t) > end) fail("term offsets go backwards");
    for (let i = u32(termStart, t); i < end; i++) {
      if (u32(postDoc, i) >= docs) fail("a posting names a missing snapshot");
      if (u16(postFieldTf, i) >>> 12 >= FIELDS.length) fail("a posting names a missing field");
      if (i > u32(termStart, t) && u32(postDoc, i) < u32(postDoc, i - 1))
        fail("postings are out of document order");
    }
  }
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
