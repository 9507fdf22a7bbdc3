import { type LogText, textSpan } from "./block-span.ts";
import { END_MARKER, START_MARKER_PREFIX } from "./format.ts";
import { readStrict } from "./read-strict.ts";
import {
  type Fence,
  fenceCloses,
  fenceOpen,
  idAfterMarker,
  noEndMarker,
  readBlock,
  stripCr,
  versionProblem,
} from "./read-tolerant.ts";
import { REDACTION_RULES_VERSION, redactDeep } from "./redact.ts";
import type { JudgedBlocks } from "./redact-judged.ts";
import type { Diagnostic, LocatedSnapshot } from "./snapshot.ts";

/** Everything read from one daily log: valid snapshots in file order, and what was skipped and why. */
export interface ParsedLog {
  snapshots: LocatedSnapshot[];
  diagnostics: Diagnostic[];
}

/** Offsets of the lines that start with `marker` after at most 3 spaces, found by string search. */
function markerLines(text: string, marker: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + marker.length)) {
    let s = i;
    while (s > 0 && i - s < 3 && text.charCodeAt(s - 1) === 32) s--;
    if (s === 0 || text.charCodeAt(s - 1) === 10) out.push(s);
  }
  return out;
}

/** Offset of the end of the line starting at `pos` (its newline, or the end of the text). */
function lineEnd(text: string, pos: number): number {
  const nl = text.indexOf("\n", pos);
  return nl < 0 ? text.length : nl;
}

/** The text of the line starting at `pos`, without its line ending. */
function lineAt(text: string, pos: number): string {
  return stripCr(text.slice(pos, lineEnd(text, pos)));
}

/** Counts line breaks in `text` between two offsets. */
function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** Whether the line at `pos` (at most 3 spaces in) is the marker `marker` or starts with `prefix`. */
function isMarkerLine(line: string, exact: string | null, prefix: string | null): boolean {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 32) i++;
  if (prefix !== null) return line.startsWith(prefix, i);
  return exact !== null && line.slice(i).trimEnd() === exact;
}

/**
 * Follows code fences over the lines of a stretch of text that hold none of big-memory's markers: it
 * visits only the lines where a fence can open or close (found by string search), so notes cost about
 * one scan of their bytes.
 */
class FenceTracker {
  open: Fence | null = null;
  private readonly text: string;
  private pos: number;
  /** Next offsets of ``` and ~~~ at or after `pos` (-1: none left), searched again only once passed. */
  private backticks = -2;
  private tildes = -2;
  constructor(text: string, pos: number) {
    this.text = text;
    this.pos = pos;
  }

  /**
   * Starts again at offset `pos` (past a block, at or after where it stands), outside any fence. The next
   * fence offsets already found after `pos` are kept: a log without `~~~` is searched for it once.
   */
  restart(pos: number): void {
    this.open = null;
    this.pos = Math.max(this.pos, pos);
  }

  /** Moves to offset `to` (a line start), updating the fence state with every fence line before it. */
  advance(to: number): void {
    const { text } = this;
    while (this.pos < to) {
      const next = this.next(to);
      if (next < 0) break;
      const line = lineAt(text, next);
      if (this.open === null) this.open = fenceOpen(line);
      else if (fenceCloses(line, this.open)) this.open = null;
      this.pos = lineEnd(text, next) + 1;
    }
    this.pos = Math.max(this.pos, to);
  }

  /** Start of the next line before `to` that begins, after at most 3 spaces, with ``` or ~~~; -1 if none. */
  private next(to: number): number {
    const { text } = this;
    for (let from = this.pos; from < to; ) {
      if (this.backticks !== -1 && this.backticks < from) this.backticks = text.indexOf("```", from);
      if (this.tildes !== -1 && this.tildes < from) this.tildes = text.indexOf("~~~", from);
      const b = this.backticks;
      const t = this.tildes;
      const i = b < 0 ? t : t < 0 ? b : Math.min(b, t);
      if (i < 0 || i >= to) return -1;
      let s = i;
      while (s > 0 && i - s < 3 && text.charCodeAt(s - 1) === 32) s--;
      if (s === 0 || text.charCodeAt(s - 1) === 10) return s;
      from = lineEnd(text, i) + 1;
    }
    return -1;
  }
}

