/**
 * A cross-process exclusive lock on a directory path, for short critical sections such as one append.
 *
 * Protocol. The lock is held while the directory `lockPath` exists and contains an owner file
 * `owner.<nonce>.json` (`{ version, pid, hostname, createdAt, nonce }`, the nonce unique per acquisition).
 * - Queue: a waiter first takes a ticket, a file `<lockPath>.queue/<time>-<pid>-<nonce>`, and tries the lock
 *   only while no older live ticket stands before it, so waiters enter in the order they came (fair).
 *   Tickets of dead processes are removed by whoever sees them. A process that finds no ticket queued tries
 *   the lock once at once, without a ticket (it came before any waiter), and queues only when that fails.
 * - Acquire: write the owner file into a fresh sibling directory `<lockPath>.<nonce>.tmp`, then
 *   `rename(tmp, lockPath)`. The rename is atomic and succeeds only when `lockPath` is absent or an empty
 *   directory; a held lock is never empty, so at most one contender gets it.
 * - Heartbeat: while `fn` runs, the holder touches its owner file every `staleMs / 4`.
 * - Release: unlink our own `owner.<nonce>.json`, then `rmdir(lockPath)`, which can only remove an empty
 *   directory, that is never somebody else's held lock.
 * - Stale: the owner process is dead on this host (`process.kill(pid, 0)` fails with `ESRCH`), or its
 *   heartbeat is older than `staleMs` (another host, a frozen process, an owner file lost in a crash). Break it:
 *   unlink the stale owner file by its unique name, then `rmdir` as on release. Exactly one waiter can unlink a
 *   given owner file, and a lock taken later (another nonce, another file name) is never removed by a late
 *   breaker.
 * - Stray contents: anything in the lock directory that is not an owner file (left by a crash, a sync tool or
 *   a person) is removed by name when no owner file is there, so it never blocks the lock.
 * - Wait bound: a waiter waits as long as the holder is alive and its heartbeat fresh, up to `timeoutMs`
 *   (default five minutes), never a fixed few seconds.
 * The lock is not reentrant: nesting `withLock` on the same path in one process waits until the timeout.
 */
import { randomBytes } from "node:crypto";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdir, readdir, readFile, rm, rmdir, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { errorCode, errorMessage } from "./fs-durable.ts";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./gate.ts";

/** Upper bound of the wait for a live, heartbeating holder, in milliseconds. */
export const DEFAULT_LOCK_TIMEOUT_MS = 5 * 60_000;
/** Age of the holder's heartbeat after which its lock is broken even when its owner looks alive, in ms. */
export const DEFAULT_LOCK_STALE_MS = 10_000;
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
  /** Break a lock whose heartbeat is older than this many milliseconds. Default {@link DEFAULT_LOCK_STALE_MS}. */
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
  | { kind: "stray"; names: string[] }
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
  const ownerPath = join(lockPath, ownerFileName(nonce));
  const beat = setInterval(
    () => {
      const at = new Date();
      utimes(ownerPath, at, at).catch(() => {});
    },
    Math.max(10, (options.staleMs ?? DEFAULT_LOCK_STALE_MS) / 4),
  );
  beat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(beat);
    release(lockPath, nonce);
  }
}

/**
 * The lock for a process that is exiting (no event loop left to wait on): one synchronous attempt, with the
 * same owner record and atomic rename as {@link withLock}, without queue, wait or heartbeat. A lock held by
 * this very process counts as taken, since its asynchronous holder will never resume. Returns the release
 * function, or `null` when another process holds the lock (or it cannot be taken); a stale lock is not broken.
 */
