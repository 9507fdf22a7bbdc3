/**
 * Turns what a person typed into a query plan: which terms to look up, with what weight, and which of them
 * may be expanded by prefix or by edit distance; and, for identifiers no snapshot holds, the close
 * matches found through the suggestions for them. Pure (the close matches take the search to run).
 */
import {
  analyse,
  MAX_TERM_LENGTH,
  type QueryWord,
  queryWords,
  STOP_WORDS,
  type TermKind,
} from "./tokenize.ts";

/** One term of a plan. */
export interface PlannedTerm {
  term: string;
  /** The query words it came from, with its role in each (a term can be whole in one, part of another). */
  roles: { word: number; kind: TermKind }[];
  /** Multiplies the term's BM25 contribution. */
  weight: number;
  /** Also match indexed terms that start with this one. */
  prefix: boolean;
  /** Maximum edit distance for typo matching; 0 for none. */
  fuzzy: number;
}

export interface QueryPlan {
  terms: PlannedTerm[];
  /** The words typed, in order; identifier words must be present in a hit (see rank.ts). */
  words: QueryWord[];
}

/** Most terms a query is planned with (one bit each in a 32-bit mask); the rest are ignored. */
export const MAX_QUERY_TERMS = 31;

/** Shortest term expanded by prefix. */
export const MIN_PREFIX_LENGTH = 4;
/** Shortest term matched with one typo; from {@link TWO_TYPOS_LENGTH} on, two. */
export const MIN_FUZZY_LENGTH = 5;
export const TWO_TYPOS_LENGTH = 9;

/** Relative weights of expanded matches; exact matches weigh 1. */
export const EXPANSION_WEIGHTS = { prefix: 0.4, fuzzy: 0.3 } as const;

const WEIGHTS: Record<TermKind, number> = { whole: 1, part: 0.6, cjk: 1 };
const DIGITS = /^[\p{N}\-._/:]+$/u;
const ANY_DIGIT = /\p{N}/u;

/**
 * The typo distance allowed for a term: none for short terms, nor for anything holding a digit
 * (`INV-2026-00417` one digit off is another invoice, not a typo).
 */
export function fuzzinessOf(term: string): number {
  if (term.length < MIN_FUZZY_LENGTH || ANY_DIGIT.test(term)) return 0;
  return term.length >= TWO_TYPOS_LENGTH ? 2 : 1;
}

/** Whether the index keeps `term` (see tokenize.ts `emit`): not a stop word, a single letter or too long. */
export function indexable(term: string): boolean {
  return (
    term.length <= MAX_TERM_LENGTH && !STOP_WORDS.has(term) && !(term.length === 1 && /\p{L}/u.test(term))
  );
}

/**
 * Plans a query. Whole words weigh 1; an identifier word is planned whole and by its finest tokens
 * (leaves, weighing 0.6), which find it written another way or inside a longer identifier. Whole words and
 * the parts of the last word may be completed by prefix; whole words and parts of 5+ letters tolerate
 * typos (rank.ts decides when to widen). Repeated terms are merged.
 */
export function planQuery(text: string): QueryPlan {
  const words = queryWords(text);
  const leaves = new Map(words.map((w) => [w.word, new Set(w.identifier ? w.leaves : [])]));
  // An identifier is looked up whole and by its leaves, not by the connector-split pieces in between.
  const analysed = analyse(text).filter((t) => t.kind !== "part" || leaves.get(t.word)?.has(t.term) === true);
  for (const w of words) {
    const seen = new Set(analysed.filter((t) => t.word === w.word).map((t) => t.term));
    for (const leaf of leaves.get(w.word) ?? []) {
      if (!seen.has(leaf) && indexable(leaf)) analysed.push({ term: leaf, kind: "part", word: w.word });
    }
  }
  const lastWord = analysed.reduce((max, t) => Math.max(max, t.word), -1);
  const byTerm = new Map<string, PlannedTerm>();
  for (const { term, kind, word } of analysed) {
    const expandable = kind === "whole" || (kind === "part" && word === lastWord);
    const planned: PlannedTerm = {
      term,
      roles: [{ word, kind }],
      weight: WEIGHTS[kind],
      prefix: expandable && term.length >= MIN_PREFIX_LENGTH && !DIGITS.test(term),
      fuzzy: kind === "cjk" ? 0 : fuzzinessOf(term),
    };
    const seen = byTerm.get(term);
    if (seen === undefined) {
      byTerm.set(term, planned);
    } else {
      seen.roles.push({ word, kind });
      seen.weight = Math.max(seen.weight, planned.weight);
      seen.prefix ||= planned.prefix;
      seen.fuzzy = Math.max(seen.fuzzy, planned.fuzzy);
    }
  }
  return { terms: [...byTerm.values()], words };
}

