import { createRequire } from "node:module";
import type { Finding, Span } from "./redact-spans.ts";
import { linesAround } from "./redact-windows.ts";

/**
 * What hides a secret from the rules while leaving it readable: characters that show nothing (a zero-width
 * space inside `pass​word`, a soft hyphen, a variation selector), spaces other than the ASCII one, the
 * full-width and mathematical forms of ASCII letters (`ｓｅｃｒｅｔ：`, `𝐩𝐚𝐬𝐬𝐰𝐨𝐫𝐝`), escapes a reader
 * decodes (`password&#58;`, `&quot;token&quot;`, `pass\u0077ord`) and inline HTML tags (`<b>Password:</b>`).
 * The redactor reads the lines holding any of these a second time, folded: those characters dropped, the
 * forms written as ASCII, the escapes decoded, the tags read as nothing. A secret found in the folded lines
 * is replaced in the text as written, from the first character it came from to the last.
 */

/**
 * What folds: characters (a run of Unicode's default-ignorable code points, which show nothing, listed as
 * the property is tested about three times slower and a test holds the list to it; a run of
 * spaces other than the ASCII one, no-break ones above all, to as many ASCII spaces, and an ideographic space
 * beside an ASCII character or a full-width form of one; a run of two
 * or more full-width ASCII forms, one full-width letter or digit, or a full-width mark beside an ASCII
 * character other than a line break (`DB_PASSWORD ＝ x`); a letter-like, enclosed, ligature, small or
 * mathematical form of a letter, digit or mark: `ⓟ`, `ﬁ`, `﹕`, `𝐩`, `🄿`), then,
 * in what that gives, escapes (a character reference `&#58;`, `&#x3a;`, `&colon;`; a `\uXXXX` escape), so
 * that an escape split by a character that shows nothing (`&q` U+200B `uot;`) is decoded too. Any other
 * full-width punctuation mark (`（`, `！` in Japanese or Chinese prose) is left as written: folding it would
 * make every line of such prose a line to read twice, and rules read the marks that matter (`：`) as written.
 */
const CHARACTERS =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: single code points are the point (U+034F among them)
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFF8\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E0FFF}]+|[\u00A0\u1680\u2000-\u200A\u202F\u205F]+|\u3000(?<=[\t -~\uFF01-\uFF5E]\u3000)|\u3000(?=[\t -~\uFF01-\uFF5E])|[\uFF01-\uFF5E]{2,}|[\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A]|[\uFF01-\uFF5E](?<=[\t -~][\uFF01-\uFF5E])|[\uFF01-\uFF5E](?=[\t -~])|[\u2100-\u214F\u2460-\u24FF\uFB00-\uFB06\uFE50-\uFE6B\u{1D400}-\u{1D7FF}\u{1F130}-\u{1F189}]/gu;
/**
 * HTML's inline formatting tags, which a reader of the page never sees (`<b>Password:</b> X`, `password =
 * <code>X</code>`, as pasted from a mail or an exported wiki page): read as nothing, and a line break tag as
 * a line break.
 */
const TAGS =
  /<\/?(?:b|strong|i|em|u|s|code|tt|kbd|samp|var|span|font|mark|small|big|sub|sup|a|abbr|cite|q)(?:[ \t][^<>\n]{0,256})?>|<br[ \t]*\/?>/gi;
/**
 * An ASCII letter beside a Cyrillic or Greek one (of their main blocks): the mark of a word that mixes
 * scripts (`раssword` with a Cyrillic `р` and `а`), which no language writes. Lines holding one are read with each such word's
 * Cyrillic and Greek letters as the Latin letters they look like (Unicode's confusables table, UTS #39, as
 * `unhomoglyph` packages it); words of one script stay as written.
 */
const MIXED = /[A-Za-z][\u0370-\u03FF\u0400-\u052F]|[\u0370-\u03FF\u0400-\u052F][A-Za-z]/;
const WORDS = /(?<![\p{L}\p{M}])[\p{L}\p{M}]{2,64}(?![\p{L}\p{M}])/gu;
const MIXED_ALL = new RegExp(MIXED.source, "g");
const CYRILLIC_OR_GREEK = /[\u0370-\u03FF\u0400-\u052F]/;

/**
 * A word that mixes scripts, mostly of ASCII letters, with its Cyrillic and Greek letters as the Latin ones
 * they look like. A word mostly of Cyrillic or Greek letters stays as written (`APIпароль` is a Russian word
 * after an English one).
 */
