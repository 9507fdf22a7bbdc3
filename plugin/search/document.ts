/**
 * What the search index keeps of a snapshot: the searchable fields of its document and the stored entry
 * that answers `list`/`search` without re-reading the daily log. Pure.
 */
import type { SnapshotRef } from "../snapshot/json.ts";
import type { LocatedSnapshot, Snapshot, Trigger, Verified } from "../snapshot/snapshot.ts";

/**
 * Indexed fields and their boosts: what people search by (goal, key names, files, checkpoint name) counts
 * most. Code is indexed by its identifiers only, so comments and keywords stay out of the index.
 */
export const FIELD_BOOSTS = {
  goal: 3,
  name: 3,
  names: 3,
  files: 2.5,
  next: 1.5,
  blockers: 1.5,
  decisions: 1.2,
  state: 1,
  code: 0.6,
  extra: 0.6,
} as const;
export type Field = keyof typeof FIELD_BOOSTS;
export const FIELDS = Object.keys(FIELD_BOOSTS) as Field[];

/** Fields of an entry's snippet lines by their one-letter tag. */
const TAG_FIELDS = new Map<string, Field>([
  ["n", "name"],
  ["k", "names"],
  ["f", "files"],
  ["x", "next"],
  ["b", "blockers"],
  ["d", "decisions"],
  ["s", "state"],
  ["e", "extra"],
]);

/** Whether a field's text is kept in the entry as lines (see Entry): every field but code. */
export const HAS_LINES: readonly boolean[] = FIELDS.map(
  (f) => f === "goal" || [...TAG_FIELDS.values()].includes(f),
);

/** Longest line kept for a snippet, in characters. */
export const SNIPPET_LINE_LIMIT = 160;

/** A snapshot as the index stores it: the CLI's SnapshotRef plus what ranking, scoping and snippets need. */
export interface Entry {
  id: string;
  timestamp: string;
  /** `timestamp` in epoch milliseconds (NaN when unparseable, which sorts as oldest). */
  time: number;
  file: string;
  line: number;
  session: string | null;
  agent: string | null;
  trigger: Trigger | null;
  name: string | null;
  parent: string | null;
  tombstone: boolean;
  verified: Verified;
  /** Set in memory when a claim (claims.ts) gives the block to a session; never saved. */
  claimed?: boolean;
  goal: string;
  /** The indexed lines other than the goal and code, each `<tag><text>`, joined by `\n`, clipped. */
  text: string;
}

/** The ref fields of an entry: a snapshot as `list` and `search` report it, without a score. */
export function refOf(entry: Entry): Omit<SnapshotRef, "score"> {
  const { id, timestamp, file, line, session, agent, trigger, name, goal, verified } = entry;
  return { id, timestamp, file, line, session, agent, trigger, name, goal, verified };
}

/** The document handed to minisearch: one string per field. */
export type IndexDocument = { key: number } & Record<Field, string>;

const clip = (line: string): string =>
  line.length <= SNIPPET_LINE_LIMIT ? line : `${line.slice(0, SNIPPET_LINE_LIMIT - 1)}…`;

/** Identifier-looking words of code (with a connector, an inner capital or a digit), each once. */
export function codeIdentifiers(code: string): string {
  const seen = new Set<string>();
  const words = ASCII_TEXT.test(code) ? asciiWords(code) : code.split(NON_WORD);
  for (const word of words) {
    let start = 0;
    let end = word.length;
    while (start < end && EDGE.includes(word.charAt(start))) start++;
    while (end > start && EDGE.includes(word.charAt(end - 1))) end--;
    if (end - start < 3) continue;
    const w = start === 0 && end === word.length ? word : word.slice(start, end);
    if (!seen.has(w) && identifierLike(w)) seen.add(w);
  }
  return [...seen].join(" ");
}

