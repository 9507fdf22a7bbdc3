/**
 * The on-disk form of a frozen shard: a small fixed header, a JSON header (format version, month,
 * fingerprints of the daily logs it covers, entries), then the typed arrays, all covered by a CRC-32.
 * Decoding validates everything and throws a message saying what is wrong, so a corrupt, truncated or
 * foreign file is refused whole, never half-read. Pure.
 */
import { crc32 } from "node:zlib";
import { z } from "zod";
import { Trigger } from "../snapshot/snapshot.ts";
import { type Entry, FIELDS } from "./document.ts";
import { type FrozenParts, FrozenShard } from "./frozen-shard.ts";
import { MAX_QUERY_TERMS } from "./query.ts";

/**
 * Version of the shard file format; any other is refused (and the month rebuilt from its logs). Version 2:
 * shards hold only snapshots redacted on read. A version-1 shard (older releases indexed hand-written blocks
 * as written, secrets included) is refused and rebuilt, so no old secret outlives it.
 */
export const SHARD_FORMAT_VERSION = 2;
/**
 * What the stored postings depend on besides the format: the tokenizer and the fields. A file built
 * with another analysis is refused like an unknown version.
 */
export const ANALYSIS = `tokenizer-1;fields-${FIELDS.join(",")};terms-${MAX_QUERY_TERMS}`;

const MAGIC = 0x42_4d_53_58; // "BMSX"
const FIXED = 16; // magic, version, header length, crc32 (u32 each)

/** What a daily log looked like when it was indexed. */
export const Fingerprint = z.object({
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  /** CRC-32 of the bytes, 8 hex digits: enough to tell an edit from a touch, fast to compute. */
  crc32: z.string().regex(/^[0-9a-f]{8}$/),
});
export type Fingerprint = z.infer<typeof Fingerprint>;

const EntryRow = z.tuple([
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
  z.string(), // text
]);

const Section = z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() });
const Header = z.object({
  analysis: z.literal(ANALYSIS),
  month: z.string(),
  files: z.record(z.string(), Fingerprint),
  entries: z.array(EntryRow),
  sections: z.object({
    terms: Section,
    termStart: Section,
    postDoc: Section,
    postFieldTf: Section,
    fieldLength: Section,
    avgFieldLength: Section,
  }),
});

/** A decoded shard file. */
export interface ShardFile {
  shard: FrozenShard;
  /** Fingerprints of the daily logs of the month, by workspace-relative path. */
  files: Record<string, Fingerprint>;
}

const align = (n: number) => (n + 7) & ~7;

/** Encodes a frozen shard and the fingerprints of its logs. */
export function encodeShard(shard: FrozenShard, files: Record<string, Fingerprint>): Buffer {
  const p = shard.parts;
  const blobs = {
    terms: Buffer.from(p.terms.join("\n"), "utf8"),
    termStart: Buffer.from(p.termStart.buffer, p.termStart.byteOffset, p.termStart.byteLength),
    postDoc: Buffer.from(p.postDoc.buffer, p.postDoc.byteOffset, p.postDoc.byteLength),
    postFieldTf: Buffer.from(p.postFieldTf.buffer, p.postFieldTf.byteOffset, p.postFieldTf.byteLength),
    fieldLength: Buffer.from(p.fieldLength.buffer, p.fieldLength.byteOffset, p.fieldLength.byteLength),
    avgFieldLength: Buffer.from(
      p.avgFieldLength.buffer,
      p.avgFieldLength.byteOffset,
      p.avgFieldLength.byteLength,
    ),
  };
  const sections = {} as z.infer<typeof Header>["sections"];
  let offset = 0;
  for (const [name, blob] of Object.entries(blobs)) {
    sections[name as keyof typeof blobs] = { offset, length: blob.length };
    offset = align(offset + blob.length);
  }
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
    e.text,
  ]);
  const header = Buffer.from(
    JSON.stringify({ analysis: ANALYSIS, month: p.month, files, entries, sections }),
  );
  const bodyStart = align(FIXED + header.length);
  const out = Buffer.alloc(bodyStart + offset);
  header.copy(out, FIXED);
  for (const [name, blob] of Object.entries(blobs))
    blob.copy(out, bodyStart + sections[name as keyof typeof blobs].offset);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(SHARD_FORMAT_VERSION, 4);
  out.writeUInt32LE(header.length, 8);
  out.writeUInt32LE(crc32(out.subarray(FIXED)), 12);
  return out;
}

