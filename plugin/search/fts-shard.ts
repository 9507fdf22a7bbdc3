/**
 * The sealed months as one shard (shard.ts) read from the SQLite file of fts-store.ts: its `terms` table
 * gives the terms a lookup reaches (exact, by prefix: a range of the sorted vocabulary) and their
 * document frequencies, in all and per field (summed over the months); FTS5 names candidates; term
 * frequencies per document and field come from `fts5vocab`'s instance table for a rare term and from
 * the candidates' forward rows (fts-forward.ts) for a common one or an identifier's leaf; the field lengths
 * are held in memory (two bytes a field and snapshot); entries are read by document number as ranking
 * needs them and kept in a bounded cache. Scores are those of scoring.ts, so a snapshot scores the same
 * here as in a hot (minisearch) month. What one query looked up is remembered until the next
 * {@link FtsShard.begin}. Reads only.
 */
import type { SQLOutputValue, StatementSync } from "node:sqlite";
import { type Entry, FIELD_BOOSTS, FIELDS } from "./document.ts";
import {
  CANDIDATES,
  type CandidateWords,
  candidateCount,
  candidateTiers,
  hasWords,
  NO_WORDS,
  UNRANKED,
} from "./fts-candidates.ts";
import { ENTRY_NAMES, LazyEntry, rowEntry, screenText } from "./fts-entry.ts";
import { ForwardRows, instancePostings, type Postings } from "./fts-forward.ts";
import { bytes, FIELD_COUNTS, type FtsStore, num, text } from "./fts-store.ts";
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
import type { Shard } from "./shard.ts";

/**
 * Terms held by more snapshots than this are read only for the candidates of the query (see
 * {@link FtsShard.restrict}): their postings would cost more to carry out of SQLite than the query.
 */
export const COMMON_TERM = 1000;
/** Most entries kept in memory between queries. */
export const ENTRY_CACHE = 4096;
/** Highest code point: a bound above every term that starts with a given prefix. */
const LAST = "\u{10ffff}";
const F = FIELDS.length;

/** What {@link FtsShard.month} says: the shard holds every sealed month. */
export const SEALED = "sealed";

/** The sealed months of a workspace as one read-only shard over the SQLite file. */
export class FtsShard implements Shard {
  readonly month = SEALED;
  readonly lengthSums = new Float64Array(F);
  readonly #store: FtsStore;
  readonly #lengths: Uint16Array;
  readonly #size: number;
  readonly #entries = new Map<number, Entry>();
  readonly #count: StatementSync;
  readonly #range: StatementSync;
  readonly #rangeFrom: StatementSync;
  readonly #postings: StatementSync;
  readonly #entry: StatementSync;
  readonly #fields: StatementSync;
  readonly #forward: StatementSync;
  readonly #termIds: StatementSync;
  readonly #candidates: StatementSync;
  readonly #matching: StatementSync;
  readonly #screen: StatementSync;
  /** The candidates of this query, once a common term or an identifier's leaf was read. */
  #only: readonly number[] | undefined;
  #words: CandidateWords = NO_WORDS;
  /** This query's forward rows, by the documents they were read for (see {@link FtsShard.restrict}). */
  readonly #rows = new Map<string, ForwardRows>();
  /** This query's term ids (undefined: not in the file). */
  readonly #termIdOf = new Map<string, number | undefined>();
  /** This query's screens: the documents asked about and those passing, by pattern. */
  readonly #screened = new Map<string, { asked: Set<number>; passed: Set<number> }>();
  /** This query's lookups: document counts, fields and postings by term. */
  readonly #docCounts = new Map<string, number>();
  readonly #postingsOf = new Map<string, Postings>();

