/**
 * The posting lists of a frozen shard packed in bytes, read back one posting at a time as a term is
 * scored. A posting is the gap from the document of the one before it (from 0 for a term's first) as a
 * varint, 0 for another field of the same document; then one byte `field << 4 | min(tf, 15)`; then, when
 * that holds 15, `tf - 15` as a varint. Most postings take two bytes, against six as a document number
 * and a field-and-frequency pair. Pure.
 */
import { u8, u16, u32 } from "./checked.ts";

const LOW = 15;
const FIELD_SHIFT = 12;
const TF_MASK = 0xfff;

/** A growing byte buffer of varints. */
class Bytes {
  out = new Uint8Array(1024);
  length = 0;

  #room(n: number): void {
    if (this.length + n <= this.out.length) return;
    const grown = new Uint8Array(Math.max(this.out.length * 2, this.length + n));
    grown.set(this.out);
    this.out = grown;
  }

  byte(b: number): void {
    this.#room(1);
    this.out[this.length++] = b;
  }

  varint(v: number): void {
    this.#room(5);
    while (v >= 0x80) {
      this.out[this.length++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.out[this.length++] = v;
  }
}

/**
 * Packs posting lists given per term as [doc, fieldTf, doc, fieldTf, ...] (`fieldTf` is
 * `field << 12 | tf`, postings in document order), in term order: the bytes, and the byte offset of each
 * term's list (with one past the end).
 */
export function packLists(
  lists: Iterable<readonly number[]>,
  terms: number,
): { bytes: Uint8Array; starts: Uint32Array } {
  const out = new Bytes();
  const starts = new Uint32Array(terms + 1);
  let t = 0;
  for (const list of lists) {
    starts[t++] = out.length;
    let previous = 0;
    for (let j = 0; j < list.length; j += 2) {
      const doc = list[j] ?? 0;
      const fieldTf = list[j + 1] ?? 0;
      writePosting(out, doc - previous, fieldTf);
      previous = doc;
    }
  }
  starts[t] = out.length;
  return { bytes: out.out.slice(0, out.length), starts };
}

/** Packs postings laid out as arrays (a version 2 or 3 shard file): see {@link packLists}. */
export function packArrays(
  termStart: Uint32Array,
  postDoc: Uint32Array,
  postFieldTf: Uint16Array,
): { bytes: Uint8Array; starts: Uint32Array } {
  const out = new Bytes();
  const terms = termStart.length - 1;
  const starts = new Uint32Array(terms + 1);
  for (let t = 0; t < terms; t++) {
    starts[t] = out.length;
    let previous = 0;
    for (let p = u32(termStart, t); p < u32(termStart, t + 1); p++) {
      const doc = u32(postDoc, p);
      writePosting(out, doc - previous, u16(postFieldTf, p));
      previous = doc;
    }
  }
  starts[terms] = out.length;
  return { bytes: out.out.slice(0, out.length), starts };
}

function writePosting(out: Bytes, gap: number, fieldTf: number): void {
  const tf = fieldTf & TF_MASK;
  out.varint(gap);
  out.byte(((fieldTf >>> FIELD_SHIFT) << 4) | Math.min(tf, LOW));
  if (tf >= LOW) out.varint(tf - LOW);
}

/** Reads the postings of one term at a time: `next()` moves to the next one and sets `doc`, `field`, `tf`. */
export class PostingCursor {
  doc = 0;
  field = 0;
  tf = 0;
  #bytes: Uint8Array;
  #at = 0;
  #end = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  /** Moves the cursor onto other bytes (reset it next). */
  over(bytes: Uint8Array): this {
    this.#bytes = bytes;
    return this;
  }

  /** Starts on the postings in bytes [from, to). */
  reset(from: number, to: number): this {
    this.#at = from;
    this.#end = to;
    this.doc = 0;
    return this;
  }

  /** Where the next posting starts, in bytes. */
  get offset(): number {
    return this.#at;
  }

  /** Reads the next posting; false at the end of the list. */
  next(): boolean {
    const bytes = this.#bytes;
    let at = this.#at;
    if (at >= this.#end) return false;
    let b = u8(bytes, at++);
    if (b < 0x80) this.doc += b;
    else {
      let gap = b & 0x7f;
      let scale = 0x80;
      do {
        b = u8(bytes, at++);
        gap += (b & 0x7f) * scale;
        scale *= 0x80;
      } while (b >= 0x80);
      this.doc += gap;
    }
    b = u8(bytes, at++);
    this.field = b >>> 4;
    let tf = b & LOW;
    if (tf === LOW) {
      let scale = 1;
      do {
        b = u8(bytes, at++);
        tf += (b & 0x7f) * scale;
        scale *= 0x80;
      } while (b >= 0x80);
    }
    this.tf = tf;
    this.#at = at;
    return true;
  }
}

/** The postings in bytes [from, to) as [doc, field, tf] triples. */
export function readPostings(bytes: Uint8Array, from: number, to: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  const c = new PostingCursor(bytes).reset(from, to);
  while (c.next()) out.push([c.doc, c.field, c.tf]);
  return out;
}

/** Per term, the number of documents its postings name (see {@link postingsProblem}, which counts them too). */
export function documentCounts(
  bytes: Uint8Array,
  starts: Uint32Array,
  docs: number,
): Uint16Array | Uint32Array {
  const counts = countsFor(starts.length - 1, docs);
  const cursor = new PostingCursor(bytes);
  for (let t = 0; t + 1 < starts.length; t++) {
    cursor.reset(u32(starts, t), u32(starts, t + 1));
    let n = 0;
    let previous = -1;
    while (cursor.next()) {
      if (cursor.doc !== previous) n++;
      previous = cursor.doc;
    }
    counts[t] = n;
  }
  return counts;
}

/** An array for `terms` document counts of at most `docs`: 2 bytes a term while they fit. */
export function countsFor(terms: number, docs: number): Uint16Array | Uint32Array {
  return docs <= 0xffff ? new Uint16Array(terms) : new Uint32Array(terms);
}

/**
 * What is wrong with packed postings read from a file, or undefined: each term's list must end where the
 * next begins, name documents below `docs` in order and fields below `fields`, with frequencies of 12 bits.
 * With `counts`, the number of documents each term's list names is written there as the lists are read.
 */
export function postingsProblem(
  bytes: Uint8Array,
  starts: Uint32Array,
  docs: number,
  fields: number,
  counts?: Uint16Array | Uint32Array,
): string | undefined {
  if (starts[0] !== 0 || starts[starts.length - 1] !== bytes.length)
    return "term offsets do not cover the postings";
  const cursor = new PostingCursor(bytes);
  for (let t = 0; t + 1 < starts.length; t++) {
    const from = u32(starts, t);
    const to = u32(starts, t + 1);
    if (from > to) return "term offsets go backwards";
    const problem = listProblem(cursor, from, to, docs, fields);
    if (typeof problem === "string") return problem;
    if (counts !== undefined) counts[t] = problem;
  }
  return undefined;
}

/**
 * What is wrong with the list in bytes [from, to) of the bytes `cursor` reads (see {@link postingsProblem}),
 * or the number of documents it names.
 */
export function listProblem(
  cursor: PostingCursor,
  from: number,
  to: number,
  docs: number,
  fields: number,
): string | number {
  cursor.reset(from, to);
  let n = 0;
  let previous = -1;
  try {
    while (cursor.next()) {
      if (cursor.doc >= docs) return "a posting names a missing snapshot";
      if (cursor.field >= fields) return "a posting names a missing field";
      if (cursor.tf > TF_MASK) return "a posting's frequency is out of range";
      if (cursor.doc !== previous) n++;
      previous = cursor.doc;
    }
  } catch {
    return "a posting runs past the end of the postings";
  }
  if (cursor.offset !== to) return "a posting runs past the end of its term";
  return n;
}