export function lockForExitSync(lockPath: string): (() => void) | null {
  const nonce = newNonce();
  const tmp = `${lockPath}.${nonce}.tmp`;
  const owner: LockOwner = {
    version: LOCK_OWNER_VERSION,
    pid: process.pid,
    hostname: hostname(),
    createdAt: Date.now(),
    nonce,
  };
  const removeSync = (dir: string, ownerFile: string) => () => {
    try {
      unlinkSync(join(dir, ownerFile));
      rmdirSync(dir);
    } catch {
      // Best effort: what is left is a lock of a dead process, which the next waiter breaks.
    }
  };
  try {
    mkdirSync(tmp, { mode: PRIVATE_DIR_MODE });
    writeFileSync(join(tmp, ownerFileName(nonce)), JSON.stringify(owner), { mode: PRIVATE_FILE_MODE });
    renameSync(tmp, lockPath);
    return removeSync(lockPath, ownerFileName(nonce));
  } catch {
    removeSync(tmp, ownerFileName(nonce))();
  }
  try {
    for (const name of readdirSync(lockPath)) {
      if (!OWNER_FILE.test(name)) continue;
      const held = parseOwner(readFileSync(join(lockPath, name), "utf8"));
      if (held?.pid === process.pid && held.hostname === owner.hostname) return removeSync(lockPath, name);
    }
  } catch {
    // Released meanwhile, or unreadable: not ours to take.
  }
  return null;
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
  // The arrival, taken before anything else: a ticket taken after a failed first try still sorts by it.
  const arrival = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  // Nobody queued: try at once, without a ticket (the usual case, four file operations fewer).
  if (queued(lockPath) === 0) {
    const nonce = newNonce();
    if (tryAcquire(lockPath, nonce, now())) return nonce;
  }
  const ticket = await takeTicket(lockPath, arrival);
  try {
    for (let attempt = 0; ; attempt++) {
      const ahead = await ticketsAhead(lockPath, ticket);
      const first = ahead === 0;
      const nonce = newNonce();
      if (first && tryAcquire(lockPath, nonce, now())) return nonce;
      const holder = await inspect(lockPath, now(), staleMs);
      if (holder.kind === "stray") {
        await removeStrays(lockPath, holder.names);
        continue;
      }
      if (holder.kind === "held" && (!holder.alive || holder.ageMs > staleMs)) {
        await breakStale(lockPath, holder.ownerFile);
        continue;
      }
      if (now() >= deadline) {
        throw new LockTimeoutError(lockPath, timeoutMs, holder.kind === "held" ? holder.owner : null);
      }
      // The first in the queue retries fast; the others look again later the further back they stand, so a
      // long queue (a hundred saves at once) does not spend the CPU the holder needs on polling.
      const cap = first ? 10 : Math.min(250, 20 * ahead);
      const delay = Math.min(cap, 2 * 2 ** Math.min(attempt, 7)) * (0.5 + Math.random());
      await sleep(Math.max(1, Math.min(delay, deadline - now())));
    }
  } finally {
    await dropTicket(lockPath, ticket);
  }
}

/** The queue folder of a lock: one ticket file per waiter. */
function queueDir(lockPath: string): string {
  return `${lockPath}.queue`;
}

