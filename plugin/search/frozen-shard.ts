/**
 * A read-only month of snapshots in compact form: a sorted vocabulary and postings packed in bytes
 * (postings.ts), about 2 bytes per (term, field, snapshot) instead of a few dozen in minisearch's maps. It
 * holds the same data as a minisearch index (term frequencies per field, field lengths, average field
 * lengths) and scores with the same BM25+, so freezing a hot shard changes no result. Why a second engine
 * beside minisearch: `npm run bench` (search) runs one plain minisearch index over the same corpus; at 100k
 * snapshots it held 962 MB of heap (here 71 MB: see README, Benchmarks), loaded its saved index in 34 s
 * (here every month is searchable in a tenth of a second), and took 5 to 300 times the CPU time per query
 * at the 99th percentile, by class. Pure, but for the reads of a saved month's rows, postings and texts
 * from its open file (saved-rows.ts, saved-postings.ts, saved-texts.ts).
 */

import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { at, f64, num, u16, u32 } from "./checked.ts";
import { type Entry, entryOf, FIELDS, fieldsOf } from "./document.ts";
import { documentCounts, PostingCursor, packLists } from "./postings.ts";
import { EXPANSION_WEIGHTS } from "./query.ts";
import type { SavedPostings } from "./saved-postings.ts";
import type { SavedTexts } from "./saved-texts.ts";
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
import type { Terms } from "./terms.ts";
import { tokenize } from "./tokenize.ts";
import { findTerm, firstAtLeast, fuzzyTerms, prefixRange } from "./vocabulary.ts";

/** Term frequencies above this are stored as this (12 bits next to a 4-bit field number). */
export const MAX_TF = 4095;
const FIELD_SHIFT = 12;
const TF_RANGE = MAX_TF + 1;
const FIELD_RANGE = 16;
const F = FIELDS.length;

/** The arrays of a frozen shard; also what the codec writes. */
export interface FrozenParts {
  month: string;
  /** Entries in document order, newest first. */
  entries: Entry[];
  /** Distinct terms, sorted by UTF-16 code units. */
  terms: string[];
  /** Postings of term i are bytes [termStart[i], termStart[i + 1]) of `postings`. */
  termStart: Uint32Array;
  /**
   * Postings packed as postings.ts lays them out: per term, ordered by document, then field, each with
   * its field and `min(tf, 4095)`.
   */
  postings: Uint8Array;
  /** Number of distinct terms of document d in field f at `d * FIELDS.length + f`. */
  fieldLength: Uint16Array;
  /** Average field length per field, as minisearch keeps it. */
  avgFieldLength: Float64Array;
  /** Where the entries' texts are read from when they stay in the month's saved file (codec.ts). */
  texts?: SavedTexts;
  /** Per term, the number of documents holding it (counted from the postings when absent: a test's parts). */
  docCounts?: Uint16Array | Uint32Array;
  /** Where the postings are read from when they stay in the month's saved file; `postings` is then empty. */
  saved?: SavedPostings;
  /**
   * Where the entries are read from, one when a query asks, when the month was loaded from its saved
   * file's lean part (saved-month.ts); `entries` is then empty.
   */
  rows?: EntryRows;
  /**
   * Checks the month's saved file whole against its checksums, once (saved-month.ts); throws when it does
   * not match. Absent when the file was checked whole as it loaded.
   */
  verify?: () => void;
  /**
   * The terms as positions in the vocabulary of every frozen month of the index (FrozenShard.share), term i
   * being `vocabulary[ids[i]]`; `terms` is then empty.
   */
  shared?: SharedTerms;
}

/**
 * A month's terms as positions in the vocabulary of every frozen month (term i is `vocabulary.term(ids[i])`);
 * `merged`, for a saved vocabulary, is how many months' terms it was merged from (vocabulary.ts `namedTerms`).
 */
export interface SharedTerms {
  vocabulary: Terms;
  ids: Uint32Array;
  merged?: number;
}

