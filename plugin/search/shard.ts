/**
 * What a month of snapshots offers to search, whichever way it is held: hot (a live minisearch index
 * that takes changes) or frozen (compact typed arrays, read-only). Also the filter model. Pure.
 */
import type { Entry } from "./document.ts";
import type { Accumulator, CorpusStats, Reach, TermLookup } from "./scoring.ts";

/** Who a lookup is for and what it may return. Every given condition must hold. */
export interface SnapshotFilter {
  session?: string;
  agent?: string;
  trigger?: string;
  /** Checkpoint name. */
  name?: string;
  /** Earliest timestamp, inclusive (ISO 8601, or `YYYY-MM-DD` for the start of that UTC day). */
  from?: string;
  /** Latest timestamp, inclusive (ISO 8601, or `YYYY-MM-DD` for the end of that UTC day). */
  to?: string;
}

/** A month of snapshots. Documents are numbered by the shard; numbers are stable until it changes. */
export interface Shard {
  /** `YYYY-MM`, or `other` for logs whose name holds no date. */
  readonly month: string;
  /** Number of snapshots, tombstones included. */
  readonly size: number;
  /** The entry of a document number. */
  entry(doc: number): Entry | undefined;
  /** Every document number with its entry. */
  documents(): IterableIterator<[number, Entry]>;
  /** Files holding at least one snapshot of this shard. */
  files(): string[];
  /** Sum of each field's length (distinct terms) over the shard's documents, by field number. */
  readonly lengthSums: Float64Array;
  /** How many documents hold `term` exactly, counting no further than `cap`. */
  exactCount(term: string, cap: number): number;
  /** The indexed terms a lookup reaches here: the exact term, and its prefix and typo expansions. */
  reach(lookup: TermLookup): Reach[];
  /** Adds to `df` (by field number) how many documents hold the reached term in each field. */
  countFields(reach: Reach, df: Float64Array): void;
  /** Adds BM25+ contributions of a reached term (with index-wide `df` and `stats`) to `acc`. */
  score(reach: Reach, bit: number, df: Float64Array, stats: CorpusStats, acc: Accumulator): void;
  /**
   * Of `docs` (ascending), those holding `term` exactly in any field: a snapshot that holds an
   * identifier as a run of its leaves holds each leaf, so the leaves rule candidates out before any
   * text is read.
   */
  holding(term: string, docs: readonly number[]): Set<number>;
}

/** Bounds of a filter in epoch ms; a bare date for `to` covers the whole (UTC) day. */
export function timeBounds(filter: SnapshotFilter): { from: number; to: number } {
  const from = filter.from === undefined ? Number.NEGATIVE_INFINITY : Date.parse(filter.from);
  let to = filter.to === undefined ? Number.POSITIVE_INFINITY : Date.parse(filter.to);
  if (filter.to !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(filter.to)) to += 86_400_000 - 1;
  return { from, to };
}

/** Whether an entry satisfies a filter (`bounds` from {@link timeBounds}). */
export function matchesFilter(entry: Entry, filter: SnapshotFilter, bounds = timeBounds(filter)): boolean {
  if (filter.session !== undefined && entry.session !== filter.session) return false;
  if (filter.agent !== undefined && entry.agent !== filter.agent) return false;
  if (filter.trigger !== undefined && entry.trigger !== filter.trigger) return false;
  if (filter.name !== undefined && entry.name !== filter.name) return false;
  if (bounds.from !== Number.NEGATIVE_INFINITY || bounds.to !== Number.POSITIVE_INFINITY) {
    if (!(entry.time >= bounds.from && entry.time <= bounds.to)) return false;
  }
  return true;
}

/** Newest first by timestamp (unparseable ones last); equal times by file then line, later first. */
export function newerFirst(
  a: Pick<Entry, "time" | "file" | "line">,
  b: Pick<Entry, "time" | "file" | "line">,
): number {
  const ta = Number.isNaN(a.time) ? Number.NEGATIVE_INFINITY : a.time;
  const tb = Number.isNaN(b.time) ? Number.NEGATIVE_INFINITY : b.time;
  if (ta !== tb) return tb > ta ? 1 : -1;
  if (a.file !== b.file) return a.file < b.file ? 1 : -1;
  return b.line - a.line;
}

/**
 * How many days a snapshot's timestamp may lie outside the month of its log (time zones, a log written
 * past midnight): what a search by time and a read of the newest months allow for.
 */
export const MONTH_SLACK_DAYS = 31;

/**
 * The month a daily log belongs to, from the date its name starts with: `memory/2026-11-22.md` and
 * `memory/2026-11-22-0431.md` -> `2026-11`; `other` without a date.
 */
export function monthOf(file: string): string {
  const match = /(?:^|\/)(\d{4}-\d{2})-\d{2}(?:[^\d/][^/]*)?\.md$/.exec(file);
  return match?.[1] ?? "other";
}
