/**
 * The words of a query as FTS5 expressions that name its candidates in the SQLite file of fts-store.ts,
 * cheapest first ({@link candidateTiers}), how many it names ({@link candidateCount}), and which of its
 * terms are read for those candidates alone.
 * Pure.
 */
import { MAX_QUERY_TERMS, planQuery } from "./query.ts";
import { sequenceScreen } from "./tokenize.ts";

/** Most candidates FTS5 names for a query with a common term (see fts-shard.ts `FtsShard.candidates`). */
export const CANDIDATES = 500;
/**
 * Up to this many times the candidates asked for are taken unranked when no more match (see
 * fts-shard.ts `FtsShard.candidates`): every one is read for the query, where FTS5's `bm25()` over them
 * would cost more (at 100k, four of six common words: 3,393 matches, 14 ms to match, 60-100 to rank).
 */
export const UNRANKED = 2;
/** Snapshots per candidate beyond {@link CANDIDATES}: a larger history gets more of them. */
export const SNAPSHOTS_PER_CANDIDATE = 50;

/**
 * How many candidates FTS5 names in a shard of `size` snapshots: {@link CANDIDATES}, or one in
 * {@link SNAPSHOTS_PER_CANDIDATE} when that is more (at 100k, 500 lost a sixth of the multi-word answers).
 */
export function candidateCount(size: number): number {
  return Math.max(CANDIDATES, Math.ceil(size / SNAPSHOTS_PER_CANDIDATE));
}

/**
 * The words of a query as FTS5 expressions that name its candidates: `required` (each identifier: its
 * whole term or all its leaves, which every snapshot holding it as typed has) and `optional` (each
 * plain word's terms); `needed` is how many candidates are enough.
 */
export interface CandidateWords {
  required: readonly string[];
  optional: readonly string[];
  needed: number;
  /** Leaves of the identifiers: read for the candidates alone however rare (no candidate, no exact hit). */
  identifierTerms: ReadonlySet<string>;
  /**
   * Terms that are leaves of identifiers alone, with the screens of those identifiers (tokenize.ts
   * `sequenceScreen`): read only for the candidates whose text one of them passes, since a leaf counts
   * toward an identifier held as a run of its leaves and nothing else.
   */
  screens: ReadonlyMap<string, readonly RegExp[]>;
  /** Every term the query is planned with: those a read for the candidates gathers at once. */
  terms: readonly string[];
}

export const NO_WORDS: CandidateWords = {
  required: [],
  optional: [],
  needed: 0,
  identifierTerms: new Set(),
  screens: new Map(),
  terms: [],
};
export const hasWords = (w: CandidateWords) => w.required.length + w.optional.length > 0;

/** An FTS5 string for a term (double quotes dropped: terms hold none that matter). */
export const ftsString = (term: string): string => `"${term.replaceAll('"', "")}"`;

/**
 * An FTS5 expression naming a query's candidates: `match` as FTS5 ranks it (its `bm25()` sums over each
 * word every time the expression names it), `probe` matching the same snapshots at less cost, for a
 * match that is not ranked.
 */
export interface Tier {
  /** Every word; most of the plain words (with every identifier); any plain word (with every identifier). */
  kind: "all" | "most" | "any";
  match: string;
  probe: string;
}

const and = (parts: readonly string[]) => parts.map((p) => `(${p})`).join(" AND ");

/**
 * FTS5 expressions naming a query's candidates, cheapest first: every word; every identifier and all
 * but a third of the plain words (a phrase remembered with a wrong word or name); every identifier and
 * any plain word.
 * Each is cheaper than the last because FTS5 ranks only what it matches; a query with identifiers never
 * reaches past them (a snapshot without them is no exact hit).
 */
export function candidateTiers(words: CandidateWords): Tier[] {
  const { required, optional } = words;
  const all = and([...required, ...optional]);
  const tiers: Tier[] = [{ kind: "all", match: all, probe: all }];
  const size = optional.length - Math.floor(optional.length / 3);
  const kept = subsets(optional, size);
  if (optional.length >= 3 && kept.length <= MAX_SUBSETS)
    tiers.push({
      kind: "most",
      match: and([...required, kept.map((e) => `(${and(e)})`).join(" OR ")]),
      probe: and([...required, atLeast(optional, size)]),
    });
  const any = and([...required, optional.join(" OR ")]);
  if (optional.length >= 2) tiers.push({ kind: "any", match: any, probe: any });
  return tiers;
}

/**
 * An FTS5 expression matching what holds at least `size` of `parts` (1 <= size <= parts.length), each
 * part named fewer times than in the OR of every subset of that size (at five words, four of them: 14
 * times against 20): the first part and `size - 1` of the rest, or `size` of the rest.
 */
export function atLeast(parts: readonly string[], size: number): string {
  const [first, ...rest] = parts;
  if (first === undefined || size >= parts.length) return and(parts);
  if (size <= 1) return parts.join(" OR ");
  return `((${first}) AND (${atLeast(rest, size - 1)})) OR (${atLeast(rest, size)})`;
}

/** Most subsets of words in the middle tier of {@link candidateTiers}. */
const MAX_SUBSETS = 64;

/** Every subset of `size` items of `items`, in order. */
function subsets<T>(items: readonly T[], size: number): T[][] {
  if (size <= 0) return [[]];
  if (size > items.length) return [];
  const [first, ...rest] = items;
  if (first === undefined) return [];
  return [...subsets(rest, size - 1).map((s) => [first, ...s]), ...subsets(rest, size)];
}

/**
 * The words of `query` as FTS5 expressions for its candidates ({@link CandidateWords}): an identifier
 * as its whole term or all its leaves, a plain word as any of its terms.
 */
export function candidateWords(query: string, needed: number): CandidateWords {
  const plan = planQuery(query);
  const required: string[] = [];
  const optional: string[] = [];
  const identifierTerms = new Set<string>();
  const terms = plan.terms.slice(0, MAX_QUERY_TERMS);
  for (const word of plan.words) {
    const whole: string[] = [];
    const parts: string[] = [];
    for (const t of terms) {
      for (const role of t.roles) {
        if (role.word !== word.word) continue;
        (role.kind === "part" ? parts : whole).push(ftsString(t.term));
        if (word.identifier && role.kind === "part") identifierTerms.add(t.term);
      }
    }
    if (whole.length + parts.length === 0) continue;
    if (!word.identifier) optional.push([...whole, ...parts].join(" OR "));
    else if (parts.length === 0) required.push(whole.join(" OR "));
    else required.push([...whole, `(${parts.join(" AND ")})`].join(" OR "));
  }
  const screens = new Map<string, RegExp[]>();
  for (const t of terms) {
    const owners = t.roles.map((role) => plan.words[role.word]);
    if (!t.roles.every((role, i) => role.kind === "part" && owners[i]?.identifier === true)) continue;
    screens.set(
      t.term,
      owners.flatMap((w) => (w === undefined ? [] : [sequenceScreen(w.leaves)])),
    );
  }
  return { required, optional, needed, identifierTerms, screens, terms: terms.map((t) => t.term) };
}
