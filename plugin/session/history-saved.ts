/**
 * The history's answers from the index's saved refs alone (search/saved-refs.ts): `list`, `show`,
 * `recall` and `status` each read only the months their answer needs (`list --limit N` and `recall` the
 * newest ones back to where nothing older can change the answer, `show` the months whose refs mention its
 * argument, `status` every month's refs), and no log unless it changed since it was indexed. Each answers
 * null when a month has no usable saved refs (never indexed, corrupt, older format): then the question
 * goes to the search index (history-index.ts `History`), which builds and saves what is missing.
 */
import { type Entry, refOf } from "../search/document.ts";
import { latestIn, SavedRefs } from "../search/saved-refs.ts";
import { mergeTallies } from "../search/tally.ts";
import { liveNewestFirst, newestOfName } from "../snapshot/lifecycle.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { type HistoryStatus, type ListOptions, listed, resolve, type SnapshotRef } from "./history.ts";

/** An answer from the saved refs, with the problems met reading them. */
export type Saved<T> = (T & { diagnostics: Diagnostic[] }) | null;

/** `list`: the newest months back until `limit` refs are certain (every month without a limit), and one more. */
export async function listSaved(
  options: ListOptions,
): Promise<Saved<{ refs: Omit<SnapshotRef, "score">[] }>> {
  const refs = await SavedRefs.open(options.dir);
  // One ref more than shown: whether older ones exist.
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
  if (!loaded) return null;
  return { refs: pick(refs.sorted()).map(refOf), diagnostics: refs.diagnostics() };
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
export async function showSaved(
  workspaceDir: string,
  what: string,
): Promise<Saved<{ found: LocatedSnapshot | null; warnings: string[] }>> {
  const refs = await SavedRefs.open(workspaceDir);
  if (!(await refs.loadMentioning(what))) return null;
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
  return { found, warnings, diagnostics: refs.diagnostics() };
}

/**
 * `recall`: the newest snapshot in scope. With a session or a name, the months whose refs mention it
 * (and those whose claims give blocks to the session); else the newest months back.
 */
export async function recallSaved(
  workspaceDir: string,
  scope: { session?: string; name?: string },
): Promise<Saved<{ found: LocatedSnapshot | null }>> {
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
  if (!loaded) return null;
  const ref = latestIn(refs.sorted(), scope);
  const found = ref === undefined ? null : await refs.getRef(ref);
  return { found, diagnostics: refs.diagnostics() };
}

/** `status`: every month's tally (counted from its refs only where it must be) and the logs' records. */
export async function statusSaved(workspaceDir: string): Promise<Saved<{ status: HistoryStatus }>> {
  const refs = await SavedRefs.open(workspaceDir);
  const tallies = await refs.loadTallies();
  if (tallies === null) return null;
  return { status: { tally: mergeTallies(tallies), ...refs.logs() }, diagnostics: refs.diagnostics() };
}
