import { hash } from "node:crypto";
import { END_MARKER, SNAPSHOT_VERSION, startMarker } from "./format.ts";

/**
 * The text of a block as the memory of judged blocks names it (see redact-judged.ts): its start marker line
 * up to and including its first end marker line and that line's newline. Its key is `span-sha256:` and the
 * SHA-256 of its UTF-8 bytes, so two blocks share a key only when they are the same text, and the same
 * text reads to the same snapshot. The key is taken on the bytes as read from disk when the reader has them
 * (`LogText`): hashing bytes costs a third of encoding and hashing a string.
 */

/** Prefix of the key of a block's text. */
export const SPAN_KEY_PREFIX = "span-sha256:";

const START = startMarker(SNAPSHOT_VERSION);
const START_BYTES = Buffer.from(START);
const END_LINE = `\n${END_MARKER}`;
const END_LINE_BYTES = Buffer.from(END_LINE);

function keyOf(bytes: Uint8Array | string): string {
  return `${SPAN_KEY_PREFIX}${hash("sha256", bytes)}`;
}

/** Where the end marker line ending a span found at `at` ends; -1 when that marker does not end its line. */
function spanEnd(at: number, length: number, charAt: (i: number) => number | undefined): number {
  const end = at + END_LINE.length;
  if (end >= length) return end;
  return charAt(end) === 10 ? end + 1 : -1;
}

/**
 * The block's text starting at `start` in `text` (a start marker line): where it ends, and its key; null
 * without an end marker line. The key is null for a text holding a lone surrogate, whose UTF-8 form (a
 * replacement character in its place) is also that of another text.
 */
export function textSpan(text: string, start: number): { end: number; key: string | null } | null {
  const at = text.indexOf(END_LINE, start);
  if (at < 0) return null;
  const end = spanEnd(at, text.length, (i) => text.charCodeAt(i));
  if (end < 0) return null;
  const span = text.slice(start, end);
  return { end, key: (span as string & { isWellFormed(): boolean }).isWellFormed() ? keyOf(span) : null };
}

/**
 * A daily log read from disk: its bytes and their text, decoded here so that the two always agree. Keys of
 * its blocks are taken on the bytes. A start marker offset in the text is found in the bytes by counting:
 * the decoder keeps every ASCII byte as it is and never makes one (an invalid sequence becomes U+FFFD), so
 * the n-th start marker of the text is the n-th of the bytes, and the first end marker line after it too.
 * The bytes must not be changed afterwards.
 */
export class LogText {
  readonly text: string;
  readonly #bytes: Buffer;
  /** A start marker offset of the text and of the bytes that match (past the last one found). */
  #char = 0;
  #byte = 0;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
    this.text = bytes.toString("utf8");
  }

  /** How many bytes were read. */
  get byteLength(): number {
    return this.#bytes.length;
  }

  /**
   * The span of the block whose start marker line starts at `start` in the text, as `textSpan` gives it, with
   * its key taken on its bytes; null when none applies.
   */
  span(start: number): { end: number; key: string } | null {
    const { text } = this;
    const bytes = this.#bytes;
    if (!text.startsWith(START, start)) return null;
    if (start < this.#char) {
      this.#char = 0;
      this.#byte = 0;
    }
    let byteStart = -1;
    while (byteStart < 0) {
      const c = text.indexOf(START, this.#char);
      const b = bytes.indexOf(START_BYTES, this.#byte);
      if (c < 0 || b < 0 || c > start) return null;
      this.#char = c + START.length;
      this.#byte = b + START_BYTES.length;
      if (c === start) byteStart = b;
    }
    const charAt = text.indexOf(END_LINE, this.#char);
    const byteAt = bytes.indexOf(END_LINE_BYTES, this.#byte);
    if (charAt < 0 || byteAt < 0) return null;
    const end = spanEnd(charAt, text.length, (i) => text.charCodeAt(i));
    const byteEnd = spanEnd(byteAt, bytes.length, (i) => bytes[i]);
    if (end < 0 || byteEnd < 0) return null;
    // Just past the first end marker line after a start marker they share: the next search starts here.
    this.#char = end;
    this.#byte = byteEnd;
    return { end, key: keyOf(bytes.subarray(byteStart, byteEnd)) };
  }
}
