/**
 * Runs a query over shards: plans it, looks its terms up with index-wide BM25 statistics, and ranks
 * the matches in the order of hit.ts. Plain words are matched exactly and, when rare (found in fewer
 * than `limit` snapshots), also by prefix and with typos. An identifier word (see tokenize.ts
 * `isIdentifierLike`) must be present in every hit: as an indexed term, or as its own run of tokens
 * (`ErrDbTimeout` for `ERR_DB_TIMEOUT`, `oauth-callback.ts` inside `src/auth/oauth-callback.ts`). Only
 * when no snapshot holds the identifiers so are they matched by prefix and typos, and the result says
 * `fuzzy`. Hits far below the best one are dropped (see {@link relevant}). Pure.
 */
import { at, f64, got } from "./checked.ts";
import { type Entry, FIELDS, HAS_LINES } from "./document.ts";
import { FrozenShard } from "./frozen-shard.ts";
import {
  compareHits,
  compareLines,
  EMPTY_HIT,
  type Hit,
  type LineMatch,
  lineMatcher,
  mostTogether,
  RERANK_FACTOR,
  RERANK_MIN,
  TopHits,
  together,
  type Word,
} from "./hit.ts";
import { anyDoc, bitsMayHold, type IdWord, identifierWords, linesHold } from "./identifier-words.ts";
import { MAX_QUERY_TERMS, type PlannedTerm, planQuery } from "./query.ts";
import { Accumulator, type CorpusStats, type Reach, type TermLookup } from "./scoring.ts";
import { matchesFilter, type Shard, type SnapshotFilter, timeBounds } from "./shard.ts";
import { holdsSequence } from "./tokenize.ts";

export interface RankOptions {
  /** Maximum number of hits. Default 10. */
  limit?: number;
  filter?: SnapshotFilter;
  /** Shards to take hits from (all of them count for statistics). Default: all. */
  searchable?: (shard: Shard) => boolean;
  /** A reusable accumulator for a shard (it is reset before use). Default: a new one per query. */
  accumulator?: (shard: Shard) => Accumulator;
  /** Typo candidates of a term in the vocabulary of the frozen shards (see TermLookup.fuzzyTerms). */
  fuzzyTerms?: (term: string, distance: number) => readonly (readonly [string, number])[];
  /** Drop hits below the relevance floor (see {@link relevant}). Default true. */
  floor?: boolean;
}

/** How the hits hold the query's identifiers: `exact` (all of them, as typed) or `fuzzy` (by prefix or typo). */
export type MatchKind = "exact" | "fuzzy";

/** Hits best first, how they match, and the identifier words no snapshot in scope holds. */
export interface RankResult {
  hits: Hit[];
  match: MatchKind;
  /** Identifier words as typed that no searched snapshot passing the filter holds. */
  missing: string[];
}

/** Default number of hits. */
export const DEFAULT_LIMIT = 10;

/**
 * The relevance floor: a hit is kept when it matches at least half as many words (plus words together
 * on a line) as the best hit, and, when it matches fewer words than the best, scores at least this share
 * of the best hit's score.
 */
export const RELEVANCE_FLOOR = 0.25;

/** The masks of each query word's terms, by word number. */
function wordsOf(terms: readonly PlannedTerm[]): Map<number, Word> {
  const words = new Map<number, Word>();
  terms.forEach((t, i) => {
    for (const role of t.roles) {
      const w = words.get(role.word) ?? { any: 0, whole: 0, parts: 0 };
      words.set(role.word, w);
      w.any |= 1 << i;
      if (role.kind === "whole") w.whole |= 1 << i;
      if (role.kind === "part") w.parts |= 1 << i;
    }
  });
  return words;
}

