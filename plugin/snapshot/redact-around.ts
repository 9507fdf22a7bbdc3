/**
 * Reading around a match, a character at a time and without a regular expression (a text dense with
 * matches asks at each): the word before a name (`API` in `API key`), and where a bare password ends.
 */
import { BRACKETS, isSpace } from "./redact-names.ts";

const isAlphanumeric = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * The word (ASCII letters, then letters or digits) that ends right before the spaces or tabs before `at`,
 * within the 40 characters before it: `API` in `API key`. Read backwards, without a regular expression.
 */
export function wordBefore(input: string, at: number): string | undefined {
  const limit = Math.max(0, at - 40);
  let end = at;
  while (end > limit && (input.charCodeAt(end - 1) === 32 || input.charCodeAt(end - 1) === 9)) end--;
  if (end === at) return undefined;
  let start = end;
  while (start > limit && isAlphanumeric(input.charCodeAt(start - 1))) start--;
  while (start < end && !isLetter(input.charCodeAt(start))) start++;
  return start < end ? input.slice(start, end) : undefined;
}

/** How many times `ch` occurs in `text`. */
export const count = (text: string, ch: string) => text.split(ch).length - 1;

/** Punctuation that ends a sentence: `.`, `,`, `;`, `:`, `!`, `?`. */
export const isSentenceEnd = (c: number) =>
  c === 46 || c === 44 || c === 59 || c === 58 || c === 33 || c === 63;

/**
 * Where a bare password value really ends: at the next white space or quote, whatever punctuation it
 * holds (`p@ss,w(rd);x`), less the punctuation that ends a sentence and a closing bracket it did not open.
 * Read a character at a time: a text dense with passwords asks at each.
 */
export function passwordEnd(input: string, start: number, end: number): number {
  const limit = Math.min(input.length, Math.max(end, start + 512), end + 512);
  let stop = end;
  while (stop < limit) {
    const c = input.charCodeAt(stop);
    if (c === 34 || c === 39 || c === 96 || isSpace(c)) break;
    stop++;
  }
  stop = Math.max(end, Math.min(stop, start + 512));
  while (stop > start && isSentenceEnd(input.charCodeAt(stop - 1))) stop--;
  for (const [open, close] of BRACKETS) {
    if (stop <= start || input[stop - 1] !== close) continue;
    let value = input.slice(start, stop);
    while (value.endsWith(close) && count(value, close) > count(value, open)) value = value.slice(0, -1);
    stop = start + value.length;
  }
  return Math.max(stop, end);
}

/**
 * Whether the name matched at `at` is the verdict of a Go test (`--- PASS: TestParse/sub (0.00s)`, `go test
 * -v`): what follows it is a test name, not a password.
 */
export function isTestVerdict(input: string, at: number, name: string): boolean {
  if (name !== "PASS" || !input.startsWith("--- ", at - 4)) return false;
  // Back over the indentation only (never to the line's start: a long line holding many would be read again for each).
  let i = at - 4;
  while (i > 0 && (input[i - 1] === " " || input[i - 1] === "\t")) i--;
  return i === 0 || input[i - 1] === "\n";
}
