/**
 * A first answer before the index exists: instead of building the whole index (a minute on a 100 MB
 * history, mostly parsing, redacting and tokenizing blocks the query never touches), read every log as
 * text, keep only the logs whose text may hold a hit (every identifier of the query, or one of its plain
 * words), and
 * rank the snapshots of those logs alone, with the index's own rules. The hits are the ones the index
 * would give for exact matches (an identifier must be in the text for a hit to hold it); BM25 statistics
 * come from the candidates, and typo matches of words written nowhere are only found once the index is
 * built. Reads one log at a time, so memory stays small. A log that cannot be read is a diagnostic, and
 * the others are read.
 */

import { LogText } from "../snapshot/block-span.ts";
import { START_MARKER_PREFIX } from "../snapshot/format.ts";
import { parseDailyLog } from "../snapshot/parse.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { listDailyLogs, readFailure, strayDailyLogs } from "../store/daily-log.ts";
import { judgedFor, noteJudged } from "../store/judged-memory.ts";
import { readMemoryFile } from "../store/log-open.ts";
import { type Claims, claimed } from "./claims.ts";
import { buildFrozen } from "./frozen-shard.ts";
import { indexable, planQuery } from "./query.ts";
import { monthOf } from "./shard.ts";
import { type QueryResult, type SearchOptions, SnapshotIndex } from "./snapshot-index.ts";
import { sequenceScreen } from "./tokenize.ts";

/** What a scan found, and how much it read. */
export interface ScanResult extends QueryResult {
  diagnostics: Diagnostic[];
  logs: number;
  bytes: number;
  /** Logs parsed because they hold a query token. */
  parsed: number;
}

/**
 * Whether a log's text may hold a hit: every identifier of the query (its tokens in order, only
 * connectors between), or, for a query of plain words, one of its terms.
 */
function screenOf(query: string): (text: string) => boolean {
  const plan = planQuery(query);
  const identifiers = plan.words
    .filter((w) => w.identifier && w.leaves.length > 0)
    .map((w) => sequenceScreen(w.leaves));
  if (identifiers.length > 0) return (text) => identifiers.every((screen) => screen.test(text));
  const terms = [...new Set(plan.terms.map((t) => t.term).filter(indexable))];
  return (text) => {
    const lower = text.toLowerCase();
    return terms.some((term) => lower.includes(term));
  };
}

/** Searches the logs of a workspace without an index (see the module comment). */
export async function scanSearch(
  workspaceDir: string,
  query: string,
  options: SearchOptions & { claims?: Claims; onProgress?: (done: number, of: number) => void } = {},
): Promise<ScanResult> {
  const mayHold = screenOf(query);
  const logs = await listDailyLogs(workspaceDir);
  const found: LocatedSnapshot[] = [];
  const diagnostics: Diagnostic[] = strayDailyLogs(workspaceDir);
  let bytes = 0;
  let parsed = 0;
  let anyBlock = false;
  for (const [i, log] of logs.entries()) {
    let logText: LogText;
    try {
      logText = new LogText(await readMemoryFile(workspaceDir, log.file));
    } catch (error) {
      const problem = readFailure(log.file, error);
      if (problem !== null) diagnostics.push(problem);
      continue;
    }
    const { text } = logText;
    bytes += text.length;
    options.onProgress?.(i + 1, logs.length);
    anyBlock ||= text.includes(START_MARKER_PREFIX);
    if (!mayHold(text)) continue;
    parsed++;
    const read = parseDailyLog(logText, log.file, { judged: judgedFor(workspaceDir) });
    noteJudged(workspaceDir);
    diagnostics.push(...read.diagnostics);
    for (const s of read.snapshots) found.push(options.claims === undefined ? s : claimed(options.claims, s));
  }
  const index = new SnapshotIndex();
  const byMonth = new Map<string, LocatedSnapshot[]>();
  for (const s of found) {
    const list = byMonth.get(monthOf(s.file)) ?? [];
    list.push(s);
    byMonth.set(monthOf(s.file), list);
  }
  for (const [month, list] of byMonth) index.setShard(buildFrozen(month, list));
  const result = index.query(query, options);
  const identifiers = planQuery(query)
    .words.filter((w) => w.identifier)
    .map((w) => w.raw);
  // No log may hold the identifiers, though snapshots exist: as the index says it, they are missing.
  if (found.length === 0 && anyBlock && identifiers.length > 0) {
    const suggestions = identifiers.map((word) => ({ word, closest: [] }));
    return {
      hits: [],
      match: "fuzzy",
      missing: identifiers,
      prefixes: [],
      suggestions,
      diagnostics,
      logs: logs.length,
      bytes,
      parsed,
    };
  }
  return { ...result, diagnostics, logs: logs.length, bytes, parsed };
}
