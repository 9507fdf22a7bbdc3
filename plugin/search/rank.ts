/**
 * Runs a query over shards: plans it, looks its terms up with index-wide BM25 statistics, and ranks
 * the matches in the order of hit.ts. Widening is only paid for rare words: a word found in fewer
 * than `limit` snapshots is also matched by prefix and with typos (one typo if it exists as typed, up
 * to two if not), and a word matched nowhere, not even so, by its identifier parts. Pure.
 */
import { type Entry, FIELDS } from "./document.ts";
import { compareLines, type Hit, lineMatcher, RERANK_FACTOR, RERANK_MIN, TopHits, type Word } from "./hit.ts";
import { MAX_QUERY_TERMS, type PlannedTerm, planQuery } from "./query.ts";
import { Accumulator, type CorpusStats, type Reach, type TermLookup } from "./scoring.ts";
import { matchesFilter, type Shard, type SnapshotFilter, timeBounds } from "./shard.ts";

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
}

/** Default number of hits. */
export const DEFAULT_LIMIT = 10;

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
      avgFieldLength[f] = (avgFieldLength[f] as number) + sum;
    });
  }
  if (docs > 0)
    avgFieldLength.forEach((sum, f) => {
      avgFieldLength[f] = sum / docs;
    });
  return { docs, avgFieldLength };
}

/** How many snapshots hold `term` exactly, counting no further than `cap`. */
function documentFrequency(shards: readonly Shard[], term: string, cap: number): number {
  let df = 0;
  for (const shard of shards) {
    df += shard.exactCount(term, cap - df);
    if (df >= cap) break;
  }
  return df;
}

/** The lookup of planned term `i`: widened by prefix and typos when fewer than `limit` snapshots hold it. */
function lookupOf(
  shards: readonly Shard[],
  terms: readonly PlannedTerm[],
  i: number,
  limit: number,
  fuzzyTerms: RankOptions["fuzzyTerms"],
): TermLookup {
  const term = terms[i] as PlannedTerm;
  const df = documentFrequency(shards, term.term, limit);
  const rare = df < limit;
  // A word that exists was probably typed right: only its nearest neighbours join it.
  const fuzzy = rare ? (df > 0 ? Math.min(1, term.fuzzy) : term.fuzzy) : 0;
  const part = term.roles.every((r) => r.kind === "part");
  const lookup: TermLookup = { term, bit: 1 << i, part, prefix: rare && term.prefix, fuzzy };
  if (fuzzy > 0 && fuzzyTerms !== undefined) lookup.fuzzyTerms = fuzzyTerms(term.term, fuzzy);
  return lookup;
}

