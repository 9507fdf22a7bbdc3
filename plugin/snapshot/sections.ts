import { decode, decodeCodeLine, indexOfUnescaped } from "./escape.ts";
import { SECTIONS, type SectionKey, STATE_LABELS, sectionOf } from "./format.ts";
import type { SnapshotContent, SnapshotState } from "./snapshot.ts";

/**
 * Section bodies to content values, shared by both readers so they agree on every canonical block.
 * `canonical` is true for blocks the plugin wrote (they carry a checksum): values are unescaped and
 * separators are the renderer's. Otherwise values are read literally and the separators people and
 * models use are accepted.
 */

/** An empty content record: every section `none`. */
export function emptyContent(): SnapshotContent {
  return {
    goal: "",
    state: { phase: "", branch: "", blocked: "", progress: "" },
    files: [],
    decisions: [],
    code: "",
    names: [],
    blockers: [],
    next: [],
    extra: [],
  };
}

/** One `###` section of a block: its heading text (after `[SNAPSHOT]`) and body lines. */
export interface RawSection {
  heading: string;
  lines: string[];
  /** For a tolerant read: the content of the section's only fenced code block, if that is all it holds. */
  fencedCode?: string;
}

const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;

/** Markdown white space is spaces and tabs only; `\u00a0` and other Unicode spaces are content. */
export function trimSpaces(text: string): string {
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  if (first !== 32 && first !== 9 && last !== 32 && last !== 9) return text;
  return text.replace(/^[ \t]+|[ \t]+$/g, "");
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/** `none` in any case, compared without lower-casing a copy of every value. */
function isNoneWord(text: string): boolean {
  return text.length === 4 && text.toLowerCase() === "none";
}

function isNone(text: string): boolean {
  return isNoneWord(trimSpaces(text));
}

function value(text: string, canonical: boolean): string {
  if (canonical) return isNoneWord(text) ? "" : decode(text);
  const t = text.trim();
  return isNone(t) ? "" : t;
}

function trimBlank(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && isBlank(lines[a] ?? "")) a++;
  while (b > a && isBlank(lines[b - 1] ?? "")) b--;
  return a === 0 && b === lines.length ? lines : lines.slice(a, b);
}

/**
 * Where the text of an item the renderer numbers (`12. text`: 1-9 digits, `.` or `)`, one space, then no
 * space or tab) starts; 0 for any other line, which LIST_ITEM reads.
 */
function numberedItemStart(line: string): number {
  let i = 0;
  while (i < 9 && line.charCodeAt(i) >= 48 && line.charCodeAt(i) <= 57) i++;
  if (i === 0) return 0;
  const dot = line.charCodeAt(i);
  if ((dot !== 46 && dot !== 41) || line.charCodeAt(i + 1) !== 32) return 0;
  const next = line.charCodeAt(i + 2);
  return next === 32 || next === 9 || Number.isNaN(next) ? 0 : i + 2;
}

/** List items of a body; a body with no list markers is one item; `none` is no item. */
export function listItems(lines: string[]): string[] {
  const body = trimBlank(lines);
  if (body.length === 0 || (body.length === 1 && isNone(body[0] ?? ""))) return [];
  const items: string[] = [];
  const preamble: string[] = [];
  for (const line of body) {
    // The renderer's own markers first, without a regular expression: `- ` and `N. `.
    if (line.startsWith("- ") && line.charCodeAt(2) !== 32 && line.charCodeAt(2) !== 9) {
      items.push(line.slice(2));
      continue;
    }
    const numbered = numberedItemStart(line);
    if (numbered > 0) {
      items.push(line.slice(numbered));
      continue;
    }
    const marker = LIST_ITEM.exec(line);
    if (marker !== null) items.push(line.slice(marker[0].length));
    else if (isBlank(line)) continue;
    else if (items.length > 0) items[items.length - 1] += `\n${line.trim()}`;
    else preamble.push(line.trim());
  }
  return items.length > 0 ? items : [preamble.join("\n")];
}

