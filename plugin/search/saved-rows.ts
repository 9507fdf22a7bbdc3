/**
 * The snapshot refs of a saved month, each read from its shard file when first asked for (a query's
 * candidate, a hit) instead of all parsed as the month loads: at 100k snapshots parsing every month's
 * rows was the largest part of loading the index. Row i is bytes [starts[i], starts[i + 1]) after the
 * header's meta (codec.ts lays them out joined by commas), read through the month's open descriptor
 * (saved-texts.ts), checked as a ref row and kept: the same entry is returned every time it is asked for
 * (claims are laid over it in place).
 */
import { u32 } from "./checked.ts";
import type { EntryRows } from "./frozen-shard.ts";
import { checkedRow } from "./saved-header.ts";
import { SavedEntry, type SavedTexts } from "./saved-texts.ts";

const COMMA = 0x2c;

/** The ref rows of one saved month. */
export class SavedRows implements EntryRows {
  readonly #file: SavedTexts;
  readonly #offset: number;
  readonly #starts: Uint32Array;
  readonly #entries: (SavedEntry | undefined)[];
  #read = 0;
  #buffer = Buffer.allocUnsafe(1024);
  /** File, session and agent repeat across a month's rows: one string each, not one a row. */
  readonly #strings = new Map<string, string>();

  /**
   * The rows at `offset` in the file `file` reads (and the texts their entries read), `starts` holding one
   * offset more than there are rows.
   */
  constructor(file: SavedTexts, offset: number, starts: Uint32Array) {
    this.#file = file;
    this.#offset = offset;
    this.#starts = starts;
    this.#entries = new Array(Math.max(0, starts.length - 1));
  }

  get length(): number {
    return this.#entries.length;
  }

  /** How many rows were read so far. */
  get read(): number {
    return this.#read;
  }

  at(i: number): SavedEntry | undefined {
    if (!(i >= 0 && i < this.#entries.length)) return undefined;
    return this.#entries[i] ?? this.#parse(i);
  }

  all(): SavedEntry[] {
    const out: SavedEntry[] = new Array(this.#entries.length);
    for (let i = 0; i < out.length; i++) out[i] = this.#entries[i] ?? this.#parse(i);
    return out;
  }

  #parse(i: number): SavedEntry {
    const start = u32(this.#starts, i);
    let length = u32(this.#starts, i + 1) - start;
    if (this.#buffer.length < length)
      this.#buffer = Buffer.allocUnsafe(Math.max(length, 2 * this.#buffer.length));
    this.#file.bytes(this.#buffer, length, this.#offset + start);
    if (i + 1 < this.#entries.length) {
      if (this.#buffer[length - 1] !== COMMA) throw corrupt(i);
      length--;
    }
    let row: unknown;
    try {
      row = JSON.parse(this.#buffer.toString("utf8", 0, length));
    } catch {
      throw corrupt(i);
    }
    let r: ReturnType<typeof checkedRow>;
    try {
      r = checkedRow(row, i);
    } catch {
      throw corrupt(i);
    }
    r[2] = this.#once(r[2]);
    if (r[4] !== null) r[4] = this.#once(r[4]);
    if (r[5] !== null) r[5] = this.#once(r[5]);
    const entry = new SavedEntry(r, this.#file, i);
    this.#entries[i] = entry;
    this.#read++;
    return entry;
  }

  #once(v: string): string {
    const known = this.#strings.get(v);
    if (known !== undefined) return known;
    this.#strings.set(v, v);
    return v;
  }
}

function corrupt(i: number): Error {
  return new Error(`big-memory: a search index file is corrupt (snapshot ref row ${i} cannot be read)`);
}
