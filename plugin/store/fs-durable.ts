import { writeSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { open, statfs } from "node:fs/promises";

/** The `code` of a Node system error (`"ENOENT"`, `"EEXIST"`...), or `undefined` for anything else. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const { code } = error;
  return typeof code === "string" ? code : undefined;
}

/** The message of any thrown value, without a leading `big-memory: ` so it can be nested in another message. */
export function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^big-memory: /, "");
}

/**
 * Flushes a directory's entries (a file created or renamed in it) to stable storage: open, fsync, close.
 * File systems that cannot fsync a directory (`EINVAL`, some network and FUSE mounts) are accepted as they are,
 * since the file's own data was already synced.
 */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch (error) {
    if (errorCode(error) !== "EINVAL") throw error;
  } finally {
    await handle.close();
  }
}

/** The largest write {@link writeAll} makes synchronously, in bytes. */
export const SYNC_WRITE_BYTES = 64 * 1024;

/**
 * Writes all of `data` through `handle` at the handle's position (the end of the file for a handle opened
 * with `O_APPEND`): one `write` call, repeated only for the rest of a partial write. Returns the byte count.
 * Up to {@link SYNC_WRITE_BYTES}, synchronous on the handle's descriptor: a write of a few KB into the page
 * cache costs less than its round trip through the thread pool (the fsync that makes it durable stays
 * asynchronous). A larger one (a search index) goes through the thread pool, off the event loop.
 */
export async function writeAll(handle: FileHandle, data: Uint8Array): Promise<number> {
  let written = 0;
  const small = data.length <= SYNC_WRITE_BYTES;
  while (written < data.length) {
    const bytesWritten = small
      ? writeSync(handle.fd, data, written, data.length - written, null)
      : (await handle.write(data, written, data.length - written, null)).bytesWritten;
    if (bytesWritten <= 0) throw new Error(`big-memory: write made no progress after ${written} bytes`);
    written += bytesWritten;
  }
  return written;
}

/**
 * The one durable append: all of `data` through a handle opened with `O_APPEND`, fsynced, and the folder
 * fsynced too when the append `created` the file (so the new entry survives a crash). Returns the byte count.
 * What to do when it throws (cut the file back, under a lock) is the caller's.
 */
export async function appendDurably(
  handle: FileHandle,
  data: Uint8Array,
  file: { dir: string; created: boolean },
): Promise<number> {
  const bytes = await writeAll(handle, data);
  await handle.sync();
  if (file.created) await fsyncDirectory(file.dir);
  return bytes;
}

/** `12.0 KiB free` on the file system holding `dir`, or a note that it is unknown. */
export async function freeSpace(dir: string): Promise<string> {
  try {
    const fs = await statfs(dir);
    const bytes = fs.bavail * fs.bsize;
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let value = bytes;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]} free on its file system`;
  } catch {
    return "free space unknown";
  }
}
