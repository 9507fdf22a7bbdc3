/**
 * What the CLI's read commands share, whichever way they read: how an answer is printed (JSON or text,
 * the logs' problems, the exit code), which snapshot a `show` argument names, which refs `list` keeps.
 * Light on purpose: the search engine, the parser and the status document load only when used.
 */
import { isAbsolute, normalize, relative, sep } from "node:path";
import { location, logNameProblem, type SnapshotRef } from "../session/history.ts";
import { snapshotJson } from "../snapshot/json.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import type { CliIO } from "./cli.ts";
import { EXIT, UsageError } from "./cli-args.ts";
import type { StatusSource } from "./cli-status.ts";
import { counted, refTable, type Style, snapshotText } from "./cli-text.ts";
import { jsonDocument } from "./terminal.ts";

export { type ListOptions, type Lookup, listed, resolve } from "../session/history.ts";

/** What a read command prints and how it ends: its document or text, its problems, its exit code. */
export interface ReadOutput {
  io: CliIO;
  style: Style;
  json: boolean;
  setExit(code: number): void;
}

/**
 * Prints `doc` with `diagnostics` as JSON, or `text()` for people followed by every problem on stderr
 * (the logs', the index's and the claims'), so that every read command tells them the same way.
 */
export async function answer(
  o: ReadOutput,
  doc: unknown,
  text: () => string,
  diagnostics: readonly Diagnostic[],
): Promise<void> {
  if (o.json) {
    // A problem of a whole file (an index rebuilt) has no line: null in JSON, where lines are 1-based.
    const problems = diagnostics.map((d) => (d.line > 0 ? d : { ...d, line: null }));
    o.io.stdout(jsonDocument({ ...(doc as object), diagnostics: problems }, o.io.columns !== undefined));
    return;
  }
  o.io.stdout(`${text()}\n`);
  if (diagnostics.length === 0) return;
  const { formatDiagnostic } = await import("../snapshot/parse.ts");
  for (const d of diagnostics) {
    // A problem of a whole file (an unreadable log, an index rebuilt) names its file in its message.
    o.io.stderr(`${o.style.yellow(d.line > 0 ? formatDiagnostic(d) : `big-memory: ${d.message}`)}\n`);
  }
}

/**
 * A `show` argument as the index names things: trimmed, and a location's file relative to the workspace
 * (`./memory/x.md:5` and `/abs/workspace/memory/x.md:5` are `memory/x.md:5`). Throws a usage error when
 * nothing is left, and when a location names a file that is not a daily log of the workspace's `memory/`
 * (`memory/../../outside/x.md:3`, `/etc/x.md:1`, `memory/rapport-profile.md:3`): the workspace is the
 * boundary of what is read, by name as through links (store/log-open.ts).
 */
export function shownArgument(what: string, workspaceDir: string): string {
  const trimmed = what.trim();
  if (trimmed === "") throw new UsageError("show needs a snapshot id, a file:line or a checkpoint name");
  const at = location(trimmed);
  if (at === null) return trimmed;
  const file = (isAbsolute(at.file) ? relative(workspaceDir, at.file) : normalize(at.file))
    .split(sep)
    .join("/");
  const problem = logNameProblem(file);
  if (problem !== null) {
    throw new UsageError(
      (quote) =>
        `show ${quote(trimmed)}: not read, ${problem}; show reads the daily logs in memory/ (memory/2026-11-22.md:14), or give a snapshot id or a checkpoint name`,
    );
  }
  return `${file}:${at.line}`;
}

/**
 * Prints `list`'s answer: the first `limit` of `refs`, which may hold one more to tell whether older
 * snapshots exist; people are told how to see them.
 */
export async function answerList(
  o: ReadOutput,
  refs: SnapshotRef[],
  diagnostics: Diagnostic[],
  limit: number,
): Promise<void> {
  const shown = refs.length > limit ? refs.slice(0, limit) : refs;
  await answer(
    o,
    { snapshots: shown, diagnostics },
    () => (shown.length === 0 ? "No snapshots found." : refTable(shown, o.io.now(), o.style, o.io.columns)),
    diagnostics,
  );
  if (shown.length < refs.length && !o.json) {
    o.io.stderr(
      `${o.style.dim(`big-memory: the newest ${counted(limit, "snapshot")} shown; older ones with --limit N or --limit all`)}\n`,
    );
  }
  o.setExit(shown.length === 0 ? EXIT.notFound : EXIT.ok);
}

/** Prints the answer of `show` or `recall`: the snapshot with its stale-file warnings, or `none`. */
export async function answerSnapshot(
  o: ReadOutput,
  workspaceDir: string,
  found: LocatedSnapshot | null,
  warnings: string[],
  diagnostics: Diagnostic[],
  none: string,
  asked?: { what: string; session?: string | undefined },
): Promise<void> {
  // A snapshot its log lost (a model's write replaced the log) is still found, in the journal.
  if (found === null && asked !== undefined) {
    const lost = await (await import("./journal-view.ts")).lostFromJournal(
      workspaceDir,
      asked.what,
      asked.session,
    );
    if (lost !== null) {
      found = lost.found;
      warnings.push(lost.warning);
    }
  }
  if (found !== null)
    warnings.push(...(await (await import("../recover/stale.ts")).staleWarnings(workspaceDir, found)));
  await answer(
    o,
    { snapshot: found === null ? null : snapshotJson(found), warnings, diagnostics },
    () => (found === null ? none : snapshotText(snapshotJson(found), warnings, o.io.now(), o.style)),
    diagnostics,
  );
  o.setExit(found === null ? EXIT.notFound : EXIT.ok);
}

/** Prints `status`'s answer from the index's refs (oldest first) and logs. */
export async function answerStatus(
  o: ReadOutput,
  workspaceDir: string,
  source: Omit<StatusSource, "problems">,
  diagnostics: Diagnostic[],
): Promise<void> {
  const { statusDoc, statusText } = await import("./cli-status.ts");
  // The journal's incidents and the blocks that are no capture are problems of status too (journal-view.ts).
  const view = await import("./journal-view.ts");
  const journal = await view.journalSummary(workspaceDir);
  const all = [...diagnostics, ...journal.diagnostics, ...view.unverifiedCaptures(source.tally)];
  const doc = {
    ...(await statusDoc(workspaceDir, { ...source, problems: all.length })),
    journal: journal.summary,
  };
  const text = () =>
    statusText(
      doc,
      o.io.now(),
      o.style,
      o.io.columns,
      view.journalStatusFields(journal.summary, source.tally, o.style),
    );
  await answer(o, { ...doc, diagnostics: all }, text, all);
  o.setExit(EXIT.ok);
}
