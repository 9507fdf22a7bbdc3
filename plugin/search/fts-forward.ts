/**
 * Postings as search reads them from the SQLite file of fts-store.ts: from `fts5vocab`'s instances
 * ({@link instancePostings}), and from the forward index: per snapshot, the number of each of its terms
 * (a term id of the file's `term_ids` table) with how often it occurs in each field, packed in bytes.
 * A common term is read for a query's candidates from their forward rows (a seek each) where FTS5's
 * `fts5vocab` would walk the term's whole postings. Pure.
 *
 * Layout: for each (term, field) of a document, sorted by term id then field: the id's distance from
 * the previous entry's id (unsigned LEB128), the field number (one byte), the count (unsigned LEB128).
 */
import { FIELDS } from "./document.ts";

/** Term frequencies of one term: document, field number and count, three numbers a posting. */
export type Postings = number[];

const FIELD_NUMBERS = new Map<string, number>(FIELDS.map((f, i) => [f, i]));

/**
 * Postings from `fts5vocab` instances listed as `doc column` pairs (column by name), in document then
 * column order: each run of one document and column is one posting, its length the count.
 */
export function instancePostings(list: string): Postings {
  const out: Postings = [];
  if (list === "") return out;
  const parts = list.split(" ");
  let doc = -1;
  let field = -1;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const d = Number(parts[i]);
    const f = FIELD_NUMBERS.get(parts[i + 1] ?? "") ?? -1;
    if (d === doc && f === field) {
      out[out.length - 1] = (out[out.length - 1] ?? 0) + 1;
      continue;
    }
    doc = d;
    field = f;
    out.push(d, f, 1);
  }
  return out;
}

/** Appends `n` (a non-negative integer below 2^53) to `out` as unsigned LEB128. */
function pushVarint(out: number[], n: number): void {
  let rest = n;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

/**
 * The forward row of a document: `fields` are the terms of each field in FIELDS order, joined by single
 * spaces (repeats counted), `ids` the id of every term they hold.
 */
export function encodeForward(fields: readonly string[], ids: ReadonlyMap<string, number>): Uint8Array {
  const entries: [number, number, number][] = [];
  fields.forEach((text, field) => {
    if (text === "") return;
    const counts = new Map<string, number>();
    for (const term of text.split(" ")) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, count] of counts) {
      const id = ids.get(term);
      if (id === undefined) throw new Error(`big-memory: search index: term ${term} has no id`);
      entries.push([id, field, count]);
    }
  });
  entries.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: number[] = [];
  let last = 0;
  for (const [id, field, count] of entries) {
    pushVarint(out, id - last);
    out.push(field);
    pushVarint(out, count);
    last = id;
  }
  return Uint8Array.from(out);
}

/**
 * The forward rows of many documents, read term by term: the postings of a term over these documents
 * alone, in the order the rows were given. The terms named at construction are gathered in one pass,
 * each row walked only as far as the largest of their ids (ids are sorted within a row); any other term
 * takes a pass of its own.
 */
export class ForwardRows {
  readonly #rows: readonly (readonly [number, Uint8Array])[];
  readonly #gathered = new Map<number, Postings>();

  /** `rows`: each document with its forward row (see {@link encodeForward}); `ids`: the terms to gather at once. */
  constructor(rows: readonly (readonly [number, Uint8Array])[], ids: Iterable<number> = []) {
    this.#rows = rows;
    for (const id of ids) this.#gathered.set(id, []);
    if (this.#gathered.size > 0) this.#gather(this.#gathered);
  }

  /** Document, field and count of every entry of term `id`, in triples. */
  postings(id: number): Postings {
    let out = this.#gathered.get(id);
    if (out === undefined) {
      out = [];
      const one = new Map([[id, out]]);
      this.#gather(one);
      this.#gathered.set(id, out);
    }
    return out;
  }

  /** Appends to each list of `wanted` (by term id) the entries of its term, walking each row once. */
  #gather(wanted: ReadonlyMap<number, Postings>): void {
    let last = 0;
    for (const id of wanted.keys()) if (id > last) last = id;
    for (const [doc, bytes] of this.#rows) {
      let at = 0;
      let id = 0;
      while (at < bytes.length) {
        let byte = bytes[at++] ?? 0;
        let delta = byte & 0x7f;
        for (let shift = 0x80; byte >= 0x80 && at < bytes.length; shift *= 0x80) {
          byte = bytes[at++] ?? 0;
          delta += (byte & 0x7f) * shift;
        }
        id += delta;
        if (id > last) break;
        const field = bytes[at++] ?? 0;
        byte = bytes[at++] ?? 0;
        let count = byte & 0x7f;
        for (let shift = 0x80; byte >= 0x80 && at < bytes.length; shift *= 0x80) {
          byte = bytes[at++] ?? 0;
          count += (byte & 0x7f) * shift;
        }
        wanted.get(id)?.push(doc, field, count);
      }
    }
  }
}