  constructor(store: FtsStore) {
    this.#store = store;
    const db = store.db;
    this.#lengths = store.lengths();
    this.#size = store.size();
    for (let i = 0; i < this.#lengths.length; i++) {
      const f = i % F;
      this.lengthSums[f] = (this.lengthSums[f] ?? 0) + (this.#lengths[i] ?? 0);
    }
    this.#count = db.prepare("SELECT coalesce(sum(docs), 0) AS doc FROM terms WHERE term = ?");
    // Keyed by term, then month: a term's months, and a range of terms, are one run of the tree.
    this.#range = db.prepare("SELECT DISTINCT term FROM terms WHERE term >= ? AND term < ?");
    this.#rangeFrom = db.prepare("SELECT DISTINCT term FROM terms WHERE term >= ?");
    // One row per instance, in document then column order (fts5vocab's): counted into postings in
    // JavaScript, since a GROUP BY would sort them again.
    this.#postings = db.prepare(
      "SELECT group_concat(doc || ' ' || col, ' ') AS list FROM vocab_instance WHERE term = ?",
    );
    this.#forward = db.prepare(
      "SELECT doc, terms FROM forward WHERE doc IN (SELECT value FROM json_each(?))",
    );
    this.#termIds = db.prepare(
      "SELECT id, term FROM term_ids WHERE term IN (SELECT value FROM json_each(?))",
    );
    this.#fields = db.prepare(
      `SELECT ${FIELD_COUNTS.map((c) => `coalesce(sum(${c}), 0) AS ${c}`).join(", ")} FROM terms WHERE term = ?`,
    );
    const boosts = FIELDS.map((f) => FIELD_BOOSTS[f]).join(", ");
    this.#candidates = db.prepare(
      `SELECT rowid FROM postings WHERE postings MATCH ? ORDER BY bm25(postings, ${boosts}) LIMIT ?`,
    );
    this.#matching = db.prepare("SELECT rowid FROM postings WHERE postings MATCH ? LIMIT ?");
    this.#entry = db.prepare(`SELECT ${ENTRY_NAMES} FROM entries WHERE doc = ?`);
    db.function("screen_text", { deterministic: true }, screenText);
    this.#screen = db.prepare(
      `SELECT doc FROM entries WHERE doc IN (SELECT value FROM json_each(?)) AND screen_text(?, ?, goal || char(10) || text)`,
    );
  }

  /**
   * Of `docs`, those whose goal or text `screen` matches (as written or folded), in one statement; the
   * answer is remembered until the next {@link begin}, and documents asked about already are not read again.
   */
  screen(docs: readonly number[], screen: RegExp): Set<number> {
    const key = `${screen.flags}/${screen.source}`;
    let known = this.#screened.get(key);
    if (known === undefined) {
      known = { asked: new Set(), passed: new Set() };
      this.#screened.set(key, known);
    }
    const { asked, passed } = known;
    const fresh = docs.filter((doc) => !asked.has(doc));
    if (fresh.length > 0) {
      for (const row of this.#screen.all(JSON.stringify(fresh), screen.source, screen.flags))
        passed.add(num(row, "doc"));
      for (const doc of fresh) asked.add(doc);
    }
    return new Set(docs.filter((doc) => passed.has(doc)));
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Starts a query: forgets what the last one looked up (the file may have changed since). When
   * ranking first reads a common term, FTS5 names the candidates from the query's `words` (see
   * {@link candidateTiers}); common terms are then read for those candidates alone.
   */
  begin(words: CandidateWords = NO_WORDS): void {
    this.#docCounts.clear();
    this.#postingsOf.clear();
    this.#rows.clear();
    this.#termIdOf.clear();
    this.#screened.clear();
    this.#only = undefined;
    this.#words = words;
  }

  /**
   * The candidates of this query: the best by FTS5's BM25 of each of {@link candidateTiers}, the last
   * (any plain word) only when the others found fewer than {@link CandidateWords.needed}. The middle
   * tier holds every snapshot of the first: when it is taken whole (unranked), the first is not asked.
   */
  #candidatesOfQuery(): number[] {
    const found = new Set<number>();
    const limit = candidateCount(this.#size);
    const tiers = candidateTiers(this.#words);
    const most = tiers.find((t) => t.kind === "most");
    // Candidates of a query with identifiers are screened one by one for the identifiers' runs of
    // leaves, which costs more than FTS5's ranking: no more are taken unranked than asked for.
    const factor = this.#words.required.length > 0 ? 1 : UNRANKED;
    const whole = most === undefined ? undefined : this.#unranked(most.probe, limit, factor);
    for (const tier of tiers) {
      // The last tier (any plain word) is the costly one: only when the others found too few.
      if (tier.kind === "any" && found.size >= this.#words.needed) break;
      if (whole !== undefined && tier.kind === "all") continue;
      // Any plain word surely matches more than the limit: ranked at once. The others mostly match fewer
      // (at 10k, most of five words in about 80 snapshots), taken unranked at a third of the cost.
      const docs =
        tier === most
          ? (whole ?? this.candidates(tier.match, limit, false))
          : this.candidates(tier.match, limit, tier.kind !== "any", tier.probe, factor);
      for (const doc of docs) found.add(doc);
    }
    return [...found];
  }

  /** Whether `term` is common enough that a query reads it for its candidates only. */
  common(term: string): boolean {
    return this.#documentCount(term) > COMMON_TERM;
  }

  /**
   * The best `limit` snapshots for an FTS5 query expression by FTS5's BM25, with the field boosts of
   * document.ts as column weights: the candidates of a query with a common term. When no more than
   * {@link UNRANKED} times `limit` snapshots match, they are all taken as they come, without ranking
   * (a superset of the best): FTS5's `bm25()` costs more than the match and than reading them all (an
   * absent identifier's leaves, a rare word, most of five words). `probe: false` ranks at once (an
   * expression that surely matches more: the probe would be wasted); `probeMatch`, matching the same
   * snapshots as `match` at less cost, is the one probed (fts-candidates.ts `Tier`); `factor` stands
   * for {@link UNRANKED}.
   */
  candidates(
    match: string,
    limit = CANDIDATES,
    probe = true,
    probeMatch = match,
    factor = UNRANKED,
  ): number[] {
    const taken = probe ? this.#unranked(probeMatch, limit, factor) : undefined;
    return taken ?? this.#candidates.all(match, limit).map((row) => num(row, "rowid"));
  }

  /** Every snapshot `match` matches, unranked, when no more than `factor` times `limit` do. */
  #unranked(match: string, limit: number, factor: number): number[] | undefined {
    const rows = this.#matching.all(match, factor * limit + 1);
    return rows.length <= factor * limit ? rows.map((row) => num(row, "rowid")) : undefined;
  }

  /** Reads the postings of common terms for `docs` only, until the next {@link begin}. */
  restrict(docs: readonly number[]): void {
    this.#only = [...docs].sort((a, b) => a - b);
  }

  /**
   * The documents a restricted term is read for: the candidates, or of them, for a leaf of identifiers
   * alone, those whose text passes one of the identifiers' screens (the leaf counts for no other).
   */
  #readFor(term: string, only: readonly number[]): readonly number[] {
    const screens = this.#words.screens.get(term);
    if (screens === undefined || only.length === 0) return only;
    const passed = new Set<number>();
    for (const screen of screens) for (const doc of this.screen(only, screen)) passed.add(doc);
    return only.filter((doc) => passed.has(doc));
  }

  /** The ids of `terms` in the file (a term it does not hold has none), remembered for this query. */
  #idsOf(terms: readonly string[]): Map<string, number> {
    const fresh = terms.filter((t) => !this.#termIdOf.has(t));
    if (fresh.length > 0) {
      for (const t of fresh) this.#termIdOf.set(t, undefined);
      for (const row of this.#termIds.all(JSON.stringify(fresh)))
        this.#termIdOf.set(text(row, "term"), num(row, "id"));
    }
    const out = new Map<string, number>();
    for (const t of terms) {
      const id = this.#termIdOf.get(t);
      if (id !== undefined) out.set(t, id);
    }
    return out;
  }

  /**
   * Term frequencies of `term` in `docs` (sorted) alone, from their forward rows: read once a query,
   * with the postings of every planned term of the query gathered in the same pass.
   */
  #forwardPostings(term: string, docs: readonly number[]): Postings {
    if (docs.length === 0) return [];
    const id = this.#idsOf([term]).get(term);
    if (id === undefined) return [];
    const key = docs === this.#only ? "" : JSON.stringify(docs);
    let rows = this.#rows.get(key);
    if (rows === undefined) {
      const read = this.#forward
        .all(JSON.stringify(docs))
        .map((row): [number, Uint8Array] => [num(row, "doc"), bytes(row, "terms")]);
      const ids = this.#idsOf([...this.#words.terms, term]).values();
      rows = new ForwardRows(
        read.sort((a, b) => a[0] - b[0]),
        ids,
      );
      this.#rows.set(key, rows);
    }
    return rows.postings(id);
  }

  /**
   * The entry of a document, read from the file when a field other than `tombstone` is first used:
   * ranking looks at many candidates and reads the text of a few. A document with an indexed term
   * is no tombstone (tombstones index nothing), so that much is known without reading.
   */
  entry(doc: number): Entry | undefined {
    if (doc < 0 || doc * F >= this.#lengths.length) return undefined;
    const known = this.#entries.get(doc);
    if (known !== undefined) return known;
    let indexed = false;
    for (let f = 0; f < F && !indexed; f++) indexed = (this.#lengths[doc * F + f] ?? 0) > 0;
    const entry = new LazyEntry(() => this.#read(doc), indexed);
    if (this.#entries.size >= ENTRY_CACHE) this.#entries.clear();
    this.#entries.set(doc, entry);
    return entry;
  }

  #read(doc: number): Entry {
    const row = this.#entry.get(doc);
    if (row === undefined) throw new Error(`big-memory: search index: document ${doc} has no entry`);
    return rowEntry(row, doc);
  }

  *documents(): IterableIterator<[number, Entry]> {
    const all = this.#store.db.prepare(`SELECT doc, ${ENTRY_NAMES} FROM entries ORDER BY doc`);
    for (const row of all.iterate()) {
      const doc = num(row, "doc");
      yield [doc, rowEntry(row, doc)];
    }
  }

  files(): string[] {
    return this.#store.logs().map((l) => l.file);
  }

  /** How many snapshots hold `term` in any field. */
  #documentCount(term: string): number {
    let n = this.#docCounts.get(term);
    if (n === undefined) {
      const row = this.#count.get(term);
      n = row === undefined ? 0 : num(row, "doc");
      this.#docCounts.set(term, n);
    }
    return n;
  }

  exactCount(term: string, cap: number): number {
    return Math.min(cap, this.#documentCount(term));
  }

  /** Terms of the vocabulary that start with `prefix` (itself included), sorted as vocabulary.ts expects. */
  termsStartingWith(prefix: string): string[] {
    return sortedTerms(this.#range.all(prefix, prefix + LAST));
  }

  /**
   * Terms of the vocabulary whose first UTF-16 code unit is that of `term`, sorted as vocabulary.ts
   * expects: every term a typo walk of `term` can reach (typos keep the first character, vocabulary.ts
   * `FUZZY_FIXED_PREFIX`), read from a B-tree range instead of the whole vocabulary.
   */
  termsSharingFirst(term: string): string[] {
    const [lo, hi] = firstUnitRange(term.charCodeAt(0));
    if (lo === undefined) return [];
    return sortedTerms(hi === undefined ? this.#rangeFrom.all(lo) : this.#range.all(lo, hi));
  }

  /** Every term of the vocabulary, sorted by UTF-16 code units (as vocabulary.ts expects). */
  vocabulary(): string[] {
    return sortedTerms(this.#rangeFrom.all(""));
  }

  reach(lookup: TermLookup): Reach[] {
    const query = lookup.term.term;
    const weight = lookup.term.weight;
    const out: Reach[] = [];
    const exact = this.#documentCount(query) > 0;
    if (exact) out.push({ term: query, ref: 0, weight, exact: true });
    const byPrefix = new Set<string>();
    if (lookup.prefix) {
      for (const term of this.termsStartingWith(query)) {
        byPrefix.add(term);
        if (term === query) continue;
        out.push({
          term,
          ref: 0,
          weight: weight * prefixWeight(EXPANSION_WEIGHTS.prefix, term.length, query.length),
          exact: false,
        });
      }
    }
    for (const [term, distance] of lookup.fuzzyTerms ?? []) {
      if (distance === 0 || byPrefix.has(term) || this.#documentCount(term) === 0) continue;
      out.push({
        term,
        ref: 0,
        weight: weight * fuzzyWeight(EXPANSION_WEIGHTS.fuzzy, term.length, distance),
        exact: false,
      });
    }
    return out;
  }

  /** Term frequencies of `term`: document, field number and count, in triples. */
  #postingsFor(term: string): Postings {
    let list = this.#postingsOf.get(term);
    if (list === undefined) {
      // One string of numbers per term: far cheaper to cross into JavaScript than a row per posting.
      const restricted = this.#words.identifierTerms.has(term) || this.common(term);
      if (this.#only === undefined && hasWords(this.#words) && restricted)
        this.restrict(this.#candidatesOfQuery());
      const only = this.#only !== undefined && restricted ? this.#only : undefined;
      if (only !== undefined) list = this.#forwardPostings(term, this.#readFor(term, only));
      else {
        const value = this.#postings.get(term)?.list;
        list = typeof value === "string" ? instancePostings(value) : [];
      }
      this.#postingsOf.set(term, list);
    }
    return list;
  }

  /** Document frequencies per field, from the months' term counts (of every snapshot, candidates or not). */
  countFields(reach: Reach, df: Float64Array): void {
    const row = this.#fields.get(reach.term);
    FIELD_COUNTS.forEach((column, f) => {
      df[f] = (df[f] ?? 0) + num(row, column);
    });
  }

  score(reach: Reach, bit: number, df: Float64Array, stats: CorpusStats, acc: Accumulator): void {
    const factors = fieldFactors(reach.weight, df, stats);
    const list = this.#postingsFor(reach.term);
    const lengths = this.#lengths;
    for (let p = 0; p < list.length; p += 3) {
      const doc = list[p] ?? 0;
      const field = list[p + 1] ?? 0;
      const length = lengths[doc * F + field] ?? 0;
      const score = bm25(list[p + 2] ?? 0, factors[field] ?? 0, length, stats.avgFieldLength[field] ?? 1);
      acc.add(doc, bit, field, score, reach.exact);
    }
  }
}

/** Terms as SQLite lists them (UTF-8 byte order), in UTF-16 code unit order: the same but past U+D7FF. */
function sortedTerms(rows: readonly Record<string, SQLOutputValue>[]): string[] {
  const terms = rows.map((row) => text(row, "term"));
  return terms.some((t) => PAST_D7FF.test(t)) ? terms.sort() : terms;
}
const PAST_D7FF = /[\ud800-\uffff]/;

/**
 * Bounds (SQL text, lower inclusive, upper exclusive or none) of the terms whose first UTF-16 code unit
 * is `unit`; none for NaN (no text) or a lone low surrogate, which no stored term begins with.
 */
export function firstUnitRange(unit: number): [string | undefined, string | undefined] {
  if (Number.isNaN(unit) || (unit >= 0xdc00 && unit <= 0xdfff)) return [undefined, undefined];
  if (unit >= 0xd800 && unit <= 0xdbff) {
    const first = 0x10000 + ((unit - 0xd800) << 10);
    const end = first + 0x400;
    return [String.fromCodePoint(first), end > 0x10ffff ? undefined : String.fromCodePoint(end)];
  }
  const end = unit === 0xd7ff ? 0xe000 : unit + 1;
  return [String.fromCharCode(unit), String.fromCodePoint(end)];
}
