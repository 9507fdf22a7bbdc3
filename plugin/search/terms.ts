/**
 * A sorted list of distinct terms, read by position: an array of strings (a month's own terms, a hot
 * month's, a merge's), or the index's saved vocabulary held as one string and where each term starts in
 * it (`TermText`). At 100k snapshots the saved vocabulary holds half a million terms: decoding each as a
 * string of its own took 80-115 ms of loading the index (and the collections after it), against a few
 * milliseconds for one string; a lookup then compares characters in place, and a term becomes a string
 * of its own only when one is asked for. Pure.
 */
import { at, u32 } from "./checked.ts";

/** Sorted distinct terms (UTF-16 code unit order), by position. */
export interface Terms {
  readonly length: number;
  /** Term `i`. */
  term(i: number): string;
  /** Term `i` against `s` in UTF-16 code unit order: negative before, 0 equal, positive after. */
  compare(i: number, s: string): number;
  /** Whether term `i` starts with `prefix`. */
  startsWith(i: number, prefix: string): boolean;
  /** Length of term `i` in UTF-16 code units. */
  size(i: number): number;
  /** The code unit of term `i` at `depth`; NaN past its end (as `charCodeAt`). */
  code(i: number, depth: number): number;
}

/** Terms as an array of strings, or as {@link Terms}. */
export type TermSource = Terms | readonly string[];

/** {@link Terms} over an array of strings. */
export class TermArray implements Terms {
  readonly terms: readonly string[];

  constructor(terms: readonly string[]) {
    this.terms = terms;
  }

  get length(): number {
    return this.terms.length;
  }

  term(i: number): string {
    return at(this.terms, i);
  }

  compare(i: number, s: string): number {
    const t = at(this.terms, i);
    return t < s ? -1 : t === s ? 0 : 1;
  }

  startsWith(i: number, prefix: string): boolean {
    return at(this.terms, i).startsWith(prefix);
  }

  size(i: number): number {
    return at(this.terms, i).length;
  }

  code(i: number, depth: number): number {
    return at(this.terms, i).charCodeAt(depth);
  }
}

/** `source` as {@link Terms}. */
export function termsFrom(source: TermSource): Terms {
  return "compare" in source ? source : new TermArray(source);
}

/**
 * {@link Terms} held as one string, term i being code units [starts[i], starts[i + 1]) of `text`
 * (`starts` holds one offset more than there are terms, from 0, never going back, the last the text's
 * length: checked by {@link TermText.of}).
 */
export class TermText implements Terms {
  readonly text: string;
  readonly starts: Uint32Array;
  /**
   * Lookups answered lately (vocabulary.ts `findTerm`, `prefixRange`), the last 1,024 of each: every month
   * of a query looks the same terms up in the one vocabulary they share.
   */
  readonly #found = new Map<string, number>();
  readonly #ranged = new Map<string, [number, number]>();

  private constructor(text: string, starts: Uint32Array) {
    this.text = text;
    this.starts = starts;
  }

  /** The terms of `text` cut at `starts`; undefined when the offsets do not fit the text. */
  static of(text: string, starts: Uint32Array): TermText | undefined {
    if (starts.length === 0 || starts[0] !== 0 || starts[starts.length - 1] !== text.length) return undefined;
    let last = 0;
    for (let i = 1; i < starts.length; i++) {
      const start = starts[i] ?? -1;
      if (start < last) return undefined;
      last = start;
    }
    return new TermText(text, starts);
  }

  /** `terms` as one string and their starts. */
  static from(terms: readonly string[]): TermText {
    const starts = new Uint32Array(terms.length + 1);
    let n = 0;
    terms.forEach((t, i) => {
      n += t.length;
      starts[i + 1] = n;
    });
    return new TermText(terms.join(""), starts);
  }

  get length(): number {
    return this.starts.length - 1;
  }

  /** Where `term` is (`find`'s answer, remembered). */
  found(term: string, find: () => number): number {
    return remember(this.#found, term, find);
  }

  /** The terms `prefix` starts (`find`'s answer, remembered). */
  ranged(prefix: string, find: () => [number, number]): [number, number] {
    return remember(this.#ranged, prefix, find);
  }

  term(i: number): string {
    return this.text.slice(u32(this.starts, i), u32(this.starts, i + 1));
  }

  compare(i: number, s: string): number {
    const from = u32(this.starts, i);
    const n = u32(this.starts, i + 1) - from;
    const m = s.length;
    const k = Math.min(n, m);
    const text = this.text;
    for (let j = 0; j < k; j++) {
      const d = text.charCodeAt(from + j) - s.charCodeAt(j);
      if (d !== 0) return d;
    }
    return n - m;
  }

  startsWith(i: number, prefix: string): boolean {
    const from = u32(this.starts, i);
    return u32(this.starts, i + 1) - from >= prefix.length && this.text.startsWith(prefix, from);
  }

  size(i: number): number {
    return u32(this.starts, i + 1) - u32(this.starts, i);
  }

  code(i: number, depth: number): number {
    const from = u32(this.starts, i);
    return depth < u32(this.starts, i + 1) - from ? this.text.charCodeAt(from + depth) : Number.NaN;
  }
}

/** `map`'s answer for `key`, else `find`'s, remembered (the map cleared at 1,024 keys). */
function remember<T>(map: Map<string, T>, key: string, find: () => T): T {
  const known = map.get(key);
  if (known !== undefined) return known;
  if (map.size >= 1024) map.clear();
  const value = find();
  map.set(key, value);
  return value;
}

/** Every term, as strings. */
export function allTerms(terms: Terms): string[] {
  return Array.from({ length: terms.length }, (_, i) => terms.term(i));
}
