import type { RedactionKind } from "./redact.ts";

/**
 * The span bookkeeping of the redaction engine: markers already in a text, and the findings of the rules
 * in text order, where a finding of a rule of higher priority wins.
 */

/** A half-open range `[start, end)` of UTF-16 code units. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** A replacement: the span and the kind of secret in it. */
export interface Finding extends Span {
  readonly kind: RedactionKind;
}

/**
 * The markers already in `text`, in text order: `[REDACTED:` found by `indexOf`, then one or more of
 * `a-z 0-9 -` and a `]` read a character at a time, so a text dense with markers (the second pass over a
 * text full of secrets) costs no match of a pattern per marker.
 */
export function markersIn(text: string): Span[] {
  const markers: Span[] = [];
  for (let at = text.indexOf("[REDACTED:"); at !== -1; at = text.indexOf("[REDACTED:", at + 1)) {
    let end = at + 10;
    while (end < text.length && isKindChar(text.charCodeAt(end))) end++;
    if (end > at + 10 && text.charCodeAt(end) === 93) markers.push({ start: at, end: end + 1 });
  }
  return markers;
}

/**
 * The markers of a text after a pass replaced `found` by the markers at `written` (in the new text): the
 * markers it held before (`markers`, never overlapped by a finding), moved by what was replaced before
 * them, and the new ones, in text order. No other marker can appear: a marker holds no `[` or `:` past
 * its start, and every written one holds both, so none straddles a written marker and the text beside it.
 * Saves reading a text dense with markers again for them at every pass.
 */
export function carryMarkers(
  markers: readonly Span[],
  found: readonly Span[],
  written: readonly Span[],
): Span[] {
  const out: Span[] = [];
  let m = 0;
  // How far text before the current finding has moved: new position less old position.
  let shift = 0;
  for (const [f, finding] of found.entries()) {
    const marker = written[f] ?? finding;
    for (let old = markers[m]; old !== undefined && old.start < finding.start; old = markers[++m])
      out.push({ start: old.start + shift, end: old.end + shift });
    out.push(marker);
    shift = marker.end - finding.end;
  }
  for (let old = markers[m]; old !== undefined; old = markers[++m])
    out.push({ start: old.start + shift, end: old.end + shift });
  return out;
}

/** `a-z`, `0-9` or `-`: a character of a kind in a marker. */
function isKindChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45;
}

/**
 * Adds the span a pick returned (relative to a window at `offset`) to `mine` unless it is empty, overlaps a
 * marker or an earlier rule's finding, or starts before the rule's last finding ends. 1 when added.
 */
export function keep(
  local: Span,
  offset: number,
  kind: RedactionKind,
  markers: readonly Span[],
  found: readonly Finding[],
  mine: Finding[],
): number {
  const span = { start: local.start + offset, end: local.end + offset, kind };
  if (span.end <= span.start || overlaps(markers, span) || overlaps(found, span)) return 0;
  if (mine.length > 0 && (mine[mine.length - 1]?.end ?? -1) > span.start) return 0;
  mine.push(span);
  return 1;
}

/** Two lists of disjoint spans in text order, as one. */
export function merge(a: readonly Finding[], b: readonly Finding[]): Finding[] {
  const out: Finding[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.start <= y.start)) {
      if (x !== undefined) out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

/** Index of the first span in `sorted` that ends after `at`. */
function firstEndingAfter(sorted: readonly Span[], at: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const probe = sorted[mid];
    if (probe !== undefined && probe.end <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function overlaps(sorted: readonly Span[], span: Span): boolean {
  const first = sorted[firstEndingAfter(sorted, span.start)];
  return first !== undefined && first.start < span.end;
}

/** Whether a span of `sorted` holds position `at`. */
export function covers(sorted: readonly Span[], at: number): boolean {
  const first = sorted[firstEndingAfter(sorted, at)];
  return first !== undefined && first.start <= at;
}
