/**
 * The index-wide vocabulary, saved beside the months' shard files as `vocabulary.bmv`: every saved month's
 * terms merged once (vocabulary.ts `mergePlaced`), and for each month its terms as positions in it, with
 * the stamp of the month's file it was taken from (saved-header.ts `shardStamp`: its two checksums and length).
 * A month whose file still bears that stamp loads its terms as those positions (codec.ts), without
 * decoding its own terms section, and when every month of the index does, the saved vocabulary is the
 * index's as it stands (no merge at load). A file that is missing, stale, corrupt or of another version is
 * only a cost: its months decode their own terms and the index merges them, as without it.
 *
 * Layout: magic "BMSV", version, header length, CRC-32 of the header, CRC-32 of the body (u32 each); the
 * JSON header; then, 8-byte aligned, the body: the months' positions (u32, month after month), where each
 * term starts in the terms' text (u32, in UTF-16 code units, one more than there are terms), and that text
 * (the terms one after the other, UTF-8). The terms load as that one string (terms.ts `TermText`), not as
 * a string each: at 100k snapshots, half a million terms, 80-115 ms against a few. The checksums, the
 * header and every offset and position are checked before any of it is used; the terms' order is the
 * merge's that wrote them (vocabulary.ts `mergePlaced`), which the checksum keeps.
 */
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { writePrivateBytes } from "../store/gate.ts";
import { readStateFileSync } from "../store/log-open.ts";
import { ANALYSIS } from "./codec.ts";
import type { SharedTerms } from "./frozen-shard.ts";
import { TermText } from "./terms.ts";
import { mergePlaced } from "./vocabulary.ts";

const MAGIC = 0x42_4d_53_56; // "BMSV"
/** Version of the vocabulary file written; any other is ignored (and written again). */
export const VOCABULARY_FORMAT_VERSION = 2;
const FIXED = 20;
const align = (n: number) => (n + 7) & ~7;

/** The file of a workspace index's vocabulary. */
export function vocabularyPath(dir: string): string {
  return join(dir, "vocabulary.bmv");
}

/** A month's terms as the file of a given stamp holds them. */
export interface MonthTerms {
  month: string;
  stamp: string;
  terms: readonly string[];
}

/** A month's terms as positions in a saved vocabulary, strictly increasing. */
export interface SavedMonthTerms {
  stamp: string;
  ids: Uint32Array;
}

/** A decoded vocabulary file. */
export interface SavedVocabulary {
  /** Sorted distinct terms (UTF-16 code unit order). */
  terms: TermText;
  months: ReadonlyMap<string, SavedMonthTerms>;
  /** The months and stamps it describes (see {@link vocabularyKey}). */
  key: string;
  /** A month's terms as positions in `terms` (frozen-shard.ts `FrozenParts.shared`) when its file bears `stamp`. */
  shared(month: string, stamp: string | undefined): SharedTerms | undefined;
}

/** What a vocabulary file describes, as one string: equal keys, equal files. */
export function vocabularyKey(months: readonly { month: string; stamp: string }[]): string {
  return months.map((m) => `${m.month}:${m.stamp}`).join(",");
}

/** Encodes the vocabulary of `months` (merged here) with each month's terms as positions in it. */
export function encodeVocabulary(months: readonly MonthTerms[]): Buffer {
  const { terms, positions } = mergePlaced(months.map((m) => m.terms));
  const count = positions.reduce((n, p) => n + p.length, 0);
  const header = Buffer.from(
    JSON.stringify({
      analysis: ANALYSIS,
      months: months.map((m, k) => [m.month, m.stamp, positions[k]?.length ?? 0]),
      terms: terms.length,
    }),
  );
  const ids = new Uint32Array(count);
  let at = 0;
  for (const p of positions) {
    ids.set(p, at);
    at += p.length;
  }
  const text = TermText.from(terms);
  const body = Buffer.concat([
    Buffer.from(ids.buffer, 0, ids.byteLength),
    Buffer.from(text.starts.buffer, 0, text.starts.byteLength),
    Buffer.from(text.text, "utf8"),
  ]);
  const start = align(FIXED + header.length);
  const data = Buffer.alloc(start + body.length);
  data.writeUInt32LE(MAGIC, 0);
  data.writeUInt32LE(VOCABULARY_FORMAT_VERSION, 4);
  data.writeUInt32LE(header.length, 8);
  data.writeUInt32LE(crc32(header), 12);
  data.writeUInt32LE(crc32(body), 16);
  header.copy(data, FIXED);
  body.copy(data, start);
  return data;
}

