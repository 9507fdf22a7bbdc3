/**
 * The runtime of the CLI's read commands that open the search index (`SearchService`): search and
 * reindex, and list, show, recall and status when the saved refs alone cannot answer (cli-refs.ts), so
 * that the index builds what is missing. Loaded on use by cli-read.ts.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { readClaims } from "../search/claims.ts";
import { indexDir, listShardFiles } from "../search/persist.ts";
import { scanSearch } from "../search/scan.ts";
import type { SearchService } from "../search/search-service.ts";
import type { QueryResult } from "../search/snapshot-index.ts";
import { tallyOf } from "../search/tally.ts";
import type { Diagnostic } from "../snapshot/snapshot.ts";
import { relativeAge } from "../snapshot/time.ts";
import { listDailyLogs } from "../store/daily-log.ts";
import type { CliIO } from "./cli.ts";
import {
  answer,
  answerList,
  answerSnapshot,
  answerStatus,
  type ListOptions,
  listed,
  type ReadOutput,
  resolve,
} from "./cli-answer.ts";
import { EXIT } from "./cli-args.ts";
import { progress } from "./cli-progress.ts";
import { oneLine } from "./cli-text.ts";

/** What a command found, and what went wrong along the way. */
interface IndexRun {
  index: SearchService;
  /** Problems in the logs and the index's own warnings (index files rebuilt, unknown versions...). */
  diagnostics(): Diagnostic[];
}

/**
 * Opens the workspace's index (no watcher) for one command, waits for every month, runs `fn`, then saves
 * and closes it. `entriesOnly` loads refs without postings (see SearchServiceOptions). Warnings are
 * printed to stderr as they come unless `json` (then they join the diagnostics).
 */
export async function withIndex<T>(
  workspaceDir: string,
  io: CliIO,
  opts: { entriesOnly: boolean; json: boolean; skipLoad?: boolean },
  fn: (run: IndexRun) => Promise<T>,
): Promise<T> {
  const warnings: Diagnostic[] = [];
  const shown = progress({ stderr: io.stderr, terminal: io.color && process.stderr.isTTY === true });
  // Loaded on use, so that a short command such as `save` does not pay for the search engine's start-up.
  const { SearchService } = await import("../search/search-service.ts");
  const index = await SearchService.open(workspaceDir, {
    logger: {
      warn: (message) => {
        warnings.push({ file: ".big-memory/search", line: 0, message: message.replace(/^big-memory: /, "") });
        if (!opts.json) io.stderr(`${message}\n`);
      },
    },
    watch: false,
    entriesOnly: opts.entriesOnly,
    skipLoad: opts.skipLoad === true,
    onProgress: (p) =>
      shown.update(`indexing memory/: ${p.months} of ${p.of} months, ${p.snapshots} snapshots so far`),
  });
  try {
    await index.ready();
    shown.done();
    return await fn({ index, diagnostics: () => [...index.diagnostics(), ...warnings] });
  } finally {
    shown.done();
    await index.close();
  }
}

/** `list` through the search index. */
export async function listIndexed(o: ReadOutput, options: ListOptions): Promise<void> {
  await withIndex(options.dir, o.io, { entriesOnly: true, json: o.json }, async (run) => {
    const wanted = { ...options, limit: options.limit + 1 };
    const refs = listed(run.index.all(), wanted).map(({ tombstone: _t, ...ref }) => ref);
    await answerList(o, refs, run.diagnostics(), options.limit);
  });
}

/** `show` through the search index. */
export async function showIndexed(o: ReadOutput, workspaceDir: string, what: string): Promise<void> {
  await withIndex(workspaceDir, o.io, { entriesOnly: true, json: o.json }, async (run) => {
    const { found, warnings } = await resolve(run.index, what);
    await answerSnapshot(
      o,
      workspaceDir,
      found,
      warnings,
      run.diagnostics(),
      `No snapshot with id, location or name "${what}".`,
    );
  });
}

/** `recall` through the search index. */
export async function recallIndexed(
  o: ReadOutput,
  workspaceDir: string,
  scope: { session?: string; name?: string },
): Promise<void> {
  await withIndex(workspaceDir, o.io, { entriesOnly: true, json: o.json }, async (run) => {
    const ref = run.index.latest(scope);
    const found = ref === null ? null : await run.index.getAt(ref.file, ref.line);
    await answerSnapshot(o, workspaceDir, found, [], run.diagnostics(), "No snapshot in that scope.");
  });
}

/** `status` through the search index. */
export async function statusIndexed(o: ReadOutput, workspaceDir: string): Promise<void> {
  await withIndex(workspaceDir, o.io, { entriesOnly: true, json: o.json }, async (run) => {
    const logs = run.index.logs();
    const diagnostics = run.diagnostics();
    await answerStatus(o, workspaceDir, { tally: tallyOf(run.index.all()), ...logs }, diagnostics);
  });
}