function splitTolerant(text: string, separators: readonly string[]): [string, string] | null {
  let best: [number, string] | null = null;
  for (const sep of separators) {
    const i = text.indexOf(sep);
    if (i > 0 && (best === null || i < best[0])) best = [i, sep];
  }
  return best === null ? null : [text.slice(0, best[0]).trim(), text.slice(best[0] + best[1].length).trim()];
}

const DASHES = [" -- ", " — ", " – "];

/** `` `path` -- note `` (canonical) or the forms people write: backticks optional, `--`, `—`, `:`. */
export function parseFileItem(text: string, canonical: boolean): { path: string; note: string } {
  if (canonical && text.startsWith("`")) {
    const end = indexOfUnescaped(text, "`", 1);
    if (end > 0) {
      const rest = text.slice(end + 1);
      const note = rest.startsWith(" -- ") ? rest.slice(4) : rest.trim();
      return { path: decode(text.slice(1, end)), note: value(note, true) };
    }
  }
  const quoted = /^(`+)([\s\S]+?)\1([\s\S]*)$/.exec(text.trim());
  if (quoted !== null) {
    const note = (quoted[3] ?? "").replace(/^\s*(?:--|—|–|-|:)\s*/, "");
    return { path: (quoted[2] ?? "").trim(), note: value(note, false) };
  }
  const split = splitTolerant(text, [...DASHES, ": "]);
  return split === null ? { path: text.trim(), note: "" } : { path: split[0], note: value(split[1], false) };
}

/** `text -- rationale`; hand-written blocks may also use `—` or `:`. */
export function parseDecisionItem(text: string, canonical: boolean): { text: string; rationale: string } {
  if (canonical) {
    const i = indexOfUnescaped(text, " -- ");
    return i < 0
      ? { text: decode(text), rationale: "" }
      : { text: decode(text.slice(0, i)), rationale: decode(text.slice(i + 4)) };
  }
  const split = splitTolerant(text, DASHES) ?? splitTolerant(text, [": "]);
  return split === null ? { text: text.trim(), rationale: "" } : { text: split[0], rationale: split[1] };
}

function unquote(text: string): string {
  const m = /^(`+)([\s\S]*?)\1$/.exec(text.trim());
  return m === null ? text.trim() : (m[2] ?? "").trim();
}

