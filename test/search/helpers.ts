/** Builders shared by the search tests: snapshots, located snapshots, daily logs in temp workspaces. */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planQuery } from "../../plugin/search/query.ts";
import type { TermLookup } from "../../plugin/search/scoring.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";

/** The shared snapshot builders, under the names these tests use. */
export { located, snapshot as snap } from "../builders.ts";

/**
 * The lookups of a query's planned terms, term i on bit `1 << i`: exact only, or, with `widen`, by
 * prefix and typos as planned (typo neighbours found by each shard).
 */
export function lookupsOf(query: string, widen = false): TermLookup[] {
  return planQuery(query).terms.map((term, i) => ({
    term,
    bit: 1 << i,
    part: term.roles.every((r) => r.kind === "part"),
    prefix: widen && term.prefix,
    fuzzy: widen ? term.fuzzy : 0,
  }));
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

/** A logger that records warnings. */
export function recordingLogger(): { warn(message: string): void; warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}

/**
 * Makes a daily log unreadable, also for root (for whom `chmod 000` does not bite): the log becomes a link
 * to `/proc/self/mem`, which stats as a regular file (and fails every read from its start with a real
 * EIO); it lies outside `memory/`, so the readers refuse it before opening it, and name it. Returns what
 * puts the log's text back (as a new file: new inode, new times).
 */
export async function makeUnreadable(dir: string, file: string): Promise<() => Promise<void>> {
  const path = join(dir, file);
  const text = await readFile(path, "utf8");
  await rm(path);
  await symlink("/proc/self/mem", path);
  return async () => {
    await rm(path);
    await writeFile(path, text);
  };
}

/** The diagnostic message of a log made unreadable by {@link makeUnreadable} (read by this process). */
export const unreadableMessage = (file: string) =>
  `${file} is not read: it is a link to /proc/${process.pid}/mem, outside memory/; replace the link with the log itself; its snapshots are left out`;
