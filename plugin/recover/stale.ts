import { stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { timestampMillis } from "../snapshot/time.ts";
import { errorCode } from "../store/fs-durable.ts";

/**
 * Warnings for files in play: gone since the snapshot, or changed after it was taken. Relative paths
 * are read against the workspace. At most 40 files are checked.
 */
export async function staleWarnings(workspaceDir: string, located: LocatedSnapshot): Promise<string[]> {
  const taken = timestampMillis(located.snapshot.timestamp);
  const checks = located.snapshot.files.slice(0, 40).map(async (f): Promise<string | null> => {
    const path = f.path.trim();
    if (path === "" || /[*?]/.test(path)) return null;
    try {
      const info = await stat(isAbsolute(path) ? path : join(workspaceDir, path));
      return !Number.isNaN(taken) && info.mtimeMs > taken + 1000
        ? `${path} changed since the snapshot was taken`
        : null;
    } catch (error) {
      const code = errorCode(error);
      return code === "ENOENT" || code === "ENOTDIR" ? `${path} does not exist (any more, or yet)` : null;
    }
  });
  const warnings = (await Promise.all(checks)).filter((w): w is string => w !== null);
  if (located.verified === false)
    warnings.unshift("this snapshot was modified after it was written (checksum mismatch)");
  return warnings;
}
