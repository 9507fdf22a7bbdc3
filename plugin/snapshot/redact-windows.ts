import type { RuleSet } from "./redact-engine.ts";
import type { Span } from "./redact-spans.ts";

/**
 * Where the rules of a set run in a text (the trigger scan of `findSecrets`), and which lines the pass after
 * a productive one reads. A pass that found secrets in a long line is followed by one over that whole line;
 * what the first pass's scan saw tells the second pass's windows without scanning the line again.
 */

/** Per window group, its windows as a flat `[start, end, start, end, …]`, or undefined for none. */
export type Windows = (number[] | undefined)[];

/**
 * What `findSecrets` knows of its trigger scan: `windows` to use instead of scanning, or `witnesses` to
 * fill while scanning (see `windowsOf`).
 */
export interface Scanned {
  readonly windows?: Windows | undefined;
  readonly witnesses?: number[];
}

/**
 * The lines each window group must run on: merged windows as a flat `[start, end, start, end, …]` (no
 * object per hit: a dense text has a trigger every few words), undefined for a group with none (most groups
 * of most texts, so no list is made for them). A group without triggers gets the whole text.
 *
 * A trigger inside a marker (`key` in `[REDACTED:private-key]`, `token` in `[REDACTED:github-token]`) opens
 * no window: no rule matches inside a marker, and a text dense with markers (the pass after a productive
 * one) would otherwise run every rule waiting for those words over every line. Once a literal has opened
 * the windows of its line, its other occurrences on that line are not reported: they would add nothing.
 *
 * `witnesses`, when given, gets for each line and each group opened there the hit that opened it first, as
 * `lineStart, group, at, length` (see `windowsAfter`), or `-1` alone past `WITNESSES` of them.
 */
export function windowsOf(
  text: string,
  set: RuleSet,
  markers: readonly Span[],
  witnesses?: number[],
): Windows {
  const windows: Windows = new Array(set.groups.length);
  for (const g of set.untriggeredGroups) windows[g] = [0, text.length];
  let lineStart = -1;
  // Ends of the hit's line and of the lines after it, computed as far as a rule reaches.
  // The first `known` of `ends` hold (no truncation of the array at each line: that costs a runtime call).
  const ends: number[] = [];
  let known = 0;
  const reachEnd = (reach: number): number => {
    if (reach === Number.POSITIVE_INFINITY) return text.length;
    for (
      let last = known > 0 ? (ends[known - 1] ?? text.length) : text.length;
      known <= reach && last < text.length;
    ) {
      last = endOfLine(text, last + 1);
      ends[known++] = last;
    }
    return ends[Math.min(reach, known - 1)] ?? text.length;
  };
  // Per group, the start of the last line it was opened on, for `witnesses`.
  let openedOn = witnesses === undefined ? undefined : new Int32Array(set.groups.length).fill(-1);
  // Per group, the start of the line its window covers last (-1: none yet); per literal, where its next
  // occurrence may be reported from (the scanner's `until`, raised here for literals that would add nothing).
  const openOn = new Int32Array(set.groups.length).fill(-1);
  const until = new Int32Array(set.scanner.literals.length);
  let marker = 0;
  // Every hit inside a marker is dropped below, and with no literal holding the `]` that ends a marker
  // none can start in one and end past it: the scan need not read the markers at all.
  const skip = set.markerProof ? markers : [];
  set.scanner.scan(
    text,
    (at, literal) => {
      while ((markers[marker]?.end ?? Number.POSITIVE_INFINITY) <= at) marker++;
      const inside = markers[marker];
      const length = set.scanner.literals[literal]?.length ?? 0;
      if (inside !== undefined && inside.start <= at && at + length <= inside.end) return inside.end;
      if (known === 0 || at >= (ends[0] ?? -1)) {
        lineStart = text.lastIndexOf("\n", at - 1) + 1;
        ends[0] = endOfLine(text, at);
        known = 1;
      }
      // Whether every group this literal starts has its window over the line now (a case-sensitive group
      // whose trigger is here in another case has not).
      let all = true;
      const activations = set.activations[literal] ?? [];
      for (let k = 0; k < activations.length; k++) {
        const { group, trigger } = activations[k] ?? { group: -1, trigger: "" };
        const g = set.groups[group];
        if (g === undefined) continue;
        if (g.caseSensitive && !text.startsWith(trigger, at)) {
          all = false;
          continue;
        }
        if (openedOn !== undefined && openedOn[group] !== lineStart) {
          openedOn[group] = lineStart;
          witnesses?.push(lineStart, group, at, length);
          // A text of many lines keeps none (see `WITNESSES`).
          if ((witnesses?.length ?? 0) > 4 * WITNESSES) {
            witnesses?.splice(0, witnesses.length, -1);
            openedOn = undefined;
          }
        }
        const end = reachEnd(g.reach);
        if (openOn[group] !== lineStart) {
          openOn[group] = lineStart;
          if ((ends[0] ?? 0) - at > LONG_LINE)
            retireOpeners(set, group, openOn, lineStart, ends[0] ?? 0, until);
        }
        const list = windows[group];
        const lastEnd = list?.at(-1);
        if (list === undefined) windows[group] = [lineStart, end];
        // A window that starts on the line right after the last one extends it: a text with a trigger on
        // every line costs one window, not one per line.
        else if (lastEnd === undefined || lineStart > lastEnd + 1) list.push(lineStart, end);
        else if (end > lastEnd) list[list.length - 1] = end;
      }
      return all ? ends[0] : undefined;
    },
    skip,
    until,
  );
  return windows;
}

