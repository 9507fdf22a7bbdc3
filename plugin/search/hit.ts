/**
 * A ranked match and the order of matches, best first:
 * 1. more query words matched plus more of them together on one stored line plus more pairs of them
 *    next to each other there in the query's order (a remembered phrase sits in one place, in its
 *    order: four words on one line beat five scattered over the snapshot, and four words written as
 *    typed beat five on a line in another order);
 * 2. fewer words matched only with a typo or by prefix, so such a match never beats an exact one;
 * 3. fewer words matched only by some of their identifier parts;
 * 4. more words within one section, then a higher BM25+ score (goal, names, files and checkpoint
 *    name are boosted most);
 * 5. the more recent snapshot.
 * Lines are compared among the best few dozen candidates, ranked first with sections in place of
 * lines (an upper bound), until no other candidate could still enter; when they run out first, rank.ts
 * draws a larger pool. Pure.
 */
import { at } from "./checked.ts";
import { type Entry, FIELD_BOOSTS, type Field, fieldOfTag } from "./document.ts";
import type { TermLookup } from "./scoring.ts";
import { newerFirst } from "./shard.ts";
import { eachTerm, foldText } from "./tokenize.ts";
import { boundedDistance } from "./vocabulary.ts";

/** A ranked match. */
export interface Hit {
  entry: Entry;
  /** Query words matched, exactly or not. */
  words: number;
  /** Query words matched exactly (the whole word; for unspaced scripts, all of its terms). */
  exactWords: number;
  /** Query words matched whole: exactly, by prefix or with a typo, not only by some of their parts. */
  wholeWords: number;
  /** Most query words together on one stored line (the section count until lines are compared). */
  lineWords: number;
  /**
   * Pairs of query words (consecutive in the query, stop words skipped) that stand next to each other
   * in that order on the line of `lineWords` (stop words skipped); `lineWords - 1` until lines are compared.
   */
  pairs: number;
  /** Most query words matched within a single section. */
  fieldWords: number;
  /** Sum of the BM25+ contributions of the matched terms. */
  score: number;
  /** Bit mask of the planned terms matched. */
  terms: number;
  /** The stored line that best shows why it matched. */
  snippet: { field: Field; text: string };
}

/** The first key of the order: words matched, plus words together on a line, plus pairs of them in order there. */
export function together(hit: Hit): number {
  return hit.words + hit.lineWords + hit.pairs;
}

/** The most {@link together} can be for a hit matching `words` query words. */
export function mostTogether(words: number): number {
  return 3 * words - Math.min(1, words);
}

/** Best first (see the module comment). A total order. */
export function compareHits(a: Hit, b: Hit): number {
  const closer = together(b) - together(a);
  if (closer !== 0) return closer;
  const typos = a.words - a.exactWords - (b.words - b.exactWords);
  if (typos !== 0) return typos;
  const partial = a.words - a.wholeWords - (b.words - b.wholeWords);
  if (partial !== 0) return partial;
  if (a.fieldWords !== b.fieldWords) return b.fieldWords - a.fieldWords;
  if (a.score !== b.score) return b.score > a.score ? 1 : -1;
  return newerFirst(a.entry, b.entry);
}

/** How many candidates (times the limit, and at least) may be compared line by line. */
export const RERANK_FACTOR = 4;
export const RERANK_MIN = 40;

/** Keeps the best `limit` hits offered, in order. */
export class TopHits {
  readonly hits: Hit[] = [];
  readonly #limit: number;
  constructor(limit: number) {
    this.#limit = limit;
  }
  /** {@link together} of the worst hit kept, once full (a hit needs at least that); else 0. */
  threshold(): number {
    const last = this.hits[this.hits.length - 1];
    return this.hits.length < this.#limit || last === undefined ? 0 : together(last);
  }

