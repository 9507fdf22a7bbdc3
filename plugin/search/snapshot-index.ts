/**
 * The in-memory snapshot index of a workspace: one shard per month of daily logs, hot (minisearch,
 * takes changes) or frozen (compact, read-only). Files are replaced whole; a frozen month thaws when
 * one of its logs changes and can be frozen again once saved. Search, latest and lookups by id.
 * Pure and synchronous; loading, saving and watching live in search-service.ts.
 */

import type { SnapshotRef as JsonRef } from "../snapshot/json.ts";
import { latestCandidate, latestSettled } from "../snapshot/lifecycle.ts";
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { at, got } from "./checked.ts";
import { type Entry, type Field, refOf } from "./document.ts";
import { FrozenShard } from "./frozen-shard.ts";
import { HotShard } from "./hot-shard.ts";
import { LightShard } from "./light-shard.ts";
import { DEFAULT_LIMIT, type MatchKind, rank } from "./rank.ts";
import { type Accumulator, accumulatorIn } from "./scoring.ts";
import {
  MONTH_SLACK_DAYS,
  matchesFilter,
  monthOf,
  newerFirst,
  type Shard,
  type SnapshotFilter,
  timeBounds,
} from "./shard.ts";
import { asWritten, closestTerms, completionsIn } from "./suggest.ts";
import { TermArray, type TermSource, type Terms, termsFrom } from "./terms.ts";
import { foldText, leavesOf } from "./tokenize.ts";
import { fuzzyTerms, mergePlaced, namedTerms } from "./vocabulary.ts";

/** A snapshot as `list` and `search` report it: the CLI's SnapshotRef, without a score. */
export type SnapshotRef = Omit<JsonRef, "score">;

/** A search result: the ref, its score, and the stored line that best shows why it matched. */
export interface SearchHit extends SnapshotRef {
  score: number;
  /** The matching line (key names carry their label: `Error code: ERR_DUPLICATE_KEY`). */
  snippet: string;
  /** The section the matching line comes from. */
  field: Field;
  /** How the hit holds the query's identifiers (see {@link QueryMatch}). */
  match: QueryMatch;
}

/**
 * How hits hold the query's identifiers: `exact`, every one as typed; `prefix`, an identifier typed as
 * the start of longer ones (`ERR_DUP` for `ERR_DUPLICATE_KEY`) by those; `fuzzy`, by prefix or typo only.
 */
export type QueryMatch = MatchKind | "prefix";

/** What a query found: hits best first, how they match, and for identifiers no snapshot holds, the closest ones that exist. */
export interface QueryResult {
  hits: SearchHit[];
  match: QueryMatch;
  /** Identifier words of the query (as typed) that no snapshot in scope holds, whole or as their start. */
  missing: string[];
  /** With a `prefix` match, each identifier typed as a start and those it begins (as written in a hit). */
  prefixes: { word: string; completions: string[] }[];
  /** For each missing identifier, the closest identifiers that do exist (as written in a snapshot). */
  suggestions: { word: string; closest: string[] }[];
}

/** Whose snapshots `latest` considers. */
export interface Scope {
  session?: string;
  agent?: string;
  /** A checkpoint name; a newer tombstone of the name hides it. */
  name?: string;
}

export interface SearchOptions {
  /** Maximum number of hits. Default 10. */
  limit?: number;
  filter?: SnapshotFilter;
  /** Drop hits far below the best one (rank.ts `relevant`). Default true. */
  floor?: boolean;
  /** Find the closest identifiers for those no snapshot holds ("did you mean"; a vocabulary walk). Default false. */
  suggest?: boolean;
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

/** All shards of one workspace. */
export class SnapshotIndex {
  readonly #shards = new Map<string, Shard>();
  /** One accumulator per shard, reused by every query (a query clears what it touched). */
  readonly #accumulators = new WeakMap<Shard, Accumulator>();
  /** Sorted distinct terms of all frozen shards, for typo lookups; rebuilt after the set changes. */
  #vocabulary: Terms | undefined;

  /** Months held, newest first (cached until the set of shards changes). */
  #months: string[] | undefined;

  #changed(): void {
    this.#vocabulary = undefined;
    this.#months = undefined;
  }

  /**
   * Typo candidates of a term among the terms of every shard (frozen ones share one vocabulary); none when
   * some term begins it (the prefix answers).
   */
  #fuzzyTerms = (term: string, distance: number): [string, number][] => {
    if (this.completions(term).length > 0) return [];
    const found = new Map<string, number>();
    const walk = (source: TermSource) => {
      const terms = termsFrom(source);
      for (const [i, d] of fuzzyTerms(terms, term, distance)) found.set(terms.term(i), d);
    };
    walk(this.vocabulary());
    for (const shard of this.#shards.values()) if (shard instanceof HotShard) walk(shard.terms());
    return [...found];
  };