/**
 * The region of the block whose start marker line begins at `start`: up to and including its end marker
 * (the first one outside code fences), or, when a start marker or the end of the text comes first, torn.
 */
function regionOf(text: string, start: number): { end: number; closed: boolean } {
  let fence: Fence | null = null;
  for (let pos = lineEnd(text, start) + 1; pos < text.length; pos = lineEnd(text, pos) + 1) {
    const line = lineAt(text, pos);
    if (fence !== null) {
      if (fenceCloses(line, fence)) fence = null;
      continue;
    }
    if (isMarkerLine(line, END_MARKER, null))
      return { end: Math.min(text.length, lineEnd(text, pos) + 1), closed: true };
    if (isMarkerLine(line, null, START_MARKER_PREFIX)) return { end: pos, closed: false };
    fence = fenceOpen(line);
  }
  return { end: text.length, closed: false };
}

/**
 * Parses a daily log. Block markers are located by string search, and only the region of each block
 * (start marker to end marker) is read: blocks in the plugin's canonical form (checksum verified) by the
 * fast line reader, others by the tolerant reader. Notes around blocks are never parsed as markdown;
 * only their code fences are followed, so that a marker inside fenced code stays code. Torn blocks
 * (with their id when one can be read), unknown versions and invalid blocks are skipped with a
 * diagnostic; the rest of the file still parses. A repeated id is reported, and both blocks are kept
 * (each is addressed by `file:line`). Never throws on content.
 *
 * Every snapshot returned is redacted (`[REDACTED:<kind>]`), after its checksum was verified on the text as
 * written: daily logs are also written by people and models, and this is the one function that reads
 * snapshots out of them, so nothing indexed, printed, returned by a tool or injected carries a secret.
 *
 * A verified block whose checksum `options.judged` remembers as clean under the current rules is not
 * redacted again (its content is the content that was judged); every other block is, and a verified block
 * in which redaction finds nothing is remembered. A canonical block whose text the memory remembers is not
 * even checksummed again: that text verified and was found clean when it was remembered.
 *
 * @param log the log's text, or its bytes and text as read from disk (`LogText`: keys are taken on the bytes)
 * @param file the workspace-relative path used in results and diagnostics (`memory/2026-11-22.md`)
 */
export function parseDailyLog(log: string | LogText, file: string, options: ParseOptions = {}): ParsedLog {
  const text = typeof log === "string" ? log : log.text;
  const starts = markerLines(text, START_MARKER_PREFIX);
  if (starts.length === 0) return { snapshots: [], diagnostics: [] };
  const found: Found[] = [];
  const diagnostics: Diagnostic[] = [];
  const memory = options.judged?.version === REDACTION_RULES_VERSION ? options.judged : null;
  const fences = new FenceTracker(text, 0);
  let cursor = 0;
  let line = 1;

  for (const start of starts) {
    if (start < cursor) continue;
    fences.advance(start);
    line += countLines(text, cursor, start);
    cursor = start;
    if (fences.open !== null) continue; // inside fenced code in the notes
    const canonical = text.charCodeAt(start) === 60;
    const span = memory !== null && canonical ? spanAt(log, start) : null;
    const key = span?.key ?? null;
    const trusted = key !== null && memory?.has(key) === true;
    const strict = canonical ? readStrict(text, start, trusted) : null;
    if (strict !== null) {
      const located: LocatedSnapshot = {
        snapshot: strict.snapshot,
        file,
        line,
        verified: true,
        checksum: strict.checksum,
      };
      // A text is remembered only when the fast reader read it to its first end marker line.
      found.push({ located, trusted, span: !trusted && span?.end === strict.end ? key : null });
      line += strict.lineCount - (text.charCodeAt(strict.end - 1) === 10 ? 0 : 1);
      cursor = strict.end;
      fences.restart(cursor);
      continue;
    }
    const region = regionOf(text, start);
    const lines = text.slice(start, region.end).split("\n").map(stripCr);
    if (lines.at(-1) === "" && region.end > start) lines.pop();
    if (region.closed) {
      const read = readBlock(lines, file, line);
      if (read.block !== null) found.push({ located: { ...read.block, file }, trusted: false, span: null });
      diagnostics.push(...read.diagnostics);
    } else {
      diagnostics.push(
        versionProblem(lines[0] ?? "", file, line) ?? noEndMarker(file, line, idAfterMarker(lines)),
      );
    }
    line += countLines(text, start, region.end);
    cursor = region.end;
    fences.restart(cursor);
  }

  const seen = new Map<string, number>();
  const snapshots: LocatedSnapshot[] = [];
  for (const f of found) {
    const s = f.located;
    const first = seen.get(s.snapshot.id);
    if (first === undefined) seen.set(s.snapshot.id, s.line);
    else {
      diagnostics.push(duplicateId(s, { file, line: first }));
    }
    snapshots.push(redactLocated(f, memory, options.remember === true));
  }
  diagnostics.sort((a, b) => a.line - b.line);
  return { snapshots, diagnostics };
}