/** A month's entries read when asked (saved-rows.ts), each read once and kept. */
export interface EntryRows {
  readonly length: number;
  /** Entry `i`, read now if it was not yet; undefined out of range. Throws when it cannot be read. */
  at(i: number): Entry | undefined;
  /** Every entry, read now. */
  all(): Entry[];
}

/**
 * Builds a frozen shard: snapshots are collected with `add`, then indexed newest first, a few at a
 * time with `step` (so a caller can yield between steps), and laid out by `build`.
 */
export class FrozenBuilder {
  readonly #month: string;
  readonly #collected: LocatedSnapshot[] = [];
  #entries: Entry[] | undefined;
  #next = 0;
  readonly #postings = new Map<string, number[]>();
  readonly #lengths: number[] = [];
  readonly #tf = new Map<string, number>();

  constructor(month: string) {
    this.#month = month;
  }

  get size(): number {
    return this.#collected.length;
  }

  /** Collects a snapshot (any order). */
  add(located: LocatedSnapshot): void {
    if (this.#entries !== undefined) throw new Error("FrozenBuilder.add after indexing started");
    this.#collected.push(located);
  }

  /** Indexes up to `count` more snapshots, newest first; false once every snapshot is indexed. */
  step(count: number): boolean {
    if (this.#entries === undefined) {
      const entries = this.#collected.map((located) => ({ located, entry: entryOf(located) }));
      entries.sort((a, b) => newerFirst(a.entry, b.entry));
      entries.forEach((e, i) => {
        this.#collected[i] = e.located;
      });
      this.#entries = entries.map((e) => e.entry);
    }
    const end = Math.min(this.#collected.length, this.#next + count);
    for (; this.#next < end; this.#next++) this.#index(this.#next, at(this.#collected, this.#next));
    return this.#next < this.#collected.length;
  }

  /** Postings go in document order (and field order within a document) as documents are indexed. */
  #index(doc: number, located: LocatedSnapshot): void {
    const fields = located.snapshot.tombstone ? undefined : fieldsOf(located);
    const tf = this.#tf;
    for (let f = 0; f < F; f++) {
      tf.clear();
      for (const term of tokenize(fields?.[at(FIELDS, f)] ?? "")) {
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
    while (this.step(Number.POSITIVE_INFINITY));
    const entries = this.#entries ?? [];
    const n = entries.length;
    const fieldLength = new Uint16Array(n * F);
    const avgFieldLength = new Float64Array(F);
    this.#lengths.forEach((length, i) => {
      fieldLength[i] = Math.min(length, 0xffff);
      avgFieldLength[i % F] = f64(avgFieldLength, i % F) + length / n;
    });
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
 * Lays out postings given as term -> [doc, fieldTf, doc, fieldTf, ...], each list already in
 * (document, field) order, into typed arrays with the vocabulary sorted.
 */
export function assemble(
  month: string,
  entries: Entry[],
  postings: Map<string, number[]>,
  fieldLength: Uint16Array,
  avgFieldLength: Float64Array,
): FrozenParts {
  const terms = [...postings.keys()].sort();
  const packed = packLists(
    terms.map((term) => postings.get(term) ?? []),
    terms.length,
  );
  const termStart = packed.starts;
  const docCounts = documentCounts(packed.bytes, termStart, entries.length);
  return { month, entries, terms, termStart, postings: packed.bytes, fieldLength, avgFieldLength, docCounts };
}

/**
 * Sorts a posting list given as [doc, fieldTf, ...] into (document, field) order, in place: one exact
 * numeric key per posting, so the sort is a typed-array sort without a comparator.
 */
export function sortPostings(list: number[]): void {
  const keys = new Float64Array(list.length / 2);
  for (let j = 0; j < keys.length; j++) {
    const fieldTf = num(list, 2 * j + 1);
    keys[j] = (num(list, 2 * j) * FIELD_RANGE + (fieldTf >>> FIELD_SHIFT)) * TF_RANGE + (fieldTf & MAX_TF);
  }
  keys.sort();
  keys.forEach((key, j) => {
    const tf = key % TF_RANGE;
    const rest = (key - tf) / TF_RANGE;
    const field = rest % FIELD_RANGE;
    list[2 * j] = (rest - field) / FIELD_RANGE;
    list[2 * j + 1] = (field << FIELD_SHIFT) | tf;
  });
}

/** A read-only shard over {@link FrozenParts}. */
export class FrozenShard implements Shard {
  readonly parts: FrozenParts;
  readonly lengthSums: Float64Array;
  readonly #cursor: PostingCursor;
  readonly #docCounts: Uint16Array | Uint32Array;
  /** The stamp of the saved file the month was read from or written to (saved-header.ts `shardStamp`). */
  stamp: string | undefined;

  constructor(parts: FrozenParts) {
    this.parts = parts;
    this.#cursor = new PostingCursor(parts.postings);
    this.#docCounts = parts.docCounts ?? documentCounts(parts.postings, parts.termStart, this.size);
    this.lengthSums = new Float64Array(F);
    const lengths = parts.fieldLength;
    // One field at a time, a local sum: the loop runs fast before it is optimised (a month as it loads).
    for (let f = 0; f < F; f++) {
      let sum = 0;
      for (let i = f; i < lengths.length; i += F) sum += lengths[i] ?? 0;
      this.lengthSums[f] = sum;
    }
  }

  get month(): string {
    return this.parts.month;
  }

  /** A cursor on the postings of term `ref`, read from the saved file when they stay there. */
  #list(ref: number): PostingCursor {
    const { termStart, saved } = this.parts;
    const from = u32(termStart, ref);
    const to = u32(termStart, ref + 1);
    return saved === undefined ? this.#cursor.reset(from, to) : saved.cursor(from, to);
  }

  /**
   * What is wrong with the saved file the month reads from, checked whole now (once), or undefined: a
   * month loaded from its lean part is verified after loading (saved-month.ts).
   */
  verify(): string | undefined {
    try {
      this.parts.verify?.();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  /** Per term, the number of documents holding it. */
  get docCounts(): Uint16Array | Uint32Array {
    return this.#docCounts;
  }

  /**
   * The parts with every entry, term and posting in memory (read from the saved file when they stay
   * there).
   */
  whole(): FrozenParts {
    this.parts.verify?.();
    const { saved, shared, rows, verify: _verify, ...rest } = this.parts;
    if (saved === undefined && shared === undefined && rows === undefined) return this.parts;
    return {
      ...rest,
      entries: rows === undefined ? rest.entries : rows.all(),
      terms: [...this.terms()],
      postings: saved === undefined ? rest.postings : saved.all(),
    };
  }

  /** The month's terms, sorted (a copy when they are held as positions in a shared vocabulary). */
  terms(): readonly string[] {
    const { shared } = this.parts;
    return shared === undefined
      ? this.parts.terms
      : Array.from(shared.ids, (id) => shared.vocabulary.term(id));
  }

  /**
   * Holds the month's terms as positions in a vocabulary (see {@link SharedTerms} and vocabulary.ts
   * `mergePlaced`): the terms once for the whole index instead of once a month.
   */
  share(shared: SharedTerms): void {
    this.parts.shared = shared;
    this.parts.terms = [];
  }

  #term(i: number): string {
    const { shared } = this.parts;
    return shared === undefined ? at(this.parts.terms, i) : shared.vocabulary.term(u32(shared.ids, i));
  }

  /** The month's index of vocabulary position `id` (-1 for none: not a term of the month). */
  #local(ids: Uint32Array, id: number): number {
    if (id < 0) return -1;
    const i = firstAtLeast(ids, id);
    return ids[i] === id ? i : -1;
  }

  #find(term: string): number {
    const { shared } = this.parts;
    if (shared === undefined) return findTerm(this.parts.terms, term);
    return this.#local(shared.ids, findTerm(shared.vocabulary, term));
  }

  #prefix(prefix: string): [number, number] {
    const { shared } = this.parts;
    if (shared === undefined) return prefixRange(this.parts.terms, prefix);
    const [start, end] = prefixRange(shared.vocabulary, prefix);
    return [firstAtLeast(shared.ids, start), firstAtLeast(shared.ids, end)];
  }

  #fuzzy(query: string, distance: number): [number, number][] {
    const { shared } = this.parts;
    if (shared === undefined) return fuzzyTerms(this.parts.terms, query, distance);
    return fuzzyTerms(shared.vocabulary, query, distance)
      .map(([id, d]): [number, number] => [this.#local(shared.ids, id), d])
      .filter(([i]) => i >= 0);
  }

  /** Closes the saved file its texts are read from, if any (see saved-texts.ts); its entries' texts go with it. */
  close(): void {
    this.parts.texts?.close();
  }

  get size(): number {
    return (this.parts.rows ?? this.parts.entries).length;
  }

  entry(doc: number): Entry | undefined {
    const { rows } = this.parts;
    return rows === undefined ? this.parts.entries[doc] : rows.at(doc);
  }

  *documents(): IterableIterator<[number, Entry]> {
    const { rows, entries } = this.parts;
    if (rows === undefined) for (let doc = 0; doc < entries.length; doc++) yield [doc, at(entries, doc)];
    else yield* rows.all().entries();
  }

  files(): string[] {
    const { rows, entries } = this.parts;
    return [...new Set((rows === undefined ? entries : rows.all()).map((e) => e.file))];
  }

  exactCount(term: string, cap: number): number {
    const i = this.#find(term);
    return i < 0 ? 0 : Math.min(this.#docCounts[i] ?? 0, cap);
  }

  holding(term: string, docs: readonly number[]): Set<number> {
    const out = new Set<number>();
    const i = this.#find(term);
    if (i < 0 || docs.length === 0) return out;
    const c = this.#list(i);
    // Both in document order: one walk of the postings.
    let k = 0;
    while (k < docs.length && c.next()) {
      while (k < docs.length && (docs[k] ?? 0) < c.doc) k++;
      if (docs[k] === c.doc) out.add(c.doc);
    }
    return out;
  }

  reach(lookup: TermLookup): Reach[] {
    const query = lookup.term.term;
    const weight = lookup.term.weight;
    const out: Reach[] = [];
    const exact = this.#find(query);
    if (exact >= 0) out.push({ term: query, ref: exact, weight, exact: true });
    let start = 0;
    let end = 0;
    if (lookup.prefix) {
      [start, end] = this.#prefix(query);
      for (let i = start; i < end; i++) {
        if (i === exact) continue;
        const term = this.#term(i);
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
      const found = known === undefined ? this.#fuzzy(query, lookup.fuzzy) : [];
      const count = known === undefined ? found.length : known.length;
      for (let k = 0; k < count; k++) {
        const candidate = known?.[k];
        const i = candidate === undefined ? (found[k]?.[0] ?? -1) : this.#find(candidate[0]);
        const distance = candidate === undefined ? (found[k]?.[1] ?? 0) : candidate[1];
        if (i < 0 || distance === 0 || (i >= start && i < end)) continue;
        const term = this.#term(i);
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
    const c = this.#list(reach.ref);
    while (c.next()) df[c.field] = f64(df, c.field) + 1;
  }

  score(reach: Reach, bit: number, df: Float64Array, stats: CorpusStats, acc: Accumulator): void {
    const { fieldLength } = this.parts;
    const factors = fieldFactors(reach.weight, df, stats);
    const c = this.#list(reach.ref);
    while (c.next()) {
      const length = u16(fieldLength, c.doc * F + c.field);
      const score = bm25(c.tf, f64(factors, c.field), length, f64(stats.avgFieldLength, c.field));
      acc.add(c.doc, bit, c.field, score, reach.exact);
    }
  }
}
