/**
 * Identifier-aware tokenizer for snapshot search. Pure: text in, terms out.
 *
 * A "word" is a run of letters and digits joined by the connectors `_ - . / \ : @ # $ + ~`, so
 * `ERR_DUPLICATE_KEY`, `ADR-016`, `src/auth/oauth-callback.ts` and `analytics.events_2026` are each one
 * word. A word yields itself (the whole identifier) and, recursively, its parts split at the strongest
 * connector present (`/ \ :` then `@ #` then `.` then `-` then `_ $ + ~` then camelCase humps), so every
 * identifier is found whole and by its parts. Text in scripts written without spaces (Han, kana, Thai,
 * ...) is split into dictionary words by `Intl.Segmenter` plus overlapping character bigrams, so a CJK
 * query matches however the segmenter cut the surrounding sentence. Terms are case-folded and stripped
 * of Latin diacritics (`Café` -> `cafe`); full-width forms fold to ASCII.
 */

/** Longest term kept, in UTF-16 code units; longer runs (hashes, blobs) keep only their parts. */
export const MAX_TERM_LENGTH = 64;

/** Common English function words: neither indexed nor searched. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have he her his how i if in " +
    "into is it its itself me my of on or our she so than that the their them then there these they this " +
    "those to too was we were what when where which while who whom why will with would you your"
  ).split(" "),
);

/** How a term was derived: a whole word, a part of an identifier, or a word/bigram of unspaced script. */
export type TermKind = "whole" | "part" | "cjk";

/** One analysed term with its origin. */
export interface AnalysedTerm {
  term: string;
  kind: TermKind;
  /** Index of the word it came from, 0-based, in reading order. */
  word: number;
}

/**
 * Connector class of each ASCII code: 0 letter or digit, 1 `/ \ :`, 2 `@ #`, 3 `.`, 4 `-`, 5 `_ $ + ~`,
 * -1 anything else (a separator). Lower classes split first.
 */
const CLASS = new Int8Array(128).fill(-1);
for (let c = 48; c <= 57; c++) CLASS[c] = 0;
for (let c = 65; c <= 90; c++) CLASS[c] = 0;
for (let c = 97; c <= 122; c++) CLASS[c] = 0;
for (const [chars, cls] of [
  ["/\\:", 1],
  ["@#", 2],
  [".", 3],
  ["-", 4],
  ["_$+~", 5],
] as const) {
  for (const ch of chars) CLASS[ch.charCodeAt(0)] = cls;
}
const CONNECTOR_CLASSES = 5;

const SEGMENTED =
  "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}";
/** A run in an unspaced script, or a word: letters/digits/marks joined by connectors. */
const RUN = new RegExp(
  `([${SEGMENTED}\\u30fc]+)|((?:(?![${SEGMENTED}])[\\p{L}\\p{N}\\p{M}_\\-./\\\\:@#$+~])+)`,
  "gu",
);
const CAMEL_BOUNDARY = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{N})(?=\p{Lu}\p{Ll})/u;
const LATIN_DIACRITICS = /[\u0300-\u036f]/gu;
const PRINTABLE_ASCII = /^[\x20-\x7e\t\n\r]*$/;
const ASCII_LEAVES = /^[a-z0-9]*$/;
/** Characters that {@link foldText} can turn into other letters or digits. */
const FOLDABLE = /[\u00a0-\u024f\u1e00-\u1eff\ufb00-\ufb06\uff01-\uff5e]/;
const SINGLE_LETTER = /^\p{L}$/u;
/** ICU's word segmenter uses one Chinese/Japanese dictionary whatever the locale. */
const SEGMENTER = new Intl.Segmenter("zh", { granularity: "word" });

/** Folds Latin diacritics and compatibility forms (full-width, ligatures); keeps kana voicing marks. */
export function foldText(text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text;
  return text.normalize("NFKD").replace(LATIN_DIACRITICS, "").normalize("NFC");
}

function classOf(code: number): number {
  return code < 128 ? (CLASS[code] ?? -1) : 0;
}

type Sink = (term: string, kind: TermKind, word: number) => void;
/** Told of each word as scanned (connectors trimmed), with its index; `segmented` for unspaced scripts. */
type WordHook = (raw: string, index: number, segmented: boolean) => void;

