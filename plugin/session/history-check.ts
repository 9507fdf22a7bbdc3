/**
 * The history read whole, block by block, for what the index's refs cannot say: `verify` (every block's
 * checksum, torn blocks, versions, duplicate ids, claims that name no block), the doctor's facts about
 * the logs and the index files, and the memory timeline's snapshots (claims laid over). Reads only.
 */
import { claimed, claimOf, danglingClaims, readClaims } from "../search/claims.ts";
import { isCapture } from "../search/tally.ts";
import { parseDailyLog } from "../snapshot/parse.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { readMemoryFile } from "../store/log-open.ts";
import { olderFirst, readAllSnapshots } from "../store/snapshots.ts";
import type { SnapshotRef } from "./history.ts";

/** A problem `verify` finds in a block or a file (line 0: the whole file). */
export interface VerifyProblem {
  id: string | null;
  file: string;
  line: number;
  problem: string;
}

/** What `verify` found: the blocks checked, in how many logs, their problems, and the notes. */
export interface VerifyReport {
  checked: number;
  files: number;
  /** Sorted by file, then line. */
  problems: VerifyProblem[];
  /** The logs', the claims' problems, each a problem too. */
  diagnostics: Diagnostic[];
  /** Dated logs left in sub-folders, not read: told, but not a problem of the snapshots checked. */
  strays: Diagnostic[];
}

/** Checks every snapshot of the workspace's daily logs (see the module comment). */
export async function verifyHistory(workspaceDir: string): Promise<VerifyReport> {
  const ws = await readAllSnapshots(workspaceDir);
  const claims = await readClaims(workspaceDir);
  const diagnostics = [...ws.diagnostics, ...claims.problems, ...danglingClaims(claims.claims, ws.snapshots)];
  const problems = [
    ...ws.snapshots
      .filter((s) => s.verified === false)
      .map((s) => ({
        id: s.snapshot.id as string | null,
        file: s.file,
        line: s.line,
        problem:
          s.checksum === null
            ? "checksum line removed: the block carries big-memory's own metadata (a trigger other than flush, or a tombstone) but no checksum"
            : "checksum mismatch: the block was modified after it was written",
      })),
    ...diagnostics.map((d) => ({ id: d.id ?? null, file: d.file, line: d.line, problem: d.message })),
  ].sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  return { checked: ws.snapshots.length, files: ws.files, problems, diagnostics, strays: ws.strays };
}

/** What the doctor learns from the daily logs: their count, the newest capture, and their problems. */
export interface LogFacts {
  files: number;
  snapshots: number;
  lastCapture: { id: string; timestamp: string } | null;
  /** As sentences, a log that could not be read first. */
  problems: string[];
}

/** The doctor's facts about the logs of a workspace whose `memory/` exists (see {@link LogFacts}). */
export async function logFacts(workspaceDir: string): Promise<LogFacts> {
  const empty = { snapshots: [], diagnostics: [], files: 0 };
  const unreadable: string[] = [];
  const logs = await readAllSnapshots(workspaceDir).catch((error: unknown) => {
    unreadable.push(error instanceof Error ? error.message : String(error));
    return empty;
  });
  // Only a block whose checksum holds, or a claimed flush block, is a capture; the others are problems.
  const claims = (await readClaims(workspaceDir).catch(() => null))?.claims;
  const isClaimed = (s: LocatedSnapshot) =>
    claims !== undefined && claimOf(claims, s.file, s.line, s.snapshot.id) !== undefined;
  const last = logs.snapshots
    .filter((s) => isCapture({ verified: s.verified, claimed: isClaimed(s) }))
    .at(-1);
  const problems = [
    ...unreadable,
    ...logs.snapshots
      .filter((s) => s.verified === false)
      .map((s) => `${s.file}:${s.line}: checksum mismatch`),
    ...logs.snapshots
      .filter((s) => s.verified === null && s.snapshot.trigger !== null && !isClaimed(s))
      .map(
        (s) =>
          `${s.file}:${s.line}: says trigger ${s.snapshot.trigger} without a checksum: not counted as a capture`,
      ),
    ...logs.diagnostics.map((d) => `${d.file}:${d.line}: ${d.message}`),
  ];
  return {
    files: logs.files,
    snapshots: logs.snapshots.length,
    lastCapture: last === undefined ? null : { id: last.snapshot.id, timestamp: last.snapshot.timestamp },
    problems,
  };
}

/** The search index's saved months as the doctor sees them: how many, which cannot be read, which are missing. */
export async function indexFacts(
  workspaceDir: string,
  logMonths: ReadonlySet<string>,
): Promise<{ months: number; unreadable: string[]; missing: string[] }> {
  const { indexDir, listShardFiles, loadShardFile } = await import("../search/persist.ts");
  const dir = indexDir(workspaceDir);
  const months = await listShardFiles(dir).catch(() => [] as string[]);
  const unreadable: string[] = [];
  for (const month of months) {
    const load = await loadShardFile(dir, month).catch((e: unknown) => ({
      kind: "unreadable" as const,
      problem: String(e),
    }));
    if (load.kind === "unreadable" || (load.kind === "loaded" && load.problem !== undefined))
      unreadable.push(month);
  }
  const missing = [...logMonths].filter((m) => !months.includes(m)).sort();
  return { months: months.length, unreadable, missing };
}

/** Every snapshot of the daily logs, claims laid over, oldest first, with the logs' and the claims' problems. */
export async function claimedSnapshots(
  workspaceDir: string,
): Promise<{ snapshots: LocatedSnapshot[]; diagnostics: Diagnostic[] }> {
  const [all, claims] = await Promise.all([readAllSnapshots(workspaceDir), readClaims(workspaceDir)]);
  return {
    snapshots: all.snapshots.map((s) => claimed(claims.claims, s)),
    diagnostics: [...all.diagnostics, ...all.strays, ...claims.problems],
  };
}

/** The full snapshots of `refs`, each daily log read once, claims laid over, oldest first. */
export async function snapshotsOf(
  workspaceDir: string,
  refs: readonly SnapshotRef[],
): Promise<{ snapshots: LocatedSnapshot[]; diagnostics: Diagnostic[] }> {
  const wanted = new Set(refs.map((r) => `${r.file}:${r.line}`));
  const files = [...new Set(refs.map((r) => r.file))];
  const claims = (await readClaims(workspaceDir)).claims;
  const snapshots: LocatedSnapshot[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = (await readMemoryFile(workspaceDir, file)).toString("utf8");
    } catch (error) {
      diagnostics.push({
        file,
        line: 0,
        message: `not read: ${error instanceof Error ? error.message : String(error)}`,
      });
      continue;
    }
    const parsed = parseDailyLog(text, file);
    for (const s of parsed.snapshots)
      if (wanted.has(`${s.file}:${s.line}`)) snapshots.push(claimed(claims, s));
    diagnostics.push(...parsed.diagnostics.filter((d) => wanted.has(`${d.file}:${d.line}`)));
  }
  return { snapshots: snapshots.sort(olderFirst), diagnostics };
}
