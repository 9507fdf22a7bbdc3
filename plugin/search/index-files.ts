/**
 * Where a workspace's search index lives: one file per month under `<workspace>/.big-memory/search/`
 * (or `<stateDir>/search/<workspace hash>/`). Paths only, so that a command reading saved refs does not
 * load the code that writes shards.
 */
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";

/** The suffix of a month's shard file. */
export const SHARD_SUFFIX = ".bmx";

/** The folder of a workspace's search index. */
export function indexDir(workspaceDir: string, stateDir?: string): string {
  if (stateDir === undefined) return join(workspaceDir, ".big-memory", "search");
  const key = createHash("sha256").update(resolve(workspaceDir)).digest("hex").slice(0, 16);
  return join(stateDir, "search", key);
}

/** The file of a month's shard. */
export function shardPath(dir: string, month: string): string {
  return join(dir, `${month}${SHARD_SUFFIX}`);
}
