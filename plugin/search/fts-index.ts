/**
 * Search over the sealed months in SQLite (fts-shard.ts) and the months that take changes in minisearch
 * (hot-shard.ts), with the project's query layer on top: rank.ts plans the query, keeps identifiers whole
 * and ranks by line, as over any shards. Typo candidates come from the sealed terms that share the
 * word's first character (read on first use, a range of the file's `terms` table) and the hot months'
 * terms. An identifier typed as the start of longer ones
 * (`ERR_DUP`, `oauth-call`: cut inside a token) finds them and is answered as a `prefix` match; one typed
 * whole that no snapshot holds stays missing, with the closest identifiers suggested. Pure over its
 * shards (the SQLite file is read, never written).
 */
import { type Entry, refOf } from "./document.ts";
import { candidateWords } from "./fts-candidates.ts";
import { type FtsShard, SEALED } from "./fts-shard.ts";
import type { HotShard } from "./hot-shard.ts";
import { DEFAULT_LIMIT, rank } from "./rank.ts";
import { type Accumulator, accumulatorIn } from "./scoring.ts";
import { MONTH_SLACK_DAYS, type Shard, type SnapshotFilter, timeBounds } from "./shard.ts";
import type { SearchHit } from "./snapshot-index.ts";
import { asWritten, begins, closestTerms, MAX_COMPLETIONS } from "./suggest.ts";
import { foldText, leavesOf } from "./tokenize.ts";
import { FUZZY_FIXED_PREFIX, fuzzyTerms, prefixRange } from "./vocabulary.ts";

/** How the hits hold the query's identifiers: as typed, as the start of longer ones, or by prefix or typo. */
export type FtsMatch = "exact" | "prefix" | "fuzzy";

/** What a query found; as snapshot-index.ts `QueryResult`, with `prefix` matches told apart. */
export interface FtsResult {
  hits: (Omit<SearchHit, "match"> & { match: FtsMatch })[];
  match: FtsMatch;
  /** Identifier words (as typed) that no snapshot in scope holds, whole or as their start. */
  missing: string[];
  /** Identifier words typed as the start of longer ones, with those found (lower case). */
  prefixes: { word: string; completions: string[] }[];
  suggestions: { word: string; closest: string[] }[];
}

export interface FtsQueryOptions {
  /** Maximum number of hits. Default 10. */
  limit?: number;
  filter?: SnapshotFilter;
  /** Find the closest identifiers for those no snapshot holds ("did you mean"). Default false. */
  suggest?: boolean;
}

/** The sealed shard and the hot months of a workspace. */
export class FtsIndex {
  #sealed: FtsShard;
  readonly #hot = new Map<string, HotShard>();
  readonly #accumulators = new WeakMap<Shard, Accumulator>();
  /**
   * Sealed terms by their first code unit (see {@link FtsShard.termsSharingFirst}), read on first use and
   * kept until the sealed shard changes: at most the whole vocabulary.
   */
  readonly #slices = new Map<number, readonly string[]>();

  constructor(sealed: FtsShard) {
    this.#sealed = sealed;
  }

  /** Replaces the sealed shard (after the file changed). */
  setSealed(sealed: FtsShard): void {
    this.#sealed = sealed;
    this.#slices.clear();
  }

  /** Installs the hot shard of a month (its snapshots must be gone from the sealed shard). */
  setHot(shard: HotShard): void {
    this.#hot.set(shard.month, shard);
  }

  /** Forgets the hot shard of a month (after it was written into the sealed file). */
  dropHot(month: string): void {
    this.#hot.delete(month);
  }

  hot(month: string): HotShard | undefined {
    return this.#hot.get(month);
  }

