import { END_MARKER, START_MARKER_PREFIX } from "../snapshot/format.ts";
import { type Fence, fenceCloses, fenceOpen, stripCr } from "../snapshot/read-tolerant.ts";

/**
 * Where the block of one snapshot id lies in a daily log, found by string search, so that a reader wanting one
 * block (the restore after a compaction) parses that block and not the whole log. The answer is given only when
 * the whole log's parse (snapshot/parse.ts) is sure to read the same block there; otherwise null, and the
 * caller parses the whole log. It is sure when:
 * - exactly one line of the log carries the id as its `snapshot-id` (no other block, torn or not, of that id);
 * - no code fence is open where the block starts, and no marker line of any block sits inside a fence before
 *   it (so neither the notes' fences nor an earlier block's region can swallow it: the parser follows fences in
 *   the notes and in blocks it reads tolerantly, and restarts outside any fence after each block);
 * - a start marker line opens the block before its id line, with no other marker line between them.
 * The caller still parses the span found (checksum verified, values redacted) and checks that it reads to one
 * snapshot of that id; the span ends at the first end marker line after the id, as both readers end it.
 */
export interface BlockSpan {
  /** Offset of the block's start marker line in the text. */
  start: number;
  /** Offset just past its end marker line (its line feed included), or the end of the text. */
  end: number;
  /** The 1-based line of the start marker. */
  line: number;
}

const ID_KEY = "snapshot-id";

/**
 * What the search reads: the decoded text, or the log's bytes as read (offsets are then byte offsets). Every
 * needle is ASCII, and UTF-8 never puts an ASCII byte inside a character, so both give the same answer; on the
 * bytes nothing the size of the log is decoded or allocated.
 */
interface Haystack {
  readonly length: number;
  indexOf(needle: string, from?: number): number;
  lastIndexOf(needle: string, from?: number): number;
  /** The UTF-16 code (text) or byte (bytes) at `at`; only compared with ASCII codes. */
  code(at: number): number;
  /** [from, to) decoded. */
  slice(from: number, to?: number): string;
  lineFeedsBefore(to: number): number;
}

function haystackOf(log: string | Buffer): Haystack {
  if (typeof log === "string") {
    return {
      length: log.length,
      indexOf: (needle, from) => log.indexOf(needle, from),
      lastIndexOf: (needle, from) => log.lastIndexOf(needle, from),
      code: (at) => log.charCodeAt(at),
      slice: (from, to) => log.slice(from, to),
      lineFeedsBefore: (to) => {
        let n = 0;
        for (let i = log.indexOf("\n"); i >= 0 && i < to; i = log.indexOf("\n", i + 1)) n++;
        return n;
      },
    };
  }
  return {
    length: log.length,
    indexOf: (needle, from) => log.indexOf(needle, from),
    lastIndexOf: (needle, from) => log.lastIndexOf(needle, from === undefined ? from : Math.max(0, from)),
    code: (at) => log[at] ?? Number.NaN,
    slice: (from, to) => log.toString("utf8", from, to),
    lineFeedsBefore: (to) => lineFeedsIn(log, to),
  };
}

/**
 * The span of the block of snapshot `id` in `log`, or null when only the whole parse can say (see above). On
 * the log's bytes, the span is in byte offsets.
 */
export function findBlockSpan(log: string | Buffer, id: string): BlockSpan | null {
  if (id === "") return null;
  const text = haystackOf(log);
  const idLine = onlyIdLine(text, id);
  if (idLine === null) return null;
  const start = startBefore(text, idLine);
  if (start === null || !outsideFences(text, start)) return null;
  const close = endAfter(text, idLine);
  return { start, end: close, line: text.lineFeedsBefore(start) + 1 };
}

/** The start of the one line carrying `id` as its snapshot-id; null when none or more than one does. */
function onlyIdLine(text: Haystack, id: string): number | null {
  let found: number | null = null;
  for (let i = text.indexOf(id); i >= 0; i = text.indexOf(id, i + id.length)) {
    // A longer id that starts with this one (`...-1` in `...-10`) is another id.
    const after = text.code(i + id.length);
    if (after >= 48 && after <= 57) continue;
    const lineStart = text.lastIndexOf("\n", i) + 1;
    if (!text.slice(lineStart, i).includes(ID_KEY)) continue;
    if (found !== null) return null;
    found = lineStart;
  }
  return found;
}

