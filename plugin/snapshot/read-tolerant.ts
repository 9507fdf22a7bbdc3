import { createRequire } from "node:module";
import type { Root, RootContent } from "mdast";
import { checksumOf } from "./checksum.ts";
import { decode } from "./escape.ts";
import {
  END_MARKER,
  isTrigger,
  SNAPSHOT_VERSION,
  START_MARKER_PREFIX,
  TRIGGER_NAMES,
  type TriggerName,
} from "./format.ts";
import { type RawSection, readContent, trimSpaces } from "./sections.ts";
import type { Diagnostic, Snapshot, Verified } from "./snapshot.ts";

/**
 * The tolerant reader: reads blocks as people and models write them following the skill: CRLF,
 * `-` `*` or numbered lists, sections missing or out of order, unknown sections, `none`, no checksum.
 * Markers and headings inside fenced code stay code. It reads one block's region at a time
 * ({@link readBlock}): a line reader handles the forms people write (headings, lists, paragraphs,
 * comments and fences at the margin), and only a region holding something whose markdown meaning
 * depends on context (indented structure, HTML blocks, multi-line comments) goes through remark.
 * A property test holds the two to the same result.
 */

/** A block read by the tolerant reader, with its 1-based line in the file. */
export interface TolerantRead {
  snapshot: Snapshot;
  line: number;
  verified: Verified;
  checksum: string | null;
}

/** A code block inside a block: its first and last line (0-based in the region, fences included) and text. */
interface CodeSpan {
  from: number;
  to: number;
  value: string;
}

interface OpenBlock {
  /** 0-based line of the start marker in `lines`. */
  line: number;
  meta: Map<string, string>;
  sections: { heading: number; codes: CodeSpan[] }[];
}

const START = /^<!-- BIG-MEMORY-SNAPSHOT v(\d+) -->$/;
const META = /^<!--[ \t]*([a-z-]+)[ \t]*:[ \t]*([\s\S]*?)[ \t]*-->$/;
const ID = /^(\d{4}-\d{2}-\d{2})-\d{2,}$/;
/** Triggers only big-memory writes (a model in the flush is given `flush`); see {@link checksumRemoved}. */
const PLUGIN_TRIGGERS = new Set<string>(TRIGGER_NAMES.filter((t) => t !== "flush"));

const requireModule = createRequire(import.meta.url);

/** A markdown parser: remark's. */
interface MarkdownParser {
  parse(text: string): Root;
}

/**
 * remark, loaded on first use (synchronously: the readers are synchronous). Most blocks never need it,
 * and a short command (`list`, `show`, a `save` from a script) should not pay for loading its fifty
 * modules. The one parser made is kept: it holds no state between parses.
 */
const remark: () => MarkdownParser = (() => {
  let parser: MarkdownParser | undefined;
  return () => {
    if (parser === undefined) {
      const { unified }: typeof import("unified") = requireModule("unified");
      const remarkParse: typeof import("remark-parse").default = requireModule("remark-parse").default;
      parser = unified().use(remarkParse);
    }
    return parser;
  };
})();

export function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** An opening code fence: at most 3 spaces, then 3 or more backticks (no backtick after) or tildes. */
export interface Fence {
  char: number;
  length: number;
  indent: number;
}

/** The fence `line` opens, or null. */
export function fenceOpen(line: string): Fence | null {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 32) i++;
  const char = line.charCodeAt(i);
  if (char !== 96 && char !== 126) return null;
  let j = i;
  while (line.charCodeAt(j) === char) j++;
  if (j - i < 3 || (char === 96 && line.indexOf("`", j) >= 0)) return null;
  return { char, length: j - i, indent: i };
}

