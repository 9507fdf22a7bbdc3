/**
 * A read-only month of snapshots in compact form: a sorted vocabulary and postings in typed arrays,
 * about 6 bytes per (term, field, snapshot) instead of a few dozen in minisearch's maps. It holds the
 * same data as a minisearch index (term frequencies per field, field lengths, average field lengths)
 * and scores with the same BM25+, so freezing a hot shard changes no result. Pure, no I/O.
 */
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { type Entry, entryOf, FIELDS, fieldsOf } from "./document.ts";
import { EXPANSION_WEIGHTS } from "./query.ts";
import {
  type Accumulator,
  bm25,
  type CorpusStats,
  fieldFactors,
  fuzzyWeight,
  prefixWeight,
  type Reach,
  type TermLookup,
} from "./scoring.ts";
import { newerFirst, type Shard } from "./shard.ts";
import { tokenize } from "./tokenize.ts";
import { findTerm, fuzzyTerms, prefixRange } from "./vocabulary.ts";

/** Term frequencies above this are stored as this (12 bits next to a 4-bit field number). */
export const MAX_TF = 4095;
const FIELD_SHIFT = 12;
const TF_RANGE = MAX_TF + 1;
/** Documents per shard are below this (2^22), which keeps sort keys exact in a double. */
const DOC_RANGE = 4_194_304;
const F = FIELDS.length;

/** The arrays of a frozen shard; also what the codec writes. */
export interface FrozenParts {
  month: string;
  /** Entries in document order, newest first. */
  entries: Entry[];
  /** Distinct terms, sorted by UTF-16 code units. */
  terms: string[];
  /** Postings of term i are [termStart[i], termStart[i + 1]). */
  termStart: Uint32Array;
  /** Document of each posting; within a term, postings are ordered by field, then document. */
  postDoc: Uint32Array;
  /** `field << 12 | min(tf, 4095)` of each posting. */
  postFieldTf: Uint16Array;
  /** Number of distinct terms of document d in field f at `d * FIELDS.length + f`. */
  fieldLength: Uint16Array;
  /** Average field length per field, as minisearch keeps it. */
  avgFieldLength: Float64Array;
}

/**
 * Builds a frozen shard one snapshot at a time (so a caller can yield between snapshots); documents
 * are renumbered newest first when it is built.
 */
export class FrozenBuilder {
  readonly #month: string;
  readonly #entries: Entry[] = [];
  readonly #postings = new Map<string, number[]>();
  readonly #lengths: number[] = [];
  readonly #tf = new Map<string, number>();

  constructor(month: string) {
    this.#month = month;
  }

  get size(): number {
    return this.#entries.length;
  }

  add(located: LocatedSnapshot): void {
    const doc = this.#entries.length;
    this.#entries.push(entryOf(located));
    const fields = located.snapshot.tombstone ? undefined : fieldsOf(located);
    const tf = this.#tf;
    for (let f = 0; f < F; f++) {
      tf.clear();
      for (const term of tokenize(fields?.[FIELDS[f] as (typeof FIELDS)[number]] ?? "")) {
        tf.set(term, (tf.get(term) ?? 0) + 1);
      }
      this.#lengths.push(tf.size);
      for (const [term, count] of tf) {
        let list = this.#postings.get(term);
        if (list === undefined) {
          list = [];
          this.#postings.set(term, list);
        }
        list.push(doc, (f << FIELD_SHIFT) | Math.min(count, MAX_TF));
      }
    }
  }

