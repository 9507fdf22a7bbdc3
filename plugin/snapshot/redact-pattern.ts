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
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const lineBreak = c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
    run = lineBreak ? 0 : i > 0 && c === text.charCodeAt(i - 1) ? run + 1 : 1;
    if (run === 8) return true;
  }
  return false;
}
