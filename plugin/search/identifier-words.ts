/**
 * The identifier words of a query as ranking holds them (rank.ts): the masks of each one's whole term
 * and leaves, and the checks that tell whether a snapshot holds one as typed, whole or as a run of its
 * leaves, reading as little as they can (the accumulator's bits first, an entry's text last). Pure.
 */
import { at } from "./checked.ts";
import { type Entry, snippetLines } from "./document.ts";
import type { Word } from "./hit.ts";
import type { Accumulator } from "./scoring.ts";
import type { Shard } from "./shard.ts";
import { holdsSequence, mayHoldRun, type QueryWord, sequenceScreen } from "./tokenize.ts";

/** An identifier word of the query with the masks of its whole term and its leaves. */
export interface IdWord {
  raw: string;
  leaves: string[];
  /** See tokenize.ts `sequenceScreen`. */
  screen: RegExp;
  whole: number;
  parts: number;
  /** The bits of its two rarest leaves, looked up when no snapshot holds the word whole; 0 otherwise. */
  rare: number;
}

/** The identifier words of a plan that kept a term (a query may hold more terms than are looked up). */
export function identifierWords(words: readonly QueryWord[], wordMap: ReadonlyMap<number, Word>): IdWord[] {
  const out: IdWord[] = [];
  for (const w of words) {
    const masks = wordMap.get(w.word);
    if (!w.identifier || masks === undefined) continue;
    out.push({
      raw: w.raw,
      leaves: w.leaves,
      screen: sequenceScreen(w.leaves),
      whole: masks.whole,
      parts: masks.parts,
      rare: 0,
    });
  }
  return out;
}

/**
 * Whether one of an entry's lines holds `leaves` as a run of tokens, each line read without its field
 * tag (document.ts `snippetLines`): glued to the first word, the tag would make `src/auth/session.ts` at
 * the start of a line read `fsrc/auth/...`. The screen rules most entries out without splitting them.
 */
export function linesHold(entry: Entry, leaves: readonly string[], screen: RegExp): boolean {
  if (!mayHoldRun(entry.text, leaves, screen)) return false;
  return snippetLines(entry).some((line) => holdsSequence(line.text, leaves, screen));
}

/**
 * Whether the exact terms of a document (`exact`, a bit per query term) leave identifier word `w` possible:
 * it holds the word whole, or both its rarest leaves (the text then tells whether they are a run).
 */
export function bitsMayHold(w: IdWord, exact: number): boolean {
  return (exact & w.whole) !== 0 || (w.rare !== 0 && (exact & w.rare) === w.rare);
}

/**
 * Whether some touched, eligible document of the searched shards has exact terms that pass `may` and
 * passes `test`. `may` reads only the accumulator, so the entries of the many documents that fail it (a
 * common leaf touches most of a large history) are never read.
 */
export function anyDoc(
  shards: readonly Shard[],
  accs: readonly Accumulator[],
  eligible: (entry: Entry | undefined) => entry is Entry,
  may: (exact: number) => boolean,
  test?: (exact: number, entry: Entry, shard: number, doc: number) => boolean,
): boolean {
  return shards.some((shard, s) => {
    const acc = at(accs, s);
    return acc.touched.some((doc) => {
      const exact = acc.exact(doc);
      if (!may(exact)) return false;
      const entry = shard.entry(doc);
      return eligible(entry) && (test === undefined || test(exact, entry, s, doc));
    });
  });
}