function emit(sink: Sink, raw: string, kind: TermKind, word: number): void {
  const term = raw.toLowerCase();
  if (term.length > MAX_TERM_LENGTH || STOP_WORDS.has(term)) return;
  if (term.length === 1) {
    const c = term.charCodeAt(0);
    if (c < 128 ? c >= 97 && c <= 122 : SINGLE_LETTER.test(term)) return;
  }
  sink(term, kind, word);
}

const isUpper = (c: number): boolean => c >= 65 && c <= 90;
const isLower = (c: number): boolean => c >= 97 && c <= 122;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Camel humps of a word with no connectors (`parseDailyLog` -> parse, Daily, Log; `HTTPServer` -> HTTP,
 * Server), or [] when it has only one. A hump starts at a capital after a lower-case letter, and at the
 * last capital of a run of capitals followed by a lower-case letter (or of a digit followed by both).
 */
function humps(word: string): string[] {
  for (let i = 0; i < word.length; i++) {
    if (word.charCodeAt(i) >= 128) {
      const split = word.split(CAMEL_BOUNDARY);
      return split.length > 1 ? split : [];
    }
  }
  const out: string[] = [];
  let start = 0;
  for (let i = 1; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (!isUpper(c)) continue;
    const p = word.charCodeAt(i - 1);
    const nextLower = isLower(word.charCodeAt(i + 1));
    if (isLower(p) || ((isUpper(p) || isDigit(p)) && nextLower)) {
      out.push(word.slice(start, i));
      start = i;
    }
  }
  if (start === 0) return [];
  out.push(word.slice(start));
  return out;
}

/** Emits the parts of `word`, splitting at the strongest connector class present, at or above `from`. */
function splitWord(word: string, from: number, index: number, sink: Sink): void {
  let strongest = CONNECTOR_CLASSES + 1;
  for (let i = 0; i < word.length; i++) {
    const cls = classOf(word.charCodeAt(i));
    if (cls >= from && cls > 0 && cls < strongest) strongest = cls;
  }
  if (strongest > CONNECTOR_CLASSES) {
    for (const hump of humps(word)) emit(sink, hump, "part", index);
    return;
  }
  let start = 0;
  for (let i = 0; i <= word.length; i++) {
    if (i < word.length && classOf(word.charCodeAt(i)) !== strongest) continue;
    if (i > start) {
      const piece = word.slice(start, i);
      emit(sink, piece, "part", index);
      splitWord(piece, strongest + 1, index, sink);
    }
    start = i + 1;
  }
}

/** Emits a word (a run of word characters) whole, then its parts; returns whether it held anything. */
function emitWord(run: string, index: number, sink: Sink, onWord?: WordHook): boolean {
  let start = 0;
  let end = run.length;
  while (start < end && classOf(run.charCodeAt(start)) > 0) start++;
  while (end > start && classOf(run.charCodeAt(end - 1)) > 0) end--;
  if (start === end) return false;
  const word = start === 0 && end === run.length ? run : run.slice(start, end);
  onWord?.(word, index, false);
  emit(sink, word, "whole", index);
  splitWord(word, 1, index, sink);
  return true;
}

function emitSegmented(run: string, index: number, sink: Sink): void {
  const seen = new Set<string>();
  for (const part of SEGMENTER.segment(run)) {
    if (part.isWordLike !== true) continue;
    const term = part.segment.toLowerCase();
    if (seen.has(term)) continue;
    seen.add(term);
    sink(term, "cjk", index);
  }
  const chars = Array.from(run);
  for (let i = 0; i + 1 < chars.length; i++) {
    const bigram = `${chars[i]}${chars[i + 1]}`.toLowerCase();
    if (seen.has(bigram)) continue;
    seen.add(bigram);
    sink(bigram, "cjk", index);
  }
}

function scan(text: string, sink: Sink, onWord?: WordHook): void {
  let word = 0;
  if (PRINTABLE_ASCII.test(text)) {
    let start = -1;
    for (let i = 0; i <= text.length; i++) {
      const inWord = i < text.length && classOf(text.charCodeAt(i)) >= 0;
      if (inWord && start < 0) start = i;
      else if (!inWord && start >= 0) {
        if (emitWord(text.slice(start, i), word, sink, onWord)) word++;
        start = -1;
      }
    }
    return;
  }
  for (const match of foldText(text).matchAll(RUN)) {
    const [, segmented, plain] = match;
    if (segmented !== undefined) {
      onWord?.(segmented, word, true);
      emitSegmented(segmented, word++, sink);
    } else if (plain !== undefined && emitWord(plain, word, sink, onWord)) word++;
  }
}

