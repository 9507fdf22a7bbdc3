/**
 * Pattern sources rewritten for speed, with the same matches: a helper of the redaction rules.
 */

/**
 * `source` with its named groups made plain numbered ones, and the number of each name. V8 builds a
 * `groups` object for every match of a pattern with named groups: on a text dense with matches that is a
 * third of the rule's time. Group references become numbered ones too.
 */
export function numbered(source: string): { source: string; group: Readonly<Record<string, number>> } {
  const group: Record<string, number> = {};
  let out = "";
  let count = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    const named = /^\(\?<[A-Za-z][A-Za-z0-9]*>/.exec(source.slice(i, i + 40))?.[0];
    if (ch === "\\") {
      const ref = /^\\k<([A-Za-z][A-Za-z0-9]*)>/.exec(source.slice(i, i + 40));
      const n = ref?.[1] === undefined ? undefined : group[ref[1]];
      out += ref !== null && n !== undefined && !inClass ? `(?:\\${n})` : source.slice(i, i + 2);
      i += ref !== null && n !== undefined && !inClass ? ref[0].length - 1 : 1;
    } else if (inClass) {
      inClass = ch !== "]";
      out += ch;
    } else if (ch === "[") {
      inClass = true;
      out += ch;
    } else if (named !== undefined) {
      group[named.slice(3, -1)] = ++count;
      out += "(";
      i += named.length - 1;
    } else {
      if (ch === "(" && source[i + 1] !== "?") count++;
      out += ch;
    }
  }
  return { source: out, group };
}

/**
 * `patterns` (no flags, no backreferences) as one pattern that matches where any of them does, `prefix`
 * before the alternation: `^` for patterns all anchored at the start, so the engine tries the joined one at
 * the first position only. One call tries every alternative where eighteen calls would each pay their own
 * entry, and a value tried against many shapes is judged in a fraction of the time. A pattern with a flag is
 * refused: its flag cannot be scoped to its part (modifier groups, `(?i:…)`, are a syntax error in Node 22,
 * which OpenClaw 2026.9.2 runs on), nor can a backreference, which the joining would renumber.
 */
export function joinPatterns(patterns: readonly RegExp[], prefix: string): RegExp {
  const parts = patterns.map((re) => {
    if (re.flags !== "" || /\\(?:[1-9]|k<)/.test(re.source))
      throw new Error(`big-memory: pattern /${re.source}/${re.flags} cannot be joined`);
    return `(?:${re.source})`;
  });
  // No pattern at all matches nothing (an empty alternation would match everywhere).
  return new RegExp(parts.length === 0 ? "(?!)" : `${prefix}(?:${parts.join("|")})`);
}

/** The top-level alternatives of a pattern's source: split at each `|` outside groups and classes. */
export function alternativesOf(source: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      out.push(source.slice(from, i));
      from = i + 1;
    }
  }
  out.push(source.slice(from));
  return out;
}

/** Whether every top-level alternative of `re` begins with `^` (without the `m` flag: the text's start). */
export function isAnchored(re: RegExp): boolean {
  return !re.flags.includes("m") && alternativesOf(re.source).every((a) => a.startsWith("^"));
}

/** Whether `text` holds 8 equal code units in a row other than line breaks (`/(.)\1{7}/`), without a pattern. */
export function hasRunOfEight(text: string): boolean {
  // Eight units in a row cover one index of every eight (7, 15, 23, …): only those are read, and from each
  // the run of its unit both ways, so a random value costs a few reads, not one per unit.
  for (let at = 7; at < text.length; at += 8) {
    const c = text.charCodeAt(at);
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) continue;
    let from = at;
    while (from > 0 && text.charCodeAt(from - 1) === c) from--;
    let to = at + 1;
    while (to < text.length && to - from < 8 && text.charCodeAt(to) === c) to++;
    if (to - from >= 8) return true;
  }
  return false;
}

/** White space as `\s` reads it. */
export function isSpace(c: number): boolean {
  return (
    (c >= 9 && c <= 13) ||
    c === 32 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * The character tests below read a value once where patterns would be called on it one after another: a
 * fresh value (every value of a log where no two passwords are alike) is judged by several, and a call to a
 * short pattern costs more than reading a short value.
 */

/** How many of lower case, upper case and digits occur in `value` (ASCII: `[a-z]`, `[A-Z]`, `\d`). */
export function classCount(value: string): number {
  let lower = 0;
  let upper = 0;
  let digit = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 97 && c <= 122) lower = 1;
    else if (c >= 65 && c <= 90) upper = 1;
    else if (c >= 48 && c <= 57) digit = 1;
  }
  return lower + upper + digit;
}

/** Whether `value` is printable ASCII other than the space, and not empty (`/^[\x21-\x7e]+$/`). */
export function isPrintableAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return value.length > 0;
}

/**
 * Whether `value` is lower-case words and numbers joined by `-_.:/@+` (`user:42:profile`): cut at each of
 * those, it has two parts or more, each of lower-case ASCII letters only or ASCII digits only (or empty).
 */
export function isWordsAndNumbers(value: string): boolean {
  let joined = false;
  // What the part at hand holds: 0 nothing yet, 1 letters, 2 digits.
  let part = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // `-` `_` `.` `:` `/` `@` `+`
    if (c === 45 || c === 95 || c === 46 || c === 58 || c === 47 || c === 64 || c === 43) {
      joined = true;
      part = 0;
      continue;
    }
    const kind = c >= 97 && c <= 122 ? 1 : c >= 48 && c <= 57 ? 2 : 0;
    if (kind === 0 || (part !== 0 && part !== kind)) return false;
    part = kind;
  }
  return joined;
}

/** Whether `text` is made of fewer than 3 distinct UTF-16 code units, without a set per call. */
export function fewerThanThreeCharacters(text: string): boolean {
  const first = text.charCodeAt(0);
  let second = -1;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === first || c === second) continue;
    if (second !== -1) return false;
    second = c;
  }
  return true;
}

/** A test of whether a text holds any of `chars` (ASCII characters), read by a table. */
export function anyOf(chars: string): (text: string) => boolean {
  const table = new Uint8Array(128);
  for (const ch of chars) {
    if (ch.charCodeAt(0) >= 128) throw new Error(`big-memory: anyOf: ${JSON.stringify(ch)} is not ASCII`);
    table[ch.charCodeAt(0)] = 1;
  }
  return (text) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 128 && table[c] === 1) return true;
    }
    return false;
  };
}
