/**
 * The memory of judged blocks, kept across processes: `.big-memory/judged.json` holds the checksums of the
 * verified blocks the current redaction rules found clean (see snapshot/redact-judged.ts), so that a
 * one-shot command (`list`, `show`, `search`) does not redact every block of every log again.
 *
 * Whoever can write `.big-memory/` could add the checksum of a block that holds a secret, and that block
 * would then be read without redaction. So the file is signed: an HMAC-SHA256 over the rules version and
 * every checksum, with a key kept outside every workspace (`$XDG_STATE_HOME/big-memory/judged.key`, else
 * `~/.local/state/big-memory/judged.key`, 0600 in 0700), made on first use. A file whose signature does not
 * verify, written for other rules, too large, or not a regular file is ignored (the blocks are judged
 * again) and rewritten. Without a usable key the memory lives for the process only.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { judgedBlocks, REDACTION_RULES_VERSION } from "../snapshot/redact.ts";
import { JudgedBlocks } from "../snapshot/redact-judged.ts";
import { errorCode } from "./fs-durable.ts";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, STATE_DIR_NAME, writePrivateBytes } from "./gate.ts";
import { ensurePrivateDirSync, writePrivateJsonSync } from "./gate-sync.ts";
import { readStateFileSync } from "./log-open.ts";

/** The memory's file name under `.big-memory/`. */
export const JUDGED_FILE = "judged.json";
/** At most this many checksums are kept on disk (about 4 MB); past it the oldest are forgotten. */
export const JUDGED_LIMIT = 50_000;
/** A memory file larger than this is not read. */
const MAX_BYTES = JUDGED_LIMIT * 80 + 4096;
/** A block's checksum, or the key of a block's text (snapshot/block-span.ts). */
const CHECKSUM = /^(?:sha256|span-sha256):[0-9a-f]{64}$/;

/** Where the signing key lives: outside every workspace, in the user's state folder. */
export function judgedKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME !== "" ? env.XDG_STATE_HOME : null;
  return join(state ?? join(homedir(), ".local", "state"), "big-memory", "judged.key");
}

/** The signing key: read, or made (32 random bytes, 0600 in 0700) when there is none; null when neither works. */
export function judgedKey(env: NodeJS.ProcessEnv = process.env): Buffer | null {
  const path = judgedKeyPath(env);
  try {
    const key = readStateFileSync(path, path);
    return key.length === 32 ? key : null;
  } catch (error) {
    if (errorCode(error) !== "ENOENT") return null;
  }
  try {
    mkdirSync(join(path, ".."), { recursive: true, mode: PRIVATE_DIR_MODE });
    chmodSync(join(path, ".."), PRIVATE_DIR_MODE);
    const key = randomBytes(32);
    const fd = openSync(path, "wx", PRIVATE_FILE_MODE);
    try {
      writeSync(fd, key);
    } finally {
      closeSync(fd);
    }
    return key;
  } catch (error) {
    // Another process made it first: use theirs.
    if (errorCode(error) === "EEXIST") return judgedKey(env);
    return null;
  }
}

/** The signature of a memory's contents under `key`. */
function sign(key: Buffer, version: string, checksums: readonly string[]): Buffer {
  return createHmac("sha256", key).update(version).update("\n").update(checksums.join("\n")).digest();
}

/** A memory as persisted, with what was learnt since it was read. */
interface Kept {
  readonly judged: JudgedBlocks;
  readonly key: Buffer | null;
  saved: number;
  timer: NodeJS.Timeout | null;
}

const kept = new Map<string, Kept>();
let hooked = false;

/**
 * The memory of judged blocks for `workspaceDir`, read once per process from `.big-memory/judged.json` when
 * its signature verifies and it was written for the current rules; empty otherwise. What readers add to it
 * is written back (signed) a moment later, and when the process exits.
 */
export function judgedFor(workspaceDir: string, env: NodeJS.ProcessEnv = process.env): JudgedBlocks {
  const known = kept.get(workspaceDir);
  if (known !== undefined) return known.judged;
  const key = judgedKey(env);
  const judged = key === null ? judgedBlocks() : loadJudged(workspaceDir, key);
  kept.set(workspaceDir, { judged, key, saved: judged.revision, timer: null });
  if (!hooked) {
    hooked = true;
    process.once("exit", () => {
      for (const dir of kept.keys()) saveJudgedNow(dir);
    });
  }
  return judged;
}

