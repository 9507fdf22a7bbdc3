/**
 * Text primitives for what is injected into the model: a token estimate, truncation to a token cap,
 * cleaning of untrusted values (no control characters, no forged fences), and fitting to a budget.
 *
 * The estimate is a rough rule of thumb, cheap and deterministic, needing no tokenizer tables; it is not
 * an exact count for any model. Each code point costs a number of quarter tokens:
 *
 * | text                                                                  | cost per character |
 * | --------------------------------------------------------------------- | ------------------ |
 * | ASCII (Latin letters, digits, punctuation, white space)               | 1/4 token          |
 * | CJK: Han, kana, Hangul, CJK symbols and punctuation, full-width forms | 1 token            |
 * | code points outside the BMP (emoji, rare Han)                         | 1 token            |
 * | anything else (accented Latin, Greek, Cyrillic, combining marks, ...) | 1/2 token          |
 *
 * The sum is rounded up to a whole token, so `estimateTokens("abcde") === 2` and `estimateTokens("") === 0`.
 */
import { escapeSites, neutralise, sanitize } from "./fence.ts";

/** True for the CJK blocks that tokenizers spend about one token per character on. */
function isCjk(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x11ff) || // Hangul Jamo
    (code >= 0x2e80 && code <= 0x9fff) || // radicals, CJK symbols, kana, Bopomofo, Han (ext. A, unified)
    (code >= 0xa960 && code <= 0xa97f) || // Hangul Jamo extended A
    (code >= 0xac00 && code <= 0xd7af) || // Hangul syllables
    (code >= 0xf900 && code <= 0xfaff) || // CJK compatibility ideographs
    (code >= 0xfe30 && code <= 0xfe4f) || // CJK compatibility forms
    (code >= 0xff00 && code <= 0xffef) // half-width and full-width forms
  );
}

/**
 * Walks `text` while its cost stays within `room` quarter tokens: `end` is the length of the longest
 * prefix (whole code points) that fits, `quarters` its cost, `over` whether anything was left out.
 * Stops at the first code point that does not fit, so a long text costs no more than the room.
 */
function scan(text: string, room: number): { end: number; quarters: number; over: boolean } {
  let quarters = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    let cost = 1;
    let units = 1;
    if (code >= 0x80) {
      const low = text.charCodeAt(i + 1);
      if (code >= 0xd800 && code <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
        cost = 4;
        units = 2;
      } else cost = isCjk(code) ? 4 : 2;
    }
    if (quarters + cost > room) return { end: i, quarters, over: true };
    quarters += cost;
    i += units;
  }
  return { end: i, quarters, over: false };
}

/** Estimated tokens of `text` (see the table above), rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(scan(text, Number.POSITIVE_INFINITY).quarters / 4);
}

/** `estimateTokens(text) <= maxTokens`, reading no further than needed to decide. */
export function withinTokens(text: string, maxTokens: number): boolean {
  return !scan(text, Math.floor(maxTokens) * 4).over;
}

/** Measures lines that will be joined with `\n` against a budget, as they are produced. */
export interface LineMeter {
  /** Counts `line` (and the `\n` before it); false once the lines so far exceed the budget. */
  add: (line: string) => boolean;
  /** True once the lines so far exceed the budget. */
  over: () => boolean;
}

/**
 * A {@link LineMeter} for `maxTokens`: the lines fit while `estimateTokens(lines.join("\n")) <= maxTokens`.
 * Reads no further than the budget, so a caller can stop building a text that is already too long.
 */
export function lineMeter(maxTokens: number): LineMeter {
  return new Meter(maxTokens);
}

/** The {@link LineMeter}: methods, not closures made per meter (those lose their optimised code at every full collection). */
class Meter implements LineMeter {
  private room: number;
  private lines = 0;

  constructor(maxTokens: number) {
    this.room = Math.floor(maxTokens) * 4;
  }

  add(line: string): boolean {
    if (this.room < 0) return false;
    const separator = this.lines++ === 0 ? 0 : 1;
    const r = scan(line, this.room - separator);
    this.room = r.over ? -1 : this.room - separator - r.quarters;
    return this.room >= 0;
  }

  over(): boolean {
    return this.room < 0;
  }
}

/** The ellipsis appended to a truncated value, and its cost in quarter tokens. */
export const ELLIPSIS = "…";
const ELLIPSIS_QUARTERS = 2;

/**
 * `text` unchanged when `estimateTokens(text) <= maxTokens`; otherwise its longest prefix (whole code
 * points, trailing white space removed) that fits in `maxTokens` together with an appended `…`.
 * Returns `""` when `maxTokens < 1`. Reads no more of `text` than the cap allows.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens === Number.POSITIVE_INFINITY || withinTokens(text, maxTokens)) return text;
  if (maxTokens < 1) return "";
  const { end } = scan(text, Math.floor(maxTokens) * 4 - ELLIPSIS_QUARTERS);
  return `${text.slice(0, end).trimEnd()}${ELLIPSIS}`;
}

/**
 * A multi-line value made safe to show inside a fence: line breaks normalised to `\n`, control, bidi and
 * invisible characters removed, lone surrogates replaced by U+FFFD, and every `<` (or look-alike: ＜ ﹤ ‹ ᐸ
 * ...) that starts something reading as a `big-memory` tag (any case, spacing, slash or look-alike letters)
 * turned into `&lt;`, so a value can neither close the fence nor forge one. See {@link neutralise}.
 */
export function cleanBlock(value: string): string {
  return neutralise(value);
}

/** {@link cleanBlock}, with every run of white space collapsed to one space and the ends trimmed. */
export function cleanInline(value: string): string {
  // Collapse first: removing a run of spaces must not join a `<` to a tag word unseen.
  return escapeSites(sanitize(value).replace(/\s+/gu, " ").trim());
}

/**
 * One trimming step over numeric limits (list counts, 0/1 switches, token caps): `fitToBudget` lowers
 * `limits[key]` to the largest value in `[min, current)` that fits. `top(content)` is the value that
 * shows everything: a list's length, 1 for a switch, the longest value's tokens for a cap.
 */
export interface TrimStep<K extends string, C> {
  label: string;
  key: K;
  min: number;
  top: (content: C) => number;
  /** Report the step as `label (kept k of n)` rather than `label`. */
  counted: boolean;
}

/** Largest value in `[lo, hi]` for which the monotone `ok` holds; `lo` when none does. */
function largest(lo: number, hi: number, ok: (v: number) => boolean): number {
  let a = lo;
  let b = hi;
  while (a < b) {
    const mid = Math.ceil((a + b) / 2);
    if (ok(mid)) a = mid;
    else b = mid - 1;
  }
  return a;
}

/**
 * Applies `steps` in order to `limits` (mutated) until `fits()` holds, each step keeping as much as
 * fits (binary search, so `fits` must grow no worse as a limit grows). Returns the labels of the steps
 * taken; stops early once it fits, and leaves the limits as small as the steps allow when it never does.
 */
export function fitToBudget<K extends string, C>(
  content: C,
  limits: Record<K, number>,
  steps: readonly TrimStep<K, C>[],
  fits: () => boolean,
): string[] {
  const taken: string[] = [];
  for (const step of steps) {
    if (fits()) break;
    const current = Math.min(limits[step.key], step.top(content));
    if (current <= step.min) continue;
    limits[step.key] = largest(step.min, current - 1, (v) => {
      limits[step.key] = v;
      return fits();
    });
    taken.push(
      step.counted ? `${step.label} (kept ${limits[step.key]} of ${step.top(content)})` : step.label,
    );
  }
  return taken;
}
