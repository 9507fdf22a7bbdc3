/**
 * The reversible escaping used inside blocks the plugin writes (blocks that carry a checksum).
 *
 * A value may hold anything a model writes: newlines, CR, `-->`, `<!--`, the end marker, headings,
 * fences. Rendered values must never end a comment, end the block, start a heading or a fence, or
 * lose leading and trailing white space, so a small backslash escape is applied:
 *
 * | escape | stands for                                                     |
 * | ------ | -------------------------------------------------------------- |
 * | `\\`   | a backslash that precedes an escape letter or ends the value   |
 * | `\n`   | line feed (inline values only)                                  |
 * | `\r`   | carriage return                                                 |
 * | `\s`   | a space at the start or end of a value                          |
 * | `\t`   | a tab at the start or end of a value                            |
 * | `\!`   | the `!` of `<!--`                                               |
 * | `\>`   | the `>` of `-->`                                                |
 * | `\-`   | a dash that would form `--` where `--` is a separator           |
 * | `\:`   | a colon in a key-name label                                     |
 * | `` \` `` | a backtick inside a backtick-quoted value, or starting a line |
 * | `\#` `\<` `\~` | a heading, HTML or fence character starting a line     |
 * | `\@`   | nothing; marks a value that would otherwise read as `none` or as a known heading |
 *
 * A backslash followed by any other character is literal, so Windows paths and regular
 * expressions stay readable. Blocks written by hand carry no checksum and are read literally.
 */

const DECODE: Readonly<Record<string, string>> = {
  "\\": "\\",
  n: "\n",
  r: "\r",
  s: " ",
  t: "\t",
  "!": "!",
  ">": ">",
  "-": "-",
  ":": ":",
  "`": "`",
  "#": "#",
  "<": "<",
  "~": "~",
  "@": "",
};

/** Inside fenced code only these escapes exist, so `\s+` or `"\n"` in code stay as written. */
const CODE_DECODE: Readonly<Record<string, string>> = { "\\": "\\", r: "\r", "!": "!", ">": ">" };

const ESCAPE_LETTERS = new Set(Object.keys(DECODE));
const CODE_ESCAPE_LETTERS = new Set(Object.keys(CODE_DECODE));

/** What an inline value must additionally protect in its context. */
export interface InlineContext {
  /** Inside backticks: escape every backtick. */
  backticks?: boolean;
  /** A `--` separator follows: no `--` may appear in the value. */
  noDoubleDash?: boolean;
  /** A `:` separator follows: escape every colon. */
  noColon?: boolean;
  /** The value starts a line: a leading heading, HTML, fence or code character is escaped. */
  lineStart?: boolean;
  /** True when the encoded value would read as something reserved, e.g. a known heading. */
  isReserved?: (encoded: string) => boolean;
}

function isEdgeSpace(ch: string): boolean {
  return ch === " " || ch === "\t";
}

/**
 * Encodes a value for one line of a canonical block. The result holds no line break, no `<!--`,
 * no `-->`, no leading or trailing white space, and never equals `none`.
 */
export function encodeInline(value: string, ctx: InlineContext = {}): string {
  if (value === "") return "";
  // Most values (paths, names, plain prose) need no escape: kept as they are, without a token per character.
  if (plainInline(value, ctx)) return finished(value, ctx);
  const last = value.length - 1;
  let trailingFrom = value.length;
  while (trailingFrom > 0 && isEdgeSpace(value.charAt(trailingFrom - 1))) trailingFrom--;
  let leadingEdge = true;
  const tokens: string[] = [];
  for (let i = 0; i <= last; i++) {
    const ch = value.charAt(i);
    const next = value.charAt(i + 1);
    if (leadingEdge && !isEdgeSpace(ch)) leadingEdge = false;
    const atEdge = leadingEdge || i >= trailingFrom;
    if (ch === "\n") tokens.push("\\n");
    else if (ch === "\r") tokens.push("\\r");
    else if (atEdge && ch === " ") tokens.push("\\s");
    else if (atEdge && ch === "\t") tokens.push("\\t");
    else if (ch === "!" && value.charAt(i - 1) === "<" && next === "-" && value.charAt(i + 2) === "-")
      tokens.push("\\!");
    else if (ch === ">" && value.charAt(i - 1) === "-" && value.charAt(i - 2) === "-") tokens.push("\\>");
    else if (ch === "-" && ctx.noDoubleDash === true && value.charAt(i - 1) === "-") tokens.push("\\-");
    else if (ch === ":" && ctx.noColon === true) tokens.push("\\:");
    else if (ch === "`" && (ctx.backticks === true || (i === 0 && ctx.lineStart === true)))
      tokens.push("\\`");
    else if (i === 0 && ctx.lineStart === true && (ch === "#" || ch === "<" || ch === "~"))
      tokens.push(`\\${ch}`);
    else tokens.push(ch);
  }
  return finish(tokens, ESCAPE_LETTERS, ctx);
}

