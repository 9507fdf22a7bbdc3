/**
 * The forward index of the SQLite file of fts-store.ts: per snapshot, the number of each of its terms
 * (a term id of the file's `term_ids` table) with how often it occurs in each field, packed in bytes.
 * A common term is read for a query's candidates from their forward rows (a seek each) where FTS5's
 * `fts5vocab` would walk the term's whole postings. Pure.
 *
 * Layout: for each (term, field) of a document, sorted by term id then field: the id's distance from
 * the previous entry's id (unsigned LEB128), the field number (one byte), the count (unsigned LEB128).
 */

/** Term frequencies of one term: document, field number and count, three numbers a posting. */
export type Postings = number[];

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
 * The forward rows of many documents, decoded once into flat arrays, then read term by term: the
 * postings of a term over these documents alone, in the order the rows were given.
 */
export class ForwardRows {
  readonly #ids: Float64Array;
  readonly #docs: Float64Array;
  readonly #fields: Uint8Array;
  readonly #counts: Float64Array;
  readonly #length: number;

  /** `rows`: each document with its forward row (see {@link encodeForward}). */
  constructor(rows: readonly (readonly [number, Uint8Array])[]) {
    let size = 0;
    for (const [, bytes] of rows) size += bytes.length;
    // An entry takes three bytes at least: a third of the bytes bounds the entries.
    const cap = Math.ceil(size / 3);
    this.#ids = new Float64Array(cap);
    this.#docs = new Float64Array(cap);
    this.#fields = new Uint8Array(cap);
    this.#counts = new Float64Array(cap);
    let n = 0;
    for (const [doc, bytes] of rows) {
      let at = 0;
      let id = 0;
      while (at < bytes.length) {
        let shift = 1;
        let delta = 0;
        let byte = 0x80;
        while (byte >= 0x80 && at < bytes.length) {
          byte = bytes[at++] ?? 0;
          delta += (byte & 0x7f) * shift;
          shift *= 0x80;
        }
        id += delta;
        const field = bytes[at++] ?? 0;
        shift = 1;
        let count = 0;
        byte = 0x80;
        while (byte >= 0x80 && at < bytes.length) {
          byte = bytes[at++] ?? 0;
          count += (byte & 0x7f) * shift;
          shift *= 0x80;
        }
        this.#ids[n] = id;
        this.#docs[n] = doc;
        this.#fields[n] = field;
        this.#counts[n] = count;
        n++;
      }
    }
    this.#length = n;
  }

  /** Document, field and count of every entry of term `id`, in triples. */
  postings(id: number): Postings {
    const out: Postings = [];
    const ids = this.#ids;
    for (let i = 0; i < this.#length; i++)
      if (ids[i] === id) out.push(this.#docs[i] ?? 0, this.#fields[i] ?? 0, this.#counts[i] ?? 0);
    return out;
  }
}
