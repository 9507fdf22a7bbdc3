/**
 * The snippet texts of a saved month, read from its shard file when a query asks for one instead of held
 * in memory: at 100k snapshots they were the largest part of the index's heap (62 MB of 194). The file
 * stays open while its month is loaded and is read by position (`readSync` at the offsets its header
 * gave, checked when it was loaded), so a newer copy written in its place (a rename) changes nothing
 * read here. The texts last read, across months, are kept in a bounded cache shared by the index: a
 * query reads the same candidate's text several times (screen, lines, snippet).
 */
import { closeSync, readFileSync, readSync } from "node:fs";
import { openStateFileSync } from "../store/log-open.ts";
import { u32 } from "./checked.ts";
import type { RefTuple } from "./codec.ts";
import type { Entry } from "./document.ts";
import { FrozenShard } from "./frozen-shard.ts";
import { rowFromEntry, shardStamp } from "./saved-header.ts";
import { SavedPostings } from "./saved-postings.ts";

/** Texts kept by default in a {@link TextCache}: about 2.5 MB of snippet text at most. */
export const TEXT_CACHE_SIZE = 4096;

/** The texts last read from saved months, least recently read dropped first. */
export class TextCache {
  readonly #capacity: number;
  readonly #texts = new Map<number, string>();
  #next = 0;

  constructor(capacity = TEXT_CACHE_SIZE) {
    this.#capacity = Math.max(1, capacity);
  }

  /** A range of `size` keys of its own for a month's texts. */
  range(size: number): number {
    const base = this.#next;
    this.#next += size;
    return base;
  }

  get(key: number): string | undefined {
    const text = this.#texts.get(key);
    if (text !== undefined) {
      this.#texts.delete(key);
      this.#texts.set(key, text);
    }
    return text;
  }

  set(key: number, text: string): void {
    this.#texts.set(key, text);
    if (this.#texts.size > this.#capacity) {
      const oldest = this.#texts.keys().next();
      if (oldest.done !== true) this.#texts.delete(oldest.value);
    }
  }

  get size(): number {
    return this.#texts.size;
  }
}

/** The snippet texts of one saved month: text i is bytes [starts[i], starts[i + 1]) from `offset` in the file. */
export class SavedTexts {
  readonly #fd: number;
  readonly #offset: number;
  readonly #starts: Uint32Array;
  readonly #cache: TextCache;
  readonly #base: number;
  #buffer = Buffer.allocUnsafe(0);
  #closed = false;

  /** Takes over `fd` (closed by {@link close}); `starts` holds one offset more than there are texts. */
  constructor(fd: number, offset: number, starts: Uint32Array, cache: TextCache) {
    this.#fd = fd;
    this.#offset = offset;
    this.#starts = starts;
    this.#cache = cache;
    this.#base = cache.range(starts.length);
  }

  /** Text `i`; throws when the file was closed or no longer holds it (changed in place since it was loaded). */
  read(i: number): string {
    const key = this.#base + i;
    const known = this.#cache.get(key);
    if (known !== undefined) return known;
    const start = u32(this.#starts, i);
    const length = u32(this.#starts, i + 1) - start;
    if (length === 0) return "";
    if (this.#buffer.length < length) this.#buffer = Buffer.allocUnsafe(Math.max(length, 4096));
    this.bytes(this.#buffer, length, this.#offset + start);
    const text = this.#buffer.toString("utf8", 0, length);
    this.#cache.set(key, text);
    return text;
  }

  /**
   * Reads `length` bytes of the file at `position` into `into` (from its start): what the month's other
   * sections left on disk read through the same descriptor (saved-postings.ts). Throws as {@link read}.
   */
  bytes(into: Uint8Array, length: number, position: number): void {
    if (this.#closed) throw new Error("big-memory: a search index file was read after it was closed");
    const got = readSync(this.#fd, into, 0, length, position);
    if (got !== length)
      throw new Error("big-memory: a search index file changed on disk since it was loaded");
  }

  /** Closes the file; once closed, texts not in the cache can no longer be read. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }
}

/** An entry of a saved month whose snippet text is read from the month's file when asked (see {@link SavedTexts}). */
export class SavedEntry implements Entry {
  id: string;
  timestamp: string;
  time: number;
  file: string;
  line: number;
  session: string | null;
  agent: string | null;
  trigger: Entry["trigger"];
  name: string | null;
  parent: string | null;
  tombstone: boolean;
  verified: Entry["verified"];
  declare claimed?: boolean;
  goal: string;
  readonly #texts: SavedTexts;
  readonly #i: number;

  /** The entry of checked header row `r`, text `i` of `texts`. */
  constructor(r: RefTuple, texts: SavedTexts, i: number) {
    this.id = r[0];
    this.timestamp = r[1];
    this.time = Date.parse(r[1]);
    this.file = r[2];
    this.line = r[3];
    this.session = r[4];
    this.agent = r[5];
    this.trigger = r[6];
    this.name = r[7];
    this.parent = r[8];
    this.tombstone = r[9];
    this.verified = r[10];
    this.goal = r[11];
    this.#texts = texts;
    this.#i = i;
  }

  get text(): string {
    return this.#texts.read(this.#i);
  }

  /** Entry `e` (held in memory), its text now text `i` of `texts`. */
  static of(e: Entry, texts: SavedTexts, i: number): SavedEntry {
    const row = rowFromEntry(e);
    const saved = new SavedEntry(row, texts, i);
    saved.time = e.time;
    if (e.claimed !== undefined) saved.claimed = e.claimed;
    return saved;
  }
}

/**
 * A frozen shard held in memory, its texts now read from the file it was just written to (`path`, which
 * must still hold `data`, the bytes written, laid out as `texts` says: codec.ts `layShard`); undefined
 * when the file holds anything else (another process wrote it meanwhile).
 */
export function savedShard(
  shard: FrozenShard,
  path: string,
  written: {
    data: Buffer;
    texts: { offset: number; starts: Uint32Array };
    postings: { offset: number; length: number };
  },
  cache: TextCache,
): FrozenShard | undefined {
  const { fd } = openStateFileSync(path, path);
  if (!readFileSync(fd).equals(written.data)) {
    closeSync(fd);
    return undefined;
  }
  const texts = new SavedTexts(fd, written.texts.offset, written.texts.starts, cache);
  const entries = shard.parts.entries.map((e, i) => SavedEntry.of(e, texts, i));
  const saved = new SavedPostings(texts, written.postings.offset, written.postings.length);
  const kept = new FrozenShard({ ...shard.parts, entries, texts, saved, postings: new Uint8Array(0) });
  kept.stamp = shardStamp(written.data);
  return kept;
}

/** An entry as a plain object of its own, its text read now: what outlives the file of a saved month. */
export function ownEntry(e: Entry): Entry {
  // Its fields are its own (the text is read through its class): a copy holds them and the text.
  return e instanceof SavedEntry ? { ...e, text: e.text } : e;
}