function fail(message: string): never {
  throw new Error(message);
}

function typed<T>(
  body: Buffer,
  s: { offset: number; length: number },
  bytes: number,
  make: (b: ArrayBuffer) => T,
): T {
  if (s.offset + s.length > body.length || s.length % bytes !== 0)
    fail("a section runs past the end of the file");
  return make(
    body.buffer.slice(body.byteOffset + s.offset, body.byteOffset + s.offset + s.length) as ArrayBuffer,
  );
}

/** Decodes a shard file; throws an Error naming the first problem found. */
export function decodeShard(data: Buffer): ShardFile {
  if (data.length < FIXED) fail(`file is truncated (${data.length} bytes)`);
  if (data.readUInt32LE(0) !== MAGIC) fail("not a big-memory search shard (bad magic number)");
  const version = data.readUInt32LE(4);
  if (version !== SHARD_FORMAT_VERSION)
    fail(`unknown format version ${version} (expected ${SHARD_FORMAT_VERSION})`);
  const headerLength = data.readUInt32LE(8);
  if (FIXED + headerLength > data.length) fail("file is truncated (header runs past the end)");
  if (crc32(data.subarray(FIXED)) !== data.readUInt32LE(12))
    fail("checksum mismatch (file is corrupt or truncated)");
  let json: unknown;
  try {
    json = JSON.parse(data.subarray(FIXED, FIXED + headerLength).toString("utf8"));
  } catch {
    fail("header is not valid JSON");
  }
  const parsed = Header.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") ?? "";
    if (where === "analysis") fail("built by another version of the tokenizer or fields");
    fail(`header is invalid at ${where || "the top"}: ${issue?.message ?? "unknown problem"}`);
  }
  const h = parsed.data;
  const body = data.subarray(align(FIXED + headerLength));
  const entries: Entry[] = h.entries.map((r) => ({
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
    text: r[12],
  }));
  const s = h.sections;
  const termText = body.subarray(s.terms.offset, s.terms.offset + s.terms.length).toString("utf8");
  const parts: FrozenParts = {
    month: h.month,
    entries,
    terms: termText === "" ? [] : termText.split("\n"),
    termStart: typed(body, s.termStart, 4, (b) => new Uint32Array(b)),
    postDoc: typed(body, s.postDoc, 4, (b) => new Uint32Array(b)),
    postFieldTf: typed(body, s.postFieldTf, 2, (b) => new Uint16Array(b)),
    fieldLength: typed(body, s.fieldLength, 2, (b) => new Uint16Array(b)),
    avgFieldLength: typed(body, s.avgFieldLength, 8, (b) => new Float64Array(b)),
  };
  checkParts(parts);
  return { shard: new FrozenShard(parts), files: h.files };
}

/** Structural checks that keep a search from reading out of bounds. */
function checkParts(p: FrozenParts): void {
  const docs = p.entries.length;
  const F = FIELDS.length;
  if (p.termStart.length !== p.terms.length + 1) fail("term offsets do not match the vocabulary");
  if (p.postDoc.length !== p.postFieldTf.length) fail("posting arrays differ in length");
  if (p.termStart[p.terms.length] !== p.postDoc.length) fail("term offsets do not cover the postings");
  for (let i = 0; i < p.terms.length; i++) {
    if ((p.termStart[i] as number) > (p.termStart[i + 1] as number)) fail("term offsets go backwards");
    if (i > 0 && !((p.terms[i - 1] as string) < (p.terms[i] as string))) fail("vocabulary is not sorted");
  }
  for (let i = 0; i < p.postDoc.length; i++) {
    if ((p.postDoc[i] as number) >= docs) fail("a posting names a missing snapshot");
    if ((p.postFieldTf[i] as number) >>> 12 >= F) fail("a posting names a missing field");
  }
  if (p.fieldLength.length !== docs * F) fail("field lengths do not match the snapshots");
  if (p.avgFieldLength.length !== F) fail("average field lengths do not match the fields");
}