/** Options of `parseDailyLog`. */
export interface ParseOptions {
  /** Checksums of blocks the current rules judged clean; blocks judged clean now are added. */
  readonly judged?: JudgedBlocks;
  /**
   * Redact with the process's memory of texts found clean (`redactDeep`'s `remember`: the same answers, the
   * texts read before not read again). For one block this process likely wrote itself (a restore), not for
   * whole logs, whose texts would crowd the memory out. Default false.
   */
  readonly remember?: boolean;
}

/** A block read from the log, before redaction. */
interface Found {
  located: LocatedSnapshot;
  /** Its text is one the memory of judged blocks remembers: read as it was then, verified and clean. */
  trusted: boolean;
  /** The key of its text (block-span.ts) when the fast reader read it and the memory applies; else null. */
  span: string | null;
}

/** The text of the block at `start` and its key (block-span.ts), taken on the log's bytes when it has them. */
function spanAt(log: string | LogText, start: number): { end: number; key: string | null } | null {
  return typeof log === "string" ? textSpan(log, start) : log.span(start);
}

/**
 * The snapshot with every value redacted; the same object when there was nothing to redact. A block whose
 * text or checksum `memory` remembers is returned as it is; a verified block found clean is remembered by
 * its checksum and, when the fast reader read it, by its text.
 */
function redactLocated(found: Found, memory: JudgedBlocks | null, remember: boolean): LocatedSnapshot {
  const { located, span } = found;
  if (found.trusted) return located;
  const checksum = located.verified === true && memory !== null ? located.checksum : null;
  if (checksum !== null && memory?.has(checksum) === true) {
    if (span !== null) memory.add(span);
    return located;
  }
  const redacted = redactDeep(located.snapshot, { remember });
  if (redacted.total > 0) return { ...located, snapshot: redacted.value };
  if (checksum !== null) {
    memory?.add(checksum);
    if (span !== null) memory?.add(span);
  }
  return located;
}

/** `big-memory: memory/2026-11-22.md:14: message`, the one-line form of a diagnostic. */
export function formatDiagnostic(d: Diagnostic): string {
  return `big-memory: ${d.file}:${d.line}: ${d.message}`;
}

/** The diagnostic of a block whose id another block (`first`, in this log or another) already has. */
export function duplicateId(s: LocatedSnapshot, first: { file: string; line: number }): Diagnostic {
  return {
    file: s.file,
    line: s.line,
    id: s.snapshot.id,
    message: `duplicate snapshot id ${s.snapshot.id} (also at ${first.file}:${first.line}); both blocks are kept, address this one as ${s.file}:${s.line}`,
  };
}
