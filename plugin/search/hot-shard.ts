/**
 * A month of snapshots that takes changes: a minisearch index with one document per snapshot and one
 * field per section (see document.ts), plus the stored entries. Converts to and from the compact
 * frozen form without re-reading or re-tokenizing anything. Pure, no I/O.
 */
import MiniSearch, { type Options } from "minisearch";
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { at, f64, u32 } from "./checked.ts";
import { type Entry, entryOf, FIELDS, fieldsOf, type IndexDocument } from "./document.ts";
import { FrozenShard } from "./frozen-shard.ts";
import { fromPlainIndex, toPlainIndex } from "./plain-index.ts";
import { PostingCursor } from "./postings.ts";
import { EXPANSION_WEIGHTS } from "./query.ts";
import { ownEntry } from "./saved-texts.ts";
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
import type { Shard } from "./shard.ts";
import { tokenize } from "./tokenize.ts";
import { fuzzyTerms, prefixRange } from "./vocabulary.ts";

/** minisearch configuration of every hot shard; queries arrive as single, already analysed terms. */
export const MINISEARCH_OPTIONS: Options<IndexDocument> = {
  idField: "key",
  fields: FIELDS,
  storeFields: [],
  tokenize,
  processTerm: (term) => term,
  searchOptions: { tokenize: (text) => [text], processTerm: (term) => term },
  autoVacuum: { batchSize: 500, batchWait: 5, minDirtCount: 20, minDirtFactor: 0.2 },
  logger: () => {},
};

const FIELD_NUMBER = new Map<string, number>(FIELDS.map((f, i) => [f, i]));
const EMPTY_FIELDS = Object.fromEntries(FIELDS.map((f) => [f, ""])) as Record<
  (typeof FIELDS)[number],
  string
>;

/** What a hot shard keeps of each document for scoring: field lengths and term frequencies. */
interface DocStats {
  lengths: number[];
  /** Term frequency per field number. */
  tf: Map<string, number>[];
}

/**
 * A shard backed by minisearch, which finds the documents holding a term; scores are computed here
 * from each document's term frequencies with index-wide statistics (see scoring.ts).
 */
export class HotShard implements Shard {
  readonly month: string;
  readonly lengthSums = new Float64Array(FIELDS.length);
  readonly #search: MiniSearch<IndexDocument>;
  readonly #entries = new Map<number, Entry>();
  readonly #stats = new Map<number, DocStats>();
  readonly #byFile = new Map<string, number[]>();
  /** Every term ever indexed here (terms of removed snapshots linger; looking them up finds nothing). */
  readonly #terms = new Set<string>();
  #sortedTerms: string[] | undefined;
  #nextKey = 0;

  private constructor(month: string, search: MiniSearch<IndexDocument>) {
    this.month = month;
    this.#search = search;
  }

  /** An empty shard for `month`. */
  static empty(month: string): HotShard {
    return new HotShard(month, new MiniSearch(MINISEARCH_OPTIONS));
  }

  /** A hot copy of a frozen shard, ready to take changes. */
  static thaw(frozen: FrozenShard): HotShard {
    const p = frozen.whole();
    const F = FIELDS.length;
    const stats = p.entries.map(
      (_, doc): DocStats => ({
        lengths: Array.from(p.fieldLength.subarray(doc * F, (doc + 1) * F)),
        tf: FIELDS.map(() => new Map<string, number>()),
      }),
    );
    const c = new PostingCursor(p.postings);
    p.terms.forEach((term, i) => {
      c.reset(u32(p.termStart, i), u32(p.termStart, i + 1));
      while (c.next()) stats[c.doc]?.tf[c.field]?.set(term, c.tf);
    });
    const shard = new HotShard(p.month, MiniSearch.loadJS(toPlainIndex(p), MINISEARCH_OPTIONS));
    // Entries of its own: the frozen shard's may read their texts from a file it closes once thawed.
    p.entries.forEach((entry, doc) => {
      shard.#install(doc, ownEntry(entry), at(stats, doc));
    });
    for (const term of p.terms) shard.#terms.add(term);
    shard.#sortedTerms = [...p.terms];
    shard.#nextKey = p.entries.length;
    return shard;
  }

