/**
 * Lookups in sorted distinct terms (UTF-16 code unit order, as `Array.prototype.sort` gives; an array of
 * strings or terms.ts `Terms`): exact position, the range of terms with a prefix, and the terms within an
 * edit distance, found by walking the sorted terms as an implicit trie. Pure; no extra memory beyond the
 * terms themselves.
 */
import { at, u8, u16, u32 } from "./checked.ts";
import { TermArray, type TermSource, type Terms, TermText, termsFrom } from "./terms.ts";

/**
 * The vocabulary of a terms section (UTF-8, one term a line), each term a string of its own: pieces split
 * from one string of the whole section would each keep all of it alive.
 */
export function termsOf(bytes: Buffer): string[] {
  const terms: string[] = [];
  if (bytes.length === 0) return terms;
  let from = 0;
  for (;;) {
    const end = bytes.indexOf(0x0a, from);
    terms.push(bytes.toString("utf8", from, end < 0 ? bytes.length : end));
    if (end < 0) return terms;
    from = end + 1;
  }
}

/** Index of `term` in `terms`, or -1. */
export function findTerm(source: TermSource, term: string): number {
  const terms = termsFrom(source);
  const find = () => {
    const lo = lowerBound(terms, term, 0, terms.length);
    return lo < terms.length && terms.compare(lo, term) === 0 ? lo : -1;
  };
  return terms instanceof TermText ? terms.found(term, find) : find();
}

/** First index in [lo, hi) whose term is >= `term`. */
function lowerBound(terms: Terms, term: string, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms.compare(mid, term) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The range [start, end) of terms that start with `prefix` (the prefix itself included). */
export function prefixRange(source: TermSource, prefix: string): [number, number] {
  const terms = termsFrom(source);
  if (terms instanceof TermText) {
    const [start, end] = terms.ranged(prefix, () => rangeOf(terms, prefix));
    return [start, end];
  }
  return rangeOf(terms, prefix);
}

function rangeOf(terms: Terms, prefix: string): [number, number] {
  const start = lowerBound(terms, prefix, 0, terms.length);
  let lo = start;
  let hi = terms.length;
  // First term past the prefix block: every term in [start, end) starts with `prefix`.
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms.startsWith(mid, prefix)) lo = mid + 1;
    else hi = mid;
  }
  return [start, lo];
}

/** First index in [lo, hi) whose char code at `depth` is greater than `code` (terms share depth chars). */
function groupEnd(terms: Terms, depth: number, code: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms.code(mid, depth) <= code) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How many leading characters a typo match must share with the query (typos there are rare). */
export const FUZZY_FIXED_PREFIX = 1;

/**
 * Terms that start with the first `fixedPrefix` characters of `query` and are within Levenshtein
 * distance `maxDistance` of it (insertions, deletions, substitutions of UTF-16 code units), as
 * [index, distance] pairs in term order. Walks the sorted array as a trie below the fixed prefix,
 * filling one banded row of the edit-distance matrix per trie node, and prunes every branch whose
 * prefix is already further than `maxDistance` from every prefix of the query.
 */
export function fuzzyTerms(
  source: TermSource,
  query: string,
  maxDistance: number,
  fixedPrefix = FUZZY_FIXED_PREFIX,
): [number, number][] {
  const terms = termsFrom(source);
  const out: [number, number][] = [];
  const m = query.length;
  const d = maxDistance;
  const far = d + 1;
  const maxDepth = m + d;
  const width = m + 1;
  const p = Math.min(fixedPrefix, m);
  const rows = new Uint8Array((maxDepth + 1) * width).fill(far);
  // Row of the fixed prefix, which equals the query's own first p characters: |p - j|.
  for (let j = 0; j <= m; j++) rows[p * width + j] = Math.min(Math.abs(p - j), far);
  const walk = (lo: number, hi: number, depth: number): void => {
    const row = depth * width;
    // Terms in [lo, hi) share their first `depth` characters; one of exactly that length sorts first.
    if (terms.size(lo) === depth) {
      const distance = u8(rows, row + m);
      if (distance <= d) out.push([lo, distance]);
      lo++;
    }
    if (depth >= maxDepth) return;
    const next = row + width;
    const i = depth + 1;
    const jmin = Math.max(1, i - d);
    const jmax = Math.min(m, i + d);
    while (lo < hi) {
      const code = terms.code(lo, depth);
      const end = groupEnd(terms, depth, code, lo, hi);
      rows[next] = i <= d ? i : far;
      rows[next + jmin - 1] = jmin === 1 ? u8(rows, next) : far;
      let best = u8(rows, next);
      for (let j = jmin; j <= jmax; j++) {
        const up = u8(rows, row + j) + 1;
        const left = u8(rows, next + j - 1) + 1;
        const diagonal = u8(rows, row + j - 1) + (query.charCodeAt(j - 1) === code ? 0 : 1);
        const v = Math.min(up, left, diagonal, far);
        rows[next + j] = v;
        if (v < best) best = v;
      }
      if (jmax < m) rows[next + jmax + 1] = far;
      if (best <= d) walk(lo, end, i);
      lo = end;
    }
  };
  const [lo, hi] = prefixRange(terms, query.slice(0, p));
  if (lo < hi) walk(lo, hi, p);
  return out;
}