/** Searches `shards` for `query`; returns at most `limit` hits, best first. */
export function rank(shards: readonly Shard[], query: string, options: RankOptions = {}): Hit[] {
  const limit = Math.max(1, options.limit ?? DEFAULT_LIMIT);
  const terms = planQuery(query).terms.slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) return [];
  const wordMap = wordsOf(terms);
  const words = [...wordMap.values()];
  const isPart = (t: PlannedTerm) => t.roles.every((r) => r.kind === "part");
  let partMask = 0;
  terms.forEach((t, i) => {
    if (isPart(t)) partMask |= 1 << i;
  });
  const stats = corpusStats(shards);
  const searched = options.searchable === undefined ? shards : shards.filter(options.searchable);
  const accs = searched.map((shard) => options.accumulator?.(shard) ?? new Accumulator(0, shard.size));
  for (const acc of accs) acc.reset(partMask);
  const collect = (lookups: readonly TermLookup[]) => {
    for (const lookup of lookups) {
      // Document frequencies are counted over every shard, so a snapshot scores the same in any month.
      const df = new Map<string, Float64Array>();
      const reach = new Map<Shard, Reach[]>();
      for (const shard of shards) {
        const found = shard.reach(lookup);
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
          shard.score(
            reached,
            lookup.bit,
            df.get(reached.term) as Float64Array,
            stats,
            accs[s] as Accumulator,
          );
        }
      });
    }
  };
  // Whole words first; the parts of a word only when nothing matched it whole, not even by typo.
  const lookups: TermLookup[] = [];
  terms.forEach((t, i) => {
    if (!isPart(t)) lookups.push(lookupOf(shards, terms, i, limit, options.fuzzyTerms));
  });
  collect(lookups);
  let wholeFound = 0;
  accs.forEach((acc) => {
    for (const doc of acc.touched) wholeFound |= acc.matched(doc);
  });
  const unmatched = new Set<number>();
  for (const [n, w] of wordMap) if (w.whole !== 0 && (wholeFound & w.whole) === 0) unmatched.add(n);
  const partLookups: TermLookup[] = [];
  terms.forEach((t, i) => {
    if (isPart(t) && t.roles.some((r) => unmatched.has(r.word))) {
      partLookups.push(lookupOf(shards, terms, i, limit, options.fuzzyTerms));
    }
  });
  collect(partLookups);
  lookups.push(...partLookups);

  const filter = options.filter ?? {};
  const bounds = timeBounds(filter);
  const pool = new TopHits(Math.max(limit * RERANK_FACTOR, RERANK_MIN));
  const probe: Hit = { ...EMPTY_HIT };
  searched.forEach((shard, s) => {
    const acc = accs[s] as Accumulator;
    for (const doc of acc.touched) {
      const matched = acc.matched(doc);
      let any = 0;
      for (const w of words) if ((matched & w.any) !== 0) any++;
      // Words plus words together can be at most twice the words: skip what cannot enter the pool.
      if (2 * any < pool.threshold()) continue;
      const exact = acc.exact(doc);
      let exactWords = 0;
      let wholeWords = 0;
      let partsCount = false;
      for (const w of words) {
        if (w.whole !== 0 ? (exact & w.whole) !== 0 : (exact & w.any) === w.any) exactWords++;
        if (w.whole !== 0 ? (matched & w.whole) !== 0 : (matched & w.any) === w.any) wholeWords++;
        if ((w.parts & matched) !== 0 && (w.whole & matched) === 0) partsCount = true;
      }
      let fieldWords = 0;
      for (let f = 0; f < FIELDS.length && fieldWords < any; f++) {
        const inField = acc.inField(doc, f);
        if (inField === 0) continue;
        let n = 0;
        for (const w of words) if ((inField & w.any) !== 0) n++;
        if (n > fieldWords) fieldWords = n;
      }
      const entry = shard.entry(doc);
      if (entry === undefined) continue;
      probe.entry = entry;
      probe.words = any;
      probe.exactWords = exactWords;
      probe.wholeWords = wholeWords;
      probe.fieldWords = fieldWords;
      // Until lines are compared, the section count stands in for the line count (an upper bound).
      probe.lineWords = fieldWords;
      // A word matched whole (even by prefix or typo) is not credited again for its parts.
      probe.score = acc.score(doc) + (partsCount ? acc.partScore(doc) : 0);
      if (!pool.worthy(probe) || entry.tombstone || !matchesFilter(entry, filter, bounds)) continue;
      pool.offer({ ...probe, terms: matched });
    }
  });
  return compareLines(pool.hits, limit, lineMatcher(lookups, wordMap));
}

const NO_SNIPPET = { field: "goal", text: "" } as const;

const NO_ENTRY: Entry = {
  id: "",
  timestamp: "",
  time: Number.NaN,
  file: "",
  line: 0,
  session: null,
  agent: null,
  trigger: null,
  name: null,
  parent: null,
  tombstone: false,
  verified: null,
  goal: "",
  text: "",
};
const EMPTY_HIT: Hit = {
  entry: NO_ENTRY,
  words: 0,
  exactWords: 0,
  wholeWords: 0,
  lineWords: 0,
  fieldWords: 0,
  score: 0,
  terms: 0,
  snippet: NO_SNIPPET,
};