/** `search`: the index's best hits, or a first answer read from the logs when there is no index yet. */
export async function searchIndexed(
  o: ReadOutput,
  workspaceDir: string,
  query: string,
  options: { limit: number; filter: { session?: string; agent?: string } },
): Promise<void> {
  const { io, style } = o;
  const show = async (result: QueryResult, diagnostics: Diagnostic[]) => {
    const snapshots = result.hits.map(({ snippet: _s, field: _f, ...ref }) => ref);
    const { match, missing, suggestions } = result;
    await answer(
      o,
      { snapshots, match, missing, suggestions, diagnostics },
      () =>
        [
          ...(match === "fuzzy" || result.hits.length === 0
            ? [absentText(query, missing, suggestions, result.hits.length > 0)]
            : []),
          ...result.hits.map(
            (h) =>
              `${style.bold(h.id)}  ${relativeAge(h.timestamp, io.now())}  ${oneLine(h.goal || "(no goal)", 70)}\n    ${style.dim(`${h.field}: ${oneLine(h.snippet, 90)}  (${h.file}:${h.line})`)}`,
          ),
        ].join("\n"),
      diagnostics,
    );
    // "Have we seen X?": only a hit holding every identifier as typed says yes.
    o.setExit(result.hits.length > 0 && match === "exact" ? EXIT.ok : EXIT.notFound);
  };
  const first = await firstAnswer(workspaceDir, io, query, { ...options, json: o.json });
  if (first !== null) {
    await show(first, first.diagnostics);
    return;
  }
  await withIndex(workspaceDir, io, { entriesOnly: false, json: o.json }, async (run) => {
    await show(run.index.search(query, { ...options, suggest: true }), run.diagnostics());
  });
}

/** `reindex`: every month rebuilt from the daily logs, with progress on stderr. */
export async function reindex(o: ReadOutput, workspaceDir: string): Promise<void> {
  await withIndex(workspaceDir, o.io, { entriesOnly: true, json: o.json, skipLoad: true }, async (run) => {
    // Progress comes from the index, month by month (see withIndex).
    const result = await run.index.reindex();
    const diagnostics = run.diagnostics();
    await answer(
      o,
      { ...result, diagnostics },
      () =>
        `reindexed ${result.snapshots} snapshots from ${result.logs} daily logs in ${Math.round(result.ms)} ms`,
      diagnostics,
    );
    o.setExit(EXIT.ok);
  });
}

/**
 * Logs at least this large (in bytes) with no index yet get a first answer by reading them (scan.ts);
 * `BIG_MEMORY_SCAN_FIRST_BYTES` in the environment sets another size.
 */
export const SCAN_FIRST_BYTES = 20_000_000;

/**
 * The answer to a first search of a large workspace with no index yet: read the logs for it (scan.ts)
 * and build the index in a background process (`big-memory reindex`), instead of making the person wait
 * for the whole build. Null when an index exists or the logs are small (the index is built at once).
 */
async function firstAnswer(
  workspaceDir: string,
  io: CliIO,
  query: string,
  options: { limit: number; filter: { session?: string; agent?: string }; json: boolean },
): Promise<(QueryResult & { diagnostics: Diagnostic[] }) | null> {
  if ((await listShardFiles(indexDir(workspaceDir))).length > 0) return null;
  const logs = await listDailyLogs(workspaceDir);
  const threshold = Number(io.env.BIG_MEMORY_SCAN_FIRST_BYTES ?? SCAN_FIRST_BYTES);
  if (logs.reduce((n, l) => n + l.size, 0) < threshold) return null;
  const shown = progress({ stderr: io.stderr, terminal: io.color && process.stderr.isTTY === true });
  const { claims } = await readClaims(workspaceDir);
  const scan = await scanSearch(workspaceDir, query, {
    limit: options.limit,
    filter: options.filter,
    claims,
    onProgress: (done, of) =>
      shown.update(`no index yet, reading memory/ for this search: ${done} of ${of} logs`),
  });
  shown.done();
  // BIG_MEMORY_BACKGROUND_INDEX=0 leaves the build to the caller (a benchmark times it apart).
  if (io.env.BIG_MEMORY_BACKGROUND_INDEX !== "0") {
    const bin = fileURLToPath(new URL("../../bin/big-memory.js", import.meta.url));
    spawn(process.execPath, [bin, "reindex", "--dir", workspaceDir], {
      detached: true,
      stdio: "ignore",
    }).unref();
  }
  const note = `no search index yet: answered by reading ${scan.parsed} of ${scan.logs} logs; the index is being built in the background (typo and prefix matches need it)`;
  if (!options.json) io.stderr(`big-memory: ${note}\n`);
  return {
    ...scan,
    diagnostics: [...scan.diagnostics, { file: ".big-memory/search", line: 0, message: note }],
  };
}

/** For people: which identifiers no snapshot mentions, the closest that exist, and whether near matches follow. */
export function absentText(
  query: string,
  missing: readonly string[],
  suggestions: readonly { word: string; closest: string[] }[],
  nearFollow: boolean,
): string {
  const named = missing.length > 0 ? missing.join(", ") : query;
  const closest = suggestions.flatMap((s) => s.closest);
  return [
    `No snapshot mentions ${named}.`,
    ...(closest.length > 0 ? [`Did you mean ${closest.join(", ")}?`] : []),
    ...(nearFollow ? ["Closest matches (fuzzy):"] : []),
  ].join(" ");
}