/** Index-wide statistics for BM25: number of snapshots and average field lengths. */
export function corpusStats(shards: readonly Shard[]): CorpusStats {
  let docs = 0;
  const avgFieldLength = new Float64Array(FIELDS.length);
  for (const shard of shards) {
    docs += shard.size;
    shard.lengthSums.forEach((sum, f) => {
      avgFieldLength[f] = f64(avgFieldLength, f) + sum;
    });
  }
  if (docs > 0)
    avgFieldLength.forEach((sum, f) => {
      avgFieldLength[f] = sum / docs;
    });
  return { docs, avgFieldLength };
}

/**
 * Fewer candidates of a month than this are screened by their texts alone: asking the postings of an
 * identifier's other leaves costs a walk of each, more than reading a few texts.
 */
const MIN_SCREENED = 8;

/** How many snapshots hold `term` exactly, counting no further than `cap`. */
function documentFrequency(shards: readonly Shard[], term: string, cap: number): number {
  let df = 0;
  for (const shard of shards) {
    df += countIn(shard, term, cap - df);
    if (df >= cap) break;
  }
  return df;
}

/**
 * Whole counts of terms in frozen shards, kept once counted: a frozen shard never changes, and a query
 * counts each leaf of an identifier in every month (the common words of a large history are long lists).
 */
const frozenCounts = new WeakMap<Shard, Map<string, number>>();

function countIn(shard: Shard, term: string, cap: number): number {
  if (!(shard instanceof FrozenShard)) return shard.exactCount(term, cap);
  let counts = frozenCounts.get(shard);
  if (counts === undefined) {
    counts = new Map();
    frozenCounts.set(shard, counts);
  }
  const known = counts.get(term);
  if (known !== undefined) return Math.min(known, cap);
  // A capped count (a widening decision) stops early and is not kept.
  if (cap < Number.MAX_SAFE_INTEGER) return shard.exactCount(term, cap);
  const whole = shard.exactCount(term, cap);
  counts.set(term, whole);
  return whole;
}

/** The lookup of planned term `i`: widened by prefix and typos when `widen` and fewer than `limit` snapshots hold it. */
function lookupOf(
  shards: readonly Shard[],
  terms: readonly PlannedTerm[],
  i: number,
  limit: number,
  widen: boolean,
  fuzzyTerms: RankOptions["fuzzyTerms"],
): TermLookup {
  const term = at(terms, i);
  const part = term.roles.every((r) => r.kind === "part");
  if (!widen) return { term, bit: 1 << i, part, prefix: false, fuzzy: 0 };
  const df = documentFrequency(shards, term.term, limit);
  const rare = df < limit;
  // A word that exists was probably typed right: only its nearest neighbours join it.
  const fuzzy = rare ? (df > 0 ? Math.min(1, term.fuzzy) : term.fuzzy) : 0;
  const lookup: TermLookup = { term, bit: 1 << i, part, prefix: rare && term.prefix, fuzzy };
  if (fuzzy > 0 && fuzzyTerms !== undefined) lookup.fuzzyTerms = fuzzyTerms(term.term, fuzzy);
  return lookup;
}

