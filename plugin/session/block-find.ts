import { END_MARKER, START_MARKER_PREFIX } from "../snapshot/format.ts";
import { type Fence, fenceCloses, fenceOpen, stripCr } from "../snapshot/read-tolerant.ts";

/**
 * Where the block of one snapshot id lies in a daily log, found in its bytes, so that a reader wanting one
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
 * The span of the block of snapshot `id` in the daily log `bytes` (as read, in byte offsets), or null when only
 * the whole parse can say (see above). Every needle is ASCII, which UTF-8 never puts inside a character, so the
 * bytes answer as the decoded text would; only the short lines the checks read are decoded.
 */
export function findBlockSpan(bytes: Buffer, id: string): BlockSpan | null {
  if (id === "") return null;
  const idLine = onlyIdLine(bytes, id);
  if (idLine === null) return null;
  const start = startBefore(bytes, idLine);
  if (start === null || !outsideFences(bytes, start)) return null;
  const close = endAfter(bytes, idLine);
  return { start, end: close, line: lineFeedsIn(bytes, start) + 1 };
}

/** The start of the one line carrying `id` as its snapshot-id; null when none or more than one does. */
function onlyIdLine(log: Buffer, id: string): number | null {
  let found: number | null = null;
  for (let i = log.indexOf(id); i >= 0; i = log.indexOf(id, i + id.length)) {
    // A longer id that starts with this one (`...-1` in `...-10`) is another id.
    const after = log[i + id.length] ?? -1;
    if (after >= 48 && after <= 57) continue;
    const lineStart = log.lastIndexOf("\n", i) + 1;
    if (!log.subarray(lineStart, i).includes(ID_KEY)) continue;
    if (found !== null) return null;
    found = lineStart;
  }
  return found;
}

/** The start marker line right above the id line (only metadata lines between them); null otherwise. */
function startBefore(log: Buffer, idLine: number): number | null {
  const start = log.lastIndexOf(START_MARKER_PREFIX, idLine);
  if (start < 0) return null;
  const lineStart = log.lastIndexOf("\n", start) + 1;
  if (lineStart !== start) return null;
  // Between the two, only `<!-- key: value -->` lines: no blank line, heading or other marker.
  for (let pos = log.indexOf("\n", start) + 1; pos < idLine; pos = log.indexOf("\n", pos) + 1) {
    if (pos === 0) return null;
    const line = stripCr(log.toString("utf8", pos, log.indexOf("\n", pos)));
    if (!line.startsWith("<!-- ") || line.includes("BIG-MEMORY-SNAPSHOT")) return null;
  }
  return start;
}

/** Just past the first end marker line after `from` (its line feed included); the end of the text without one. */
function endAfter(log: Buffer, from: number): number {
  const at = log.indexOf(`\n${END_MARKER}`, from);
  if (at < 0) return log.length;
  const nl = log.indexOf("\n", at + 1);
  return nl < 0 ? log.length : nl + 1;
}

/**
 * Whether no fence is open at `start` and no marker line before it sits inside a fence, following every fence
 * line of the text before `start` (notes and blocks alike): when no marker line is ever fenced, the fences
 * close before every block ends, so the parser's own tracking (which restarts after each block) agrees.
 */
function outsideFences(log: Buffer, start: number): boolean {
  let fence: Fence | null = null;
  let fencedFrom = 0;
  for (let pos = nextCandidate(log, 0, start); pos >= 0; pos = nextCandidate(log, pos, start)) {
    const lineEnd = log.indexOf("\n", pos);
    const line = stripCr(log.toString("utf8", pos, lineEnd < 0 ? log.length : lineEnd));
    if (fence === null) {
      fence = fenceOpen(line);
      fencedFrom = pos;
    } else if (fenceCloses(line, fence)) {
      if (markerIn(log, fencedFrom, pos)) return false;
      fence = null;
    }
    if (lineEnd < 0) break;
    pos = lineEnd + 1;
  }
  return fence === null;
}

/** Start of the next line in [from, to) that begins, after at most 3 spaces, with ``` or ~~~; -1 if none. */
function nextCandidate(log: Buffer, from: number, to: number): number {
  while (from < to) {
    const b = log.indexOf("```", from);
    const t = log.indexOf("~~~", from);
    const i = b < 0 ? t : t < 0 ? b : Math.min(b, t);
    if (i < 0 || i >= to) return -1;
    let s = i;
    while (s > 0 && i - s < 3 && log[s - 1] === 32) s--;
    if (s === 0 || log[s - 1] === 10) return s;
    const nl = log.indexOf("\n", i);
    if (nl < 0) return -1;
    from = nl + 1;
  }
  return -1;
}

/** Whether a block marker (start or end, as the parser finds them: at most 3 spaces in) lies in [from, to). */
function markerIn(log: Buffer, from: number, to: number): boolean {
  for (const marker of [START_MARKER_PREFIX, END_MARKER]) {
    for (let i = log.indexOf(marker, from); i >= 0 && i < to; i = log.indexOf(marker, i + 1)) {
      let s = i;
      while (s > 0 && i - s < 3 && log[s - 1] === 32) s--;
      if (s === 0 || log[s - 1] === 10) return true;
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