/**
 * Analyses text into terms in reading order: for each word its whole form (kind `whole`) then its
 * parts (kind `part`); for unspaced scripts their words and bigrams (kind `cjk`). Stop words, single
 * letters and terms longer than {@link MAX_TERM_LENGTH} are dropped.
 */
export function analyse(text: string): AnalysedTerm[] {
  const out: AnalysedTerm[] = [];
  scan(text, (term, kind, word) => out.push({ term, kind, word }));
  return out;
}

/** Calls `visit` with each term of {@link analyse} in order, without collecting them. */
export function eachTerm(text: string, visit: (term: string, kind: TermKind, word: number) => void): void {
  scan(text, visit);
}

/** The index-side tokenizer: every term of {@link analyse}, repeats kept (they count as term frequency). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  scan(text, (term) => out.push(term));
  return out;
}

/** A word of a query as typed: its text, whether it reads as an identifier, and its finest tokens. */
export interface QueryWord {
  /** Index of the word, as in {@link AnalysedTerm.word}. */
  word: number;
  /** The word as typed, connectors at its ends trimmed (folded when not ASCII). */
  raw: string;
  /** See {@link isIdentifierLike}. */
  identifier: boolean;
  /** See {@link leavesOf}. */
  leaves: string[];
}

const IDENTIFIER_CHAR = /[_\-./:\\\p{N}]/u;

/**
 * Whether a word reads as an identifier, which a hit must then contain: it holds `_ - . / : \`, a digit, or
 * an inner capital (`parseDailyLog`, `HTTPServer`). Plain words (`timeout`, `Deploy`, `README`) do not.
 */
export function isIdentifierLike(raw: string): boolean {
  return IDENTIFIER_CHAR.test(raw) || humps(raw).length > 0;
}

const NOT_ALNUM = /[^\p{L}\p{N}\p{M}]+/u;

/**
 * The finest tokens of a word in reading order, case-folded: its runs of letters and digits, split at camel
 * humps (`ERR_DB_TIMEOUT` and `ErrDbTimeout` both give err, db, timeout). Stop words and single letters
 * are kept (they are part of the sequence, though the index drops them).
 */
export function leavesOf(raw: string): string[] {
  const out: string[] = [];
  for (const piece of foldText(raw).split(NOT_ALNUM)) {
    if (piece === "") continue;
    const split = humps(piece);
    for (const leaf of split.length > 0 ? split : [piece]) out.push(leaf.toLowerCase());
  }
  return out;
}

/** The words of a query, in reading order (unspaced-script runs are words too, never identifiers). */
export function queryWords(text: string): QueryWord[] {
  const out: QueryWord[] = [];
  scan(
    text,
    () => {},
    (raw, word, segmented) => {
      out.push({
        word,
        raw,
        identifier: !segmented && isIdentifierLike(raw),
        leaves: segmented ? [] : leavesOf(raw),
      });
    },
  );
  return out;
}

/** ASCII letters and the non-ASCII letters that fold to them under Unicode case folding. */
const ASCII_FOLDS: Readonly<Record<string, string>> = { s: "[s\u017f]", k: "[k\u212a]" };

/**
 * A necessary condition of {@link holdsSequence}, as one regular expression: the leaves in order,
 * case-insensitive, with nothing but non-alphanumerics between them. Leaves of plain ASCII (most
 * identifiers) get a pattern without the `u` flag, about four times faster over a snapshot's text: it
 * lets anything but an ASCII letter or digit stand between leaves (a superset of the Unicode form's
 * non-letters), and spells out the two non-ASCII letters whose Unicode case folding is an ASCII one (`ſ`
 * for s, the Kelvin sign for k), so it passes every text the Unicode form passes.
 */