/** `` label: `value` ``, `` `value` `` or `label: value`. */
export function parseNameItem(text: string, canonical: boolean): { label: string; value: string } {
  if (canonical) {
    const i = text.startsWith("`") ? -1 : indexOfUnescaped(text, ": ");
    const label = i < 0 ? "" : decode(text.slice(0, i));
    const rest = i < 0 ? text : text.slice(i + 2);
    const quoted = rest.length >= 2 && rest.startsWith("`") && rest.endsWith("`") ? rest.slice(1, -1) : rest;
    return { label, value: decode(quoted) };
  }
  const m = /^([^:`]*?):\s+([\s\S]*)$/.exec(text.trim());
  return m === null
    ? { label: "", value: unquote(text) }
    : { label: (m[1] ?? "").trim(), value: unquote(m[2] ?? "") };
}

const STATE_KEYS = Object.keys(STATE_LABELS) as (keyof SnapshotState)[];
/** `Phase: `, `Branch: `, ...: how a canonical Current State line starts. */
const STATE_PREFIXES = Object.fromEntries(STATE_KEYS.map((k) => [k, `${STATE_LABELS[k]}: `])) as Record<
  keyof SnapshotState,
  string
>;

function parseState(lines: string[], canonical: boolean): SnapshotState {
  const state: SnapshotState = { phase: "", branch: "", blocked: "", progress: "" };
  for (const item of listItems(lines)) {
    if (canonical) {
      const key = STATE_KEYS.find((k) => item.startsWith(STATE_PREFIXES[k]));
      if (key !== undefined) state[key] = value(item.slice(STATE_PREFIXES[key].length), true);
      continue;
    }
    const m = /^\**\s*(phase|branch|blocked|progress)\s*\**\s*:\s*\**\s*([\s\S]*)$/i.exec(item);
    const key = STATE_KEYS.find((k) => k === m?.[1]?.toLowerCase());
    if (key !== undefined) state[key] = value(m?.[2] ?? "", false);
  }
  return state;
}

function parseCode(section: RawSection, canonical: boolean): string {
  const body = trimBlank(section.lines);
  const first = body[0] ?? "";
  if (canonical && body.length >= 2 && /^`{3,}$/.test(first) && body[body.length - 1] === first) {
    return body.slice(1, -1).map(decodeCodeLine).join("\n");
  }
  if (section.fencedCode !== undefined) return section.fencedCode;
  return value(body.join("\n"), false);
}

/**
 * Builds the content of a snapshot from its sections. The first section with a known heading fills
 * that field; unknown or repeated sections are kept in `extra`.
 */
export function buildContent(sections: readonly RawSection[], canonical: boolean): SnapshotContent {
  const content = emptyContent();
  const seen = new Set<SectionKey>();
  for (const section of sections) {
    const key = sectionOf(section.heading);
    if (key === undefined || seen.has(key)) {
      const body = trimBlank(section.lines).join("\n");
      content.extra.push({
        heading: canonical ? decode(section.heading) : section.heading.trim(),
        body: value(body, canonical),
      });
      continue;
    }
    seen.add(key);
    const items = () => listItems(section.lines);
    switch (key) {
      case "goal":
        content.goal = value(trimBlank(section.lines).join("\n"), canonical);
        break;
      case "state":
        content.state = parseState(section.lines, canonical);
        break;
      case "files":
        content.files = items().map((t) => parseFileItem(t, canonical));
        break;
      case "decisions":
        content.decisions = items().map((t) => parseDecisionItem(t, canonical));
        break;
      case "code":
        content.code = parseCode(section, canonical);
        break;
      case "names":
        content.names = items().map((t) => parseNameItem(t, canonical));
        break;
      case "blockers":
        content.blockers = items().map((t) => (canonical ? decode(t) : t.trim()));
        break;
      case "next":
        content.next = items().map((t) => (canonical ? decode(t) : t.trim()));
        break;
    }
  }
  return content;
}

/**
 * Headings people and models write for the eight sections, normalised (`headingWords`), beyond the skill's
 * own (`### [SNAPSHOT] Active Goal`, ...) and the spellings `format.ts` accepts.
 */
const HEADING_MEANINGS: ReadonlyMap<string, SectionKey> = new Map<string, SectionKey>(
  (
    [
      ["goal", ["goal", "goals", "objective", "task", "current task", "main goal", "the task", "task goal"]],
      ["state", ["status", "current status", "progress", "where we are", "state of play", "current state"]],
      ["files", ["files", "files touched", "files changed", "relevant files", "key files", "files in play"]],
      ["decisions", ["decisions", "key decisions", "decisions made", "choices made"]],
      ["code", ["code", "code context", "snippets", "code snippets", "relevant code"]],
      [
        "names",
        [
          "key names",
          "names",
          "identifiers",
          "key values",
          "names and values",
          "key names and values",
          "ids",
        ],
      ],
      ["blockers", ["blockers", "open questions", "questions", "blockers and open questions", "blocked on"]],
      [
        "next",
        [
          "next steps",
          "next",
          "todo",
          "to do",
          "remaining",
          "remaining work",
          "next actions",
          "action items",
          "plan",
        ],
      ],
    ] as const
  ).flatMap(([key, words]) => words.map((w) => [w, key] as const)),
);

/** A heading's words for lookup: lower case, `[SNAPSHOT]`, numbering, emphasis and end punctuation removed. */
export function headingWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/\[snapshot\]/g, "")
    .replace(/[*_`]/g, "")
    .replace(/&/g, " and ")
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")
    .replace(/^\d{1,2}[.)]\s*/, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** The section a heading means (`## Goal`, `### Next steps:`, `## 1. Objective`), when it is unambiguous. */
export function headingMeaning(text: string): SectionKey | undefined {
  return sectionOf(text) ?? HEADING_MEANINGS.get(headingWords(text)) ?? sectionOf(headingWords(text));
}

/** A markdown heading of a hand-written block: its depth, text and index in the block's lines. */
interface Heading {
  depth: number;
  text: string;
  index: number;
}

/** ATX headings (`#` to `######`) of `lines` outside fenced code. */
function headingsOf(lines: readonly string[]): Heading[] {
  const found: Heading[] = [];
  let fence: string | null = null;
  lines.forEach((line, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (
      marker !== undefined &&
      (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))
    ) {
      fence = fence === null ? marker : null;
      return;
    }
    const m = fence === null ? /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line) : null;
    if (m !== null) found.push({ depth: (m[1] ?? "").length, text: (m[2] ?? "").trim(), index });
  });
  return found;
}

