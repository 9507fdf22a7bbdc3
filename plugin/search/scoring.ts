/**
 * The scoring shared by both kinds of shard, so that a snapshot scores the same whether its month is
 * held by minisearch (hot) or compacted (frozen): minisearch's BM25+ per field, its weights for prefix
 * and typo matches, and an accumulator of per-term contributions per document. Pure.
 */
import { f64, num, u32 } from "./checked.ts";
import { FIELD_BOOSTS, FIELDS } from "./document.ts";
import type { PlannedTerm } from "./query.ts";

/** minisearch's default BM25+ parameters, which the hot shards use. */
export const BM25 = { k: 1.2, b: 0.7, d: 0.5 } as const;

/** Boost of each field, by field number (the position in FIELDS). */
export const BOOST_BY_FIELD: readonly number[] = FIELDS.map((f) => FIELD_BOOSTS[f]);

/** Inverse document frequency of a term held by `df` of `docs` documents (in one field). */
export function idf(df: number, docs: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/** BM25+ score of one term in one field of one document, given its `idf`, as minisearch computes it. */
export function bm25(tf: number, termIdf: number, fieldLength: number, avgFieldLength: number): number {
  const norm = 1 - BM25.b + (BM25.b * fieldLength) / avgFieldLength;
  return termIdf * (BM25.d + (tf * (BM25.k + 1)) / (tf + BM25.k * norm));
}

/**
 * Per field, the factor every match of a reached term is scaled by before BM25's tf part: its
 * weight, the field's boost and the term's idf in that field (0 where no document holds it).
 */
export function fieldFactors(weight: number, df: Float64Array, stats: CorpusStats): Float64Array {
  const out = new Float64Array(df.length);
  for (let f = 0; f < df.length; f++) {
    const n = f64(df, f);
    if (n > 0) out[f] = weight * num(BOOST_BY_FIELD, f) * idf(n, stats.docs);
  }
  return out;
}

/** Weight of an indexed term found by prefix (minisearch's formula; `prefixWeight` 0.4 here). */
export function prefixWeight(base: number, termLength: number, queryLength: number): number {
  return (base * termLength) / (termLength + 0.3 * (termLength - queryLength));
}

/** Weight of an indexed term found within `distance` typos (minisearch's formula). */
export function fuzzyWeight(base: number, termLength: number, distance: number): number {
  return (base * termLength) / (termLength + distance);
}

/**
 * Statistics of the whole index that BM25 uses, so that a snapshot scores the same whichever month
 * (shard) holds it: the number of snapshots and the average length of each field.
 */
export interface CorpusStats {
  docs: number;
  avgFieldLength: Float64Array;
}

/** An indexed term that a lookup reaches in one shard, and how much a match on it counts. */
export interface Reach {
  term: string;
  /** The shard's own handle on the term (a vocabulary index, say). */
  ref: number;
  /** Planned weight times the prefix or typo weight (1 for the exact term). */
  weight: number;
  exact: boolean;
}

/** How one planned term is looked up in a shard: exactly, or also by prefix and typos. */
export interface TermLookup {
  term: PlannedTerm;
  /** Bit of this term in the accumulator's masks. */
  bit: number;
  /** Looked up only as an identifier part (of a word not found whole). */
  part: boolean;
  prefix: boolean;
  /** Maximum typo distance; 0 for none. */
  fuzzy: number;
  /**
   * Indexed terms within `fuzzy` typos with their distance, found once in the vocabulary of all frozen
   * shards; a frozen shard then only looks these up instead of walking its own vocabulary.
   */
  fuzzyTerms?: readonly (readonly [string, number])[];
}

const F = FIELDS.length;

/** The accumulator of `shard`, made on first use and kept in `cache` for the queries after. */
export function accumulatorIn<K extends { readonly size: number }>(
  cache: WeakMap<K, Accumulator>,
  shard: K,
): Accumulator {
  let acc = cache.get(shard);
  if (acc === undefined) {
    acc = new Accumulator(0, shard.size);
    cache.set(shard, acc);
  }
  return acc;
}

/**
 * Per-document sums for one shard and one query: the score of whole terms and, apart, of identifier
 * parts (terms in `partMask`), bit masks of the planned terms matched at all and matched exactly, and
 * per field the terms matched there. Documents are small non-negative integers.
 */
export class Accumulator {
  readonly touched: number[] = [];
  #partMask: number;
  #score: Float64Array;
  #partScore: Float64Array;
  #matched: Uint32Array;
  #exact: Uint32Array;
  #fields: Uint32Array;

  /** An accumulator for documents below `capacity` (it grows past it when needed). */
  constructor(partMask = 0, capacity = 64) {
    const size = Math.max(1, capacity);
    this.#partMask = partMask;
    this.#score = new Float64Array(size);
    this.#partScore = new Float64Array(size);
    this.#matched = new Uint32Array(size);
    this.#exact = new Uint32Array(size);
    this.#fields = new Uint32Array(size * F);
  }

  /** Clears what the last query left (only the documents it touched) for a query with `partMask`. */
  reset(partMask: number): void {
    for (const doc of this.touched) {
      this.#score[doc] = 0;
      this.#partScore[doc] = 0;
      this.#matched[doc] = 0;
      this.#exact[doc] = 0;
      this.#fields.fill(0, doc * F, doc * F + F);
    }
    this.touched.length = 0;
    this.#partMask = partMask;
  }

  #grow(doc: number): void {
    let size = this.#score.length;
    while (size <= doc) size *= 2;
    const grown = <T extends Float64Array | Uint32Array>(old: T, make: (n: number) => T, per = 1): T => {
      const next = make(size * per);
      next.set(old);
      return next;
    };
    this.#score = grown(this.#score, (n) => new Float64Array(n));
    this.#partScore = grown(this.#partScore, (n) => new Float64Array(n));
    this.#matched = grown(this.#matched, (n) => new Uint32Array(n));
    this.#exact = grown(this.#exact, (n) => new Uint32Array(n));
    this.#fields = grown(this.#fields, (n) => new Uint32Array(n), F);
  }

  /** Adds a contribution of the term with mask `bit`, found in `field`, to `doc`. */
  add(doc: number, bit: number, field: number, score: number, exact: boolean): void {
    if (doc >= this.#score.length) this.#grow(doc);
    if (this.#matched[doc] === 0) this.touched.push(doc);
    if ((bit & this.#partMask) !== 0) this.#partScore[doc] = f64(this.#partScore, doc) + score;
    else this.#score[doc] = f64(this.#score, doc) + score;
    this.#matched[doc] = u32(this.#matched, doc) | bit;
    if (exact) this.#exact[doc] = u32(this.#exact, doc) | bit;
    const at = doc * F + field;
    this.#fields[at] = u32(this.#fields, at) | bit;
  }

  /** Score of the whole terms (every term not in the part mask). */
  score(doc: number): number {
    return this.#score[doc] ?? 0;
  }

  /** Score of the identifier parts. */
  partScore(doc: number): number {
    return this.#partScore[doc] ?? 0;
  }

  matched(doc: number): number {
    return this.#matched[doc] ?? 0;
  }

  exact(doc: number): number {
    return this.#exact[doc] ?? 0;
  }

  /** Terms matched in field `field` of `doc`. */
  inField(doc: number, field: number): number {
    return this.#fields[doc * F + field] ?? 0;
  }
}