/** A ticket name sorts by arrival (wall-clock microseconds, zero-padded), then the pid and a nonce. */
async function takeTicket(lockPath: string, arrival: number): Promise<string> {
  const name = `${String(arrival).padStart(18, "0")}-${process.pid}-${randomBytes(4).toString("hex")}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await mkdir(queueDir(lockPath), { mode: PRIVATE_DIR_MODE }).catch((error: unknown) => {
        if (errorCode(error) !== "EEXIST") throw error;
      });
    } catch (error) {
      throw new Error(`big-memory: cannot take lock ${lockPath}: ${errorMessage(error)}`, { cause: error });
    }
    try {
      await writeFile(join(queueDir(lockPath), name), "", { mode: PRIVATE_FILE_MODE, flag: "wx" });
      return name;
    } catch (error) {
      // The queue folder was removed by a waiter leaving it empty at that moment: make it again.
      if (errorCode(error) !== "ENOENT" || attempt >= 20) {
        throw new Error(`big-memory: cannot take lock ${lockPath}: ${errorMessage(error)}`, { cause: error });
      }
    }
  }
}

async function dropTicket(lockPath: string, ticket: string): Promise<void> {
  await unlink(join(queueDir(lockPath), ticket)).catch(() => {});
  await rmdir(queueDir(lockPath)).catch(() => {});
}

/**
 * How many tickets are queued (of live processes or not); 0 when there is no queue folder. Synchronous, as are
 * the attempt and the release: a few calls on small local files cost less than their round trips through the
 * thread pool, and the hook that takes the lock waits for them anyway.
 */
function queued(lockPath: string): number {
  // The usual answer is "no queue folder": asked without an exception (an error object and its stack cost
  // more than the `stat` itself).
  if (statSync(queueDir(lockPath), { throwIfNoEntry: false }) === undefined) return 0;
  try {
    return readdirSync(queueDir(lockPath)).length;
  } catch {
    return 0;
  }
}

/** How many live tickets older than `ticket` are queued; tickets of dead processes are removed on the way. */
async function ticketsAhead(lockPath: string, ticket: string): Promise<number> {
  const names = (await readdir(queueDir(lockPath)).catch(() => [] as string[])).sort();
  let ahead = 0;
  for (const name of names) {
    if (name >= ticket) break;
    const pid = Number(name.split("-")[1]);
    if (Number.isSafeInteger(pid) && pid > 0 && !isProcessAlive(pid)) {
      await unlink(join(queueDir(lockPath), name)).catch(() => {});
      continue;
    }
    ahead++;
  }
  return ahead;
}

/** Removes what is in the lock directory without an owner file, entry by entry, then the directory. */
async function removeStrays(lockPath: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    if (OWNER_FILE.test(name)) continue;
    await rm(join(lockPath, name), { recursive: true, force: true });
  }
  await rmdir(lockPath).catch(() => {});
}

/** One acquisition attempt: `true` when the lock is now ours. The temporary directory never outlives it. */
function tryAcquire(lockPath: string, nonce: string, createdAt: number): boolean {
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
    mkdirSync(tmp, { mode: PRIVATE_DIR_MODE });
    writeFileSync(ownerPath, JSON.stringify(owner), { mode: PRIVATE_FILE_MODE });
  } catch (error) {
    removeQuietly(ownerPath, tmp);
    throw new Error(`big-memory: cannot take lock ${lockPath}: ${errorMessage(error)}`, { cause: error });
  }
  try {
    renameSync(tmp, lockPath);
    return true;
  } catch (error) {
    removeQuietly(ownerPath, tmp);
    // Linux and macOS answer ENOTEMPTY or EEXIST for a held lock, Windows EPERM.
    if (BUSY_CODES.has(errorCode(error) ?? "")) return false;
    throw new Error(`big-memory: cannot take lock ${lockPath}: ${errorMessage(error)}`, { cause: error });
  }
}

function release(lockPath: string, nonce: string): void {
  try {
    // ENOENT here means the lock was broken as stale while `fn` ran past `staleMs`: nothing of ours is left.
    removeQuietly(join(lockPath, ownerFileName(nonce)), lockPath);
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
    return removeQuietly(join(lockPath, ownerFile), lockPath);
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
function removeQuietly(file: string, dir: string): boolean {
  let removed = true;
  try {
    unlinkSync(file);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    removed = false;
  }
  try {
    rmdirSync(dir);
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
  if (ownerFile === undefined) return names.length === 0 ? { kind: "free" } : { kind: "stray", names };
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
  // The owner file's modification time is the holder's heartbeat.
  return { kind: "held", ownerFile, owner, ageMs: now - mtimeMs, alive };
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

/**
 * This process's random part of every nonce, drawn once: a nonce is unique per acquisition as long as it is
 * unique per process (64 random bits) and per acquisition within it (the counter after it). Drawing eight
 * fresh random bytes at every acquisition cost more than the rest of the nonce's work.
 */
const PROCESS_NONCE = randomBytes(8).toString("hex");
let acquisitions = 0;

/** A nonce no other acquisition in any process uses: lower-case hex, as the owner file's name wants. */
function newNonce(): string {
  acquisitions += 1;
  return `${PROCESS_NONCE}${acquisitions.toString(16).padStart(8, "0")}`;
}

function ownerFileName(nonce: string): string {
  return `owner.${nonce}.json`;
}
