/**
 * The runtime of `list`, `show`, `recall` and `status` over the index's saved refs (search/saved-refs.ts):
 * each reads only the months its answer needs (`list --limit N` and `recall` the newest ones back to
 * where nothing older can change the answer, `show` the months whose refs mention its argument, `status`
 * every month's refs), and no log unless it changed since it was indexed. When a month has no usable
 * saved refs (never indexed, corrupt, older format), the command runs through the search index instead
 * (cli-index.ts), which builds and saves what is missing.
 *
 * A daily log that cannot be read (permissions, a disk error) never hides the others: the answer comes
 * from the logs that could be read, the unreadable one is named on stderr for people and in
 * `diagnostics` in JSON, on every run, and the exit code is the answer's own (0 found, 1 nothing found),
 * as the search index's path does (cli-index.ts `withIndex`; `reindex` alone ends with 3 then).
 */

import { type Entry, refOf } from "../search/document.ts";
import { latestIn, SavedRefs } from "../search/saved-refs.ts";
import { mergeTallies } from "../search/tally.ts";
import { echoed } from "../snapshot/echo.ts";
import { liveNewestFirst, newestOfName } from "../snapshot/lifecycle.ts";
import {
  answerList,
  answerSnapshot,
  answerStatus,
  type ListOptions,
  listed,
  type ReadOutput,
  resolve,
} from "./cli-answer.ts";

const index = () => import("./cli-index.ts");

/** `list`: the newest months back until `limit` refs are certain (every month without a limit). */
export async function list(o: ReadOutput, options: ListOptions): Promise<void> {
  const refs = await SavedRefs.open(options.dir);
  // One ref more than shown: whether older ones exist (answerList says so to people).
  const wanted = options.limit + 1;
  const pick = (sorted: readonly Entry[]) =>
    listed(options.all ? sorted : liveNewestFirst(sorted, (e) => e), {
      ...options,
      limit: wanted,
      all: true,
    });
  const loaded = await refs.loadNewest((sorted, olderThan) => {
    if (wanted === Number.POSITIVE_INFINITY) return false;
    const kept = pick(sorted());
    return kept.length >= wanted && (kept[wanted - 1] as Entry).time > olderThan;
  });
  if (!loaded) return (await index()).listIndexed(o, options);
  await answerList(o, pick(refs.sorted()).map(refOf), refs.diagnostics(), options.limit);
}

/**
 * Whether a checkpoint name has a live snapshot (for `delete`): from the months whose saved refs mention
 * it, as `show NAME` reads them; every log is read only when a month was never indexed.
 */
export async function hasLiveName(workspaceDir: string, name: string): Promise<boolean> {
  const refs = await SavedRefs.open(workspaceDir);
  if (await refs.loadMentioning(name)) return latestIn(refs.sorted(), { name }) !== undefined;
  const { readAllSnapshots } = await import("../store/snapshots.ts");
  return newestOfName((await readAllSnapshots(workspaceDir)).snapshots, name) !== undefined;
}

/** `show`: the months whose refs mention `what` (an id or a name; a `file:line` is read from its log). */
export async function show(o: ReadOutput, workspaceDir: string, what: string): Promise<void> {
  const refs = await SavedRefs.open(workspaceDir);
  if (!(await refs.loadMentioning(what))) return (await index()).showIndexed(o, workspaceDir, what);
  const sorted = refs.sorted();
  const { found, warnings } = await resolve(
    {
      findAll: (id) => sorted.filter((e) => e.id === id).map(refOf),
      latest: (scope) => {
        const e = latestIn(sorted, scope);
        return e === undefined ? null : refOf(e);
      },
      getAt: (file, line) => refs.getAt(file, line),
      getRef: (ref) => refs.getRef(ref),
    },
    what,
  );
  const none = `No snapshot with id, location or name ${echoed(what)}.`;
  await answerSnapshot(o, workspaceDir, found, warnings, refs.diagnostics(), none, { what });
}

/**
 * `recall`: the newest snapshot in scope. With a session or a name, the months whose refs mention it
 * (and those whose claims give blocks to the session); else the newest months back.
 */
export async function recall(
  o: ReadOutput,
  workspaceDir: string,
  scope: { session?: string; name?: string },
): Promise<void> {
  const refs = await SavedRefs.open(workspaceDir);
  const key = scope.name ?? scope.session;
  const loaded =
    key === undefined
      ? await refs.loadNewest((sorted, olderThan) => {
          const e = latestIn(sorted(), scope);
          return e !== undefined && e.time > olderThan;
        })
      : await refs.loadMentioning(
          key,
          refs.claimedMonths(scope.name === undefined ? scope.session : undefined),
        );
  if (!loaded) return (await index()).recallIndexed(o, workspaceDir, scope);
  const ref = latestIn(refs.sorted(), scope);
  const found = ref === undefined ? null : await refs.getRef(ref);
  const asked = scope.name === undefined ? undefined : { what: scope.name, session: scope.session };
  await answerSnapshot(o, workspaceDir, found, [], refs.diagnostics(), "No snapshot in that scope.", asked);
}

/** `status`: every month's tally (counted from its refs only where it must be) and logs' records. */
export async function status(o: ReadOutput, workspaceDir: string): Promise<void> {
  const refs = await SavedRefs.open(workspaceDir);
  const tallies = await refs.loadTallies();
  if (tallies === null) return (await index()).statusIndexed(o, workspaceDir);
  const tally = mergeTallies(tallies);
  await answerStatus(o, workspaceDir, { tally, ...refs.logs() }, refs.diagnostics());
}
