/**
 * The runtime of the CLI's read commands that open the search index (session/history-index.ts `History`): search and
 * reindex, and list, show, recall and status when the saved refs alone cannot answer (cli-refs.ts), so
 * that the index builds what is missing. Loaded on use by cli-read.ts.
 */

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { QueryResult, SearchAnswer, SearchHit } from "../session/history.ts";
import { absentNamed, History, scanFirst, searchAnswer, searchedTerms } from "../session/history-index.ts";
import { echoed } from "../snapshot/echo.ts";
import type { Diagnostic } from "../snapshot/snapshot.ts";
import { relativeAge } from "../snapshot/time.ts";
import type { CliIO } from "./cli.ts";
import {
  answer,
  answerList,
  answerSnapshot,
  answerStatus,
  type ListOptions,
  type ReadOutput,
} from "./cli-answer.ts";
import { EXIT, UsageError } from "./cli-args.ts";
import { type Progress, progress } from "./cli-progress.ts";
import { counted, cut, oneLine, PIPED_GOAL, type Style, table } from "./cli-text.ts";

/** What a command found, and what went wrong along the way. */
interface IndexRun {
  index: History;
  /** Problems in the logs and the index's own warnings (index files rebuilt, unknown versions...). */
  diagnostics(): Diagnostic[];
}

/**
 * Opens the workspace's index (no watcher) for one command, waits for every month, runs `fn`, then saves
 * and closes it. `entriesOnly` loads refs without postings (see SearchServiceOptions). The index's
 * warnings (a month rebuilt) join the diagnostics, which `fn`'s answer tells (cli-answer.ts `answer`);
 * one that comes after the answer is printed to stderr for people. A daily log that cannot be read is
 * left out of the answer and named (its diagnostic has line 0, as a problem of the whole file); the
 * command keeps the exit code of its answer, since the other logs were read. With `skipLoad` (`reindex`, whose whole job is
 * indexing), a log it could not index or an index update that failed ends the command with exit 3
 * (thrown, after `fn` has printed its answer).
 */
export async function withIndex<T>(
  workspaceDir: string,
  io: CliIO,
  opts: { entriesOnly: boolean; json: boolean; skipLoad?: boolean },
  fn: (run: IndexRun) => Promise<T>,
): Promise<T> {
  const warnings: Diagnostic[] = [];
  let answered = false;
  const shown = progress({ stderr: io.stderr, terminal: io.color && process.stderr.isTTY === true });
  // The engine loads on use (History.open), so that a short command such as `save` does not pay for it.
  const index = await History.open(workspaceDir, {
    warn: (message) => {
      warnings.push({ file: ".big-memory/search", line: 0, message: message.replace(/^big-memory: /, "") });
      // Until `fn` answers, its answer tells the warnings; one that comes later (saving) is told here.
      if (answered && !opts.json) io.stderr(`${message}\n`);
    },
    entriesOnly: opts.entriesOnly,
    skipLoad: opts.skipLoad === true,
    onProgress: (p) =>
      shown.update(`indexing memory/: ${p.months} of ${p.of} months, ${p.snapshots} snapshots so far`),
  });
  try {
    await index.ready();
    shown.done();
    const result = await fn({ index, diagnostics: () => [...index.diagnostics(), ...warnings] });
    answered = true;
    if (opts.skipLoad === true) {
      const unreadable = index.unreadable();
      if (unreadable.length > 0) {
        const named = unreadable.slice(0, 3).join(", ");
        const more = unreadable.length > 3 ? ` and ${unreadable.length - 3} more` : "";
        throw new Error(
          `big-memory: the search index leaves out ${named}${more}, which cannot be read; the other daily logs are indexed`,
        );
      }
      if (index.failures > 0)
        throw new Error(
          `big-memory: the search index is incomplete: ${index.failures} update${index.failures === 1 ? "" : "s"} failed`,
        );
    }
    return result;
  } finally {
    shown.done();
    await index.close();
  }
}

/** `list` through the search index. */
export async function listIndexed(o: ReadOutput, options: ListOptions): Promise<void> {
  await withIndex(options.dir, o.io, { entriesOnly: true, json: o.json }, async (run) => {
    await answerList(o, run.index.list(options), run.diagnostics(), options.limit);
  });
}