/**
 * {@link mergeTerms}, and where each list's terms went: `positions[k][i]` is the index in `terms` of term i
 * of list k. The maps are carried up the same pairwise merges, one typed-array read per term and level.
 */
export function mergePlaced(lists: readonly (readonly string[])[]): {
  terms: string[];
  positions: Uint32Array[];
} {
  const positions = lists.map((list) => Uint32Array.from(list, (_, i) => i));
  let level = lists.map((terms, k) => ({ terms, members: [k] }));
  if (level.length === 0) return { terms: [], positions };
  while (level.length > 1) {
    const next: typeof level = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = at(level, i);
      const right = level[i + 1];
      if (right === undefined) {
        next.push(left);
        continue;
      }
      const merged = mergeTwo(left.terms, right.terms);
      for (const [side, map] of [
        [left, merged.left],
        [right, merged.right],
      ] as const) {
        for (const k of side.members) {
          const place = at(positions, k);
          for (let t = 0; t < place.length; t++) place[t] = u32(map, u32(place, t));
        }
      }
      next.push({ terms: merged.terms, members: [...left.members, ...right.members] });
    }
    level = next;
  }
  return { terms: [...at(level, 0).terms], positions };
}

/** First index of `ids` (ascending) whose value is >= `id`. */
export function firstAtLeast(ids: Uint32Array, id: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (u32(ids, mid) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Merges two sorted arrays of distinct terms into one sorted array of distinct terms, with where each
 * term of either went.
 */
function mergeTwo(
  left: readonly string[],
  right: readonly string[],
): { terms: string[]; left: Uint32Array; right: Uint32Array } {
  const out: string[] = new Array(left.length + right.length);
  const toLeft = new Uint32Array(left.length);
  const toRight = new Uint32Array(right.length);
  let a = 0;
  let b = 0;
  let n = 0;
  while (a < left.length && b < right.length) {
    const x = at(left, a);
    const y = at(right, b);
    if (x < y) {
      toLeft[a++] = n;
      out[n++] = x;
    } else if (y < x) {
      toRight[b++] = n;
      out[n++] = y;
    } else {
      toLeft[a++] = n;
      toRight[b++] = n;
      out[n++] = x;
    }
  }
  while (a < left.length) {
    toLeft[a] = n;
    out[n++] = at(left, a++);
  }
  while (b < right.length) {
    toRight[b] = n;
    out[n++] = at(right, b++);
  }
  out.length = n;
  return { terms: out, left: toLeft, right: toRight };
}

/**
 * The terms of `vocabulary` (sorted, distinct) that some list of positions in `lists` names, in order:
 * `vocabulary` itself when every term is named (at once when it is a saved vocabulary named by as many
 * lists as it was merged from: saved-vocabulary.ts).
 */
export function namedTerms(vocabulary: Terms, lists: readonly Uint32Array[], merged = -1): Terms {
  if (lists.length === merged) return vocabulary;
  const named = new Uint8Array(vocabulary.length);
  for (const ids of lists) for (let i = 0; i < ids.length; i++) named[u32(ids, i)] = 1;
  let count = 0;
  for (let i = 0; i < named.length; i++) count += u8(named, i);
  if (count === vocabulary.length) return vocabulary;
  const out: string[] = [];
  for (let i = 0; i < named.length; i++) if (named[i] === 1) out.push(vocabulary.term(i));
  return new TermArray(out);
}

/** Merges sorted arrays of distinct terms into one sorted array of distinct terms (pairwise, log depth). */
export function mergeTerms(lists: readonly (readonly string[])[]): string[] {
  return mergePlaced(lists).terms;
}

/** Levenshtein distance of two strings, or `max + 1` as soon as it must exceed `max`. */
export function boundedDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = new Uint16Array(b.length + 1);
  let next = new Uint16Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    next[0] = i;
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min(u16(prev, j) + 1, u16(next, j - 1) + 1, u16(prev, j - 1) + cost);
      next[j] = v;
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    [prev, next] = [next, prev];
  }
  return Math.min(u16(prev, b.length), max + 1);
}
