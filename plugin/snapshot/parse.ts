import { START_MARKER_PREFIX } from "./format.ts";
import { readStrict } from "./read-strict.ts";
import { readTolerant } from "./read-tolerant.ts";
import { redactDeep } from "./redact.ts";
import type { Diagnostic, LocatedSnapshot } from "./snapshot.ts";

/** Everything read from one daily log: valid snapshots in file order, and what was skipped and why. */
export interface ParsedLog {
  snapshots: LocatedSnapshot[];
  diagnostics: Diagnostic[];
}

/** Offsets of lines that start with `marker`, found by string search. */
function markerOffsets(text: string, marker: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + marker.length)) {
    if (i === 0 || text.charCodeAt(i - 1) === 10) out.push(i);
  }
  return out;
}

/** Counts line breaks in `text` between two offsets. */
function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * Parses a daily log. Block markers are located by string search; blocks in the plugin's canonical
 * form (checksum verified) are read by the fast line reader, and only the stretches between them
 * that still hold a start marker go through remark. Text with no marker is never parsed as markdown.
 * Torn blocks, unknown versions, invalid blocks and duplicate ids are skipped with a diagnostic; the
 * rest of the file still parses. Never throws on content.
 *
 * Every snapshot returned is redacted (`[REDACTED:<kind>]`), after its checksum was verified on the text as
 * written: daily logs are also written by people and models, and this is the one function that reads
 * snapshots out of them, so nothing indexed, printed, returned by a tool or injected carries a secret.
 *
 * @param file the workspace-relative path used in results and diagnostics (`memory/2026-11-22.md`)
 */
export function parseDailyLog(text: string, file: string): ParsedLog {
  const starts = markerOffsets(text, START_MARKER_PREFIX);
  if (starts.length === 0) return { snapshots: [], diagnostics: [] };
  const found: LocatedSnapshot[] = [];
  const diagnostics: Diagnostic[] = [];
  let gapStart = 0;
  let gapLine = 1;
  let gapHasStart = false;
  let cursor = 0;
  let line = 1;

  const flushGap = (gapEnd: number) => {
    if (!gapHasStart) return;
    const read = readTolerant(text.slice(gapStart, gapEnd), file, gapLine);
    for (const b of read.blocks) found.push({ ...b, file });
    diagnostics.push(...read.diagnostics);
  };

  for (const start of starts) {
    if (start < cursor) continue;
    line += countLines(text, cursor, start);
    cursor = start;
    const strict = readStrict(text, start);
    if (strict === null) {
      gapHasStart = true;
      continue;
    }
    flushGap(start);
    found.push({ snapshot: strict.snapshot, file, line, verified: true, checksum: strict.checksum });
    line += strict.lineCount - (text.charCodeAt(strict.end - 1) === 10 ? 0 : 1);
    cursor = strict.end;
    gapStart = strict.end;
    gapLine = line;
    gapHasStart = false;
  }
  flushGap(text.length);

  found.sort((a, b) => a.line - b.line);
  const seen = new Map<string, number>();
  const snapshots: LocatedSnapshot[] = [];
  for (const s of found) {
    const first = seen.get(s.snapshot.id);
    if (first === undefined) {
      seen.set(s.snapshot.id, s.line);
      snapshots.push(redactLocated(s));
    } else {
      diagnostics.push({
        file,
        line: s.line,
        message: `duplicate snapshot id ${s.snapshot.id} (first at line ${first}); this block is skipped`,
      });
    }
  }
  diagnostics.sort((a, b) => a.line - b.line);
  return { snapshots, diagnostics };
}

/** The snapshot with every value redacted; the same object when there was nothing to redact. */
function redactLocated(located: LocatedSnapshot): LocatedSnapshot {
  const redacted = redactDeep(located.snapshot);
  return redacted.total === 0 ? located : { ...located, snapshot: redacted.value };
}

/** `big-memory: memory/2026-11-22.md:14: message`, the one-line form of a diagnostic. */
export function formatDiagnostic(d: Diagnostic): string {
  return `big-memory: ${d.file}:${d.line}: ${d.message}`;
}