/** Searches `shards` for `query`: at most `limit` hits, best first, and how they match. */
export function rank(shards: readonly Shard[], query: string, options: RankOptions = {}): RankResult {
  const limit = Math.max(1, options.limit ?? DEFAULT_LIMIT);
  const plan = planQuery(query);
  const terms = plan.terms.slice(0, MAX_QUERY_TERMS);
  // Nothing to search (no query terms, or no snapshot at all): nothing found, and nothing near either.
  if (terms.length === 0 || shards.every((shard) => shard.size === 0))
    return { hits: [], match: "exact", missing: [] };
  const wordMap = wordsOf(terms);
  const words = [...wordMap.values()];
  const idWords = identifierWords(plan.words, wordMap);
  const idTerm = new Set<number>(); // terms that belong to identifier words only
  terms.forEach((t, i) => {
    if (t.roles.every((r) => plan.words[r.word]?.identifier === true)) idTerm.add(i);
  });
  let partMask = 0;
  terms.forEach((t, i) => {
    if (t.roles.every((r) => r.kind === "part")) partMask |= 1 << i;
  });
  const stats = corpusStats(shards);
  const searched = options.searchable === undefined ? shards : shards.filter(options.searchable);
  const accs = searched.map((shard) => options.accumulator?.(shard) ?? new Accumulator(0, shard.size));
  for (const acc of accs) acc.reset(partMask);
  /** Scores `lookups` into the accumulators; `exact: false` leaves out the exact terms (already counted). */
  const collect = (lookups: readonly TermLookup[], exact = true) => {
    for (const lookup of lookups) {
      // Document frequencies are counted over every shard, so a snapshot scores the same in any month.
      const df = new Map<string, Float64Array>();
      const reach = new Map<Shard, Reach[]>();
      for (const shard of shards) {
        const all = shard.reach(lookup);
        const found = exact ? all : all.filter((r) => !r.exact);
        reach.set(shard, found);
        for (const reached of found) {
          let counts = df.get(reached.term);
          if (counts === undefined) {
            counts = new Float64Array(FIELDS.length);
            df.set(reached.term, counts);
          }
          shard.countFields(reached, counts);
        }
      }
      searched.forEach((shard, s) => {
        for (const reached of reach.get(shard) ?? []) {
          shard.score(reached, lookup.bit, got(df, reached.term), stats, at(accs, s));
        }
      });
    }
  };
  const lookup = (i: number, widen: boolean) => lookupOf(shards, terms, i, limit, widen, options.fuzzyTerms);
  const filter = options.filter ?? {};
  const bounds = timeBounds(filter);
  const eligible = (entry: Entry | undefined): entry is Entry =>
    entry !== undefined && !entry.tombstone && matchesFilter(entry, filter, bounds);

  // Plain words, widened when rare, and identifiers whole and exactly.
  const lookups: TermLookup[] = [];
  terms.forEach((_t, i) => {
    if (idTerm.has(i) && (partMask & (1 << i)) !== 0) return;
    lookups.push(lookup(i, !idTerm.has(i)));
  });
  collect(lookups);
  // Identifiers no snapshot holds whole: their leaves, exactly, to find them as a run of tokens.
  // The two rarest leaves find the candidates (every leaf must exist somewhere); the text confirms the run.
  for (const w of idWords) {
    if (w.parts === 0 || anyDoc(searched, accs, eligible, (exact) => (exact & w.whole) !== 0)) continue;
    const leaves = terms
      .flatMap((t, i) =>
        (w.parts & (1 << i)) === 0
          ? []
          : [{ bit: 1 << i, df: documentFrequency(shards, t.term, Number.MAX_SAFE_INTEGER) }],
      )
      .sort((a, b) => a.df - b.df);
    if (leaves.length > 0 && (leaves[0]?.df ?? 0) > 0) w.rare = (leaves[0]?.bit ?? 0) | (leaves[1]?.bit ?? 0);
  }
  const leafLookups: TermLookup[] = [];
  terms.forEach((_t, i) => {
    if (idWords.some((w) => (w.rare & (1 << i)) !== 0)) leafLookups.push(lookup(i, false));
  });
  collect(leafLookups);
  lookups.push(...leafLookups);

  const sequences = new Map<Entry, Map<IdWord, boolean>>();
  /**
   * Per identifier word and searched shard, the documents holding both its rarest leaves that also hold
   * its other leaves (each an indexed term wherever the word is written as their run): asked of the
   * shard's postings once, so that only those documents' texts are read. Documents touched later (by a
   * widened lookup) were not asked about: their texts are read.
   */
  const screened = new Map<IdWord, { asked: Set<number>; passed: Set<number> }[]>();
  const mayHold = (w: IdWord, s: number, doc: number): boolean => {
    let sets = screened.get(w);
    if (sets === undefined) {
      const others = terms.filter((_t, i) => (w.parts & ~w.rare & (1 << i)) !== 0).map((t) => t.term);
      sets = searched.map((shard, k) => {
        const acc = at(accs, k);
        const docs = acc.touched.filter((d) => (acc.exact(d) & w.rare) === w.rare).sort((a, b) => a - b);
        let passed = new Set(docs);
        for (const term of others) {
          if (passed.size < MIN_SCREENED) break;
          passed = shard.holding(term, [...passed]);
        }
        return { asked: new Set(docs), passed };
      });
      screened.set(w, sets);
    }
    const set = sets[s];
    return set === undefined || !set.asked.has(doc) || set.passed.has(doc);
  };
  /** Whether `entry` (document `doc` of searched shard `s`) holds identifier word `w` as typed (whole, or as a run of its leaves). */
  const holds = (entry: Entry, exact: number, w: IdWord, s: number, doc: number): boolean => {
    if ((exact & w.whole) !== 0) return true;
    if (!bitsMayHold(w, exact)) return false;
    if (!mayHold(w, s, doc)) return false;
    let known = sequences.get(entry);
    if (known === undefined) {
      known = new Map();
      sequences.set(entry, known);
    }
    let held = known.get(w);
    if (held === undefined) {
      held = holdsSequence(entry.goal, w.leaves, w.screen) || linesHold(entry, w.leaves, w.screen);
      known.set(w, held);
    }
    return held;
  };
  const holdsAll = (entry: Entry, exact: number, s: number, doc: number) =>
    idWords.every((w) => holds(entry, exact, w, s, doc));
  // What `holds` asks of the exact terms before it reads an entry: most touched documents fail it.
  const mayHoldAll = (exact: number) => idWords.every((w) => bitsMayHold(w, exact));
  const wholeBits = idWords.reduce((bits, w) => bits | w.whole, 0);
  const missing = idWords
    .filter(
      (w) =>
        !anyDoc(
          searched,
          accs,
          eligible,
          (exact) => bitsMayHold(w, exact),
          (exact, entry, s, doc) => holds(entry, exact, w, s, doc),
        ),
    )
    .map((w) => w.raw);
  let match: MatchKind = "exact";
  if (
    idWords.length > 0 &&
    !anyDoc(searched, accs, eligible, mayHoldAll, (exact, entry, s, doc) => holdsAll(entry, exact, s, doc))
  ) {
    // Nothing holds every identifier as typed: widen the identifiers, and say so.
    match = "fuzzy";
    const widened: TermLookup[] = [];
    lookups.forEach((l, k) => {
      const i = Math.log2(l.bit);
      if (!idTerm.has(i) || l.part) return;
      lookups[k] = lookup(i, true);
      widened.push(at(lookups, k));
    });
    collect(widened, false);
  }
  const satisfies = (entry: Entry, matched: number, exact: number, s: number, doc: number) =>
    match === "exact"
      ? holdsAll(entry, exact, s, doc)
      : idWords.every((w) => (matched & w.whole) !== 0 || holds(entry, exact, w, s, doc));

  /**
   * The best `size` candidates, ranked with sections in place of lines (see hit.ts); with `least`,
   * every candidate whose first key can reach it instead, however many.
   */
  const fill = (size: number, least?: number): Hit[] => {
    const pool = new TopHits(size);
    const all: Hit[] = [];
    const probe: Hit = { ...EMPTY_HIT };
    searched.forEach((shard, s) => {
      const acc = at(accs, s);
      for (const doc of acc.touched) {
        const matched = acc.matched(doc);
        // Every identifier must be matched whole, or possible from its leaves (see `satisfies`).
        if (idWords.length > 0 && !mayHoldAll(acc.exact(doc) | (matched & wholeBits))) continue;
        let any = 0;
        for (const w of words) if ((matched & w.any) !== 0) any++;
        // Skip what cannot enter the pool even with every word together on a line, in order.
        if (mostTogether(any) < (least ?? pool.threshold())) continue;
        // Most words in one section, and in one section kept as lines (a bound on the words on a line).
        let fieldWords = 0;
        let lineBound = 0;
        for (let f = 0; f < FIELDS.length && lineBound < any; f++) {
          const inField = acc.inField(doc, f);
          if (inField === 0) continue;
          let n = 0;
          for (const w of words) if ((inField & w.any) !== 0) n++;
          if (n > fieldWords) fieldWords = n;
          if (HAS_LINES[f] === true && n > lineBound) lineBound = n;
        }
        if (least !== undefined && any + 2 * lineBound - Math.min(1, lineBound) < least) continue;
        const entry = shard.entry(doc);
        if (!eligible(entry)) continue;
        const exact = acc.exact(doc);
        if (idWords.length > 0 && !satisfies(entry, matched, exact, s, doc)) continue;
        let exactWords = 0;
        let wholeWords = 0;
        let partsCount = false;
        for (const w of words) {
          if (w.whole !== 0 ? (exact & w.whole) !== 0 : (exact & w.any) === w.any) exactWords++;
          if (w.whole !== 0 ? (matched & w.whole) !== 0 : (matched & w.any) === w.any) wholeWords++;
          if ((w.parts & matched) !== 0 && (w.whole & matched) === 0) {
            partsCount = true;
            if ((exact & w.parts) !== 0) exactWords++;
          }
        }
        probe.entry = entry;
        probe.words = any;
        probe.exactWords = exactWords;
        probe.wholeWords = wholeWords;
        probe.fieldWords = fieldWords;
        // Until lines are compared, the section count stands in for the line count (an upper bound),
        // and so for the pairs in order on that line.
        probe.lineWords = lineBound;
        probe.pairs = Math.max(0, lineBound - 1);
        // A word matched whole (even by prefix or typo) is not credited again for its parts.
        probe.score = acc.score(doc) + (partsCount ? acc.partScore(doc) : 0);
        if (least !== undefined) {
          if (together(probe) >= least) all.push({ ...probe, terms: matched });
          continue;
        }
        if (!pool.worthy(probe)) continue;
        pool.offer({ ...probe, terms: matched });
      }
    });
    return least === undefined ? pool.hits : all.sort(compareHits);
  };
  // Lines are compared in pool order until no candidate left could enter. When the pool runs out first
  // (many candidates whose sections promise more than their lines hold), every candidate that could
  // still reach the last hit's first key is drawn and compared the same way.
  const lineOf = cachedLines(lineMatcher(lookups, wordMap));
  const size = Math.max(limit * RERANK_FACTOR, RERANK_MIN);
  const pool = fill(size);
  let { hits: ranked, settled } = compareLines(pool, limit, lineOf);
  const last = ranked[limit - 1];
  if (!settled && pool.length >= size && last !== undefined)
    ranked = compareLines(fill(size, together(last)), limit, lineOf).hits;
  const hits = options.floor === false ? ranked : relevant(ranked);
  return { hits, match, missing: match === "exact" ? [] : missing };
}

/** `lineOf` remembering its exact answers per entry (a second draw holds the entries of the first). */
function cachedLines(lineOf: ReturnType<typeof lineMatcher>): ReturnType<typeof lineMatcher> {
  const known = new Map<Entry, LineMatch>();
  return (hit, need) => {
    let found = known.get(hit.entry);
    if (found === undefined) {
      found = lineOf(hit, need);
      if (found.exact) known.set(hit.entry, found);
    }
    return found;
  };
}

/** The hits (best first) down to the first one below the relevance floor (see {@link RELEVANCE_FLOOR}). */
export function relevant(hits: readonly Hit[]): Hit[] {
  const best = hits[0];
  if (best === undefined) return [];
  const cover = (h: Hit) => h.words + h.lineWords;
  const above = (h: Hit) =>
    2 * cover(h) >= cover(best) && (h.words >= best.words || h.score >= RELEVANCE_FLOOR * best.score);
  // The first hit below the floor ends the list: what is kept is always a prefix of the ranking.
  const cut = hits.findIndex((h) => !above(h));
  return cut < 0 ? [...hits] : hits.slice(0, cut);
}
