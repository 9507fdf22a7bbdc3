/**
 * A cross-process exclusive lock on a directory path, for short critical sections such as one append.
 *
 * Protocol. The lock is held while the directory `lockPath` exists and contains an owner file
 * `owner.<nonce>.json` (`{ version, pid, hostname, createdAt, nonce }`, the nonce unique per acquisition).
 * - Acquire: write the owner file into a fresh sibling directory `<lockPath>.<nonce>.tmp`, then
 *   `rename(tmp, lockPath)`. The rename is atomic and succeeds only when `lockPath` is absent or an empty
 *   directory; a held lock is never empty, so at most one contender gets it. A failed attempt removes its
 *   temporary directory and waits a short jittered delay before the next one.
 * - Release: unlink our own `owner.<nonce>.json`, then `rmdir(lockPath)`, which can only remove an empty
 *   directory, that is never somebody else's held lock.
 * - Break a stale lock: unlink the stale owner file by its unique name, then `rmdir` as on release. Exactly
 *   one waiter can unlink a given owner file; every other waiter gets `ENOENT` and simply retries, so two
 *   waiters that judged the same lock stale never both break it, and a lock taken after the stale one (a
 *   different nonce, a different file name) can never be removed by a late breaker.
 * A lock is stale when its owner process is dead on this host (`process.kill(pid, 0)` fails with `ESRCH`) or
 * when it is older than `staleMs` (other hosts, reused pids, an owner file lost in a crash).
 * The lock is not reentrant: nesting `withLock` on the same path in one process waits until the timeout.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { errorCode, errorMessage } from "./fs-durable.ts";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./gate.ts";

/** How long `withLock` waits for a held lock before it fails, in milliseconds. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
/** Age after which a lock is broken even when its owner looks alive, in milliseconds. */
export const DEFAULT_LOCK_STALE_MS = 30_000;
/** Version of the owner record written into the lock directory. */
export const LOCK_OWNER_VERSION = 1;

/** The owner record of a held lock. `createdAt` is in milliseconds since the epoch. */
export const LockOwner = z.object({
  version: z.literal(LOCK_OWNER_VERSION),
  pid: z.number().int().positive(),
  hostname: z.string(),
  createdAt: z.number(),
  nonce: z.string().regex(/^[0-9a-f]+$/),
});
export type LockOwner = z.infer<typeof LockOwner>;

export interface LockOptions {
  /** Give up waiting after this many milliseconds. Default {@link DEFAULT_LOCK_TIMEOUT_MS}; `0` tries once. */
  timeoutMs?: number;
  /** Break a lock older than this many milliseconds. Default {@link DEFAULT_LOCK_STALE_MS}. */
  staleMs?: number;
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Thrown by {@link withLock} when the lock stays held by a live owner for the whole timeout. */
export class LockTimeoutError extends Error {
  override readonly name = "LockTimeoutError";
  /** The lock directory waited for. */
  readonly lockPath: string;
  /** The holder seen last, or `null` when its owner record could not be read. */
  readonly owner: LockOwner | null;

  constructor(lockPath: string, timeoutMs: number, owner: LockOwner | null) {
    const holder =
      owner === null
        ? "an owner whose record cannot be read"
        : `pid ${owner.pid} on ${owner.hostname} since ${new Date(owner.createdAt).toISOString()}`;
    super(`big-memory: timed out after ${timeoutMs} ms waiting for lock ${lockPath} held by ${holder}`);
    this.lockPath = lockPath;
    this.owner = owner;
  }
}

const OWNER_FILE = /^owner\.([0-9a-f]+)\.json$/;
const BUSY_CODES = new Set(["ENOTEMPTY", "EEXIST", "EPERM"]);

/** What a waiter found at the lock path. */
type Holder =
  | { kind: "free" }
  | { kind: "held"; ownerFile: string; owner: LockOwner | null; ageMs: number; alive: boolean };

/**
 * Runs `fn` while holding the exclusive lock `lockPath` (a directory path whose parent must exist), and
 * releases the lock when `fn` settles, whatever the outcome. Waits with short jittered retries while another
 * live process holds it, breaks a stale lock (see the protocol above), and rejects with a
 * {@link LockTimeoutError} naming the path and the holder after `timeoutMs`.
 */
export async function withLock<T>(
  lockPath: string,
  fn: () => Promise<T> | T,
  options: LockOptions = {},
): Promise<T> {
  const nonce = await acquire(lockPath, options);
  try {
    return await fn();
  } finally {
    await release(lockPath, nonce);
  }
}

/** Reads the owner record of the lock at `lockPath`: `null` when the lock is free or its record is unreadable. */
export async function readLockOwner(lockPath: string): Promise<LockOwner | null> {
  const holder = await inspect(lockPath, Date.now(), DEFAULT_LOCK_STALE_MS);
  return holder.kind === "held" ? holder.owner : null;
}

async function acquire(lockPath: string, options: LockOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_LOCK_STALE_MS;
  const now = options.now ?? Date.now;
  const deadline = now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const nonce = randomBytes(8).toString("hex");
    if (await tryAcquire(lockPath, nonce, now())) return nonce;
    const holder = await inspect(lockPath, now(), staleMs);
    if (holder.kind === "held" && (!holder.alive || holder.ageMs > staleMs)) {
      await breakStale(lockPath, holder.ownerFile);
      continue;
    }
    if (now() >= deadline) {
      throw new LockTimeoutError(lockPath, timeoutMs, holder.kind === "held" ? holder.owner : null);
    }
    // Exponential backoff from 2 ms to 50 ms, jittered so that waiters do not retry in lockstep.
    const delay = Math.min(50, 2 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random());
    await sleep(Math.max(1, Math.min(delay, deadline - now())));
  }
}