  /** Number of snapshots, tombstones included. */
  get size(): number {
    let n = this.#sealed.size;
    for (const shard of this.#hot.values()) n += shard.size;
    return n;
  }

  /**
   * The sealed terms a typo walk of `term` can reach, sorted: those that begin with its first code unit
   * (typos keep the first character: vocabulary.ts `FUZZY_FIXED_PREFIX`), or all of them if they did not.
   */
  sealedTermsNear(term: string): readonly string[] {
    if (FUZZY_FIXED_PREFIX < 1) return this.#sealed.vocabulary();
    const unit = term.charCodeAt(0);
    let slice = this.#slices.get(unit);
    if (slice === undefined) {
      slice = this.#sealed.termsSharingFirst(term);
      this.#slices.set(unit, slice);
    }
    return slice;
  }

  #shards(): Shard[] {
    const hot = [...this.#hot.values()].sort((a, b) => (a.month < b.month ? 1 : -1));
    return [...hot, this.#sealed];
  }

  /** Typo candidates of `term`: none when some term begins with it (the prefix answers; the walk is the cost). */
  #fuzzyTerms = (term: string, distance: number): [string, number][] => {
    if (this.completions(term).length > 0) return [];
    const found = new Map<string, number>();
    const walk = (terms: readonly string[]) => {
      for (const [i, d] of fuzzyTerms(terms, term, distance)) found.set(terms[i] ?? "", d);
    };
    walk(this.sealedTermsNear(term));
    for (const shard of this.#hot.values()) walk(shard.terms());
    return [...found];
  };

  /** Indexed terms that start with `term` and go on inside its last token (a letter or digit follows). */
  completions(term: string): string[] {
    const out = new Set<string>();
    const take = (t: string) => {
      if (out.size < MAX_COMPLETIONS && begins(term, t)) out.add(t);
    };
    for (const t of this.#sealed.termsStartingWith(term)) take(t);
    for (const shard of this.#hot.values()) {
      const terms = shard.terms();
      const [start, end] = prefixRange(terms, term);
      for (let i = start; i < end; i++) take(terms[i] ?? "");
    }
    return [...out].sort();
  }

  /** Best matches for `query`, best first (rank.ts), and how they hold its identifiers. */
  query(query: string, options: FtsQueryOptions = {}): FtsResult {
    const filter = options.filter ?? {};
    const [first, last] = monthRange(filter);
    this.#sealed.begin(candidateWords(query, options.limit ?? DEFAULT_LIMIT));
    const shards = this.#shards();
    const ranked = rank(shards, query, {
      limit: options.limit ?? DEFAULT_LIMIT,
      filter,
      searchable: (s) => s.month === SEALED || s.month === "other" || (s.month >= first && s.month <= last),
      fuzzyTerms: this.#fuzzyTerms,
      accumulator: (shard) => accumulatorIn(this.#accumulators, shard),
    });
    let match: FtsMatch = ranked.match;
    const prefixes: FtsResult["prefixes"] = [];
    let missing = ranked.missing;
    if (ranked.match === "fuzzy" && ranked.hits.length > 0) {
      // Identifiers cut inside a token are the start of the ones found: a prefix match, not a miss.
      for (const word of missing) {
        const completions = this.completions(foldText(word).toLowerCase());
        if (completions.length > 0) prefixes.push({ word, completions });
      }
      if (prefixes.length === missing.length) {
        match = "prefix";
        missing = [];
      }
    }
    const hits = ranked.hits.map((h) => ({
      ...refOf(h.entry),
      score: h.score,
      snippet: h.snippet.text,
      field: h.snippet.field,
      match,
    }));
    const suggestions =
      options.suggest === true && match === "fuzzy" ? missing.map((word) => this.#suggest(word)) : [];
    return { hits, match, missing, prefixes: match === "prefix" ? prefixes : [], suggestions };
  }

  /** The indexed identifiers closest to `word`, as written in a snapshot that holds them. */
  #suggest(word: string): { word: string; closest: string[] } {
    const lower = word.toLowerCase();
    const vocabularies = [this.sealedTermsNear(lower), ...[...this.#hot.values()].map((s) => s.terms())];
    const closest = closestTerms(vocabularies, lower, leavesOf(word)).map((term) => {
      this.#sealed.begin();
      const entry: Entry | undefined = rank(this.#shards(), term, { limit: 1 }).hits[0]?.entry;
      return (entry === undefined ? undefined : asWritten(`${entry.goal}\n${entry.text}`, term)) ?? term;
    });
    return { word, closest };
  }
}

/** The months a filter's time bounds can touch, with a month of slack for time zones. */
function monthRange(filter: SnapshotFilter): [string, string] {
  const { from, to } = timeBounds(filter);
  const shift = (t: number, days: number) => new Date(t + days * 86_400_000).toISOString().slice(0, 7);
  return [
    Number.isFinite(from) ? shift(from, -MONTH_SLACK_DAYS) : "",
    Number.isFinite(to) ? shift(to, MONTH_SLACK_DAYS) : "\uffff",
  ];
}
