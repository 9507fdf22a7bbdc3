/**
 * The persistence gate's synchronous writes, for a process that is exiting (no event loop left to await
 * on), and for the small unsynced appends of the hook path: the same redaction, modes, `.gitignore` and
 * atomic rename as gate.ts.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
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
  type GatedText,
  type GateReport,
  gatedTextOf,
  gateJson,
  gateText,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  refuseLinkedStateDir,
  STATE_DIR_NAME,
  STATE_GITIGNORE,
} from "./gate.ts";

/** {@link ensurePrivateDir} for a process that is exiting: synchronous, the same modes and `.gitignore`. */
export function ensurePrivateDirSync(dir: string): void {
  const target = resolve(dir);
  // The usual case, a folder that is there: one stat (none for the state folder itself, which the link check
  // found a folder), not a mkdir that fails and a stat after it.
  if (refuseLinkedStateDir(target) || statSync(target, { throwIfNoEntry: false })?.isDirectory() === true)
    return;
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

/**
 * Redacts `text` (a text the gate gave back: as it is) and appends it to `path` (created 0600, its folder
 * private) in one write, without an fsync: gate.ts `appendPrivateText` with `sync: false`, made without
 * round trips through the thread pool (the journal's copy of a block the append just made durable).
 * `created`: this call made the file.
 */
export function appendPrivateTextUnsynced(
  path: string,
  text: string | GatedText,
): GateReport & { created: boolean } {
  const gated = typeof text === "string" ? gateText(text) : { text: gatedTextOf(text), counts: {}, total: 0 };
  ensurePrivateDirSync(dirname(path));
  const { fd, created } = openAppendingSync(path);
  try {
    const data = Buffer.from(gated.text, "utf8");
    for (let at = 0; at < data.length; ) at += writeSync(fd, data, at, data.length - at);
  } finally {
    closeSync(fd);
  }
  return { counts: gated.counts, total: gated.total, created };
}

/** gate.ts `openAppending`, synchronous: one `open` of a file that is there, an exclusive create otherwise. */
function openAppendingSync(path: string): { fd: number; created: boolean } {
  for (let attempt = 1; ; attempt++) {
    try {
      return { fd: openSync(path, constants.O_WRONLY | constants.O_APPEND), created: false };
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
    }
    try {
      return { fd: openSync(path, "ax", PRIVATE_FILE_MODE), created: true };
    } catch (error) {
      // Made by another writer meanwhile (open it again), or a link to nowhere (refused).
      if (errorCode(error) !== "EEXIST" || attempt >= 3) throw error;
    }
  }
}