/** Reads and checks the memory file; an empty memory when it is missing, unsigned, forged or stale. */
export function loadJudged(workspaceDir: string, key: Buffer): JudgedBlocks {
  const path = join(workspaceDir, STATE_DIR_NAME, JUDGED_FILE);
  try {
    const bytes = readStateFileSync(path, `${STATE_DIR_NAME}/${JUDGED_FILE}`);
    if (bytes.length > MAX_BYTES) return judgedBlocks();
    const data: unknown = JSON.parse(bytes.toString("utf8"));
    if (typeof data !== "object" || data === null) return judgedBlocks();
    const { version, checksums, mac } = data as Record<string, unknown>;
    if (version !== REDACTION_RULES_VERSION || typeof mac !== "string" || !Array.isArray(checksums))
      return judgedBlocks();
    if (checksums.length > JUDGED_LIMIT || !checksums.every((c) => typeof c === "string" && CHECKSUM.test(c)))
      return judgedBlocks();
    const expected = sign(key, version, checksums);
    const given = Buffer.from(mac, "hex");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return judgedBlocks();
    return new JudgedBlocks(REDACTION_RULES_VERSION, checksums, JUDGED_LIMIT);
  } catch {
    // Missing, refused (a FIFO, a link, a folder), unreadable or not JSON: judged again, written anew.
    return judgedBlocks();
  }
}

/** Writes the memory of `workspaceDir` back a moment from now, when it has grown (see {@link judgedFor}). */
export function noteJudged(workspaceDir: string): void {
  const entry = kept.get(workspaceDir);
  if (entry === undefined || entry.timer !== null || entry.judged.revision === entry.saved) return;
  entry.timer = setTimeout(() => void saveJudgedBehind(workspaceDir), 1000);
  entry.timer.unref();
}

/**
 * What the memory of `workspaceDir` writes, signed, when it has grown since it was read or written and its
 * state folder exists (reading a workspace never creates one); null otherwise. Clears the pending timer.
 */
function pendingSave(workspaceDir: string): {
  entry: Kept;
  dir: string;
  value: { version: string; checksums: string[]; mac: string };
  revision: number;
} | null {
  const entry = kept.get(workspaceDir);
  if (entry === undefined) return null;
  if (entry.timer !== null) clearTimeout(entry.timer);
  entry.timer = null;
  if (entry.key === null || entry.judged.revision === entry.saved) return null;
  // The folder first: without it nothing is written, and signing fifty thousand checksums is the cost.
  const dir = join(workspaceDir, STATE_DIR_NAME);
  try {
    if (!lstatSync(dir).isDirectory()) return null;
  } catch {
    return null;
  }
  const checksums = entry.judged.toJSON().checksums.slice(-JUDGED_LIMIT);
  const mac = sign(entry.key, entry.judged.version, checksums).toString("hex");
  const value = { version: entry.judged.version, checksums, mac };
  return { entry, dir, value, revision: entry.judged.revision };
}

/** Writes the memory of `workspaceDir` now (synchronously: the process is exiting) when it has grown; never throws. */
export function saveJudgedNow(workspaceDir: string): void {
  const save = pendingSave(workspaceDir);
  if (save === null) return;
  try {
    ensurePrivateDirSync(save.dir);
    // Through the gate like every file big-memory writes (hex and versions hold nothing it redacts).
    writePrivateJsonSync(join(save.dir, JUDGED_FILE), save.value);
    save.entry.saved = save.revision;
  } catch {
    // A memory that cannot be written only costs the next process a redaction.
  }
}

/**
 * The timer's write, off the event loop's path: through the gate's writer of derived bytes (checksums of
 * blocks read through redaction, like the search index), with no fsync (a memory lost to a power cut only
 * costs a redaction), and without the gate's pass over fifty thousand checksums that the sync write makes.
 */
async function saveJudgedBehind(workspaceDir: string): Promise<void> {
  const save = pendingSave(workspaceDir);
  if (save === null) return;
  try {
    const bytes = Buffer.from(`${JSON.stringify(save.value)}\n`, "utf8");
    await writePrivateBytes(join(save.dir, JUDGED_FILE), bytes, { sync: false });
    save.entry.saved = save.revision;
  } catch {
    // As above: the next process judges the blocks again.
  }
}

/** Forgets every memory this process holds (tests: a new process reads the file again). */
export function forgetJudged(): void {
  for (const entry of kept.values()) if (entry.timer !== null) clearTimeout(entry.timer);
  kept.clear();
}