/**
 * How far a line must run on past a hit for `windowsOf` to look for literals it can stop reporting there: a
 * shorter line holds too few occurrences to repay the look.
 */
const LONG_LINE = 256;

/**
 * Once `group` opened over the line starting at `lineStart` and ending at `lineEnd`, each literal that opens
 * it and only groups already open over that line adds nothing by its occurrences on the rest of the line
 * (each would open what is open, and none is a group's first witness there): the scan stops reporting them
 * until the line ends. A line dense with one label word (`password: password: …`) otherwise compares every
 * longer literal sharing its start (`passphrase`, `passcode`) at each occurrence.
 */
function retireOpeners(
  set: RuleSet,
  group: number,
  openOn: Int32Array,
  lineStart: number,
  lineEnd: number,
  until: Int32Array,
): void {
  for (const literal of set.openers[group] ?? []) {
    if ((until[literal] ?? 0) >= lineEnd) continue;
    const activations = set.activations[literal] ?? [];
    let open = true;
    for (let k = 0; k < activations.length && open; k++)
      open = openOn[activations[k]?.group ?? -1] === lineStart;
    if (open) until[literal] = lineEnd;
  }
}

export function endOfLine(text: string, from: number): number {
  const nl = text.indexOf("\n", from);
  return nl === -1 ? text.length : nl;
}

/**
 * The windows `windowsOf(text, set, markers)` gives, where `text` is `before` with each of `found` replaced
 * by the marker at the same index of `written` (`markers`: those of `text`), found from the `witnesses`
 * the scan of `before` kept rather than by scanning `text`; undefined when that cannot be told.
 *
 * With no trigger holding `[` or `]`, no occurrence in `text` straddles a marker, one inside a marker
 * opens nothing, and every other one lies in text `before` held at the same place of the same line (no
 * finding may hold a line break): the lines where a group opens are those where it opened before, less
 * those whose occurrences a finding covered. So a line keeps the groups of its witnesses when no finding
 * overlaps any of them, and is scanned again (alone, with its line break: a trigger may end with one)
 * when one does. A line without witnesses opens nothing, as before. When the lines to scan again make
 * half the text or more than `RESCANNED_LINES`, undefined: the caller scans the text, as it would have.
 */