/**
 * Whether `encodeInline` would escape nothing in `value`: no backslash, line break, comment delimiter or
 * edge white space, and nothing `ctx` protects.
 */
function plainInline(value: string, ctx: InlineContext): boolean {
  if (UNPLAIN.test(value) || isEdgeSpace(value.charAt(0)) || isEdgeSpace(value.charAt(value.length - 1)))
    return false;
  if (value.includes("<!--") || value.includes("-->")) return false;
  if (ctx.noDoubleDash === true && value.includes("--")) return false;
  if (ctx.noColon === true && value.includes(":")) return false;
  if (ctx.backticks === true && value.includes("`")) return false;
  return !(ctx.lineStart === true && "`#<~".includes(value.charAt(0)));
}

/** Characters that always take an escape (or a look at their neighbours) in an inline value. */
const UNPLAIN = /[\\\n\r]/;

/** The reserved-value check of {@link finish}, for a value that needed no escape. */
function finished(out: string, ctx: InlineContext): string {
  return out.toLowerCase() === "none" || ctx.isReserved?.(out) === true ? `\\@${out}` : out;
}

/**
 * Joins encoded characters, doubling each literal backslash that the decoder would otherwise read
 * as the start of an escape: one followed by an escape letter, by an escape, or by nothing.
 */
function finish(tokens: string[], letters: ReadonlySet<string>, ctx: InlineContext | null): string {
  let out = "";
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] ?? "";
    if (t === "\\") {
      const next = tokens[i + 1];
      out += next === undefined || next.startsWith("\\") || letters.has(next.charAt(0)) ? "\\\\" : "\\";
    } else out += t;
  }
  return ctx === null ? out : finished(out, ctx);
}

/**
 * Encodes one line of a fenced code value. Line feeds are kept as real lines by the caller; only
 * CR, comment delimiters and backslashes before escape letters are escaped.
 */
export function encodeCodeLine(line: string): string {
  const tokens: string[] = [];
  for (let i = 0; i < line.length; i++) {
    const ch = line.charAt(i);
    const next = line.charAt(i + 1);
    if (ch === "\r") tokens.push("\\r");
    else if (ch === "!" && line.charAt(i - 1) === "<" && next === "-" && line.charAt(i + 2) === "-")
      tokens.push("\\!");
    else if (ch === ">" && line.charAt(i - 1) === "-" && line.charAt(i - 2) === "-") tokens.push("\\>");
    else tokens.push(ch);
  }
  return finish(tokens, CODE_ESCAPE_LETTERS, null);
}

/** Reverses `encodeInline`. */
export function decode(text: string): string {
  return decodeWith(text, DECODE);
}

/** Reverses `encodeCodeLine`. */
export function decodeCodeLine(text: string): string {
  return decodeWith(text, CODE_DECODE);
}

function decodeWith(text: string, table: Readonly<Record<string, string>>): string {
  if (!text.includes("\\")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === "\\") {
      const mapped = table[text.charAt(i + 1)];
      if (mapped !== undefined) {
        out += mapped;
        i++;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

/**
 * Finds the first occurrence of `needle` in `text` that is not part of an escape sequence,
 * scanning escapes left to right. Returns -1 when there is none.
 */
export function indexOfUnescaped(text: string, needle: string, from = 0): number {
  const first = text.indexOf(needle, from);
  // No backslash before the first occurrence: it cannot be part of an escape.
  if (first < 0 || text.lastIndexOf("\\", first) < from) return first;
  for (let i = from; i < text.length; i++) {
    if (text.charAt(i) === "\\" && DECODE[text.charAt(i + 1)] !== undefined) {
      i++;
      continue;
    }
    if (text.startsWith(needle, i)) return i;
  }
  return -1;
}