/** The start marker line right above the id line (only metadata lines between them); null otherwise. */
function startBefore(text: Haystack, idLine: number): number | null {
  const start = text.lastIndexOf(START_MARKER_PREFIX, idLine);
  if (start < 0) return null;
  const lineStart = text.lastIndexOf("\n", start) + 1;
  if (lineStart !== start) return null;
  // Between the two, only `<!-- key: value -->` lines: no blank line, heading or other marker.
  for (let pos = text.indexOf("\n", start) + 1; pos < idLine; pos = text.indexOf("\n", pos) + 1) {
    if (pos === 0) return null;
    const line = stripCr(text.slice(pos, text.indexOf("\n", pos)));
    if (!line.startsWith("<!-- ") || line.includes("BIG-MEMORY-SNAPSHOT")) return null;
  }
  return start;
}

/** Just past the first end marker line after `from` (its line feed included); the end of the text without one. */
function endAfter(text: Haystack, from: number): number {
  const at = text.indexOf(`\n${END_MARKER}`, from);
  if (at < 0) return text.length;
  const nl = text.indexOf("\n", at + 1);
  return nl < 0 ? text.length : nl + 1;
}

/**
 * Whether no fence is open at `start` and no marker line before it sits inside a fence, following every fence
 * line of the text before `start` (notes and blocks alike): when no marker line is ever fenced, the fences
 * close before every block ends, so the parser's own tracking (which restarts after each block) agrees.
 */
function outsideFences(text: Haystack, start: number): boolean {
  let fence: Fence | null = null;
  let fencedFrom = 0;
  for (let pos = nextCandidate(text, 0, start); pos >= 0; pos = nextCandidate(text, pos, start)) {
    const lineEnd = text.indexOf("\n", pos);
    const line = stripCr(text.slice(pos, lineEnd < 0 ? text.length : lineEnd));
    if (fence === null) {
      fence = fenceOpen(line);
      fencedFrom = pos;
    } else if (fenceCloses(line, fence)) {
      if (markerIn(text, fencedFrom, pos)) return false;
      fence = null;
    }
    if (lineEnd < 0) break;
    pos = lineEnd + 1;
  }
  return fence === null;
}

/** Start of the next line in [from, to) that begins, after at most 3 spaces, with ``` or ~~~; -1 if none. */
function nextCandidate(text: Haystack, from: number, to: number): number {
  while (from < to) {
    const b = text.indexOf("```", from);
    const t = text.indexOf("~~~", from);
    const i = b < 0 ? t : t < 0 ? b : Math.min(b, t);
    if (i < 0 || i >= to) return -1;
    let s = i;
    while (s > 0 && i - s < 3 && text.code(s - 1) === 32) s--;
    if (s === 0 || text.code(s - 1) === 10) return s;
    const nl = text.indexOf("\n", i);
    if (nl < 0) return -1;
    from = nl + 1;
  }
  return -1;
}

/** Whether a block marker (start or end, as the parser finds them: at most 3 spaces in) lies in [from, to). */
function markerIn(text: Haystack, from: number, to: number): boolean {
  for (const marker of [START_MARKER_PREFIX, END_MARKER]) {
    for (let i = text.indexOf(marker, from); i >= 0 && i < to; i = text.indexOf(marker, i + 1)) {
      let s = i;
      while (s > 0 && i - s < 3 && text.code(s - 1) === 32) s--;
      if (s === 0 || text.code(s - 1) === 10) return true;
    }
  }
  return false;
}

/** How many line feeds the first `to` bytes of `bytes` hold (a line count without decoding them). */
export function lineFeedsIn(bytes: Uint8Array, to: number): number {
  let n = 0;
  for (let i = 0; i < to; i++) if (bytes[i] === 10) n++;
  return n;
}