  /** Whether a hit with these keys could still enter (cheap pre-check before building it). */
  worthy(hit: Hit): boolean {
    const last = this.hits[this.hits.length - 1];
    return this.hits.length < this.#limit || last === undefined || compareHits(hit, last) < 0;
  }
  offer(hit: Hit): void {
    const { hits } = this;
    if (!this.worthy(hit)) return;
    let lo = 0;
    let hi = hits.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareHits(at(hits, mid), hit) <= 0) lo = mid + 1;
      else hi = mid;
    }
    hits.splice(lo, 0, hit);
    if (hits.length > this.#limit) hits.pop();
  }
}

export interface Word {
  /** All planned terms of the word. */
  any: number;
  /** Its whole term (0 for unspaced scripts, which have none). */
  whole: number;
  /** Its parts (identifier parts; unspaced-script terms are not parts). */
  parts: number;
}

/**
 * Final order of the pool (sorted with section counts standing in for line counts): lines are
 * counted in pool order until no remaining candidate, even with its upper bound, could enter.
 * `settled` says whether nothing outside the pool could enter either (a candidate below the pool's
 * last one is bounded by it); otherwise a larger pool may change the answer.
 */
export function compareLines(
  pool: readonly Hit[],
  limit: number,
  lineOf: ReturnType<typeof lineMatcher>,
): { hits: Hit[]; settled: boolean } {
  const last = pool[pool.length - 1];
  const bound = last === undefined ? undefined : { ...last };
  const final: Hit[] = [];
  for (const hit of pool) {
    if (final.length >= limit) {
      final.sort(compareHits);
      final.length = limit;
      if (compareHits(hit, at(final, limit - 1)) >= 0) return { hits: final, settled: true };
    }
    // A hit that cannot reach the worst kept one needs no exact count of its lines.
    const worst = final.length >= limit ? final[limit - 1] : undefined;
    const best = lineOf(hit, worst === undefined ? 0 : together(worst));
    hit.snippet = best.line;
    hit.lineWords = best.words;
    hit.pairs = best.pairs;
    final.push(hit);
  }
  final.sort(compareHits);
  final.length = Math.min(final.length, limit);
  const worst = final[limit - 1];
  const settled = bound === undefined || (worst !== undefined && compareHits(bound, worst) >= 0);
  return { hits: final, settled };
}

/**
 * For a hit, its stored line holding the most query words plus pairs of them in the query's order (the
 * goal, then the lines of document.ts `Entry.text`), ties to the field with the higher boost, then the
 * earlier line; the goal when no line holds any. A term of a line matches a lookup the hit matched when
 * it is the planned term, extends it (lookups widened by prefix) or is within its typo distance. Built
 * once per query.
 */