/** A section whose body is one fenced code block and blank lines: that block's content. */
function onlyFence(body: readonly string[]): string | undefined {
  const lines = trimBlank([...body]);
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(lines[0] ?? "")?.[1];
  const last = lines[lines.length - 1] ?? "";
  if (open === undefined || lines.length < 2 || !last.trim().startsWith(open)) return undefined;
  const inner = lines.slice(1, -1);
  return inner.some((l) => /^ {0,3}(`{3,}|~{3,})/.test(l)) ? undefined : inner.join("\n");
}

const EXPECTED = `expected ### [SNAPSHOT] ${Object.values(SECTIONS).join(", ")}, or headings such as ## Goal and ## Next steps`;

/**
 * The content of a block from its `###` sections (`sections`, as the readers found them) or, for a
 * hand-written block none of whose `###` headings names a section, from its headings of any depth by meaning
 * (`## Goal`, `## Next steps`): the shallowest depth that names a section is the section depth, deeper
 * headings stay text. `region` is the block's lines between its markers, `lineOf` gives a region index's
 * file line. `problem` says why text of a hand-written block is read into no section (no heading names one)
 * or which headings mean the same section (the first is used), naming the headings and their lines.
 */
export function readContent(
  sections: readonly RawSection[],
  canonical: boolean,
  region: readonly string[],
  lineOf: (index: number) => number,
): { content: SnapshotContent; problem: string | null } {
  if (canonical || sections.some((s) => sectionOf(s.heading) !== undefined)) {
    return { content: buildContent(sections, canonical), problem: null };
  }
  const headings = headingsOf(region);
  const known = headings.filter((h) => headingMeaning(h.text) !== undefined);
  const depth = Math.min(...known.map((h) => h.depth));
  const chosen = headings.filter((h) => h.depth === depth);
  const named = (hs: readonly Heading[]) =>
    hs.map((h) => `"${"#".repeat(h.depth)} ${h.text}" (line ${lineOf(h.index)})`).join(", ");
  if (known.length === 0) {
    const text = region.some((l) => l.trim() !== "" && !/^\s*<!--[\s\S]*-->\s*$/.test(l));
    if (!text) return { content: buildContent(sections, false), problem: null };
    return {
      content: buildContent(sections, false),
      problem: `no heading names a section, so the block's text is read into none (found ${headings.length === 0 ? "no headings" : named(headings)}; ${EXPECTED})`,
    };
  }
  const raw: RawSection[] = chosen.map((h, i) => {
    const body = region.slice(h.index + 1, chosen[i + 1]?.index ?? region.length);
    const key = headingMeaning(h.text);
    const code = onlyFence(body);
    return {
      heading: key === undefined ? h.text : SECTIONS[key],
      lines: body,
      ...(code === undefined ? {} : { fencedCode: code }),
    };
  });
  const twins = Object.entries(SECTIONS)
    .map(([key, title]) => ({ title, hs: chosen.filter((h) => headingMeaning(h.text) === key) }))
    .filter(({ hs }) => hs.length > 1);
  const problem =
    twins.length === 0
      ? null
      : twins.map(({ title, hs }) => `headings ${named(hs)} all mean ${title}; the first is used`).join("; ");
  return { content: buildContent(raw, false), problem };
}
