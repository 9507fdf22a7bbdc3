/**
 * The runtime of `list`, `show`, `recall` and `status` over the index's saved refs (session/history-saved.ts):
 * each reads only the months its answer needs, and no log unless it changed since it was indexed. When a
 * month has no usable saved refs (never indexed, corrupt, older format), the command runs through the
 * search index instead (cli-index.ts), which builds and saves what is missing.
 *
 * A daily log that cannot be read (permissions, a disk error) never hides the others: the answer comes
 * from the logs that could be read, the unreadable one is named on stderr for people and in
 * `diagnostics` in JSON, on every run, and the exit code is the answer's own (0 found, 1 nothing found),
 * as the search index's path does (cli-index.ts `withIndex`; `reindex` alone ends with 3 then).
 */

import { listSaved, recallSaved, showSaved, statusSaved } from "../session/history-saved.ts";
import { answerList, answerSnapshot, answerStatus, type ListOptions, type ReadOutput } from "./cli-answer.ts";

const index = () => import("./cli-index.ts");

/** `list`: the newest months back until `limit` refs are certain (every month without a limit). */
export async function list(o: ReadOutput, options: ListOptions): Promise<void> {
  const saved = await listSaved(options);
  if (saved === null) return (await index()).listIndexed(o, options);
  await answerList(o, saved.refs, saved.diagnostics, options.limit);
}

/** `show`: the months whose refs mention `what` (an id or a name; a `file:line` is read from its log). */
export async function show(o: ReadOutput, workspaceDir: string, what: string): Promise<void> {
  const saved = await showSaved(workspaceDir, what);
  if (saved === null) return (await index()).showIndexed(o, workspaceDir, what);
  // The redactor behind the quoting loads only for an answer that may quote `what`.
  const none =
    saved.found === null
      ? `No snapshot with id, location or name ${(await import("../snapshot/echo.ts")).echoed(what)}.`
      : "";
  await answerSnapshot(o, workspaceDir, saved.found, saved.warnings, saved.diagnostics, none, { what });
}

/** `recall`: the newest snapshot in scope (see session/history-saved.ts `recallSaved`). */
export async function recall(
  o: ReadOutput,
  workspaceDir: string,
  scope: { session?: string; name?: string },
): Promise<void> {
  const saved = await recallSaved(workspaceDir, scope);
  if (saved === null) return (await index()).recallIndexed(o, workspaceDir, scope);
  const asked = scope.name === undefined ? undefined : { what: scope.name, session: scope.session };
  await answerSnapshot(
    o,
    workspaceDir,
    saved.found,
    [],
    saved.diagnostics,
    "No snapshot in that scope.",
    asked,
  );
}

/** `status`: every month's tally (counted from its refs only where it must be) and logs' records. */
export async function status(o: ReadOutput, workspaceDir: string): Promise<void> {
  const saved = await statusSaved(workspaceDir);
  if (saved === null) return (await index()).statusIndexed(o, workspaceDir);
  await answerStatus(o, workspaceDir, saved.status, saved.diagnostics);
}