const isMonthRow = (r: unknown): r is [string, string, number] =>
  Array.isArray(r) &&
  r.length === 3 &&
  typeof r[0] === "string" &&
  typeof r[1] === "string" &&
  Number.isInteger(r[2]) &&
  r[2] >= 0;

/** Decodes a vocabulary file; undefined when it is not one this version wrote whole. */
export function decodeVocabulary(data: Buffer): SavedVocabulary | undefined {
  if (data.length < FIXED || data.readUInt32LE(0) !== MAGIC) return undefined;
  if (data.readUInt32LE(4) !== VOCABULARY_FORMAT_VERSION) return undefined;
  const headerEnd = FIXED + data.readUInt32LE(8);
  const start = align(headerEnd);
  if (start > data.length) return undefined;
  const body = data.subarray(start);
  if (crc32(data.subarray(FIXED, headerEnd)) !== data.readUInt32LE(12)) return undefined;
  if (crc32(body) !== data.readUInt32LE(16)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(data.toString("utf8", FIXED, headerEnd));
  } catch {
    return undefined;
  }
  if (typeof json !== "object" || json === null || !("months" in json) || !("terms" in json))
    return undefined;
  const { months: rows, terms: size } = json;
  if (!("analysis" in json) || json.analysis !== ANALYSIS || typeof size !== "number") return undefined;
  if (!Array.isArray(rows) || !rows.every(isMonthRow)) return undefined;
  const count = rows.reduce((n, r) => n + r[2], 0);
  if (!Number.isInteger(size) || size < 0 || (count + size + 1) * 4 > body.length) return undefined;
  const ids = new Uint32Array(count);
  Buffer.from(ids.buffer).set(body.subarray(0, count * 4));
  const starts = new Uint32Array(size + 1);
  Buffer.from(starts.buffer).set(body.subarray(count * 4, (count + size + 1) * 4));
  const terms = TermText.of(body.toString("utf8", (count + size + 1) * 4), starts);
  if (terms === undefined) return undefined;
  const months = new Map<string, SavedMonthTerms>();
  let at = 0;
  for (const [month, stamp, n] of rows) {
    const own = ids.subarray(at, at + n);
    at += n;
    let last = -1;
    for (let j = 0; j < own.length; j++) {
      const id = own[j] ?? -1;
      if (id <= last || id >= terms.length) return undefined;
      last = id;
    }
    months.set(month, { stamp, ids: own });
  }
  const key = vocabularyKey(rows.map(([month, stamp]) => ({ month, stamp })));
  const shared = (month: string, stamp: string | undefined) => {
    const own = months.get(month);
    return own !== undefined && own.stamp === stamp
      ? { vocabulary: terms, ids: own.ids, merged: months.size }
      : undefined;
  };
  return { terms, months, key, shared };
}

/**
 * Reads the vocabulary file of an index folder (only as a regular file, without blocking); undefined when
 * there is none or it cannot be used, whatever the reason: the months then load without it.
 */
export function readVocabulary(dir: string): SavedVocabulary | undefined {
  const path = vocabularyPath(dir);
  try {
    return decodeVocabulary(readStateFileSync(path, path));
  } catch {
    return undefined;
  }
}

/** Writes the vocabulary of `months` through the persistence gate (atomic, mode 0600). */
export async function writeVocabulary(dir: string, months: readonly MonthTerms[]): Promise<void> {
  await writePrivateBytes(vocabularyPath(dir), encodeVocabulary(months));
}
