/** Builders shared by the search tests: snapshots, located snapshots, daily logs in temp workspaces. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { emptyContent, type LocatedSnapshot, type Snapshot } from "../../plugin/snapshot/snapshot.ts";

/** A valid snapshot with id `id` (its date gives the timestamp, 10:00 UTC) and the given fields. */
export function snap(id: string, over: Partial<Snapshot> = {}): Snapshot {
  return {
    version: 1,
    id,
    timestamp: `${id.slice(0, 10)}T10:00:00+00:00`,
    session: "agent:main:main",
    agent: "main",
    trigger: "manual",
    name: null,
    parent: null,
    tombstone: false,
    ...emptyContent(),
    goal: `goal of ${id}`,
    ...over,
  };
}

/** A snapshot as found in its daily log (the file named by its id's date), at `line`. */
export function located(s: Snapshot, line = 1): LocatedSnapshot {
  return { snapshot: s, file: `memory/${s.id.slice(0, 10)}.md`, line, verified: true, checksum: null };
}

/** A temporary workspace; `cleanup` removes it. */
export async function tempWorkspace(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "big-memory-search-"));
  await mkdir(join(dir, "memory"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes the daily log of `date` holding `snapshots` (rendered as the plugin appends them). */
export async function writeLog(dir: string, date: string, snapshots: readonly Snapshot[]): Promise<string> {
  const file = `memory/${date}.md`;
  await writeFile(join(dir, file), `# ${date}\n\n${snapshots.map((s) => renderSnapshot(s)).join("\n")}`);
  return file;
}

/** Polls `check` every 10 ms until it returns true; rejects after `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 5000): Promise<number> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - started;
}

/** A logger that records warnings. */
export function recordingLogger(): { warn(message: string): void; warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}
