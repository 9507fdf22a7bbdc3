/**
 * The packed postings of a saved month (postings.ts) read from its shard file when a query asks for a
 * term's list, instead of held in memory, by position through the descriptor its texts are read through
 * (saved-texts.ts). A read takes a window of the section, so the neighbouring terms a prefix reaches,
 * and the list scored right after it was counted, are read once. A month loaded whole was checked whole
 * (the body's checksum, then `postingsProblem`); a month loaded from its lean part (saved-month.ts) has
 * each list checked as it is read (`listProblem`: a corrupt list throws, never reads out of bounds)
 * until the body's checksum is verified.
 */
import { listProblem, PostingCursor } from "./postings.ts";
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
  /** What each list read is checked against until the body is verified: the month's documents and fields. */
  #check: { docs: number; fields: number } | undefined;

  constructor(file: SavedTexts, offset: number, length: number, check?: { docs: number; fields: number }) {
    this.#file = file;
    this.#offset = offset;
    this.#length = length;
    this.#check = check;
  }

  /** Whether each list is still checked as it is read. */
  get checking(): boolean {
    return this.#check !== undefined;
  }

  /** The body holding the postings was verified: lists are no longer checked as they are read. */
  verified(): void {
    this.#check = undefined;
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
    const cursor = this.#cursor.over(this.#window);
    const check = this.#check;
    if (check !== undefined) {
      const problem = listProblem(cursor, from - this.#from, to - this.#from, check.docs, check.fields);
      if (typeof problem === "string")
        throw new Error(`big-memory: a search index file is corrupt (${problem})`);
    }
    return cursor.reset(from - this.#from, to - this.#from);
  }

  /** The whole section, read now (to thaw the month, or write it again). */
  all(): Uint8Array {
    const bytes = new Uint8Array(this.#length);
    this.#file.bytes(bytes, this.#length, this.#offset);
    return bytes;
  }
}
