/**
 * Opening a file of the workspace's `memory/` for reading, with the workspace as the boundary: the file's
 * real path (every link resolved) must lie inside the real `memory/`, which must itself lie inside the
 * workspace; only a regular file is read, as the open handle says (`fstat` after an `open` with
 * `O_NONBLOCK | O_NOFOLLOW`), so a FIFO, a device or a socket is refused without blocking, and a link
 * swapped in after the check is not followed. A file that is refused is told with an error naming it, the
 * reason and the fix ({@link RefusedFileError}); a file that is gone rejects with its `ENOENT` error.
 */
import type { Stats } from "node:fs";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import { type FileHandle, lstat, open, realpath } from "node:fs/promises";
import { isAbsolute, join, posix, relative } from "node:path";
import type { Diagnostic } from "../snapshot/snapshot.ts";
import { errorCode, errorMessage } from "./fs-durable.ts";

/** The folder of the daily logs, relative to the workspace. */
export const MEMORY_DIR = "memory";
/** big-memory's own archive inside {@link MEMORY_DIR} (`archive --before`), read like the daily logs. */
export const ARCHIVE_DIR = ".big-memory-archive";

/** Flags of every read open: no blocking on a FIFO, no following of a final link. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * A file of `memory/` that big-memory does not read: outside `memory/` (by its name or through a link),
 * not a regular file, or a link that never ends. `code` is `"EREFUSED"`; the message names the file, the
 * reason and the fix: `big-memory: memory/2026-11-21.md is not read: it is a link to /home/me/x.md, outside
 * memory/; replace the link with the log itself`.
 */
export class RefusedFileError extends Error {
  readonly code = "EREFUSED";
  readonly file: string;
  readonly reason: string;
  readonly fix: string;
  /** Why, as a word: outside `memory/` (by name or link), a loop of links, a folder, another special file. */
  readonly kind: "outside" | "loop" | "folder" | "special";

  constructor(file: string, reason: string, fix: string, kind: RefusedFileError["kind"]) {
    super(`big-memory: ${file} is not read: ${reason}; ${fix}`);
    this.name = "RefusedFileError";
    this.file = file;
    this.reason = reason;
    this.fix = fix;
    this.kind = kind;
  }
}

/**
 * `file` (workspace-relative, `/` or the system's separator) normalized to `memory/...`, or null when its
 * name alone leads outside `memory/` (`memory/../x.md`, `/etc/x.md`, `notes.md`).
 */
export function memoryRelative(file: string): string | null {
  if (isAbsolute(file)) return null;
  const rel = posix.normalize(file.split("\\").join("/"));
  if (!rel.startsWith(`${MEMORY_DIR}/`) || rel.split("/").includes("..")) return null;
  return rel;
}

/** What a file of this type is, for messages. */
function kindOf(info: Stats): string {
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  if (info.isDirectory()) return "a folder";
  return "not a regular file";
}

