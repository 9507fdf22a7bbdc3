/**
 * Finds every occurrence of many literals in one pass, ignoring case: the trigger scan of the redactor.
 *
 * A regular expression alternation of a hundred and fifty literals runs at well under 100 M characters per
 * second in V8 (every position tries every branch); this scanner looks each position up in a table of the
 * literals' first two characters (case-folded), so most positions cost one array read, and only a literal
 * whose first two characters are there is compared in full. Occurrences may overlap; each is reported.
 */

/** A literal in both cases, one UTF-16 code unit per character. */
interface Literal {
  readonly lower: readonly number[];
  readonly upper: readonly number[];
}

/**
 * The compiled literals; `scan` reports `(position, literal index)` for every occurrence in text order.
 * `onHit` may return a position: occurrences of that literal starting before it are then not reported (a
 * caller that has taken the rest of a line for a literal needs no more hits of it there).
 */
export interface LiteralScanner {
  readonly literals: readonly string[];
  /**
   * `skip`: ranges (sorted, disjoint) where no occurrence may start; the scan jumps over them without
   * reading them (the markers of a text redacted once are most of it when its secrets were dense).
   * `until`: per literal, where its next occurrence may be reported from (one entry per literal, zeros to
   * start), which `onHit`'s answers raise; `onHit` may raise any literal's entry itself, when it knows that
   * literal's occurrences before some position would add nothing.
   */
  scan(
    text: string,
    onHit: (at: number, literal: number) => number | undefined,
    skip?: readonly { readonly start: number; readonly end: number }[],
    until?: Int32Array,
  ): void;
}

/** Pair keys are two 7-bit codes. */
const PAIR_KEYS = 128 * 128;

function caseOf(text: string, mode: "lower" | "upper"): number[] {
  return Array.from(text, (ch) => {
    const other = mode === "lower" ? ch.toLowerCase() : ch.toUpperCase();
    // A character whose other case is longer (`ß` -> `SS`) is matched in its own case only.
    return (other.length === 1 ? other : ch).charCodeAt(0);
  });
}

/**
 * Compile `literals` (each at least two UTF-16 code units and free of astral characters) into a scanner.
 * Matching ignores case: ASCII letters by folding, other letters by their one-character upper case.
 *
 * Every code unit is first mapped to a 7-bit code: ASCII to itself (letters folded to lower case),
 * non-ASCII characters that begin a literal to one of the free control codes (shared when there are more
 * such characters than codes), everything else to 0. The
 * codes of two neighbouring characters index a table of the literals that begin with them, so the loop has
 * no branch that depends on the text except the rare hit.
 */