export function lineMatcher(lookups: readonly TermLookup[], words: ReadonlyMap<number, Word>) {
  const literal = (term: string) => term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // What a matching line must contain: the term, or one of its known typo neighbours (a typo lookup
  // with no list of neighbours cannot be screened this way).
  const screens = new Map(
    lookups.map((l) => {
      const near = l.fuzzy > 0 ? l.fuzzyTerms?.map(([t]) => t) : [];
      return [
        l,
        near === undefined ? undefined : new RegExp([l.term.term, ...near].map(literal).join("|"), "i"),
      ];
    }),
  );
  const neighbours = new Map(lookups.map((l) => [l, new Set(l.fuzzyTerms?.map(([t]) => t))]));
  // The query words in order, numbered from 0: a word's bit in a line position's mask (words past
  // the 31st count as found, not in pairs).
  const order = new Map([...words.keys()].sort((a, b) => a - b).map((word, k) => [word, k]));
  const matches = (l: TermLookup, term: string): boolean =>
    l.term.term === term ||
    (l.prefix && term.startsWith(l.term.term)) ||
    (l.fuzzy > 0 &&
      (l.fuzzyTerms === undefined
        ? boundedDistance(term, l.term.term, l.fuzzy) <= l.fuzzy
        : neighbours.get(l)?.has(term) === true));
  return (hit: Hit, need = 0): LineMatch => {
    // Parts only speak for a word the hit did not match whole.
    const wholeMatched = (word: number) => ((words.get(word)?.whole ?? 0) & hit.terms) !== 0;
    const active = lookups.filter(
      (l) => (hit.terms & l.bit) !== 0 && !(l.part && l.term.roles.every((r) => wholeMatched(r.word))),
    );
    // Lines holding none of the active terms (as substrings of the line, folded when not ASCII) are
    // skipped untokenized; the words of the terms found so bound what a line can hold (and its pairs).
    const screened = active.every((l) => screens.get(l) !== undefined);
    const mostOn = (text: string): number => {
      const haystack = ASCII.test(text) ? text : foldText(text);
      let most = 0;
      for (const l of active) if (screens.get(l)?.test(haystack)) most += l.term.roles.length;
      return most;
    };
    const goal = { field: "goal" as const, text: hit.entry.goal };
    if (screened && need > 0) {
      let most = 0;
      eachLine(hit.entry, (_field, text) => {
        most = Math.max(most, mostOn(text));
      });
      // No line can bring the hit to what it needs: say so without tokenizing any.
      if (hit.words + 2 * most - Math.min(1, most) < need)
        return { line: goal, words: 0, pairs: 0, exact: false };
    }
    let best: { field: Field; text: string } = goal;
    let bestWords = 0;
    let bestPairs = 0;
    let bestRank = 0;
    const consider = (field: Field, text: string) => {
      if (screened) {
        // A line that cannot beat the best one so far is not tokenized.
        const most = mostOn(text);
        if (most === 0 || 2 * most - 1 + FIELD_BOOSTS[field] / 100 <= bestRank) return;
      }
      const found = new Set<number>();
      // Query words at each position of the line (its words that hold an indexed term), as masks.
      let position = -1;
      let previous = 0;
      let current = 0;
      let pairMask = 0;
      eachTerm(text, (term, _kind, word) => {
        if (word !== position) {
          pairMask |= previous & (current >>> 1);
          previous = current;
          current = 0;
          position = word;
        }
        for (const l of active) {
          if (!matches(l, term)) continue;
          for (const role of l.term.roles) {
            found.add(role.word);
            const k = order.get(role.word) ?? 31;
            if (k < 31) current |= 1 << k;
          }
        }
      });
      pairMask |= previous & (current >>> 1);
      const pairs = bitCount(pairMask);
      const rank = found.size === 0 ? 0 : found.size + pairs + FIELD_BOOSTS[field] / 100;
      if (rank > bestRank) {
        best = { field, text };
        bestWords = found.size;
        bestPairs = pairs;
        bestRank = rank;
      }
    };
    eachLine(hit.entry, consider);
    return { line: best, words: bestWords, pairs: bestPairs, exact: true };
  };
}

/**
 * What {@link lineMatcher} found for a hit: its best line with the query words and pairs there, or,
 * when `exact` is false, only that the hit cannot reach the first key it needed (words and pairs 0).
 */
export interface LineMatch {
  line: { field: Field; text: string };
  words: number;
  pairs: number;
  exact: boolean;
}

/** Calls `visit` with the goal, then each stored line of an entry with its field. */
function eachLine(entry: Entry, visit: (field: Field, text: string) => void): void {
  visit("goal", entry.goal);
  const text = entry.text;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const field = fieldOfTag(text.charAt(start));
    if (field !== undefined) visit(field, text.slice(start + 1, end));
    start = end + 1;
  }
}

function bitCount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

const ASCII = /^[\x20-\x7e]*$/;

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
/** A hit holding nothing: what rank.ts fills in for each candidate it weighs. */
export const EMPTY_HIT: Hit = {
  entry: NO_ENTRY,
  words: 0,
  exactWords: 0,
  wholeWords: 0,
  lineWords: 0,
  pairs: 0,
  fieldWords: 0,
  score: 0,
  terms: 0,
  snippet: NO_SNIPPET,
};
