import { checksumOf } from "./checksum.ts";
import { decode } from "./escape.ts";
import {
  END_MARKER,
  isTrigger,
  META_KEYS,
  SECTION_PREFIX,
  SECTIONS,
  SNAPSHOT_VERSION,
  startMarker,
} from "./format.ts";
import { buildContent, type RawSection } from "./sections.ts";
import type { Snapshot } from "./snapshot.ts";

/**
 * The fast reader: accepts exactly the canonical form `renderSnapshot` writes, with a checksum that
 * verifies, reading lines with plain string operations. Anything else returns null and is left to
 * the tolerant reader, which gives the same result on canonical blocks.
 */

const START = startMarker(SNAPSHOT_VERSION);
const ID = /^\d{4}-\d{2}-\d{2}-\d{2,}$/;
const KNOWN_ORDER = Object.values(SECTIONS);
/** A canonical block read at an offset: the snapshot, its checksum and where the block ends. */
export interface StrictRead {
  snapshot: Snapshot;
  checksum: string;
  /** Offset just past the end marker line (and its newline). */
  end: number;
  /** Number of lines the block spans. */
  lineCount: number;
}

class Lines {
  pos: number;
  count = 0;
  private readonly text: string;
  constructor(text: string, start: number) {
    this.text = text;
    this.pos = start;
  }
  /** The next line without its newline, or null at the end of the text. */
  next(): string | null {
    if (this.pos >= this.text.length) return null;
    const nl = this.text.indexOf("\n", this.pos);
    const end = nl < 0 ? this.text.length : nl;
    const line = this.text.slice(this.pos, end);
    this.pos = nl < 0 ? this.text.length : nl + 1;
    this.count++;
    return line;
  }
}

/** Reads lines up to the next blank line; null if the text ends first. */
function untilBlank(lines: Lines): string[] | null {
  const out: string[] = [];
  for (;;) {
    const line = lines.next();
    if (line === null) return null;
    if (line === "") return out;
    out.push(line);
  }
}

/**
 * Reads one canonical block starting at `start` (the start marker line). `trusted`: the block's bytes are
 * bytes this reader already read and verified (the memory of judged blocks names them by their digest,
 * see parse.ts), so its checksum is not computed again; the block is read exactly as then.
 */
export function readStrict(text: string, start: number, trusted = false): StrictRead | null {
  const lines = new Lines(text, start);
  if (lines.next() !== START) return null;
  const meta = new Map<string, string>();
  let order = 0;
  for (;;) {
    const line = lines.next();
    if (line === null) return null;
    if (line === "") break;
    if (!line.startsWith("<!-- ") || !line.endsWith(" -->")) return null;
    const colon = line.indexOf(": ", 5);
    if (colon < 0) return null;
    const key = line.slice(5, colon);
    const at = META_KEYS.indexOf(key as (typeof META_KEYS)[number], order);
    if (at < 0) return null;
    order = at + 1;
    meta.set(key, decode(line.slice(colon + 2, -4)));
  }
  // The checksum is the last metadata line of a canonical block: without it, stop before the sections.
  if (!meta.has("checksum")) return null;
  const sections: RawSection[] = [];
  let code: string[] | null = null;
  for (;;) {
    const line = lines.next();
    if (line === null) return null;
    if (line === END_MARKER) break;
    if (!line.startsWith(SECTION_PREFIX)) return null;
    let heading = line.slice(SECTION_PREFIX.length);
    if (sections.length < KNOWN_ORDER.length) {
      // The known heading itself (the same string), which buildContent looks up without hashing it again.
      const known = KNOWN_ORDER[sections.length] ?? "";
      if (heading !== known) return null;
      heading = known;
    }
    if (heading === "Code Context" && sections.length === 4) {
      const first = lines.next();
      if (first === null) return null;
      if (first === "none") code = [first];
      else if (/^`{3,}$/.test(first)) {
        code = [first];
        for (;;) {
          const l = lines.next();
          if (l === null) return null;
          code.push(l);
          if (l === first) break;
        }
      } else return null;
      if (lines.next() !== "") return null;
      sections.push({ heading, lines: code });
      continue;
    }
    const body = untilBlank(lines);
    if (body === null || body.length === 0) return null;
    sections.push({ heading, lines: body });
  }
  if (sections.length < KNOWN_ORDER.length || code === null) return null;
  const id = meta.get("snapshot-id");
  const timestamp = meta.get("timestamp");
  const checksum = meta.get("checksum");
  const trigger = meta.get("trigger") ?? null;
  const tombstone = meta.get("tombstone");
  if (id === undefined || !ID.test(id) || timestamp === undefined || checksum === undefined) return null;
  if (trigger !== null && !isTrigger(trigger)) return null;
  if (tombstone !== undefined && tombstone !== "yes") return null;
  // Each field named, in the order of the spread it replaces: a spread copies the content object whole.
  const c = buildContent(sections, true);
  const snapshot: Snapshot = {
    version: SNAPSHOT_VERSION,
    id,
    timestamp,
    session: meta.get("session") ?? null,
    agent: meta.get("agent") ?? null,
    trigger,
    name: meta.get("name") ?? null,
    parent: meta.get("parent") ?? null,
    tombstone: tombstone === "yes",
    goal: c.goal,
    state: c.state,
    files: c.files,
    decisions: c.decisions,
    code: c.code,
    names: c.names,
    blockers: c.blockers,
    next: c.next,
    extra: c.extra,
  };
  if (!trusted && checksumOf(snapshot) !== checksum) return null;
  return { snapshot, checksum, end: lines.pos, lineCount: lines.count };
}
