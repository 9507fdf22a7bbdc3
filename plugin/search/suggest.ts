/**
 * "Did you mean": the indexed identifiers closest to one no snapshot holds, from sorted vocabularies.
 * Candidates are the terms within a few edits (about a third of the length) and the terms that share
 * its two leading tokens (`err_db_` for `ERR_DB_TIMEOUT`), ranked by edit distance. Pure.
 */
import { at } from "./checked.ts";
import { type TermSource, termsFrom } from "./terms.ts";
import { boundedDistance, fuzzyTerms, prefixRange } from "./vocabulary.ts";

/** Most suggestions per identifier. */
export const MAX_SUGGESTIONS = 3;

/** Most completions listed for an identifier typed as the start of longer ones. */
export const MAX_COMPLETIONS = 5;
const LETTER = /\p{L}/u;

/**
 * The terms of sorted `vocabularies` that start with `term` (lower case) cut inside a word: a letter goes
 * on after its last letter, and two characters or more follow (`err_dup` begins `err_duplicate_key`). The
 * others are other names, answered as missing with the closest ones: `err_db` (a token ends there) is not
 * `err_db_timeout`, `err_auth_12` not `err_auth_1298`, `ticket-1` not `ticket-1992`, and `err_db_timeout`
 * one letter short of `err_db_timeouts` is more likely a typo. The first `MAX_COMPLETIONS` of each
 * vocabulary, sorted.
 */
export function completionsIn(vocabularies: readonly TermSource[], term: string): string[] {
  const out = new Set<string>();
  for (const source of vocabularies) {
    const terms = termsFrom(source);
    const [start, end] = prefixRange(terms, term);
    let taken = 0;
    for (let i = start; i < end && taken < MAX_COMPLETIONS; i++) {
      const t = terms.term(i);
      if (!begins(term, t) || out.has(t)) continue;
      out.add(t);
      taken++;
    }
  }
  return [...out].sort().slice(0, MAX_COMPLETIONS);
}

/** Whether `term` is the start of `longer`, cut inside a word, as {@link completionsIn} takes it. */
export function begins(term: string, longer: string): boolean {
  return (
    longer.length >= term.length + 2 &&
    LETTER.test(term.slice(-1)) &&
    LETTER.test(longer.charAt(term.length)) &&
    longer.startsWith(term)
  );
}

/** Indexed terms (lower case) closest to `term` (an identifier as typed, lower-cased), best first. */
export function closestTerms(
  vocabularies: readonly TermSource[],
  term: string,
  leaves: readonly string[],
): string[] {
  const distance = Math.min(4, Math.max(2, Math.ceil(term.length * 0.3)));
  const found = new Set<string>();
  for (const source of vocabularies) {
    const terms = termsFrom(source);
    for (const [i] of fuzzyTerms(terms, term, distance)) found.add(terms.term(i));
    // The same two leading tokens and connectors: `err_db_` for `err_db_timeout`.
    if (leaves.length >= 3) {
      const cut = term.indexOf(at(leaves, 2), at(leaves, 0).length + at(leaves, 1).length);
      const prefix = cut > 0 ? term.slice(0, cut) : "";
      if (prefix.length >= 4) {
        const [start, end] = prefixRange(terms, prefix);
        for (let i = start; i < end && i < start + 200; i++) found.add(terms.term(i));
      }
    }
  }
  found.delete(term);
  const far = 64;
  return [...found]
    .filter((t) => t.length >= 3 && /[\p{N}_\-./:]|.{8}/u.test(t))
    .map((t) => ({ t, d: boundedDistance(t, term, far) }))
    .sort((a, b) => a.d - b.d || (a.t < b.t ? -1 : 1))
    .slice(0, MAX_SUGGESTIONS)
    .map((c) => c.t);
}

/** The word of `text` that is `term` when lower-cased, as written there; undefined when there is none. */
export function asWritten(text: string, term: string): string | undefined {
  const at = text.toLowerCase().indexOf(term);
  if (at < 0) return undefined;
  return text.slice(at, at + term.length);
}