function foldMixed(word: string): string {
  if (!MIXED.test(word)) return word;
  let ascii = 0;
  for (let i = 0; i < word.length; i++) if (/[A-Za-z]/.test(word.charAt(i))) ascii++;
  if (ascii * 2 <= word.length) return word;
  let out = "";
  for (const c of word) {
    const latin = CYRILLIC_OR_GREEK.test(c) ? lookAlike(c) : undefined;
    out += latin !== undefined && /^[A-Za-z]{1,2}$/.test(latin) ? latin : c;
  }
  return out;
}

/** The prototype of `c` in Unicode's confusables table; its table is loaded at the first mixed word. */
function lookAlike(c: string): string | undefined {
  prototypes ??= createRequire(import.meta.url)("unhomoglyph/data.json") as Record<string, string>;
  return prototypes[c];
}
let prototypes: Record<string, string> | undefined;

const ESCAPES = /&(?:#(?:[0-9]{1,7}|[xX][0-9a-fA-F]{1,6});?|[A-Za-z][A-Za-z0-9]{1,31};)|\\u[0-9a-fA-F]{4}/g;

/** Whether `text` holds a character that shows nothing. */
export function holdsInvisible(text: string): boolean {
  return INVISIBLE.test(text);
}
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;

/**
 * A quick screen for `mayFold`: per code unit, whether `CHARACTERS`, `ESCAPES` or `TAGS` can start with it
 * (Unicode's default-ignorable code points of the first plane listed, and any character past it by its first
 * surrogate), so a text none of whose code units it holds needs neither. A table read in a loop: a class of
 * this many ranges costs a regular expression about 6 ns a character of a text in Cyrillic. A test holds the
 * list against what folds, code point by code point.
 */
const SCREEN = new Uint8Array(0x10000);
for (const [from, to] of [
  [0x26, 0x26],
  [0x3c, 0x3c],
  [0x5c, 0x5c],
  [0xa0, 0xa0],
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x1680, 0x1680],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x2000, 0x200f],
  [0x202a, 0x202f],
  [0x205f, 0x206f],
  [0x2100, 0x214f],
  [0x2460, 0x24ff],
  [0x3000, 0x3000],
  [0x3164, 0x3164],
  [0xd800, 0xdbff],
  [0xfb00, 0xfb06],
  [0xfe00, 0xfe0f],
  [0xfe50, 0xfe6b],
  [0xfeff, 0xfeff],
  [0xff01, 0xff5e],
  [0xffa0, 0xffa0],
  [0xfff0, 0xfff8],
] as const)
  SCREEN.fill(1, from, to + 1);
// A full-width mark other than a letter or digit, and the ideographic space, fold only beside an ASCII
// character or a full-width form (see `CHARACTERS`): Chinese and Japanese prose holds them beside its own.
for (const [from, to] of [
  [0x3000, 0x3000],
  [0xff01, 0xff0f],
  [0xff1a, 0xff20],
  [0xff3b, 0xff40],
  [0xff5b, 0xff5e],
] as const)
  SCREEN.fill(2, from, to + 1);

/** Whether the code unit at `i` is beside an ASCII character other than a line break, or a full-width form. */
function besideAsciiOrWide(text: string, i: number): boolean {
  return asciiOrWide(text.charCodeAt(i - 1)) || asciiOrWide(text.charCodeAt(i + 1));
}
const asciiOrWide = (c: number) => c === 9 || (c >= 32 && c <= 126) || (c >= 0xff01 && c <= 0xff5e);

/**
 * Whether any code unit of `text` passes `SCREEN`: first a class of a few wide ranges holding all of it, which
 * a regular expression reads at under a nanosecond a character (most texts stop there), then the table.
 */
function screened(text: string): boolean {
  if (!COARSE.test(text)) return false;
  for (let i = 0; i < text.length; i++) {
    const kind = SCREEN[text.charCodeAt(i)];
    if (kind === 1 || (kind === 2 && besideAsciiOrWide(text, i))) return true;
  }
  return false;
}
const COARSE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: single code units are the point (U+034F among them)
  /[&\\<\u00A0\u00AD\u034F\u061C\u1100-\u11FF\u1680-\u18FF\u2000-\u24FF\u3000-\u31FF\uD800-\uDBFF\uFB00-\uFFFF]/;