export function compileLiterals(literals: readonly string[]): LiteralScanner {
  const compiled: Literal[] = literals.map((l) => {
    if (l.length < 2 || l.length !== Array.from(l).length) {
      throw new Error(`big-memory: redact trigger ${JSON.stringify(l)}: expected 2+ characters from the BMP`);
    }
    return { lower: caseOf(l, "lower"), upper: caseOf(l, "upper") };
  });
  const fold = new Uint8Array(65536);
  for (let code = 32; code < 127; code++) fold[code] = code >= 65 && code <= 90 ? code | 32 : code;
  // Control codes other than tab, newline and carriage return name the non-ASCII leading characters.
  const free = [...Array(32).keys()].filter((c) => c > 0 && c !== 9 && c !== 10 && c !== 13);
  let next = 0;
  const codeOf = (lower: number, upper: number): number => {
    if (lower < 128) return fold[lower] ?? 0;
    const existing = fold[lower] ?? 0;
    if (existing !== 0) return existing;
    // Past the free codes, characters share them: a shared code only sends more candidates to the full
    // comparison, which tells them apart.
    const code = free[next++ % free.length] ?? 1;
    fold[lower] = code;
    fold[upper] = code;
    return code;
  };
  const lists: number[][] = [[]];
  const pairs = new Uint16Array(PAIR_KEYS);
  for (const [index, { lower, upper }] of compiled.entries()) {
    const key = (codeOf(lower[0] ?? 0, upper[0] ?? 0) << 7) | codeOf(lower[1] ?? 0, upper[1] ?? 0);
    if (pairs[key] === 0) pairs[key] = lists.push([]) - 1;
    lists[pairs[key] ?? 0]?.push(index);
  }
  // Per pair and third character, the literals that go on with it (a 2-character literal under every
  // third), so that a common pair (`to`, `an`, `se`) rarely gets as far as a comparison, and `pas` compares
  // the `pass…` literals only, not `pat` or `parola`. Equal sets share one list.
  const subOf = new Uint16Array(lists.length * 128);
  const subs: number[][] = [[]];
  const subByMembers = new Map<string, number>();
  for (const [list, members] of lists.entries()) {
    for (let code = 0; code < 128; code++) {
      const fits = members.filter((index) => {
        const literal = compiled[index];
        if (literal === undefined) return false;
        if (literal.lower.length < 3) return true;
        return fold[literal.lower[2] ?? 0] === code || fold[literal.upper[2] ?? 0] === code;
      });
      if (fits.length === 0) continue;
      const key = fits.join(",");
      let sub = subByMembers.get(key);
      if (sub === undefined) {
        sub = subs.push(fits) - 1;
        subByMembers.set(key, sub);
      }
      subOf[(list << 7) | code] = sub;
    }
  }
  // The last character first: literals of one pair share their start (`pass`, `password`, `passphrase`,
  // `passcode`), and their ends tell them apart at once. Each literal's last index and last character (both
  // cases) sit in typed arrays, so a literal whose end is not there costs no read of its object.
  const lastIndex = Int32Array.from(compiled, (l) => l.lower.length - 1);
  const lastLower = Int32Array.from(compiled, (l) => l.lower.at(-1) ?? -1);
  const lastUpper = Int32Array.from(compiled, (l) => l.upper.at(-1) ?? -1);
  const matchesAt = (text: string, at: number, index: number): boolean => {
    const n = lastIndex[index] ?? 0;
    if (at + n >= text.length) return false;
    const end = text.charCodeAt(at + n);
    if (end !== lastLower[index] && end !== lastUpper[index]) return false;
    const { lower, upper } = compiled[index] ?? { lower: [], upper: [] };
    for (let j = 0; j < n; j++) {
      const code = text.charCodeAt(at + j);
      if (code !== lower[j] && code !== upper[j]) return false;
    }
    return true;
  };
  return {
    literals,
    scan(text, onHit, skip = [], until = new Int32Array(compiled.length)) {
      // Per literal, where its next occurrence may be reported from (`until`), and per group of literals
      // (`subs`) the least of theirs: a line whose literals have all been taken costs one read. An entry
      // `onHit` raised for a literal other than the one hit only makes its group's least stale, and low.
      const subUntil = new Int32Array(subs.length);
      let next = fold[text.charCodeAt(0)] ?? 0;
      let skipped = 0;
      let skipAt = skip[0]?.start ?? -1;
      for (let i = 0; i < text.length - 1; i++) {
        if (i === skipAt) {
          const end = skip[skipped]?.end ?? i;
          skipped++;
          skipAt = skip[skipped]?.start ?? -1;
          if (end > i) {
            next = fold[text.charCodeAt(end)] ?? 0;
            i = end - 1;
            continue;
          }
        }
        const key = (next << 7) | (fold[text.charCodeAt(i + 1)] ?? 0);
        next = key & 127;
        const list = pairs[key] ?? 0;
        if (list === 0) continue;
        const sub = subOf[(list << 7) | (fold[text.charCodeAt(i + 2)] ?? 0)] ?? 0;
        if (sub === 0 || i < (subUntil[sub] ?? 0)) continue;
        const members = subs[sub] ?? [];
        let advanced = false;
        for (let m = 0; m < members.length; m++) {
          const index = members[m] ?? 0;
          if (i < (until[index] ?? 0) || !matchesAt(text, i, index)) continue;
          const skip = onHit(i, index);
          if (skip === undefined) continue;
          until[index] = skip;
          advanced = true;
        }
        if (advanced) {
          let least = 0x7fffffff;
          for (let m = 0; m < members.length; m++) least = Math.min(least, until[members[m] ?? 0] ?? 0);
          subUntil[sub] = least;
        }
      }
    },
  };
}
