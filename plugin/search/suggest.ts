/**
 * "Did you mean": the indexed identifiers closest to one no snapshot holds, from sorted vocabularies.
 * Candidates are the terms within a few edits (about a third of the length) and the terms that share
 * its two leading tokens (`err_db_` for `ERR_DB_TIMEOUT`), ranked by edit distance. Pure.
 */
import { boundedDistance, fuzzyTerms, prefixRange } from "./vocabulary.ts";

/** Most suggestions per identifier. */
export const MAX_SUGGESTIONS = 3;

/** Indexed terms (lower case) closest to `term` (an identifier as typed, lower-cased), best first. */
export function closestTerms(
  vocabularies: readonly (readonly string[])[],
  term: string,
  leaves: readonly string[],
): string[] {
  const distance = Math.min(4, Math.max(2, Math.ceil(term.length * 0.3)));
  const found = new Set<string>();
  for (const terms of vocabularies) {
    for (const [i] of fuzzyTerms(terms, term, distance)) found.add(terms[i] as string);
    // The same two leading tokens and connectors: `err_db_` for `err_db_timeout`.
    if (leaves.length >= 3) {
      const cut = term.indexOf(
        leaves[2] as string,
        (leaves[0] as string).length + (leaves[1] as string).length,
      );
      const prefix = cut > 0 ? term.slice(0, cut) : "";
      if (prefix.length >= 4) {
        const [start, end] = prefixRange(terms, prefix);
        for (let i = start; i < end && i < start + 200; i++) found.add(terms[i] as string);
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