/** Whether `text` holds anything to fold (about a millisecond a megabyte that holds nothing). */
export function mayFold(text: string): boolean {
  if (CYRILLIC_OR_GREEK.test(text) && MIXED.test(text)) return true;
  if (!screened(text)) return false;
  CHARACTERS.lastIndex = 0;
  ESCAPES.lastIndex = 0;
  TAGS.lastIndex = 0;
  return CHARACTERS.test(text) || ESCAPES.test(text) || TAGS.test(text);
}

/**
 * A folded text and where each of its characters came from in the text it folds: `from(i)` and `to(i)`, the
 * range of written characters that character `i` stands for.
 */
export interface Folded {
  readonly text: string;
  from(i: number): number;
  to(i: number): number;
}

/** Spaces other than the ASCII one: no-break, thin, narrow, ideographic… */
const SPACES = /^[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/;

/** A match of `CHARACTERS` folded: nothing for characters that show nothing, else their ASCII forms. */
function foldCharacters(stretch: string): string {
  const first = stretch.charCodeAt(0);
  if (SPACES.test(stretch)) return " ".repeat(stretch.length);
  if (first >= 0xff01 && first <= 0xff5e) {
    let out = "";
    for (let i = 0; i < stretch.length; i++) out += String.fromCharCode(stretch.charCodeAt(i) - 0xfee0);
    return out;
  }
  // A letter-like, enclosed, ligature, small or mathematical form: its compatibility form (`ⓟ`, `𝐩`: `p`).
  return INVISIBLE.test(stretch) ? "" : stretch.normalize("NFKC");
}

/** A match of `ESCAPES` decoded as HTML or JSON decodes it; as written when it names nothing. */
function foldEscape(written: string): string {
  if (written.charCodeAt(0) === 92) {
    const code = Number.parseInt(written.slice(2), 16);
    // A lone surrogate decodes to nothing a rule reads.
    return code >= 0xd800 && code <= 0xdfff ? written : String.fromCharCode(code);
  }
  const body = written.endsWith(";") ? written.slice(1, -1) : written.slice(1);
  if (body.startsWith("#")) {
    const hex = body[1] === "x" || body[1] === "X";
    return numericReference(Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10));
  }
  const named = namedReference(body);
  return named === false ? written : named;
}

/**
 * The character a numeric reference stands for, as HTML reads it: U+FFFD for a control character other than
 * a tab or line break, a surrogate, a noncharacter or a number past Unicode.
 */
