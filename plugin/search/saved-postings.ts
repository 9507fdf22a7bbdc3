/**
 * The packed postings of a saved month (postings.ts) read from its shard file when a query asks for a
 * term's list, instead of held in memory: checked whole when the month was loaded (the body's checksum,
 * then `postingsProblem`), then read by position through the descriptor its texts are read through
 * (saved-texts.ts). A read takes a window of the section, so the neighbouring terms a prefix reaches,
 * and the list scored right after it was counted, are read once.
 */
import { PostingCursor } from "./postings.ts";
import type { SavedTexts } from "./saved-texts.ts";

/** Bytes of a month's postings read at once, at least (a longer list is read whole). */
export const POSTINGS_WINDOW = 8 * 1024;

const EMPTY = new Uint8Array(0);

/** The postings section of a saved month: `length` bytes at `offset` in the file `file` reads. */
export class SavedPostings {
  readonly #file: SavedTexts;
  readonly #offset: number;
  readonly #length: number;
  /** Bytes [#from, #to) of the section, as last read. */
  #window = EMPTY;
  #from = 0;
  #to = 0;
  readonly #cursor = new PostingCursor(EMPTY);

  constructor(file: SavedTexts, offset: number, length: number) {
    this.#file = file;
    this.#offset = offset;
    this.#length = length;
  }

  /** A cursor on the postings in bytes [from, to) of the section (valid until the next call). */
  cursor(from: number, to: number): PostingCursor {
    if (from < this.#from || to > this.#to) {
      const end = Math.max(to, Math.min(from + POSTINGS_WINDOW, this.#length));
      if (this.#window.length < end - from)
        this.#window = new Uint8Array(Math.max(end - from, POSTINGS_WINDOW));
      this.#from = this.#to = 0;
      this.#file.bytes(this.#window, end - from, this.#offset + from);
      this.#from = from;
      this.#to = end;
    }
    return this.#cursor.over(this.#window).reset(from - this.#from, to - this.#from);
  }

  /** The whole section, read now (to thaw the month, or write it again). */
  all(): Uint8Array {
    const bytes = new Uint8Array(this.#length);
    this.#file.bytes(bytes, this.#length, this.#offset);
    return bytes;
  }
}