const ASCII_TEXT = /^[\x20-\x7e\t\n\r]*$/;
const NON_WORD = /[^\p{L}\p{N}_\-./:@#$+~]+/u;
const EDGE = "-./:@#$+~";
/** 1 for ASCII codes that belong to a code word (letters, digits, connectors). */
const WORD_CHAR = new Uint8Array(128);
for (const ch of "_-./:@#$+~0123456789") WORD_CHAR[ch.charCodeAt(0)] = 1;
for (let c = 65; c <= 90; c++) WORD_CHAR[c] = WORD_CHAR[c + 32] = 1;

/** Holds a connector or a digit, or a lower-case letter followed by a capital. */
function identifierLike(word: string): boolean {
  let lower = false;
  let ascii = true;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
    if (c < 128 && "_-./:@#$+~".includes(word.charAt(i))) return true;
    if (lower && c >= 65 && c <= 90) return true;
    lower = c >= 97 && c <= 122;
    if (c >= 128) ascii = false;
  }
  return !ascii && /\p{N}|\p{Ll}\p{Lu}/u.test(word);
}

/** The runs of word characters of ASCII text of 3 characters or more. */
function asciiWords(code: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= code.length; i++) {
    const inWord = i < code.length && WORD_CHAR[code.charCodeAt(i)] === 1;
    if (inWord && start < 0) start = i;
    else if (!inWord && start >= 0) {
      if (i - start >= 3) out.push(code.slice(start, i));
      start = -1;
    }
  }
  return out;
}

/**
 * The searchable fields of a snapshot: what people search by. Key names are indexed by value, files by
 * path, decisions by their text, the state by branch and blocker; file notes, rationales, progress
 * prose and code comments stay out of the index (they are bulky and rarely what anyone remembers).
 */
export function fieldsOf(located: LocatedSnapshot): Record<Field, string> {
  const s = located.snapshot;
  return {
    goal: s.goal,
    name: [s.name, s.parent].filter((v) => v !== null).join(" "),
    names: s.names.map((n) => n.value).join("\n"),
    files: s.files.map((f) => f.path).join("\n"),
    next: s.next.join("\n"),
    blockers: s.blockers.join("\n"),
    decisions: s.decisions.map((d) => d.text).join("\n"),
    state: stateLines(s.state).join("\n"),
    code: codeIdentifiers(s.code),
    extra: s.extra.map((e) => `${e.heading}: ${e.body}`).join("\n"),
  };
}

function stateLines(state: Snapshot["state"]): string[] {
  const lines = state.branch === "" ? [] : [state.branch];
  if (state.blocked !== "" && !/^no\b/i.test(state.blocked)) lines.push(state.blocked);
  return lines;
}

/** The stored entry of a snapshot; its snippet text holds the indexed lines (key names with labels). */
export function entryOf(located: LocatedSnapshot): Entry {
  const s = located.snapshot;
  const lines: string[] = [];
  const add = (tag: string, line: string) => {
    if (line.trim() !== "") lines.push(tag + clip(line.replace(/\s*\n\s*/g, " ")));
  };
  if (s.name !== null) add("n", s.name);
  for (const n of s.names) add("k", n.label === "" ? n.value : `${n.label}: ${n.value}`);
  for (const f of s.files) add("f", f.path);
  for (const line of s.next) add("x", line);
  for (const line of s.blockers) add("b", line);
  for (const d of s.decisions) add("d", d.text);
  for (const line of stateLines(s.state)) add("s", line);
  for (const e of s.extra) add("e", `${e.heading}: ${e.body}`);
  return {
    id: s.id,
    timestamp: s.timestamp,
    time: Date.parse(s.timestamp),
    file: located.file,
    line: located.line,
    session: s.session,
    agent: s.agent,
    trigger: s.trigger,
    name: s.name,
    parent: s.parent,
    tombstone: s.tombstone,
    verified: located.verified,
    goal: s.goal,
    text: lines.join("\n"),
  };
}

/** The field of a snippet line's one-letter tag (see Entry.text). */
export function fieldOfTag(tag: string): Field | undefined {
  return TAG_FIELDS.get(tag);
}

/** The snippet lines of an entry with their fields, the goal first. */
export function snippetLines(entry: Entry): { field: Field; text: string }[] {
  const out: { field: Field; text: string }[] = [{ field: "goal", text: entry.goal }];
  if (entry.text === "") return out;
  for (const line of entry.text.split("\n")) {
    const field = TAG_FIELDS.get(line.charAt(0));
    if (field !== undefined) out.push({ field, text: line.slice(1) });
  }
  return out;
}