/** Whether `line` closes `fence`: at most 3 spaces, at least as many of its character, then only white space. */
export function fenceCloses(line: string, fence: Fence): boolean {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 32) i++;
  let j = i;
  while (line.charCodeAt(j) === fence.char) j++;
  if (j - i < fence.length) return false;
  for (; j < line.length; j++) {
    const c = line.charCodeAt(j);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/** Heading text after `###` and one optional `[SNAPSHOT]` tag. */
function headingText(sourceLine: string, canonical: boolean): string {
  const after = sourceLine.replace(/^ {0,3}###(?:[ \t]+|$)/, "");
  if (canonical) return after.startsWith("[SNAPSHOT] ") ? after.slice(11) : after;
  return after
    .replace(/[ \t]+#+[ \t]*$/, "")
    .replace(/^\[SNAPSHOT\][ \t]*/i, "")
    .trim();
}

/**
 * Whether a block without a checksum line once had one: only big-memory writes a trigger other than
 * `flush` (its own blocks always carry a checksum) or a tombstone line, so such a block had its checksum
 * removed. A block written by hand or by a model in the flush (no metadata, or session, agent and
 * `trigger: flush` as the flush prompt gives them) is merely unverified.
 */
export function checksumRemoved(meta: ReadonlyMap<string, string>): boolean {
  if (meta.has("checksum")) return false;
  const trigger = meta.get("trigger");
  return (trigger !== undefined && PLUGIN_TRIGGERS.has(trigger)) || meta.has("tombstone");
}

/** What reading one region gave: the block, or why not. */
export interface BlockRead {
  block: TolerantRead | null;
  diagnostics: Diagnostic[];
}

/** Builds the snapshot of a finished block from its metadata and sections. */
function finish(
  lines: readonly string[],
  block: OpenBlock,
  endLine: number,
  file: string,
  at: (line: number) => number,
): BlockRead {
  const fail = (message: string, id?: string): BlockRead => ({
    block: null,
    diagnostics: [{ file, line: at(block.line), message, ...(id === undefined ? {} : { id }) }],
  });
  const canonical = block.meta.has("checksum");
  if (canonical) for (const [k, v] of block.meta) block.meta.set(k, decode(v));
  const sections: RawSection[] = block.sections.map((s, i) => {
    const stop = block.sections[i + 1]?.heading ?? endLine;
    const body = lines.slice(s.heading + 1, stop);
    const raw: RawSection = { heading: headingText(lines[s.heading] ?? "", canonical), lines: body };
    const code = s.codes.length === 1 ? s.codes[0] : undefined;
    // Only code and blank lines in the section means "just a fence".
    if (
      code !== undefined &&
      body.every(
        (l, j) => l.trim() === "" || (s.heading + 1 + j >= code.from && s.heading + 1 + j <= code.to),
      )
    ) {
      raw.fencedCode = code.value;
    }
    return raw;
  });
  const id = block.meta.get("snapshot-id");
  if (id === undefined)
    return fail("snapshot block has no snapshot-id (expected <!-- snapshot-id: YYYY-MM-DD-NN -->)");
  if (!ID.test(id)) return fail(`snapshot block has an invalid snapshot-id "${id}" (expected YYYY-MM-DD-NN)`);
  // In a hand-written block, a metadata line left empty (`<!-- session: -->`) is as if it were not
  // there; a canonical block keeps its values exactly, as the strict reader does.
  const value = (key: string): string | null => {
    const v = block.meta.get(key);
    return v === undefined || (v === "" && !canonical) ? null : v;
  };
  const problems: string[] = [];
  const trigger = triggerOf(value("trigger"), problems);
  const day = ID.exec(id)?.[1] ?? "";
  let timestamp = value("timestamp");
  if (timestamp !== null && !canonical && Number.isNaN(Date.parse(timestamp))) {
    problems.push(`timestamp "${timestamp}" is not a date and time; the id's date ${day} is used`);
    timestamp = null;
  }
  const region = lines.slice(block.line + 1, endLine);
  const read = readContent(sections, canonical, region, (i) => at(block.line + 1 + i));
  if (read.problem !== null) problems.push(read.problem);
  // Every other field is a string, null or a list of them by construction; a property test holds what
  // this reader returns to snapshot.ts's schema, which is not run here so that reading does not load zod.
  const snapshot: Snapshot = {
    version: SNAPSHOT_VERSION,
    id,
    timestamp: timestamp ?? `${day}T00:00:00`,
    session: value("session"),
    agent: value("agent"),
    trigger,
    name: value("name"),
    parent: value("parent"),
    tombstone: block.meta.get("tombstone") === "yes",
    ...read.content,
  };
  const checksum = block.meta.get("checksum") ?? null;
  const verified =
    checksum === null ? (checksumRemoved(block.meta) ? false : null) : checksumOf(snapshot) === checksum;
  const diagnostics = problems.map((p) => ({
    file,
    line: at(block.line),
    message: `snapshot ${id}: ${p}`,
    id,
  }));
  return { block: { snapshot, line: at(block.line), verified, checksum }, diagnostics };
}

/**
 * The trigger a block's `trigger` line names: a known name in any case (`Flush`), else none, with a
 * problem saying so. The block is read all the same: a flush block whose model wrote `pre-compaction`
 * is still the best snapshot of its session.
 */
function triggerOf(written: string | null, problems: string[]): TriggerName | null {
  if (written === null) return null;
  const name = written.toLowerCase();
  if (isTrigger(name)) return name;
  problems.push(`trigger "${written}" is not one of ${TRIGGER_NAMES.join(", ")}; read as none`);
  return null;
}

/** The diagnostic of a start marker line of another version than this reader's, or null. */
export function versionProblem(markerLine: string, file: string, line: number): Diagnostic | null {
  const marker = trimSpaces(markerLine);
  const version = START.exec(marker)?.[1];
  if (version === String(SNAPSHOT_VERSION)) return null;
  return {
    file,
    line,
    message: `unknown snapshot version ${version === undefined ? `in "${marker}"` : `v${version}`} (expected v${SNAPSHOT_VERSION})`,
  };
}

/** The start marker's version check: a block to open, or the diagnostic of an unknown version. */
function openAt(
  marker: string,
  line: number,
  file: string,
  at: (line: number) => number,
): OpenBlock | Diagnostic {
  return versionProblem(marker, file, at(line)) ?? { line, meta: new Map(), sections: [] };
}

/** The diagnostic of a torn block: its start marker's line, and its id when the metadata gives one. */
export function noEndMarker(file: string, line: number, id: string | undefined): Diagnostic {
  return {
    file,
    line,
    message: `snapshot block has no end marker (expected ${END_MARKER})`,
    ...(id === undefined ? {} : { id }),
  };
}

const SLOW = null;

/**
 * The line reader: the block whose start marker is `lines[0]` and end marker the last line (line 0 is
 * file line `at(0)`), or null when some line needs markdown context to be understood (then remark reads it).
 */
export function readBlockLines(
  lines: readonly string[],
  file: string,
  at: (line: number) => number,
): BlockRead | null {
  const opened = openAt(trimSpaces(lines[0] ?? ""), 0, file, at);
  if (!("meta" in opened)) return { block: null, diagnostics: [opened] };
  const block = opened;
  const last = lines.length - 1;
  let fence: { open: Fence; from: number } | null = null;
  let previousBlank = true;
  for (let k = 1; k < last; k++) {
    const line = lines[k] ?? "";
    if (fence !== null) {
      if (fenceCloses(line, fence.open)) {
        const value = lines.slice(fence.from + 1, k).join("\n");
        block.sections[block.sections.length - 1]?.codes.push({ from: fence.from, to: k, value });
        fence = null;
      }
      continue;
    }
    let indent = 0;
    while (line.charCodeAt(indent) === 32) indent++;
    const c = line.charCodeAt(indent);
    if (indent === line.length) {
      previousBlank = true;
      continue;
    }
    // A tab, or indentation: a list's content, a nested fence or indented code; remark knows which.
    const structural = c === 35 || c === 60 || c === 96 || c === 126;
    if (c === 9 && structural) return SLOW;
    if (indent >= 4 && (structural || previousBlank || c === 9)) return SLOW;
    if (indent > 0 && indent < 4 && structural) return SLOW;
    previousBlank = false;
    if (indent > 0) continue;
    if (c === 96 || c === 126) {
      const open = fenceOpen(line);
      if (open !== null) fence = { open, from: k };
      continue;
    }
    if (c === 35) {
      let d = 1;
      while (line.charCodeAt(d) === 35) d++;
      const after = line.charCodeAt(d);
      if (d === 3 && (Number.isNaN(after) || after === 32 || after === 9)) {
        block.sections.push({ heading: k, codes: [] });
        previousBlank = true; // indented code may follow a heading directly
      }
      continue;
    }
    if (c === 60) {
      const close = line.indexOf("-->", 4);
      if (!line.startsWith("<!--") || close < 0) return SLOW;
      if (block.sections.length === 0) {
        const m = META.exec(trimSpaces(line));
        if (m?.[1] !== undefined && !block.meta.has(m[1])) block.meta.set(m[1], m[2] ?? "");
      }
    }
  }
  if (fence !== null) return SLOW;
  return finish(lines, block, last, file, at);
}

/**
 * Reads the block whose region is `lines` (CR stripped): its start marker first, its end marker last.
 * `firstLine` is the file line of the start marker.
 */
export function readBlock(lines: readonly string[], file: string, firstLine: number): BlockRead {
  const at = (line: number) => line + firstLine;
  const fast = readBlockLines(lines, file, at);
  if (fast !== SLOW) return fast;
  const read = readTolerant(lines.join("\n"), file, firstLine);
  return { block: read.blocks[0] ?? null, diagnostics: read.diagnostics };
}

/** The snapshot id in the metadata lines right after a start marker (for a torn block), if any. */
export function idAfterMarker(lines: readonly string[]): string | undefined {
  for (let k = 1; k < lines.length && k < 16; k++) {
    const m = META.exec(trimSpaces(lines[k] ?? ""));
    if (m === null) {
      if ((lines[k] ?? "").trim() === "") continue;
      return undefined;
    }
    if (m[1] === "snapshot-id" && ID.test(m[2] ?? "")) return m[2];
  }
  return undefined;
}

/**
 * Reads every block in a stretch of markdown with remark (the reference reader, and the fallback of
 * {@link readBlock}). `firstLine` is the file line of the text's first line, `file` names the file in
 * diagnostics.
 */
export function readTolerant(
  text: string,
  file: string,
  firstLine: number,
): { blocks: TolerantRead[]; diagnostics: Diagnostic[] } {
  const lines = text.split("\n").map(stripCr);
  const blocks: TolerantRead[] = [];
  const diagnostics: Diagnostic[] = [];
  // remark numbers lines from 1; `lines` and OpenBlock from 0.
  const at = (line: number) => line + firstLine;
  let open: OpenBlock | null = null;
  const torn = (block: OpenBlock) =>
    diagnostics.push(noEndMarker(file, at(block.line), idAfterMarker(lines.slice(block.line))));

  const tree = remark().parse(text);
  for (const node of tree.children as RootContent[]) {
    const start = (node.position?.start.line ?? 1) - 1;
    if (node.type === "html") {
      const htmlLines = node.value.split("\n").map((l) => trimSpaces(stripCr(l)));
      for (let k = 0; k < htmlLines.length; k++) {
        const l = htmlLines[k] ?? "";
        if (l.startsWith(START_MARKER_PREFIX)) {
          if (open !== null) torn(open);
          const opened = openAt(l, start + k, file, at);
          open = "meta" in opened ? opened : null;
          if (!("meta" in opened)) diagnostics.push(opened);
        } else if (l === END_MARKER) {
          if (open !== null) {
            const read = finish(lines, open, start + k, file, at);
            if (read.block !== null) blocks.push(read.block);
            diagnostics.push(...read.diagnostics);
          }
          open = null;
        } else if (open !== null && open.sections.length === 0) {
          const m = META.exec(l);
          if (m?.[1] !== undefined && !open.meta.has(m[1])) open.meta.set(m[1], m[2] ?? "");
        }
      }
      continue;
    }
    if (open === null) continue;
    if (node.type === "heading" && node.depth === 3) {
      open.sections.push({ heading: start, codes: [] });
    } else if (node.type === "code") {
      const to = (node.position?.end.line ?? 1) - 1;
      open.sections[open.sections.length - 1]?.codes.push({
        from: start,
        to,
        value: node.value.replace(/\r\n?/g, "\n"),
      });
    }
  }
  if (open !== null) torn(open);
  return { blocks, diagnostics };
}