export function sequenceScreen(leaves: readonly string[]): RegExp {
  if (ASCII_LEAVES.test(leaves.join("")))
    return new RegExp(
      leaves.map((l) => l.replace(/[sk]/g, (c) => ASCII_FOLDS[c] ?? c)).join("[^a-z0-9]*"),
      "i",
    );
  const literal = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(leaves.map(literal).join("[^\\p{L}\\p{N}]*"), "iu");
}

/** A word's leaves and, between each two, the class of what separates them (connector class, or 6 for a camel hump). */
function joinedLeaves(raw: string): { leaves: string[]; seps: number[] } {
  const leaves: string[] = [];
  const seps: number[] = [];
  let sep = 0;
  const folded = foldText(raw);
  for (const m of folded.matchAll(/[\p{L}\p{N}\p{M}]+|[^\p{L}\p{N}\p{M}]+/gu)) {
    const piece = m[0];
    if (NOT_ALNUM.test(piece)) {
      // The strongest connector of a separating run (class 1 is strongest); anything else counts as 1.
      sep = Math.min(
        ...[...piece].map((ch) => (classOf(ch.charCodeAt(0)) > 0 ? classOf(ch.charCodeAt(0)) : 1)),
      );
      continue;
    }
    const split = humps(piece);
    (split.length > 0 ? split : [piece]).forEach((leaf, i) => {
      if (leaves.length > 0) seps.push(i === 0 ? sep : 6);
      leaves.push(leaf.toLowerCase());
    });
  }
  return { leaves, seps };
}

/**
 * Whether `leaves` occur in a word (`haystack`) in order and adjacent, as a name of their own: the run
 * must not continue with the kind of connector it is joined by there (`ERR_DB_TIMEOUT` is not in
 * `ERR_DB_TIMEOUT_MS`, nor `ErrDb` in `ErrDbTimeout`), while a stronger boundary ends it
 * (`oauth-callback.ts` and `auth/oauth-callback` in `src/auth/oauth-callback.ts`; path separators may repeat).
 */
function containsRun(haystack: { leaves: string[]; seps: number[] }, leaves: readonly string[]): boolean {
  const { leaves: hay, seps } = haystack;
  outer: for (let i = 0; i + leaves.length <= hay.length; i++) {
    for (let j = 0; j < leaves.length; j++) if (hay[i + j] !== leaves[j]) continue outer;
    // Each boundary must be stronger than the connector next to it inside the run (or both path separators).
    const last = i + leaves.length - 1;
    const first = leaves.length > 1 ? (seps[i] ?? 7) : 7;
    const end = leaves.length > 1 ? (seps[last - 1] ?? 7) : 7;
    const ends = (sep: number | undefined, inner: number) =>
      sep === undefined || sep < inner || (sep === 1 && inner === 1);
    if (ends(i > 0 ? seps[i - 1] : undefined, first) && ends(seps[last], end)) return true;
  }
  return false;
}

/**
 * Whether `text` may hold `leaves` as a run (`screen` is their {@link sequenceScreen}): the screen passes
 * the text, or its folded form. Folding only matters for text holding letters that fold to others
 * (accented, full-width), and only for leaves that are not plain ASCII: an ASCII identifier written with
 * accents is found whole. Most texts a search screens fail both, so the fold is rarely made.
 */
export function mayHoldRun(text: string, leaves: readonly string[], screen: RegExp): boolean {
  return (
    screen.test(text) ||
    (!ASCII_LEAVES.test(leaves.join("")) && FOLDABLE.test(text) && screen.test(foldText(text)))
  );
}

/**
 * Whether `text` holds a word whose tokens contain `leaves` as a run of their own (see containsRun): the
 * identifier itself, written with any connectors or case (`ErrDbTimeout` for err, db, timeout), or as a
 * part of a path or dotted name (`src/auth/oauth-callback.ts` holds oauth, callback, ts). A token must
 * match whole (`timeouts` is not `timeout`).
 */
export function holdsSequence(
  text: string,
  leaves: readonly string[],
  screen: RegExp = sequenceScreen(leaves),
): boolean {
  if (leaves.length === 0 || !mayHoldRun(text, leaves, screen)) return false;
  let found = false;
  scan(
    text,
    () => {},
    (raw, _word, segmented) => {
      if (!found && !segmented && containsRun(joinedLeaves(raw), leaves)) found = true;
    },
  );
  return found;
}
