/**
 * The persistence gate: every byte big-memory writes goes through one of the functions here, and every
 * text among those bytes through `redact`, so a new file format cannot forget redaction or modes.
 *
 * - Text and JSON are redacted (`[REDACTED:<kind>]`) before they are written; the counts come back.
 * - Bytes (the search index) are accepted only as derived from text that was redacted on read
 *   (`parseDailyLog` redacts every snapshot it returns); they are written with the same modes.
 * - Folders the gate creates are 0700, files 0600. The state root `.big-memory/` carries a `.gitignore`
 *   holding `*`, so a workspace pushed to a public repository never carries the plugin's state.
 * - Writes are atomic (temp file, fsync, rename, folder fsync) or durable appends (O_APPEND, fsync).
 */
import { randomBytes } from "node:crypto";
import { constants, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import {
  chmod,
  type FileHandle,
  link,
  lstat,
  mkdir,
  open,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { addCounts, type Redaction, type RedactionCounts, redact } from "../snapshot/redact.ts";
import { appendDurably, errorCode, fsyncDirectory, writeAll } from "./fs-durable.ts";
import { redactJsonParts } from "./gate-json.ts";

export { addCounts };

/** Mode of every folder big-memory creates. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of every file big-memory creates (state, index, locks, restore log, daily logs it creates). */
export const PRIVATE_FILE_MODE = 0o600;
/** The plugin's state folder inside a workspace. */
export const STATE_DIR_NAME = ".big-memory";
/** What the state folder's `.gitignore` holds: everything in it is ignored, the file itself included. */
export const STATE_GITIGNORE = "# big-memory's private state: never commit it.\n*\n";

/** What a gated write replaced, by kind, and the total. */
export interface GateReport {
  counts: RedactionCounts;
  total: number;
}

/** Redacts one text for the disk. */
export function gateText(text: string): Redaction {
  return redact(text);
}

/** A text the gate gave back, written as it is; only {@link gateTextOnce} makes one (its text is kept here). */
export type GatedText = { readonly gated: true };
const gatedTexts = new WeakMap<GatedText, string>();

/** {@link gateText}, with the redacted text also as a {@link GatedText} for the writer. */
export function gateTextOnce(text: string): Redaction & { gated: GatedText } {
  const result = redact(text);
  const gated: GatedText = Object.freeze({ gated: true as const });
  gatedTexts.set(gated, result.text);
  return { ...result, gated };
}

/**
 * The JSON line (with its line feed) of `value` and, as its field `key`, a text the gate gave back: `value`
 * passes the gate, the text is not redacted twice (its JSON string is the gated text, escaped). When the gate
 * changed the line's end, the whole line passes it.
 */
export function gateJsonLineWith(value: object, key: string, text: GatedText): GatedText {
  const head = redact(JSON.stringify(value)).text;
  const body = gatedTextOf(text);
  if (!head.startsWith("{") || !head.endsWith("}") || head === "{}")
    return gateTextOnce(`${JSON.stringify({ ...value, [key]: body })}\n`).gated;
  const gated: GatedText = Object.freeze({ gated: true as const });
  gatedTexts.set(gated, `${head.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(body)}}\n`);
  return gated;
}

/** The text of a {@link GatedText}; throws for an object the gate did not make. */
export function gatedTextOf(gated: GatedText): string {
  const text = gatedTexts.get(gated);
  if (text === undefined) throw new Error("big-memory: a text passed as gated was not made by the gate");
  return text;
}

/** Redacts every string of a JSON-like value for the disk (as `redactDeep`, part by part: gate-json.ts). */
export function gateJson<T>(value: T): { value: T; counts: RedactionCounts; total: number } {
  return redactJsonParts(value);
}

/**
 * Creates `dir` and its missing ancestors with mode 0700, fsyncing the parent of each one it created.
 * A created folder named `.big-memory` gets its `.gitignore`. Returns the folders created, outermost first.
 */
export async function ensurePrivateDir(dir: string): Promise<string[]> {
  const target = resolve(dir);
  // The usual case, a folder that is there: one synchronous stat (none for the state folder itself, which the
  // link check found a folder), no round trip through the thread pool.
  if (refuseLinkedStateDir(target) || statSync(target, { throwIfNoEntry: false })?.isDirectory() === true)
    return [];
  let first: string | undefined;
  try {
    first = await mkdir(target, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (error) {
    if (errorCode(error) !== "EEXIST" && errorCode(error) !== "ENOTDIR") throw error;
    throw Object.assign(new Error(`big-memory: ${target} is a file, not a folder`, { cause: error }), {
      code: "ENOTDIR",
    });
  }
  if (first === undefined) return [];
  const created: string[] = [];
  for (let current = target; ; current = dirname(current)) {
    created.unshift(current);
    if (current === first || dirname(current) === current) break;
  }
  for (const made of created) {
    // mkdir's mode passes through the umask; a folder of ours is 0700 whatever the umask is.
    await chmod(made, PRIVATE_DIR_MODE);
    await fsyncDirectory(dirname(made));
    if (basename(made) === STATE_DIR_NAME) await ensureStateGitignore(made);
  }
  return created;
}

/**
 * Makes an existing state folder private: mode 0700 and its `.gitignore` (older versions wrote neither).
 * Returns what it changed, as short phrases (`[]` when nothing needed a change).
 */
export async function secureStateDir(stateDir: string): Promise<string[]> {
  const changed: string[] = [];
  refuseLinkedStateDir(stateDir);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(stateDir);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return changed;
    throw error;
  }
  if ((info.mode & 0o777) !== PRIVATE_DIR_MODE) {
    await chmod(stateDir, PRIVATE_DIR_MODE);
    changed.push(`${STATE_DIR_NAME}/ mode ${(info.mode & 0o777).toString(8)} -> 700`);
  }
  if (await ensureStateGitignore(stateDir)) changed.push(`${STATE_DIR_NAME}/.gitignore written`);
  return changed;
}

/**
 * Throws when a state folder (`.big-memory`) on the way to `target` exists as anything but a real folder:
 * a link would carry the plugin's private state (and its modes) wherever it points, so it is refused,
 * never written through. Returns whether `target` is itself a state folder found a real folder (no `stat` of
 * it needed after).
 */
export function refuseLinkedStateDir(target: string): boolean {
  const parts = resolve(target).split(sep);
  let isFolder = false;
  for (let i = parts.length; i > 0; i--) {
    if (parts[i - 1] !== STATE_DIR_NAME) continue;
    const path = parts.slice(0, i).join(sep) || sep;
    let info: ReturnType<typeof lstatSync>;
    try {
      info = lstatSync(path);
    } catch (error) {
      if (errorCode(error) === "ENOENT") continue;
      throw error;
    }
    if (info?.isDirectory() === true) {
      isFolder ||= i === parts.length;
      continue;
    }
    const what = info?.isSymbolicLink() === true ? `a link to ${readlinkSync(path)}` : "not a folder";
    throw Object.assign(
      new Error(
        `big-memory: refusing to write through ${path}: it is ${what}; big-memory keeps its private state in a real folder: move the link away (big-memory creates the folder, mode 0700)`,
      ),
      { code: "ENOTDIR" },
    );
  }
  return isFolder;
}

/** Writes the state folder's `.gitignore` when it is missing or differs; `true` when it wrote. */
async function ensureStateGitignore(stateDir: string): Promise<boolean> {
  const path = join(stateDir, ".gitignore");
  const current = await readFile(path, "utf8").catch(() => null);
  if (current === STATE_GITIGNORE) return false;
  await writeFile(path, STATE_GITIGNORE, { mode: PRIVATE_FILE_MODE });
  await chmod(path, PRIVATE_FILE_MODE);
  return true;
}

/** Options of {@link writePrivateBytes}. */
export interface WriteBytesOptions {
  /** Keep the file being replaced as `<path><suffix>` (the search index keeps `.prev`). */
  keepPreviousAs?: string;
  /** Give the new file the mode of the one it replaces (a daily log rewritten on request keeps its mode). */
  keepMode?: boolean;
  /**
   * fsync the file and its folder before resolving. Default true. False for a state whose durability may
   * follow the write (see state.ts `update`): the new file is in place for every process at once and survives
   * the writer's crash, and {@link syncWritten} makes it durable behind.
   */
  sync?: boolean;
}

/**
 * Writes `data` to `path` atomically with mode 0600: temp file in the same folder, fsync, rename, fsync of
 * the folder. For bytes derived from redacted text only (the search index); text goes through
 * {@link writePrivateText}.
 */
export async function writePrivateBytes(
  path: string,
  data: Uint8Array,
  options: WriteBytesOptions = {},
): Promise<void> {
  const dir = dirname(path);
  await ensurePrivateDir(dir);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const mode = options.keepMode === true ? await modeOf(path) : PRIVATE_FILE_MODE;
  const handle = await open(tmp, "wx", mode);
  try {
    await handle.chmod(mode);
    await writeAll(handle, data);
    if (options.sync !== false) await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (options.keepPreviousAs !== undefined) await keepCopy(path, path + options.keepPreviousAs);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  if (options.sync !== false) await fsyncDirectory(dir);
}

/**
 * Makes a file written with `sync: false` durable: fsyncs the file now at `path` (the one written, or a later
 * replacement, which is as good) and its folder (the rename). A file or folder removed meanwhile needs nothing.
 */
export async function syncWritten(path: string): Promise<void> {
  try {
    // Never follows a link, nor blocks on a FIFO put in the file's place meanwhile.
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsyncDirectory(dirname(path));
  } catch (error) {
    if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ELOOP") throw error;
  }
}

/**
 * Makes `copy` a hard link to the current `path` (replacing an older `copy`), so `path` itself never goes
 * missing while it is replaced. Nothing to keep when `path` does not exist.
 */
async function keepCopy(path: string, copy: string): Promise<void> {
  const staging = `${copy}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await link(path, staging);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  try {
    await rename(staging, copy);
  } catch (error) {
    await rm(staging, { force: true });
    throw error;
  }
}

/** The permission bits of an existing file, 0600 when it does not exist. */
async function modeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return PRIVATE_FILE_MODE;
    throw error;
  }
}

/** Redacts `text` and writes it to `path` atomically with mode 0600. Returns what was redacted. */
export async function writePrivateText(
  path: string,
  text: string,
  options: WriteBytesOptions = {},
): Promise<GateReport> {
  const gated = gateText(text);
  await writePrivateBytes(path, Buffer.from(gated.text, "utf8"), options);
  return { counts: gated.counts, total: gated.total };
}

/**
 * Redacts every string of `value` and writes it as one line of JSON, atomically, mode 0600. Returns the
 * value as written, so that what stays in memory is what is on disk.
 */
export async function writePrivateJson<T>(
  path: string,
  value: T,
  options: WriteBytesOptions = {},
): Promise<GateReport & { value: T }> {
  const gated = gateJson(value);
  await writePrivateBytes(path, Buffer.from(`${JSON.stringify(gated.value)}\n`, "utf8"), options);
  return gated;
}

/** Options of {@link appendPrivateText}. */
export interface AppendOptions {
  /**
   * fsync the file (and its folder when new) before resolving. Default true. False only for a copy of bytes
   * that were just made durable elsewhere (the journal of a daily log's append): the kernel writes it back
   * within seconds, and the save path pays no second fsync.
   */
  sync?: boolean;
}

/**
 * Redacts `text` (a text the gate gave back: as it is) and appends it to `path` (created 0600) durably: one
 * write on an `O_APPEND` handle, then fsync, and an fsync of the folder when the file is new (see
 * {@link AppendOptions}). Returns what was redacted, and whether the append created the file.
 */
export async function appendPrivateText(
  path: string,
  text: string | GatedText,
  options: AppendOptions = {},
): Promise<GateReport & { created: boolean }> {
  const gated = typeof text === "string" ? gateText(text) : { text: gatedTextOf(text), counts: {}, total: 0 };
  await ensurePrivateDir(dirname(path));
  const { handle, created } = await openAppending(path);
  try {
    const data = Buffer.from(gated.text, "utf8");
    if (options.sync === false) await writeAll(handle, data);
    else await appendDurably(handle, data, { dir: dirname(path), created });
  } finally {
    await handle.close();
  }
  return { counts: gated.counts, total: gated.total, created };
}

/**
 * Redacts `value` and appends it as one JSON line to `path` (see {@link appendPrivateText}). Lines of
 * concurrent appenders never interleave on a local file system.
 */
export async function appendPrivateJsonLine(
  path: string,
  value: unknown,
  options: AppendOptions = {},
): Promise<GateReport & { created: boolean }> {
  const gated = gateJson(value);
  const appended = await appendPrivateText(path, `${JSON.stringify(gated.value)}\n`, options);
  return { counts: gated.counts, total: gated.total, created: appended.created };
}

/**
 * Rewrites a daily log of the user's atomically, keeping its mode: the one write of text big-memory did not
 * produce, done only on explicit request (`archive`, `scrub --logs`). The caller decides what the text is.
 */
export async function rewriteUserLog(path: string, text: string): Promise<void> {
  await writePrivateBytes(path, Buffer.from(text, "utf8"), { keepMode: true });
  // The journal takes the log as rewritten for its new baseline, so a log that big-memory itself made
  // shorter (its blocks archived, secrets scrubbed) is not reported as cut. Loaded here: gate.ts is below it.
  const { recordRewrite } = await import("./journal.ts");
  await recordRewrite(path);
}

/**
 * Opens `path` for appending, creating it (0600) when it is missing; `created`: this call made it. The usual
 * case, a file that is there, is one `open`, not a `stat` before it.
 */
async function openAppending(path: string): Promise<{ handle: FileHandle; created: boolean }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { handle: await open(path, constants.O_WRONLY | constants.O_APPEND), created: false };
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
    }
    try {
      return { handle: await open(path, "ax", PRIVATE_FILE_MODE), created: true };
    } catch (error) {
      // Made by another writer meanwhile (open it again), or a link to nowhere (refused).
      if (errorCode(error) !== "EEXIST" || attempt >= 3) throw error;
    }
  }
}

/** A path that resolves outside the workspace through a symbolic link. */
export class OutsideWorkspaceError extends Error {
  readonly path: string;
  readonly target: string;

  constructor(path: string, target: string, workspaceDir: string) {
    super(
      `big-memory: refusing to write through ${path}: it resolves to ${target}, outside the workspace ${workspaceDir} (a symbolic link); replace the link with a folder or file of the workspace`,
    );
    this.name = "OutsideWorkspaceError";
    this.path = path;
    this.target = target;
  }
}

/**
 * The real path of `path` (which must lie in `workspaceDir`), following symbolic links of every existing
 * component, dangling ones included; throws {@link OutsideWorkspaceError} when that real path is outside the
 * workspace's own real path. Components that do not exist yet resolve as they are written.
 */
export async function resolveInside(workspaceDir: string, path: string): Promise<string> {
  // Synchronous, as the lock's calls are: two realpaths on local paths cost less than their round trips
  // through the thread pool (about 28 against 6 us of CPU each), which an append under load waited for.
  let root: string;
  try {
    root = realpathSync.native(workspaceDir);
  } catch {
    root = resolve(workspaceDir);
  }
  const target = await realPathOf(resolve(path));
  const rel = relative(root, target);
  if (rel.startsWith("..") || isAbsolute(rel)) throw new OutsideWorkspaceError(path, target, root);
  return target;
}

/** The real path of `absolute`, resolving links even when their target does not exist (yet). */
async function realPathOf(absolute: string): Promise<string> {
  let existing = absolute;
  const rest: string[] = [];
  for (let hops = 0; hops < 64; hops++) {
    try {
      return join(realpathSync.native(existing), ...rest);
    } catch (error) {
      if (errorCode(error) !== "ENOENT" || dirname(existing) === existing) throw error;
    }
    const info = await lstat(existing).catch(() => null);
    if (info?.isSymbolicLink() === true) {
      existing = resolve(dirname(existing), await readlink(existing));
    } else {
      rest.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
  throw new Error(`big-memory: too many symbolic links resolving ${absolute}`);
}