/** An identifier of a query that no snapshot holds, with the closest identifiers that exist, best first. */
export interface Suggestion {
  word: string;
  closest: string[];
}

/**
 * `query` asked of a suggested identifier: its words with `closest` in place of `word` (a missing
 * identifier as rank.ts reports it) and the other `missing` identifiers left out, joined by spaces.
 */
export function suggestedQuery(
  query: string,
  word: string,
  closest: string,
  missing: readonly string[],
): string {
  return queryWords(query)
    .flatMap((w) => (w.raw === word ? [closest] : missing.includes(w.raw) ? [] : [w.raw]))
    .join(" ");
}

/**
 * The close matches of a query some identifiers of which no snapshot holds, found through the
 * suggestions for them ("did you mean"), so that both name the same identifiers: for each suggestion,
 * the hits of {@link suggestedQuery}, or of the suggestion alone when the rest of the query finds
 * nothing with it. The best hit of each suggestion comes first, in the order suggested, then their
 * other hits in the same order; a hit (by `key`) is listed once, and at most `limit` are. Suggestions
 * that find nothing are dropped (a missing word keeps its entry). `search` answers a query with the
 * hits holding all its identifiers as typed, best first, none when it matches only by typo or prefix;
 * `more` says whether it found more than `limit`.
 */
export async function closeMatches<H>(
  query: string,
  suggestions: readonly Suggestion[],
  limit: number,
  search: (query: string) => readonly H[] | Promise<readonly H[]>,
  key: (hit: H) => string,
): Promise<{ hits: H[]; suggestions: Suggestion[]; more: boolean }> {
  const missing = suggestions.map((s) => s.word);
  const lists: (readonly H[])[] = [];
  const kept: Suggestion[] = [];
  for (const { word, closest } of suggestions) {
    const found: string[] = [];
    for (const near of closest) {
      const asked = suggestedQuery(query, word, near, missing);
      let hits = await search(asked);
      if (hits.length === 0 && asked !== near) hits = await search(near);
      if (hits.length === 0) continue;
      found.push(near);
      lists.push(hits);
    }
    kept.push({ word, closest: found });
  }
  const seen = new Set<string>();
  const out: H[] = [];
  const depth = Math.max(0, ...lists.map((l) => l.length));
  for (let rank = 0; rank < depth; rank++) {
    for (const list of lists) {
      const hit = list[rank];
      if (hit === undefined || seen.has(key(hit))) continue;
      seen.add(key(hit));
      out.push(hit);
    }
  }
  return { hits: out.slice(0, limit), suggestions: kept, more: out.length > limit };
}

/**
 * What no snapshot holds, named for a message: the identifiers `missing`; or, when each identifier of
 * `query` exists but never with the others, them "together" (`A, B and C together`); else the query.
 */
export function absentNamed(query: string, missing: readonly string[]): string {
  if (missing.length > 0) return missing.join(", ");
  const apart = queryWords(query)
    .filter((w) => w.identifier)
    .map((w) => w.raw);
  return apart.length > 1
    ? `${apart.slice(0, -1).join(", ")} and ${apart[apart.length - 1]} together`
    : query.trim();
}