export function windowsAfter(
  before: string,
  text: string,
  set: RuleSet,
  markers: readonly Span[],
  found: readonly Span[],
  written: readonly Span[],
  witnesses: readonly number[],
): Windows | undefined {
  if (witnesses[0] === -1 || !set.markerProof || set.scanner.literals.some((l) => l.includes("[")))
    return undefined;
  for (let f = 0, nl = -1; f < found.length; f++) {
    const { start, end } = found[f] ?? { start: 0, end: 0 };
    if (nl < start && nl !== Number.POSITIVE_INFINITY) {
      const at = before.indexOf("\n", start);
      nl = at === -1 ? Number.POSITIVE_INFINITY : at;
    }
    if (nl < end) return undefined;
  }
  const windows: Windows = new Array(set.groups.length);
  for (const g of set.untriggeredGroups) windows[g] = [0, text.length];
  // `moved`: the findings that end before the line at hand, and how far they moved what follows them;
  // `checked`: the findings that end before the witness at hand.
  let moved = 0;
  let shift = 0;
  let checked = 0;
  let marker = 0;
  // The lines scanned again, and their characters.
  let again = 0;
  let read = 0;
  const open: number[] = [];
  for (let w = 0; w < witnesses.length; ) {
    const lineStart = witnesses[w] ?? 0;
    for (let f = found[moved]; f !== undefined && f.end <= lineStart; f = found[++moved])
      shift = (written[moved]?.end ?? f.end) - f.end;
    let covered = false;
    open.length = 0;
    for (; w < witnesses.length && witnesses[w] === lineStart; w += 4) {
      const at = witnesses[w + 2] ?? 0;
      while ((found[checked]?.end ?? Number.POSITIVE_INFINITY) <= at) checked++;
      if ((found[checked]?.start ?? Number.POSITIVE_INFINITY) < at + (witnesses[w + 3] ?? 0)) covered = true;
      open.push(witnesses[w + 1] ?? 0);
    }
    const start = lineStart + shift;
    const lineEnd = endOfLine(text, start);
    if (covered) {
      // Past half the text, or many lines (a scan each), the caller had better scan the text once.
      read += lineEnd + 1 - start;
      if (++again > RESCANNED_LINES || read * 2 > text.length) return undefined;
      while ((markers[marker]?.end ?? Number.POSITIVE_INFINITY) <= start) marker++;
      const local: Span[] = [];
      for (let m = marker; (markers[m]?.start ?? Number.POSITIVE_INFINITY) < lineEnd; m++) {
        const span = markers[m] ?? { start: 0, end: 0 };
        local.push({ start: span.start - start, end: span.end - start });
      }
      const line = windowsOf(text.slice(start, lineEnd + 1), set, local);
      open.length = 0;
      for (const [group, list] of line.entries())
        if (list?.[0] === 0 && (set.groups[group]?.triggers.length ?? 0) > 0) open.push(group);
    }
    for (const group of open) {
      const reach = set.groups[group]?.reach ?? 0;
      let end = lineEnd;
      if (reach === Number.POSITIVE_INFINITY) end = text.length;
      else for (let k = 0; k < reach && end < text.length; k++) end = endOfLine(text, end + 1);
      // As `windowsOf` adds a window: a line right after the last window extends it.
      const list = windows[group];
      const lastEnd = list?.at(-1);
      if (list === undefined) windows[group] = [start, end];
      else if (lastEnd === undefined || start > lastEnd + 1) list.push(start, end);
      else if (end > lastEnd) list[list.length - 1] = end;
    }
  }
  return windows;
}

/**
 * How many witnesses a scan keeps at most: a text of long lines has few (those `windowsAfter` spares a scan
 * of), one of many short lines has one per line and group, which cost more to keep and read than the scan
 * they would spare.
 */
const WITNESSES = 1024;

/** How many lines `windowsAfter` scans again before it leaves the scan to the caller. */
const RESCANNED_LINES = 256;

/** The lines of `text` within `lines` lines of any of `spans` (sorted), as merged line-aligned spans. */
export function linesAround(text: string, spans: readonly Span[], lines: number): Span[] {
  const out: Span[] = [];
  for (const span of spans) {
    // A span inside the lines already taken adds nothing (looking for its line breaks again would read a
    // long line once per marker on it), nor does any after it once they reach the end of the text.
    const previous = out.at(-1);
    if (previous !== undefined && span.end <= previous.end) {
      if (previous.end === text.length) break;
      continue;
    }
    let start = previous === undefined ? 0 : previous.start;
    if (previous === undefined || span.start > previous.end) {
      start = text.lastIndexOf("\n", span.start - 1) + 1;
      for (let i = 0; i < lines && start > 0; i++)
        start = start === 1 ? 0 : text.lastIndexOf("\n", start - 2) + 1;
    }
    let end = text.indexOf("\n", span.end);
    for (let i = 0; i < lines && end !== -1; i++) end = text.indexOf("\n", end + 1);
    if (end === -1) end = text.length;
    const last = out.at(-1);
    if (last !== undefined && start <= last.end)
      out[out.length - 1] = { start: last.start, end: Math.max(end, last.end) };
    else out.push({ start, end });
  }
  return out;
}