  build(): FrozenShard {
    const n = this.#entries.length;
    const order = this.#entries
      .map((_, i) => i)
      .sort((a, b) => newerFirst(this.#entries[a] as Entry, this.#entries[b] as Entry));
    const newDoc = new Uint32Array(n);
    order.forEach((old, doc) => {
      newDoc[old] = doc;
    });
    const fieldLength = new Uint16Array(n * F);
    const avgFieldLength = new Float64Array(F);
    for (let old = 0; old < n; old++) {
      for (let f = 0; f < F; f++) {
        const length = this.#lengths[old * F + f] as number;
        fieldLength[(newDoc[old] as number) * F + f] = Math.min(length, 0xffff);
        avgFieldLength[f] = (avgFieldLength[f] as number) + length / n;
      }
    }
    for (const list of this.#postings.values()) {
      for (let j = 0; j < list.length; j += 2) list[j] = newDoc[list[j] as number] as number;
    }
    const entries = order.map((i) => this.#entries[i] as Entry);
    return new FrozenShard(assemble(this.#month, entries, this.#postings, fieldLength, avgFieldLength));
  }
}

/** Builds a frozen shard from parsed snapshots (any order; they are stored newest first). */
export function buildFrozen(month: string, snapshots: readonly LocatedSnapshot[]): FrozenShard {
  const builder = new FrozenBuilder(month);
  for (const located of snapshots) builder.add(located);
  return builder.build();
}

/**
 * Lays out postings given as term -> [doc, fieldTf, doc, fieldTf, ...] (any order) into sorted
 * typed arrays.
 */
export function assemble(
  month: string,
  entries: Entry[],
  postings: Map<string, number[]>,
  fieldLength: Uint16Array,
  avgFieldLength: Float64Array,
): FrozenParts {
  if (entries.length >= DOC_RANGE) throw new Error(`a shard holds at most ${DOC_RANGE - 1} snapshots`);
  const terms = [...postings.keys()].sort();
  let total = 0;
  for (const list of postings.values()) total += list.length / 2;
  const termStart = new Uint32Array(terms.length + 1);
  const postDoc = new Uint32Array(total);
  const postFieldTf = new Uint16Array(total);
  let at = 0;
  terms.forEach((term, i) => {
    termStart[i] = at;
    const list = postings.get(term) as number[];
    // One number per posting, (field, doc, tf) from most to least significant: a numeric sort of the
    // keys orders postings by field, then document.
    const keys = new Float64Array(list.length / 2);
    for (let j = 0; j < keys.length; j++) {
      const fieldTf = list[2 * j + 1] as number;
      const doc = list[2 * j] as number;
      keys[j] = ((fieldTf >>> FIELD_SHIFT) * DOC_RANGE + doc) * TF_RANGE + (fieldTf & MAX_TF);
    }
    keys.sort();
    for (const key of keys) {
      const tf = key % TF_RANGE;
      const rest = (key - tf) / TF_RANGE;
      const doc = rest % DOC_RANGE;
      postDoc[at] = doc;
      postFieldTf[at] = (((rest - doc) / DOC_RANGE) << FIELD_SHIFT) | tf;
      at++;
    }
  });
  termStart[terms.length] = at;
  return { month, entries, terms, termStart, postDoc, postFieldTf, fieldLength, avgFieldLength };
}

/** A read-only shard over {@link FrozenParts}. */
export class FrozenShard implements Shard {
  readonly parts: FrozenParts;
  readonly lengthSums: Float64Array;

  constructor(parts: FrozenParts) {
    this.parts = parts;
    this.lengthSums = new Float64Array(F);
    for (let i = 0; i < parts.fieldLength.length; i++) {
      const f = i % F;
      this.lengthSums[f] = (this.lengthSums[f] as number) + (parts.fieldLength[i] as number);
    }
  }

  get month(): string {
    return this.parts.month;
  }

  get size(): number {
    return this.parts.entries.length;
  }

  entry(doc: number): Entry | undefined {
    return this.parts.entries[doc];
  }

  *documents(): IterableIterator<[number, Entry]> {
    const { entries } = this.parts;
    for (let doc = 0; doc < entries.length; doc++) yield [doc, entries[doc] as Entry];
  }

  files(): string[] {
    return [...new Set(this.parts.entries.map((e) => e.file))];
  }

  exactCount(term: string, cap: number): number {
    const i = findTerm(this.parts.terms, term);
    if (i < 0) return 0;
    const { termStart, postDoc } = this.parts;
    const start = termStart[i] as number;
    const end = termStart[i + 1] as number;
    // Postings run field by field, so a document can repeat; counting stops at `cap`.
    if (cap > 64) return new Set(postDoc.subarray(start, end)).size;
    const docs: number[] = [];
    for (let p = start; p < end && docs.length < cap; p++) {
      const doc = postDoc[p] as number;
      if (!docs.includes(doc)) docs.push(doc);
    }
    return docs.length;
  }

  reach(lookup: TermLookup): Reach[] {
    const { terms } = this.parts;
    const query = lookup.term.term;
    const weight = lookup.term.weight;
    const out: Reach[] = [];
    const exact = findTerm(terms, query);
    if (exact >= 0) out.push({ term: query, ref: exact, weight, exact: true });
    let start = 0;
    let end = 0;
    if (lookup.prefix) {
      [start, end] = prefixRange(terms, query);
      for (let i = start; i < end; i++) {
        if (i === exact) continue;
        const term = terms[i] as string;
        out.push({
          term,
          ref: i,
          weight: weight * prefixWeight(EXPANSION_WEIGHTS.prefix, term.length, query.length),
          exact: false,
        });
      }
    }
    if (lookup.fuzzy > 0) {
      const known = lookup.fuzzyTerms;
      const found = known === undefined ? fuzzyTerms(terms, query, lookup.fuzzy) : [];
      const count = known === undefined ? found.length : known.length;
      for (let k = 0; k < count; k++) {
        const candidate = known?.[k];
        const i = candidate === undefined ? (found[k]?.[0] ?? -1) : findTerm(terms, candidate[0]);
        const distance = candidate === undefined ? (found[k]?.[1] ?? 0) : candidate[1];
        if (i < 0 || distance === 0 || (i >= start && i < end)) continue;
        const term = terms[i] as string;
        out.push({
          term,
          ref: i,
          weight: weight * fuzzyWeight(EXPANSION_WEIGHTS.fuzzy, term.length, distance),
          exact: false,
        });
      }
    }
    return out;
  }

  countFields(reach: Reach, df: Float64Array): void {
    const { termStart, postFieldTf } = this.parts;
    const end = termStart[reach.ref + 1] as number;
    for (let p = termStart[reach.ref] as number; p < end; p++) {
      const field = (postFieldTf[p] as number) >>> FIELD_SHIFT;
      df[field] = (df[field] as number) + 1;
    }
  }

  score(reach: Reach, bit: number, df: Float64Array, stats: CorpusStats, acc: Accumulator): void {
    const { termStart, postDoc, postFieldTf, fieldLength } = this.parts;
    const factors = fieldFactors(reach.weight, df, stats);
    const end = termStart[reach.ref + 1] as number;
    for (let p = termStart[reach.ref] as number; p < end; p++) {
      const field = (postFieldTf[p] as number) >>> FIELD_SHIFT;
      const doc = postDoc[p] as number;
      const tf = (postFieldTf[p] as number) & MAX_TF;
      const length = fieldLength[doc * F + field] as number;
      const score = bm25(tf, factors[field] as number, length, stats.avgFieldLength[field] as number);
      acc.add(doc, bit, field, score, reach.exact);
    }
  }
}