/** `show` through the search index. */
export async function showIndexed(o: ReadOutput, workspaceDir: string, what: string): Promise<void> {
  await withIndex(workspaceDir, o.io, { entriesOnly: true, json: o.json }, async (run) => {
    const { found, warnings } = await run.index.show(what);
    await answerSnapshot(
      o,
      workspaceDir,
      found,
      warnings,
      run.diagnostics(),
      `No snapshot with id, location or name ${echoed(what)}.`,
      { what },
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
    const found = await run.index.recall(scope);
    const asked = scope.name === undefined ? undefined : { what: scope.name, session: scope.session };
    await answerSnapshot(o, workspaceDir, found, [], run.diagnostics(), "No snapshot in that scope.", asked);
  });
}

/** `status` through the search index. */
export async function statusIndexed(o: ReadOutput, workspaceDir: string): Promise<void> {
  await withIndex(workspaceDir, o.io, { entriesOnly: true, json: o.json }, async (run) => {
    const status = await run.index.status();
    await answerStatus(o, workspaceDir, status, run.diagnostics());
  });
}

/**
 * `search`: the index's best hits, or a first answer read from the logs when there is no index yet. When
 * no snapshot holds the query's identifiers as typed, `snapshots` is empty and the closest matches come
 * apart, as `fuzzy`: the snapshots of the identifiers suggested (see query.ts `closeMatches`). Throws a
 * usage error for a query with no word that is searched.
 */
export async function searchIndexed(
  o: ReadOutput,
  workspaceDir: string,
  query: string,
  options: { limit: number; filter: { session?: string; agent?: string } },
): Promise<void> {
  if (searchedTerms(query) === 0)
    throw new UsageError(
      (quote) =>
        `search needs words to look for, received ${quote(query)} (punctuation and common words such as "the" are not searched)`,
    );
  // One hit more than shown says whether there are more.
  const wanted = { ...options, limit: options.limit + 1 };
  const first = await firstAnswer(workspaceDir, o.io, query, { ...wanted, json: o.json });
  if (first !== null) {
    await showSearch(o, query, options, await searchAnswer(query, first, options.limit), first.diagnostics);
    return;
  }
  await withIndex(workspaceDir, o.io, { entriesOnly: false, json: o.json }, async (run) => {
    await showSearch(o, query, options, await run.index.search(query, options), run.diagnostics());
  });
}

/** Prints a search's answer (see {@link searchIndexed}), notes on stderr that more exist, and sets the exit. */
async function showSearch(
  o: ReadOutput,
  query: string,
  options: { limit: number; filter: { session?: string; agent?: string } },
  found: SearchAnswer,
  diagnostics: Diagnostic[],
): Promise<void> {
  const { io, style } = o;
  const { hits, fuzzy, match, missing, prefixes, suggestions } = found;
  const ref = ({ snippet: _s, field: _f, ...rest }: SearchHit) => rest;
  const lines = (shown: SearchHit[]) => hitLines(shown, io.now(), style, io.columns);
  await answer(
    o,
    { snapshots: hits.map(ref), fuzzy: fuzzy.map(ref), match, missing, prefixes, suggestions, diagnostics },
    () =>
      hits.length > 0
        ? lines(hits)
        : [
            absentText(query, found, options.filter, fuzzy.length > 0),
            ...(fuzzy.length > 0 ? [lines(fuzzy)] : []),
          ].join("\n"),
    diagnostics,
  );
  if (found.more && !o.json) {
    const shown =
      hits.length > 0
        ? `the best ${counted(hits.length, "hit")}`
        : `the ${fuzzy.length} closest ${fuzzy.length === 1 ? "match" : "matches"}`;
    io.stderr(`${style.dim(`big-memory: ${shown} shown; more with --limit N or --limit all`)}\n`);
  }
  // "Have we seen X?": only a hit holding every identifier as typed says yes.
  o.setExit(hits.length > 0 ? EXIT.ok : EXIT.notFound);
}

/**
 * Search hits for people: a table of id, age, name and goal fitted to `columns` (whole when undefined),
 * each row followed by where it matched (the section and its words, unless the match is the goal shown
 * above it, and the file and line), indented and cut to the same width.
 */
export function hitLines(hits: SearchHit[], now: Date, style: Style, columns?: number): string {
  const named = hits.some((h) => h.name !== null);
  const rows = table(
    [
      ["ID", "AGE", ...(named ? ["NAME"] : []), "GOAL"].map(style.bold),
      ...hits.map((h) => [
        h.id,
        relativeAge(h.timestamp, now),
        ...(named ? [oneLine(h.name ?? "-", 64)] : []),
        oneLine(h.goal || "(no goal)", PIPED_GOAL),
      ]),
    ],
    {
      columns,
      shrink: named
        ? [
            [3, 30],
            [2, 12],
            [3, 12],
          ]
        : [[2, 12]],
    },
  ).split("\n");
  const where = (h: SearchHit) => {
    const at = `${h.file}:${h.line}`;
    const snippet = oneLine(h.snippet, PIPED_GOAL);
    const room =
      columns === undefined ? PIPED_GOAL : Math.max(12, columns - 4 - at.length - 4 - h.field.length);
    return style.dim(
      `    ${h.field === "goal" ? `matched the goal  (${at})` : `${h.field}: ${cut(snippet, room)}  (${at})`}`,
    );
  };
  return [rows[0] ?? "", ...hits.flatMap((h, i) => [rows[i + 1] ?? "", where(h)])].join("\n");
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
 * Logs at least this large (in bytes) with no index yet get a first answer by reading them (history-index.ts `scanFirst`);
 * `BIG_MEMORY_SCAN_FIRST_BYTES` in the environment sets another size.
 */
export const SCAN_FIRST_BYTES = 20_000_000;

/**
 * The answer to a first search of a large workspace with no index yet: read the logs for it (`scanFirst`)
 * and build the index in a background process (`big-memory reindex`), instead of making the person wait
 * for the whole build. Null when an index exists or the logs are small (the index is built at once).
 */
async function firstAnswer(
  workspaceDir: string,
  io: CliIO,
  query: string,
  options: { limit: number; filter: { session?: string; agent?: string }; json: boolean },
): Promise<(QueryResult & { diagnostics: Diagnostic[] }) | null> {
  let shown: Progress | undefined;
  const scan = await scanFirst(workspaceDir, query, {
    limit: options.limit,
    filter: options.filter,
    threshold: Number(io.env.BIG_MEMORY_SCAN_FIRST_BYTES ?? SCAN_FIRST_BYTES),
    onStart: () => {
      shown = progress({ stderr: io.stderr, terminal: io.color && process.stderr.isTTY === true });
    },
    onProgress: (done, of) =>
      shown?.update(`no index yet, reading memory/ for this search: ${done} of ${of} logs`),
  });
  if (scan === null) return null;
  shown?.done();
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

/**
 * For people: what no snapshot in the scope searched mentions (the missing identifiers; the identifiers
 * that exist, but never together; or the query), the closest identifiers that exist, and whether near
 * matches follow.
 */
export function absentText(
  query: string,
  result: Pick<QueryResult, "match" | "missing" | "prefixes" | "suggestions">,
  scope: { session?: string; agent?: string },
  nearFollow: boolean,
): string {
  const { match, missing, prefixes, suggestions } = result;
  const named = match === "fuzzy" ? absentNamed(query, missing) : query.trim();
  const agent = scope.agent === undefined ? "" : `agent ${scope.agent}`;
  const of =
    scope.session !== undefined
      ? ` of session ${scope.session}${agent === "" ? "" : ` (${agent})`}`
      : agent === ""
        ? ""
        : ` of ${agent}`;
  if (match === "prefix") {
    const begun = prefixes.map((p) => `${p.word} is the start of ${p.completions.join(", ")}`).join("; ");
    return `${begun} (no snapshot${of} mentions ${prefixes.map((p) => p.word).join(", ")} whole).${nearFollow ? " Matches by prefix:" : ""}`;
  }
  const closest = suggestions.flatMap((s) => s.closest);
  return [
    `No snapshot${of} mentions ${named}.`,
    ...(closest.length > 0 ? [`Did you mean ${closest.join(", ")}?`] : []),
    ...(nearFollow ? ["Closest matches (fuzzy):"] : []),
  ].join(" ");
}
