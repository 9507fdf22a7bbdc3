/**
 * The persistence gate's synchronous writes, for a process that is exiting (no event loop left to await
 * on), and for the small unsynced appends of the hook path: the same redaction, modes, `.gitignore` and
 * atomic rename as gate.ts.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { errorCode } from "./fs-durable.ts";
import {
  type GateReport,
  gateJson,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  refuseLinkedStateDir,
  STATE_DIR_NAME,
  STATE_GITIGNORE,
} from "./gate.ts";

/** {@link ensurePrivateDir} for a process that is exiting: synchronous, the same modes and `.gitignore`. */
export function ensurePrivateDirSync(dir: string): void {
  const target = resolve(dir);
  refuseLinkedStateDir(target);
  // The usual case, a folder that is there: one stat, not a mkdir that fails and a stat after it.
  if (statSync(target, { throwIfNoEntry: false })?.isDirectory() === true) return;
  const first = mkdirSync(target, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return;
  for (let current = target; ; current = dirname(current)) {
    chmodSync(current, PRIVATE_DIR_MODE);
    fsyncDirectorySync(dirname(current));
    // A state folder created here is new: its `.gitignore` is too.
    if (basename(current) === STATE_DIR_NAME) {
      writeFileSync(join(current, ".gitignore"), STATE_GITIGNORE, { mode: PRIVATE_FILE_MODE });
      chmodSync(join(current, ".gitignore"), PRIVATE_FILE_MODE);
    }
    if (current === first || dirname(current) === current) break;
  }
}

function fsyncDirectorySync(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } catch (error) {
    if (errorCode(error) !== "EINVAL") throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * {@link writePrivateJson} for a process that is exiting (no event loop left to await on): redacted, atomic,
 * mode 0600, the replaced file kept as `options.keepPreviousAs`, synchronously. The folder must exist
 * (see {@link ensurePrivateDirSync}).
 */
export function writePrivateJsonSync<T>(
  path: string,
  value: T,
  options: { keepPreviousAs?: string } = {},
): GateReport & { value: T } {
  const gated = gateJson(value);
  const data = Buffer.from(`${JSON.stringify(gated.value)}\n`, "utf8");
  const dir = dirname(path);
  refuseLinkedStateDir(dir);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    for (let written = 0; written < data.length; ) written += writeSync(fd, data, written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (options.keepPreviousAs !== undefined) keepCopySync(path, path + options.keepPreviousAs);
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  fsyncDirectorySync(dir);
  return gated;
}

/** gate.ts `keepCopy`, synchronously: the replaced file hard-linked to `copy`. */
function keepCopySync(path: string, copy: string): void {
  const staging = `${copy}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    linkSync(path, staging);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  try {
    renameSync(staging, copy);
  } catch (error) {
    rmSync(staging, { force: true });
    throw error;
  }
}

/**
 * Redacts `value` and appends it as one JSON line to `path` (created 0600 in a 0700 folder), without fsync:
 * for a record the hook path writes beside a durable update (the compaction ledger), where a power cut may
 * lose the last line but never tears an earlier one. When the file has grown past `rotateAt` bytes, it
 * becomes `<path>.1` (replacing the older one) and a new file starts. Returns what was redacted. Synchronous:
 * a few calls on a small file that only reach the page cache cost less than their round trips through the
 * thread pool.
 */
export function appendPrivateJsonLineUnsynced(
  path: string,
  value: unknown,
  opts: { rotateAt: number },
): GateReport {
  const gated = gateJson(value);
  ensurePrivateDirSync(dirname(path));
  const fd = openSync(path, "a", PRIVATE_FILE_MODE);
  let size = 0;
  try {
    const data = Buffer.from(`${JSON.stringify(gated.value)}\n`, "utf8");
    for (let at = 0; at < data.length; ) at += writeSync(fd, data, at, data.length - at);
    size = fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
  if (size > opts.rotateAt) renameSync(path, `${path}.1`);
  return { counts: gated.counts, total: gated.total };
}