/** One acquisition attempt: `true` when the lock is now ours. The temporary directory never outlives it. */
async function tryAcquire(lockPath: string, nonce: string, createdAt: number): Promise<boolean> {
  const tmp = `${lockPath}.${nonce}.tmp`;
  const ownerPath = join(tmp, ownerFileName(nonce));
  const owner: LockOwner = {
    version: LOCK_OWNER_VERSION,
    pid: process.pid,
    hostname: hostname(),
    createdAt,
    nonce,
  };
  try {
    await mkdir(tmp, { mode: PRIVATE_DIR_MODE });
    await writeFile(ownerPath, JSON.stringify(owner), { mode: PRIVATE_FILE_MODE });
  } catch (error) {
    await removeQuietly(ownerPath, tmp);
    throw new Error(`big-memory: cannot take lock ${lockPath}: ${errorMessage(error)}`, { cause: error });
  }
  try {
    await rename(tmp, lockPath);
    return true;
  } catch (error) {
    await removeQuietly(ownerPath, tmp);
    // Linux and macOS answer ENOTEMPTY or EEXIST for a held lock, Windows EPERM.
    if (BUSY_CODES.has(errorCode(error) ?? "")) return false;
    throw new Error(`big-memory: cannot take lock ${lockPath}: ${errorMessage(error)}`, { cause: error });
  }
}

async function release(lockPath: string, nonce: string): Promise<void> {
  try {
    // ENOENT here means the lock was broken as stale while `fn` ran past `staleMs`: nothing of ours is left.
    await removeQuietly(join(lockPath, ownerFileName(nonce)), lockPath);
  } catch (error) {
    throw new Error(`big-memory: cannot release lock ${lockPath}: ${errorMessage(error)}`, { cause: error });
  }
}

/**
 * Breaks the lock at `lockPath` if, and only if, it is still held under `owner` (same nonce): `true` when this
 * call removed it, `false` when it was already released or broken, or is held under another owner by now.
 * Meant for stale locks (see {@link withLock}); breaking a live owner's lock lets a second process in.
 */
export async function breakLock(lockPath: string, owner: LockOwner): Promise<boolean> {
  return breakStale(lockPath, ownerFileName(owner.nonce));
}

async function breakStale(lockPath: string, ownerFile: string): Promise<boolean> {
  try {
    return await removeQuietly(join(lockPath, ownerFile), lockPath);
  } catch (error) {
    throw new Error(`big-memory: cannot break stale lock ${lockPath}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

/**
 * Unlinks `file`, then removes `dir` if it is empty; `true` when `file` was there to unlink. Only `ENOENT`
 * (already gone) and `ENOTEMPTY`/`EEXIST` (the directory was replaced by a new holder's) are expected here.
 */
async function removeQuietly(file: string, dir: string): Promise<boolean> {
  let removed = true;
  try {
    await unlink(file);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    removed = false;
  }
  try {
    await rmdir(dir);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
  }
  return removed;
}

async function inspect(lockPath: string, now: number, staleMs: number): Promise<Holder> {
  let names: string[];
  try {
    names = await readdir(lockPath);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "free" };
    throw new Error(`big-memory: cannot read lock ${lockPath}: ${errorMessage(error)}`, { cause: error });
  }
  const ownerFile = names.find((name) => OWNER_FILE.test(name));
  // An empty directory is a lock being released or broken right now: the next rename replaces it.
  if (ownerFile === undefined) return { kind: "free" };
  const path = join(lockPath, ownerFile);
  let text: string;
  let mtimeMs: number;
  try {
    [text, { mtimeMs }] = await Promise.all([readFile(path, "utf8"), stat(path)]);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "free" };
    throw new Error(`big-memory: cannot read lock owner ${path}: ${errorMessage(error)}`, { cause: error });
  }
  const owner = parseOwner(text);
  if (owner === null) {
    // A record lost in a crash: only its age can tell whether it is stale.
    return { kind: "held", ownerFile, owner, ageMs: now - mtimeMs, alive: now - mtimeMs <= staleMs };
  }
  const alive = owner.hostname !== hostname() || isProcessAlive(owner.pid);
  return { kind: "held", ownerFile, owner, ageMs: now - owner.createdAt, alive };
}

function parseOwner(text: string): LockOwner | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = LockOwner.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** `false` only when this host has no process `pid`; a process of another user (`EPERM`) is alive. */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== "ESRCH";
  }
}

function ownerFileName(nonce: string): string {
  return `owner.${nonce}.json`;
}