function numericReference(code: number): string {
  const control = code < 9 || code === 11 || (code > 13 && code < 32) || (code > 126 && code < 160);
  const noncharacter = (code >= 0xfdd0 && code <= 0xfdef) || (code & 0xfffe) === 0xfffe;
  if (control || noncharacter || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return "\uFFFD";
  return String.fromCodePoint(code);
}

/**
 * The text a named reference stands for (HTML's 2,125 names, from `decode-named-character-reference`), or
 * false. Its table is loaded at the first name, not with this module: most texts hold none, and a command
 * that never meets one does not pay for reading it.
 */
function namedReference(name: string): string | false {
  decodeNamed ??= (
    createRequire(import.meta.url)("decode-named-character-reference") as {
      decodeNamedCharacterReference: (name: string) => string | false;
    }
  ).decodeNamedCharacterReference;
  return decodeNamed(name);
}
let decodeNamed: ((name: string) => string | false) | undefined;

/**
 * `text` with each match of `pattern` replaced by `replace`'s answer, and where each character of the result
 * came from; null when no match changes. A match replaced by as many characters maps one for one, any
 * other to its whole range; text between replacements maps one for one. The map is kept as the list of
 * replacements (a long text costs what it holds to fold, not its length).
 */
function foldBy(pattern: RegExp, replace: (match: string) => string, text: string): Folded | null {
  let out = "";
  // Per replacement, four numbers: where it starts and ends in the result, where what it replaced starts
  // and ends in `text`.
  const edits: number[] = [];
  let copied = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const folded = replace(m[0]);
    if (folded === m[0]) continue;
    out += text.slice(copied, m.index);
    copied = m.index + m[0].length;
    edits.push(out.length, out.length + folded.length, m.index, copied);
    out += folded;
  }
  if (edits.length === 0) return null;
  out += text.slice(copied);
  /** The index in `edits` of the last replacement starting at or before `i` in the result; -4 for none. */
  const before = (i: number): number => {
    let lo = -1;
    let hi = edits.length / 4 - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((edits[mid * 4] ?? 0) <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo * 4;
  };
  const source = (i: number, end: boolean): number => {
    const k = before(i);
    if (k < 0) return i + (end ? 1 : 0);
    const [start = 0, stop = 0, from = 0, to = 0] = edits.slice(k, k + 4);
    // Past the replacement: copied one for one after what it replaced.
    if (i >= stop) return to + i - stop + (end ? 1 : 0);
    if (stop - start === to - from) return from + i - start + (end ? 1 : 0);
    return end ? to : from;
  };
  return { text: out, from: (i) => source(i, false), to: (i) => source(i, true) };
}

/**
 * `text` folded, with where each character came from; null when nothing in it folds to anything new. Escapes
 * are decoded twice, and characters folded again after them, since escapes may stand for them (`&#8203;`,
 * `\u00ad`).
 */
export function fold(text: string): Folded | null {
  let folded: Folded | null = null;
  for (const [pattern, replace] of STEPS) {
    // Words are read one by one only where scripts mix: the other lines' words cost nothing.
    if (pattern === WORDS && !MIXED.test(folded?.text ?? text)) continue;
    const next = foldBy(pattern, replace, folded?.text ?? text);
    if (next !== null) folded = folded === null ? next : after(folded, next);
  }
  return folded;
}

/** `next`, a folding of `first.text`, as a folding of the text `first` folded. */
function after(first: Folded, next: Folded): Folded {
  return {
    text: next.text,
    from: (i) => first.from(next.from(i)),
    to: (i) => first.to(next.to(i) - 1),
  };
}

const STEPS: readonly (readonly [RegExp, (match: string) => string])[] = [
  [CHARACTERS, foldCharacters],
  // Once more: a full-width mark beside a mathematical letter is beside an ASCII one once that is folded.
  [CHARACTERS, foldCharacters],
  [ESCAPES, foldEscape],
  // Escaped twice (`&amp;quot;`, `&#38;lt;`): HTML escaped again by a tool that did not know it was.
  [ESCAPES, foldEscape],
  [CHARACTERS, foldCharacters],
  // After the escapes and what shows nothing, which may stand between two letters of a word.
  [WORDS, foldMixed],
  [TAGS, (tag) => (/^<br/i.test(tag) ? "\n" : "")],
];

/**
 * The secrets `find` finds in the folded form of the lines of `text` that hold anything to fold (and as many
 * lines around them as `reach`), as spans of `text`, in text order, overlapping nothing in `taken`: each from
 * the first written character of its first folded character to the last of its last.
 */
export function foldedFindings(
  text: string,
  reach: number,
  find: (folded: string) => readonly Finding[],
): Finding[] {
  // Its caller screens the text first (`mayFold`): the search for regions does not screen it again.
  const out: Finding[] = [];
  for (const region of foldedRegions(text, reach)) {
    const folded = fold(text.slice(region.start, region.end));
    if (folded === null) continue;
    for (const f of find(folded.text)) {
      const start = region.start + folded.from(f.start);
      const end = region.start + folded.to(f.end - 1);
      out.push({ kind: f.kind, start, end });
    }
  }
  return out;
}

/**
 * The lines of `text` holding anything to fold, and `reach` lines around them, merged, in text order. A
 * stretch found inside the lines already taken is skipped by the search itself: a text with something to
 * fold on every line costs a search per region, not per stretch.
 */
function foldedRegions(text: string, reach: number): Span[] {
  const regions: Span[] = [];
  for (const pattern of [CHARACTERS, ESCAPES, TAGS, MIXED_ALL]) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const [region] = linesAround(text, [{ start: m.index, end: m.index + m[0].length }], reach);
      if (region === undefined) continue;
      regions.push(region);
      pattern.lastIndex = Math.max(pattern.lastIndex, region.end);
    }
  }
  regions.sort((a, b) => a.start - b.start);
  const merged: Span[] = [];
  for (const r of regions) {
    const last = merged.at(-1);
    if (last !== undefined && r.start <= last.end)
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, r.end) };
    else merged.push(r);
  }
  return merged;
}

/**
 * The union of two lists of findings (each in text order, disjoint), in text order and disjoint: findings
 * that overlap become one, from the first start to the last end, of the kind of the one that starts first.
 */
export function unite(a: readonly Finding[], b: readonly Finding[]): Finding[] {
  const all = [...a, ...b].sort((x, y) => x.start - y.start || y.end - x.end);
  const out: Finding[] = [];
  for (const f of all) {
    const last = out.at(-1);
    if (last !== undefined && f.start < last.end) {
      if (f.end > last.end) out[out.length - 1] = { ...last, end: f.end };
    } else out.push({ ...f });
  }
  return out;
}