/** Whether `inner` is `outer` or lies inside it (both real, absolute). */
function within(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

const outsideName = (file: string) =>
  new RefusedFileError(
    file,
    "it is outside the workspace's memory/ folder",
    "name a daily log in memory/ (memory/2026-11-22.md)",
    "outside",
  );
const loop = (file: string) =>
  new RefusedFileError(file, "it is a loop of links", "replace the link with the log itself", "loop");
const notRegular = (file: string, info: Stats) =>
  new RefusedFileError(
    file,
    `it is ${kindOf(info)}, not a regular file`,
    "move it out of memory/",
    info.isDirectory() ? "folder" : "special",
  );

const socket = (file: string) =>
  new RefusedFileError(file, "it is a socket, not a regular file", "move it out of memory/", "special");

/** The checks shared by both resolvers once the real paths are known. */
function checkReal(file: string, root: string, memory: string, real: string): string {
  if (!within(root, memory)) {
    throw new RefusedFileError(
      file,
      `memory/ is a link to ${memory}, outside the workspace`,
      "replace the link with the folder itself",
      "outside",
    );
  }
  if (!within(memory, real) || real === memory) {
    throw new RefusedFileError(
      file,
      `it is a link to ${real}, outside memory/`,
      "replace the link with the log itself",
      "outside",
    );
  }
  return real;
}

/** Turns a loop of links into its refusal; rethrows the rest (ENOENT: the file is gone). */
function refuseLoop(file: string, error: unknown): never {
  if (errorCode(error) === "ELOOP") throw loop(file);
  throw error;
}

/**
 * The real path of `file` (workspace-relative) after the boundary checks; rejects with
 * {@link RefusedFileError} or the system's error (`ENOENT` when it, or the target of its link, is gone).
 * When no component from `memory/` down to the file is a link (the common case), that is the path as named,
 * found with one `lstat` a level; otherwise every link is resolved and the real path checked.
 */
export async function resolveMemoryFile(workspaceDir: string, file: string): Promise<string> {
  const rel = memoryRelative(file);
  if (rel === null) throw outsideName(file);
  // No link from memory/ down to the file: its real path is inside memory/ as named (one lstat a level).
  let path = workspaceDir;
  let linked = false;
  for (const part of rel.split("/")) {
    path = join(path, part);
    if ((await lstat(path).catch((error: unknown) => refuseLoop(file, error))).isSymbolicLink()) {
      linked = true;
      break;
    }
  }
  if (!linked) return join(workspaceDir, rel);
  const [root, memory] = await Promise.all([
    realpath(workspaceDir),
    realpath(join(workspaceDir, MEMORY_DIR)),
  ]);
  const real = await realpath(join(workspaceDir, rel)).catch((error: unknown) => refuseLoop(file, error));
  return checkReal(file, root, memory, real);
}

/** {@link resolveMemoryFile}, synchronously. */
export function resolveMemoryFileSync(workspaceDir: string, file: string): string {
  const rel = memoryRelative(file);
  if (rel === null) throw outsideName(file);
  let path = workspaceDir;
  let linked = false;
  for (const part of rel.split("/")) {
    path = join(path, part);
    let info: Stats;
    try {
      info = lstatSync(path);
    } catch (error) {
      refuseLoop(file, error);
    }
    if (info.isSymbolicLink()) {
      linked = true;
      break;
    }
  }
  if (!linked) return join(workspaceDir, rel);
  const root = realpathSync.native(workspaceDir);
  const memory = realpathSync.native(join(workspaceDir, MEMORY_DIR));
  let real: string;
  try {
    real = realpathSync.native(join(workspaceDir, rel));
  } catch (error) {
    refuseLoop(file, error);
  }
  return checkReal(file, root, memory, real);
}

/**
 * Opens `file` (workspace-relative) for reading within the boundary (see the module comment) and returns
 * the handle with its `fstat`; the caller closes it. Rejects with {@link RefusedFileError}, or with the
 * system's error (`ENOENT` when the file is gone).
 */
export async function openMemoryFile(
  workspaceDir: string,
  file: string,
): Promise<{ handle: FileHandle; info: Stats }> {
  const rel = memoryRelative(file);
  if (rel === null) throw outsideName(file);
  // As readMemoryFileSync: the folders are lstat'ed, the file opened as named unless a link is on the way.
  let path = workspaceDir;
  let linked = false;
  for (const part of rel.split("/").slice(0, -1)) {
    path = join(path, part);
    if ((await lstat(path)).isSymbolicLink()) {
      linked = true;
      break;
    }
  }
  const openAt = async (target: string) => {
    try {
      return await open(target, READ_FLAGS);
    } catch (error) {
      if (errorCode(error) === "ENXIO") throw socket(file);
      throw error;
    }
  };
  let handle: FileHandle;
  try {
    handle = await openAt(linked ? await resolveMemoryFile(workspaceDir, file) : join(workspaceDir, rel));
  } catch (error) {
    if (linked || errorCode(error) !== "ELOOP") refuseLoop(file, error);
    handle = await openAt(await resolveMemoryFile(workspaceDir, file)).catch((again: unknown) =>
      refuseLoop(file, again),
    );
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(file, info);
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The bytes of one of big-memory's own files (under `.big-memory/`), read as a daily log is: opened with
 * `O_NONBLOCK | O_NOFOLLOW` and read only when the handle is a regular file, so a FIFO or a link put in its
 * place never blocks or redirects a command. `name` (workspace-relative) names it in a refusal; a missing
 * file rejects with `ENOENT`, a folder with {@link RefusedFileError} of kind `"folder"`.
 */
export async function readStateFile(path: string, name: string): Promise<Buffer> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    throw stateOpenError(error, name);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegularState(info, name);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * One of big-memory's own files opened for reading as {@link readStateFile} opens it, synchronously: the
 * descriptor and its `fstat`; the caller closes it. A link, a FIFO, a device, a socket or a folder is
 * refused ({@link RefusedFileError}) without blocking; a missing file throws its `ENOENT` error.
 */
export function openStateFileSync(path: string, name: string): { fd: number; info: Stats } {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    throw stateOpenError(error, name);
  }
  const info = fstatSync(fd);
  if (info.isFile()) return { fd, info };
  closeSync(fd);
  throw notRegularState(info, name);
}

/** What an open of one of big-memory's own files failed with: a socket or a link refused by name. */
function stateOpenError(error: unknown, name: string): unknown {
  if (errorCode(error) === "ENXIO") return socket(name);
  if (errorCode(error) === "ELOOP") {
    return new RefusedFileError(name, "it is a link", "move it away (big-memory writes it again)", "outside");
  }
  return error;
}

/** The refusal of one of big-memory's own files that is open but not a regular file. */
function notRegularState(info: Stats, name: string): RefusedFileError {
  return new RefusedFileError(
    name,
    `it is ${kindOf(info)}, not a regular file`,
    "move it away (big-memory writes it again)",
    info.isDirectory() ? "folder" : "special",
  );
}

/** {@link readStateFile}, synchronously (state read on a synchronous path: session files, index shards). */
export function readStateFileSync(path: string, name: string): Buffer {
  const { fd, info } = openStateFileSync(path, name);
  try {
    return readAllSync(fd, info.size);
  } finally {
    closeSync(fd);
  }
}

/** The bytes of `file` read within the boundary (see {@link openMemoryFile}). */
export async function readMemoryFile(workspaceDir: string, file: string): Promise<Buffer> {
  const { handle } = await openMemoryFile(workspaceDir, file);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** {@link readMemoryFile}, synchronously, with the `fstat` of the handle the bytes were read from. */
export function readMemoryFileSync(workspaceDir: string, file: string): { bytes: Buffer; info: Stats } {
  const rel = memoryRelative(file);
  if (rel === null) throw outsideName(file);
  const parts = rel.split("/");
  // The folders from memory/ down: when none is a link, the file is opened as named, and O_NOFOLLOW makes
  // a link in the file's own place fail (ELOOP), which sends it through the full check instead.
  let path = workspaceDir;
  let linked = false;
  for (const part of parts.slice(0, -1)) {
    path = join(path, part);
    if (lstatSync(path).isSymbolicLink()) {
      linked = true;
      break;
    }
  }
  let fd: number;
  try {
    fd = openSync(linked ? resolveMemoryFileSync(workspaceDir, file) : join(workspaceDir, rel), READ_FLAGS);
  } catch (error) {
    if (errorCode(error) === "ENXIO") throw socket(file);
    if (linked || errorCode(error) !== "ELOOP") refuseLoop(file, error);
    try {
      fd = openSync(resolveMemoryFileSync(workspaceDir, file), READ_FLAGS);
    } catch (again) {
      if (errorCode(again) === "ENXIO") throw socket(file);
      refuseLoop(file, again);
    }
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw notRegular(file, info);
    return { bytes: readAllSync(fd, info.size), info };
  } finally {
    closeSync(fd);
  }
}

/** Every byte of an open file whose size was `size` when stat'ed (more when it grew meanwhile). */
function readAllSync(fd: number, size: number): Buffer {
  const chunks: Buffer[] = [];
  // One byte more than the size: the read that finds the end then needs no second buffer.
  let buffer = Buffer.allocUnsafe(size + 1);
  let filled = 0;
  for (;;) {
    const n = readSync(fd, buffer, filled, buffer.length - filled, null);
    if (n === 0) break;
    filled += n;
    if (filled === buffer.length) {
      chunks.push(buffer);
      buffer = Buffer.allocUnsafe(64 * 1024);
      filled = 0;
    }
  }
  chunks.push(buffer.subarray(0, filled));
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/**
 * The stat of `file` when it is a regular file within the boundary, null when it is gone, or the
 * {@link RefusedFileError} that reading it would meet. Cheap for the common case: a plain file in its
 * folder costs one `lstat`; only a link is resolved. (The folders are checked when the file is read.)
 */
export function statMemoryFileSync(workspaceDir: string, file: string): Stats | RefusedFileError | null {
  const rel = memoryRelative(file);
  if (rel === null) return outsideName(file);
  const path = join(workspaceDir, rel);
  try {
    const info = lstatSync(path);
    if (info.isFile()) return info;
    if (!info.isSymbolicLink()) return notRegular(file, info);
    resolveMemoryFileSync(workspaceDir, rel);
    const target = statSync(path);
    return target.isFile() ? target : notRegular(file, target);
  } catch (error) {
    if (error instanceof RefusedFileError) return error;
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return null;
    if (errorCode(error) === "ELOOP") return loop(file);
    throw error;
  }
}

/** What to do about a daily log that cannot be read, by the system error code. */
const READ_FIXES: Readonly<Record<string, string>> = {
  EACCES: "check its owner and mode",
  EPERM: "check its owner and mode",
  EIO: "check the disk it is on",
  ELOOP: "replace the link with the log itself",
  EISDIR: "move the folder away",
};

/** Failures of the machine rather than of one log: reading the other logs would fail the same way. */
const MACHINE_FAILURES = new Set(["EMFILE", "ENFILE", "ENOMEM"]);

/**
 * What a failure to read the daily log `file` (workspace-relative) means: `null` when the log is gone
 * (`ENOENT`), else the problem of that log alone, as a diagnostic of the whole file (line 0) whose message
 * names the log, the system's reason and the fix: `memory/2026-11-20.md cannot be read (EACCES: permission
 * denied): check its owner and mode; its snapshots are left out until it can be read`. A file refused at
 * the workspace's boundary (log-open.ts) is told as such: `memory/2026-11-23.md is not read: it is a FIFO
 * (named pipe), not a regular file; move it out of memory/; its snapshots are left out`. The caller reads
 * the other logs on. A failure of the machine (out of memory or file descriptors) is rethrown.
 */
export function readFailure(file: string, error: unknown): Diagnostic | null {
  if (error instanceof RefusedFileError) {
    return {
      file,
      line: 0,
      message: `${file} is not read: ${error.reason}; ${error.fix}; its snapshots are left out`,
    };
  }
  const code = errorCode(error);
  if (code === "ENOENT") return null;
  if (code !== undefined && MACHINE_FAILURES.has(code)) throw error;
  // Node's "EACCES: permission denied, open '/abs/path'": the path is the workspace's, named already.
  const reason = errorMessage(error).replace(/, [a-z]+(?: '.*')?$/, "");
  const fix = (code === undefined ? undefined : READ_FIXES[code]) ?? "check the file and the disk it is on";
  return {
    file,
    line: 0,
    message: `${file} cannot be read (${reason}): ${fix}; its snapshots are left out until it can be read`,
  };
}
