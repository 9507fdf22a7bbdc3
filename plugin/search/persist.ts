/**
 * Where the derived search index lives and how its files are written: one file per month under
 * `<workspace>/.big-memory/search/` (or `<stateDir>/search/<workspace hash>/`), written atomically
 * through the store's persistence gate (atomic, mode 0600) with the previous copy kept as `<month>.bmx.prev`.
 */
import { closeSync, readFileSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { errorCode } from "../store/fs-durable.ts";
import { writePrivateBytes } from "../store/gate.ts";
import { openStateFileSync, readStateFile, readStateFileSync } from "../store/log-open.ts";
import {
  decodeShard,
  type LogRecord,
  layShard,
  SHARD_FORMAT_VERSION,
  type ShardFile,
  type ShardHeader,
} from "./codec.ts";
import { FrozenShard } from "./frozen-shard.ts";
import { HotShard } from "./hot-shard.ts";
import { LightShard } from "./light-shard.ts";
import { indexDir, readSavedHeader, shardPath, shardStamp } from "./saved-header.ts";
import { openSavedMonth } from "./saved-month.ts";
import { savedShard, type TextCache } from "./saved-texts.ts";
import {
  type MonthTerms,
  readVocabulary,
  type SavedVocabulary,
  vocabularyKey,
  writeVocabulary,
} from "./saved-vocabulary.ts";
import type { Shard } from "./shard.ts";
import type { SnapshotIndex } from "./snapshot-index.ts";

export { indexDir, shardPath };

const PREVIOUS = ".prev";
const MONTH = /^(\d{4}-\d{2}|other)\.bmx$/;

/** What loading a month's shard file gave. */
export type ShardLoad =
  | { kind: "missing" }
  | { kind: "loaded"; file: ShardFile; fromPrevious: boolean; problem?: string }
  | { kind: "unreadable"; problem: string };

/**
 * A shard file decoded with its rows, postings and snippet texts left on disk, kept open for the shard,
 * which closes it: from its lean part (saved-month.ts), or, for a file of an older version, read whole to
 * be checked (codec.ts `decodeShard` with `saved`); null when it is missing.
 */
function decodeKeepingOpen(path: string, cache: TextCache, vocabulary?: SavedVocabulary): ShardFile | null {
  let opened: { fd: number };
  try {
    opened = openStateFileSync(path, path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
  const { fd } = opened;
  try {
    const file =
      openSavedMonth(fd, cache, vocabulary) ?? decodeShard(readFileSync(fd), { fd, cache, vocabulary });
    if (file.shard.parts.texts === undefined) closeSync(fd); // a version 2 file holds its texts in memory
    return file;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

async function readIfPresent(path: string): Promise<Buffer | null> {
  try {
    // Opened without blocking and only as a regular file: a FIFO in its place is a problem, not a hang.
    return await readStateFile(path, path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
}

/**
 * Loads a month's shard file; when it is missing or unreadable, falls back to the previous copy (whose
 * fingerprints say which logs changed since). `problem` says what was wrong with the current file. With
 * `cache`, the snippet texts stay in the file, kept open for the shard (see saved-texts.ts), which closes it,
 * and the month's terms are taken from `vocabulary` when it was saved from this very file (codec.ts).
 */
export async function loadShardFile(
  dir: string,
  month: string,
  cache?: TextCache,
  vocabulary?: SavedVocabulary,
): Promise<ShardLoad> {
  const path = shardPath(dir, month);
  const decode = async (at: string): Promise<ShardFile | null> => {
    if (cache !== undefined) return decodeKeepingOpen(at, cache, vocabulary);
    const data = await readIfPresent(at);
    return data === null ? null : decodeShard(data);
  };
  let problem: string | undefined;
  try {
    const file = await decode(path);
    if (file !== null) return { kind: "loaded", file, fromPrevious: false };
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  try {
    const file = await decode(path + PREVIOUS);
    if (file !== null) {
      return problem === undefined
        ? { kind: "loaded", file, fromPrevious: true }
        : { kind: "loaded", file, fromPrevious: true, problem };
    }
  } catch {
    // The previous copy is no better; the month is rebuilt from its logs.
  }
  return problem === undefined ? { kind: "missing" } : { kind: "unreadable", problem };
}

/**
 * Loads only the header of a month's shard (refs and logs, no postings; see saved-header.ts); a version 2
 * file is decoded whole. `missing` when there is no file, `unreadable` when it is corrupt (the caller
 * then reads the month's logs).
 */
export async function loadShardHeader(
  dir: string,
  month: string,
): Promise<
  { kind: "missing" } | { kind: "loaded"; header: ShardHeader } | { kind: "unreadable"; problem: string }
> {
  const read = readSavedHeader(dir, month);
  if (read.kind !== "old") return read;
  try {
    const path = shardPath(dir, month);
    const { shard, files } = decodeShard(readStateFileSync(path, path));
    return { kind: "loaded", header: { month: shard.month, entries: shard.parts.entries, files } };
  } catch (error) {
    return { kind: "unreadable", problem: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A month as saved, for a search service: its shard (its refs alone without `full`: a LightShard) and its
 * logs' records, and whether its file is to be written again (a previous copy, an older format);
 * undefined when the month is to be built from its logs. A file that could not be used is told to
 * `problems`.
 */
export async function loadSavedMonth(
  dir: string,
  month: string,
  problems: ShardProblems,
  full: { cache: TextCache; vocabulary: SavedVocabulary | undefined } | undefined,
): Promise<{ shard: Shard; files: Record<string, LogRecord>; rewrite: boolean } | undefined> {
  if (full === undefined) {
    const load = await loadShardHeader(dir, month);
    if (load.kind === "unreadable") problems.bad(month, load.problem);
    if (load.kind !== "loaded") return undefined;
    return { shard: new LightShard(month, load.header.entries), files: load.header.files, rewrite: false };
  }
  const load = await loadShardFile(dir, month, full.cache, full.vocabulary);
  const problem = load.kind === "unreadable" || load.kind === "loaded" ? load.problem : undefined;
  if (problem !== undefined) problems.bad(month, problem, load.kind === "loaded");
  if (load.kind !== "loaded") return undefined;
  const { shard, files, version } = load.file;
  return { shard, files, rewrite: load.fromPrevious || version < SHARD_FORMAT_VERSION };
}

/**
 * The shard files a service could not use as it loaded: the first told at once with what is done instead
 * (the previous copy, or a rebuild from the logs), the others counted and summed up at the end.
 */
export class ShardProblems {
  readonly #dir: string;
  readonly #warn: (message: string) => void;
  #count = 0;

  constructor(dir: string, warn: (message: string) => void) {
    this.#dir = dir;
    this.#warn = warn;
  }

  /** A month's file could not be used: its previous copy was, or (by default) its logs are read again. */
  bad(month: string, problem: string, fromPrevious = false): void {
    const remedy = fromPrevious
      ? "using the previous copy and re-reading the logs changed since"
      : "rebuilding from the daily logs";
    if (this.#count++ === 0)
      this.#warn(`big-memory: search index ${shardPath(this.#dir, month)}: ${problem}; ${remedy}`);
  }

  /** Tells how many more files were rebuilt after the first, if any. */
  summary(): void {
    if (this.#count > 1)
      this.#warn(`big-memory: ${this.#count - 1} more search index files were rebuilt from the daily logs`);
  }
}

/**
 * Writes a month's shard through the persistence gate (atomic, mode 0600), keeping the copy it replaces as
 * `<month>.bmx.prev`. Shards hold only text read through `parseDailyLog`, which redacts every snapshot.
 */
export async function writeShardFile(dir: string, month: string, data: Buffer): Promise<void> {
  await writePrivateBytes(shardPath(dir, month), data, { keepPreviousAs: PREVIOUS });
}

/** Removes a month's shard files (current and previous). */
export async function removeShardFile(dir: string, month: string): Promise<void> {
  const path = shardPath(dir, month);
  await rm(path, { force: true });
  await rm(path + PREVIOUS, { force: true });
}

/** Months that have a shard file (or only a previous copy). */
export async function listShardFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return [];
    throw error;
  }
  const months = new Set<string>();
  for (const name of names) {
    const match = MONTH.exec(name.endsWith(PREVIOUS) ? name.slice(0, -PREVIOUS.length) : name);
    if (match?.[1] !== undefined) months.add(match[1]);
  }
  return [...months].sort();
}

/**
 * Saves a month of `index` with the fingerprints of its logs, or removes its files when the month is
 * gone. A hot month is frozen for writing; it stays hot in the index when `keepHot`, else the index
 * keeps the (smaller) frozen form, with `cache` its texts read from the file written (saved-texts.ts).
 * `vocabulary` notes the terms of the file written.
 */
export async function saveMonth(
  dir: string,
  index: SnapshotIndex,
  month: string,
  files: Record<string, LogRecord>,
  keepHot: boolean,
  cache?: TextCache,
  vocabulary?: VocabularyFile,
): Promise<void> {
  const shard = index.shard(month);
  // A month held by refs only has no postings to write: the next full load brings it up to date.
  if (shard instanceof LightShard) return;
  let frozen: FrozenShard | undefined;
  if (shard instanceof HotShard) frozen = keepHot ? shard.freeze() : index.freeze(month);
  else if (shard instanceof FrozenShard) frozen = shard;
  if (frozen === undefined) {
    await removeShardFile(dir, month);
    vocabulary?.wrote(index, month, undefined);
    return;
  }
  const written = layShard(frozen, files);
  await writeShardFile(dir, month, written.data);
  const stamp = shardStamp(written.data);
  // The same terms, now in the file written: the vocabulary file names that one.
  if (index.shard(month) === frozen) frozen.stamp = stamp;
  vocabulary?.wrote(index, month, stamp === undefined ? undefined : { month, stamp, terms: frozen.terms() });
  // A month the index keeps frozen reads its texts from the file from now on, as if loaded from it.
  if (cache === undefined || index.shard(month) !== frozen || frozen.parts.texts !== undefined) return;
  const saved = savedShard(frozen, shardPath(dir, month), written, cache);
  if (saved !== undefined) index.setShard(saved);
}

/**
 * The index's vocabulary file (saved-vocabulary.ts) as a service reads and writes it: read once the newest
 * month is searchable (its first answer does not wait for it), let go once every month is loaded, written
 * again when it no longer says what the months' saved files hold.
 */
export class VocabularyFile {
  readonly #dir: string;
  /** The vocabulary read, while months load. */
  saved: SavedVocabulary | undefined;
  /** The key of the file as read or last written (saved-vocabulary.ts `vocabularyKey`). */
  #key = "";
  /** The terms of the months kept hot, as their files were last written. */
  readonly #written = new Map<string, MonthTerms>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  /**
   * Reads the file, after a turn of the event loop (a query made as the service opens is answered first);
   * the frozen months already loaded from the files it names take their terms from it.
   */
  async read(index: SnapshotIndex): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.saved = readVocabulary(this.#dir);
    this.#key = this.saved?.key ?? "";
    for (const month of index.months()) {
      const shard = index.shard(month);
      if (!(shard instanceof FrozenShard)) continue;
      const shared = this.saved?.shared(month, shard.stamp);
      const count = shard.parts.shared?.ids.length ?? shard.parts.terms.length;
      if (shared !== undefined && shared.ids.length === count) shard.share(shared);
    }
  }

  /** Notes what a month's file holds as written, when the index keeps that month hot. */
  wrote(index: SnapshotIndex, month: string, terms: MonthTerms | undefined): void {
    if (terms !== undefined && index.shard(month) instanceof HotShard) this.#written.set(month, terms);
    else this.#written.delete(month);
  }

  /**
   * Writes the file for the index's months unless it says so already: a frozen month's terms are those of
   * the file its stamp names, a hot month's those of its file as last written. Nothing is written while a
   * month's saved terms are unknown (a month not loaded or never saved).
   */
  async save(index: SnapshotIndex, complete: boolean): Promise<void> {
    this.saved = undefined;
    if (!complete) return;
    const months: { month: string; stamp: string; terms: () => readonly string[] }[] = [];
    for (const month of index.months().reverse()) {
      const shard = index.shard(month);
      const written = this.#written.get(month);
      if (shard instanceof FrozenShard && shard.stamp !== undefined) {
        months.push({ month, stamp: shard.stamp, terms: () => shard.terms() });
      } else if (written !== undefined) months.push({ ...written, terms: () => written.terms });
      else return;
    }
    // The months' terms are gathered only when the file is to be written.
    const key = vocabularyKey(months);
    if (key === this.#key) return;
    await writeVocabulary(
      this.#dir,
      months.map((m) => ({ ...m, terms: m.terms() })),
    );
    this.#key = key;
  }
}