  #install(key: number, entry: Entry, stats: DocStats): void {
    this.#entries.set(key, entry);
    this.#stats.set(key, stats);
    let keys = this.#byFile.get(entry.file);
    if (keys === undefined) {
      keys = [];
      this.#byFile.set(entry.file, keys);
    }
    keys.push(key);
    stats.lengths.forEach((length, f) => {
      this.lengthSums[f] = f64(this.lengthSums, f) + length;
    });
  }

  get size(): number {
    return this.#entries.size;
  }

  entry(doc: number): Entry | undefined {
    return this.#entries.get(doc);
  }

  documents(): IterableIterator<[number, Entry]> {
    return this.#entries.entries();
  }

  files(): string[] {
    return [...this.#byFile.keys()];
  }

  /** The shard's vocabulary, sorted (sorted again after additions, on first use). */
  terms(): readonly string[] {
    this.#sortedTerms ??= [...this.#terms].sort();
    return this.#sortedTerms;
  }

  /** Adds a snapshot. A tombstone is stored (it hides a name) with empty, unsearchable fields. */
  add(located: LocatedSnapshot): Entry {
    const key = this.#nextKey++;
    const entry = entryOf(located);
    const document = { key, ...(located.snapshot.tombstone ? EMPTY_FIELDS : fieldsOf(located)) };
    this.#search.add(document);
    const stats: DocStats = { lengths: [], tf: [] };
    for (const field of FIELDS) {
      const tf = new Map<string, number>();
      for (const term of tokenize(document[field])) {
        tf.set(term, (tf.get(term) ?? 0) + 1);
        if (this.#terms.has(term)) continue;
        this.#terms.add(term);
        this.#sortedTerms = undefined;
      }
      stats.lengths.push(tf.size);
      stats.tf.push(tf);
    }
    this.#install(key, entry, stats);
    return entry;
  }

  /** Removes every snapshot of a file; returns how many there were. */
  removeFile(file: string): number {
    const keys = this.#byFile.get(file);
    if (keys === undefined) return 0;
    for (const key of keys) {
      this.#stats.get(key)?.lengths.forEach((length, f) => {
        this.lengthSums[f] = f64(this.lengthSums, f) - length;
      });
      this.#entries.delete(key);
      this.#stats.delete(key);
      this.#search.discard(key);
    }
    this.#byFile.delete(file);
    return keys.length;
  }

  /** Replaces the snapshots of a file with a fresh parse of it. */
  replaceFile(file: string, snapshots: readonly LocatedSnapshot[]): void {
    this.removeFile(file);
    for (const located of snapshots) this.add(located);
  }

  exactCount(term: string, cap: number): number {
    if (!this.#terms.has(term)) return 0;
    return Math.min(cap, this.#search.search(term, { prefix: false, fuzzy: false }).length);
  }

  holding(term: string, docs: readonly number[]): Set<number> {
    if (!this.#terms.has(term)) return new Set();
    const held = new Set(this.#postings(term).map((p) => p.doc));
    return new Set(docs.filter((doc) => held.has(doc)));
  }

  reach(lookup: TermLookup): Reach[] {
    const query = lookup.term.term;
    const weight = lookup.term.weight;
    const out: Reach[] = [];
    if (this.#terms.has(query)) out.push({ term: query, ref: -1, weight, exact: true });
    if (lookup.prefix) {
      const terms = this.terms();
      const [start, end] = prefixRange(terms, query);
      for (let i = start; i < end; i++) {
        const term = at(terms, i);
        if (term === query) continue;
        out.push({
          term,
          ref: -1,
          weight: weight * prefixWeight(EXPANSION_WEIGHTS.prefix, term.length, query.length),
          exact: false,
        });
      }
    }
    if (lookup.fuzzy > 0) {
      const candidates =
        lookup.fuzzyTerms ??
        fuzzyTerms(this.terms(), query, lookup.fuzzy).map(([i, d]) => [at(this.terms(), i), d] as const);
      for (const [term, distance] of candidates) {
        if (distance === 0 || (lookup.prefix && term.startsWith(query)) || !this.#terms.has(term)) continue;
        out.push({
          term,
          ref: -1,
          weight: weight * fuzzyWeight(EXPANSION_WEIGHTS.fuzzy, term.length, distance),
          exact: false,
        });
      }
    }
    return out;
  }

  /** Documents holding `term`, with the fields it is in (minisearch finds them). */
  #postings(term: string): { doc: number; fields: number[] }[] {
    return this.#search.search(term, { prefix: false, fuzzy: false }).map((r) => ({
      doc: r.id as number,
      fields: (r.match[term] ?? []).map((f) => FIELD_NUMBER.get(f) ?? 0),
    }));
  }

  countFields(reach: Reach, df: Float64Array): void {
    for (const { fields } of this.#postings(reach.term)) {
      for (const f of fields) df[f] = f64(df, f) + 1;
    }
  }

  score(reach: Reach, bit: number, df: Float64Array, stats: CorpusStats, acc: Accumulator): void {
    const factors = fieldFactors(reach.weight, df, stats);
    for (const { doc, fields } of this.#postings(reach.term)) {
      const docStats = this.#stats.get(doc);
      if (docStats === undefined) continue;
      for (const f of fields) {
        const tf = docStats.tf[f]?.get(reach.term) ?? 0;
        const length = docStats.lengths[f] ?? 0;
        const score = bm25(tf, f64(factors, f), length, f64(stats.avgFieldLength, f));
        acc.add(doc, bit, f, score, reach.exact);
      }
    }
  }

  /** The frozen form of this shard: live documents only, renumbered newest first. */
  freeze(): FrozenShard {
    return new FrozenShard(fromPlainIndex(this.month, this.#search.toJSON(), this.#entries));
  }
}