  /** Indexed terms `term` (lower case) is the start of, cut inside a word (suggest.ts `completionsIn`). */
  completions(term: string): string[] {
    return completionsIn([this.vocabulary(), ...this.#hotTerms()], term);
  }

  #hotTerms(): TermSource[] {
    return [...this.#shards.values()].filter((s) => s instanceof HotShard).map((s) => s.terms());
  }

  /**
   * The sorted vocabulary of all frozen shards (merged on first use after a change). When they all hold
   * their terms in one vocabulary (a saved one, saved-vocabulary.ts), its terms they name, without a merge.
   */
  vocabulary(): Terms {
    if (this.#vocabulary === undefined) {
      const frozen = [...this.#shards.values()].filter((s) => s instanceof FrozenShard);
      const one = frozen[0]?.parts.shared;
      const ids: Uint32Array[] = [];
      for (const { parts } of frozen)
        if (parts.shared && parts.shared.vocabulary === one?.vocabulary) ids.push(parts.shared.ids);
      if (one !== undefined && ids.length === frozen.length) {
        this.#vocabulary = namedTerms(one.vocabulary, ids, one.merged);
        return this.#vocabulary;
      }
      const { terms, positions } = mergePlaced(frozen.map((s) => s.terms()));
      const vocabulary = new TermArray(terms);
      this.#vocabulary = vocabulary;
      // Each month's terms then point into it: one string per term for the whole index.
      for (const [k, shard] of frozen.entries()) shard.share({ vocabulary, ids: at(positions, k) });
    }
    return this.#vocabulary;
  }

  /** Number of snapshots, tombstones included. */
  get size(): number {
    let n = 0;
    for (const shard of this.#shards.values()) n += shard.size;
    return n;
  }

  /** Months held, newest first. */
  months(): string[] {
    this.#months ??= [...this.#shards.keys()].sort().reverse();
    return [...this.#months];
  }

  shard(month: string): Shard | undefined {
    return this.#shards.get(month);
  }

  /** Installs (or replaces) the shard of its month. */
  setShard(shard: Shard): void {
    this.#release(shard.month, shard);
    this.#shards.set(shard.month, shard);
    this.#changed();
  }

  dropShard(month: string): void {
    this.#release(month);
    this.#shards.delete(month);
    this.#changed();
  }

  /** Closes the saved file a month's frozen shard reads its texts from, unless it stays (`keep`). */
  #release(month: string, keep?: Shard): void {
    const old = this.#shards.get(month);
    if (old instanceof FrozenShard && old !== keep) old.close();
  }

  /** Closes the saved files the frozen shards read their texts from; searches after it may fail. */
  close(): void {
    for (const shard of this.#shards.values()) if (shard instanceof FrozenShard) shard.close();
  }

  /** The hot shard of a month, thawing a frozen one or creating an empty one. */
  hot(month: string): HotShard {
    const shard = this.#shards.get(month);
    if (shard instanceof HotShard) return shard;
    const hot = shard instanceof FrozenShard ? HotShard.thaw(shard) : HotShard.empty(month);
    this.#release(month);
    this.#shards.set(month, hot);
    this.#changed();
    return hot;
  }

  /** Replaces the snapshots of a daily log with a fresh parse of it (none: the log is gone). */
  replaceFile(file: string, snapshots: readonly LocatedSnapshot[]): void {
    const month = monthOf(file);
    const shard = this.#shards.get(month);
    if (snapshots.length === 0 && (shard === undefined || !shard.files().includes(file))) return;
    if (shard instanceof LightShard) {
      shard.replaceFile(file, snapshots);
      if (shard.size === 0) this.dropShard(month);
      return;
    }
    const hot = this.hot(month);
    hot.replaceFile(file, snapshots);
    if (hot.size === 0) this.dropShard(month);
  }

  /** Freezes a hot month (after it was saved, say); returns the frozen shard, or undefined. */
  freeze(month: string): FrozenShard | undefined {
    const shard = this.#shards.get(month);
    if (shard === undefined) return undefined;
    if (!(shard instanceof HotShard)) return shard as FrozenShard;
    const frozen = shard.freeze();
    this.setShard(frozen);
    return frozen;
  }

  /** Best matches for `query`, best first (see rank.ts for the order). */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    return this.query(query, options).hits;
  }

  /**
   * Best matches for `query` (see rank.ts), how they match, and, when no hit holds an identifier of the
   * query as typed, the closest indexed identifiers ("did you mean").
   */
  query(query: string, options: SearchOptions = {}): QueryResult {
    const filter = options.filter ?? {};
    const [first, last] = monthRange(filter);
    const shards = this.#ordered();
    const ranked = rank(shards, query, {
      limit: options.limit ?? DEFAULT_LIMIT,
      filter,
      ...(options.floor === undefined ? {} : { floor: options.floor }),
      searchable: (shard) => shard.month === "other" || (shard.month >= first && shard.month <= last),
      fuzzyTerms: this.#fuzzyTerms,
      accumulator: (shard) => accumulatorIn(this.#accumulators, shard),
    });
    const prefixes = this.#prefixes(
      ranked,
      Object.values(filter).some((v) => v !== undefined),
    );
    const match: QueryMatch = prefixes.length > 0 ? "prefix" : ranked.match;
    const missing = prefixes.length > 0 ? [] : ranked.missing;
    const hits = ranked.hits.map((h) => ({
      ...refOf(h.entry),
      score: h.score,
      snippet: h.snippet.text,
      field: h.snippet.field,
      match,
    }));
    const suggestions =
      options.suggest === true && match === "fuzzy" ? missing.map((word) => this.#suggest(word)) : [];
    return { hits, match, missing, prefixes, suggestions };
  }

  /**
   * When the hits hold every missing identifier as the start of longer ones (cut inside a word: `ERR_DUP`,
   * `oauth-call`), each with those it begins, as written in a hit; otherwise none. The vocabulary is the
   * whole workspace's, so a `scoped` query (a session, an agent, a time) names only what a hit shows.
   */
  #prefixes(ranked: ReturnType<typeof rank>, scoped: boolean): QueryResult["prefixes"] {
    if (ranked.match !== "fuzzy" || ranked.hits.length === 0 || ranked.missing.length === 0) return [];
    const out: QueryResult["prefixes"] = [];
    const shown = (term: string) =>
      ranked.hits
        .map((h) => asWritten(`${h.snippet.text}\n${h.entry.goal}\n${h.entry.text}`, term))
        .find((w) => w !== undefined);
    for (const word of ranked.missing) {
      const completions = this.completions(foldText(word).toLowerCase()).flatMap((term) => {
        const written = shown(term);
        return written !== undefined ? [written] : scoped ? [] : [term];
      });
      if (completions.length === 0) return [];
      out.push({ word, completions });
    }
    return out;
  }

  #ordered(): Shard[] {
    this.#months ??= [...this.#shards.keys()].sort().reverse();
    return this.#months.map((m) => got(this.#shards, m));
  }

  /** The indexed identifiers closest to `word`, as written in a snapshot that holds them. */
  #suggest(word: string): { word: string; closest: string[] } {
    const vocabularies = [this.vocabulary(), ...this.#hotTerms()];
    const closest = closestTerms(vocabularies, word.toLowerCase(), leavesOf(word)).map((term) => {
      const hit = rank(this.#ordered(), term, { limit: 1 }).hits[0];
      const entry = hit?.entry;
      return (entry === undefined ? undefined : asWritten(`${entry.goal}\n${entry.text}`, term)) ?? term;
    });
    return { word, closest };
  }

  /**
   * The newest snapshot in scope, never a tombstone. With `name`, the newest snapshot of that name,
   * unless a tombstone of it is newer still.
   */
  latest(scope: Scope = {}): Entry | undefined {
    const { name, ...rest } = scope;
    let best: Entry | undefined;
    for (const shard of this.#shards.values()) {
      for (const [, entry] of shard.documents()) {
        if (!latestCandidate(entry, name)) continue;
        if (!matchesFilter(entry, rest)) continue;
        if (best === undefined || newerFirst(entry, best) < 0) best = entry;
      }
    }
    return latestSettled(best);
  }

  /** Every entry passing `filter`, newest first; tombstones left out. */
  list(filter: SnapshotFilter = {}): Entry[] {
    const out: Entry[] = [];
    const bounds = timeBounds(filter);
    for (const shard of this.#shards.values()) {
      for (const [, entry] of shard.documents()) {
        if (!entry.tombstone && matchesFilter(entry, filter, bounds)) out.push(entry);
      }
    }
    return out.sort(newerFirst);
  }

  /** Every entry, in no particular order (the index's own records: laying claims over them changes them). */
  *entries(): IterableIterator<Entry> {
    for (const shard of this.#shards.values()) for (const [, entry] of shard.documents()) yield entry;
  }

  /** Every entry, tombstones included, newest first. */
  all(): Entry[] {
    const out: Entry[] = [];
    for (const shard of this.#shards.values()) for (const [, entry] of shard.documents()) out.push(entry);
    return out.sort(newerFirst);
  }

  /** Every entry with snapshot id `id`, newest first. */
  findAll(id: string): Entry[] {
    const out: Entry[] = [];
    for (const shard of this.#shards.values()) {
      for (const [, entry] of shard.documents()) if (entry.id === id) out.push(entry);
    }
    return out.sort(newerFirst);
  }

  /** The newest entry with snapshot id `id`, or undefined. */
  find(id: string): Entry | undefined {
    let best: Entry | undefined;
    for (const shard of this.#shards.values()) {
      for (const [, entry] of shard.documents()) {
        if (entry.id === id && (best === undefined || newerFirst(entry, best) < 0)) best = entry;
      }
    }
    return best;
  }
}
