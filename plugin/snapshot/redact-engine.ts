import type { RedactionKind } from "./redact.ts";
import { compileLiterals, type LiteralScanner } from "./redact-triggers.ts";

/**
 * The matching engine of the redactor: rules, the trigger scan that decides where each rule runs, and the
 * span bookkeeping that lets rules of higher priority win.
 *
 * Running some fifty regular expressions over every text would cost more than the text is worth, and most
 * of them cannot match an ordinary note at all. So every rule names trigger literals (`ghp_`, `password`,
 * `://`); one case-insensitive scan finds them all, and a rule then runs only on the line of each trigger
 * and the `reach` lines after it. A rule without triggers runs on the whole text.
 */

/** A half-open range `[start, end)` of UTF-16 code units. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** The part of a match to replace, or `undefined` when the match is not a secret after all. */
export type Pick = (match: RegExpExecArray) => Span | undefined;

export interface Rule {
  readonly kind: RedactionKind;
  /** Compiled with the `g` and `d` flags; cloned before use so no state is shared between calls. */
  readonly pattern: RegExp;
  readonly pick: Pick;
  /** Literals that must occur on a line for the rule to run there; empty: the rule runs on the whole text. */
  readonly triggers: readonly string[];
  /** Whether a trigger counts only in its exact case (provider prefixes) or in any case (words). */
  readonly caseSensitive: boolean;
  /** How many lines after a trigger's line a match may reach into. */
  readonly reach: number;
}

export interface RuleOptions {
  readonly flags?: string;
  readonly triggers: readonly string[];
  readonly caseSensitive?: boolean;
  readonly reach?: number;
  readonly pick?: Pick;
}

/** A rule from a pattern source; by default it replaces the whole match, case-sensitive triggers, reach 0. */
export function rule(kind: RedactionKind, source: string, options: RuleOptions): Rule {
  return {
    kind,
    pattern: new RegExp(source, `gd${options.flags ?? ""}`),
    pick: options.pick ?? whole(),
    triggers: options.triggers,
    caseSensitive: options.caseSensitive ?? true,
    reach: options.reach ?? 0,
  };
}

/** Replace the whole match when `accept` (default: always) holds for its `body` group or the match. */
export function whole(accept: (value: string) => boolean = () => true): Pick {
  return (m) => (accept(m.groups?.body ?? m[0]) ? { start: m.index, end: m.index + m[0].length } : undefined);
}

/** Replace the first `secret*` group that took part in the match, when `accept` holds for it. */
export function secret(accept: (value: string, m: RegExpExecArray) => boolean): Pick {
  return (m) => {
    for (const [name, range] of Object.entries(m.indices?.groups ?? {})) {
      if (name.startsWith("secret") && range !== undefined) {
        const value = m.groups?.[name] ?? "";
        return accept(value, m) ? { start: range[0], end: range[1] } : undefined;
      }
    }
    return undefined;
  };
}

interface Activation {
  readonly rule: number;
  /** The trigger in its own case, checked at the hit when the rule is case-sensitive. */
  readonly trigger: string;
}

/** Rules compiled for scanning: one scanner over every trigger, and the rules each trigger starts. */
export interface RuleSet {
  readonly rules: readonly Rule[];
  readonly scanner: LiteralScanner;
  readonly activations: readonly (readonly Activation[])[];
  readonly everywhere: readonly number[];
}

/** Compile `rules`, in priority order, into a rule set. */
export function compileRules(rules: readonly Rule[]): RuleSet {
  const literals = [...new Set(rules.flatMap((r) => r.triggers.map((t) => t.toLowerCase())))];
  const activations = literals.map((literal) =>
    rules.flatMap((r, index) =>
      r.triggers.filter((t) => t.toLowerCase() === literal).map((trigger) => ({ rule: index, trigger })),
    ),
  );
  return {
    rules,
    scanner: compileLiterals(literals),
    activations,
    everywhere: [...rules.keys()].filter((i) => rules[i]?.triggers.length === 0),
  };
}

/** The lines each rule must run on: merged windows per rule index. */
function windowsOf(text: string, set: RuleSet): Map<number, Span[]> {
  const windows = new Map<number, Span[]>();
  for (const index of set.everywhere) windows.set(index, [{ start: 0, end: text.length }]);
  let lineStart = -1;
  let lineEnd = -1;
  set.scanner.scan(text, (at, literal) => {
    if (at >= lineEnd) {
      lineStart = text.lastIndexOf("\n", at - 1) + 1;
      lineEnd = endOfLine(text, at);
    }
    for (const { rule: index, trigger } of set.activations[literal] ?? []) {
      const r = set.rules[index];
      if (r === undefined || (r.caseSensitive && !text.startsWith(trigger, at))) continue;
      let end = lineEnd;
      for (let i = 0; i < r.reach && end < text.length; i++) end = endOfLine(text, end + 1);
      const list = windows.get(index);
      const last = list?.at(-1);
      if (list === undefined) windows.set(index, [{ start: lineStart, end }]);
      else if (last !== undefined && lineStart <= last.end) {
        list[list.length - 1] = { start: last.start, end: Math.max(end, last.end) };
      } else list.push({ start: lineStart, end });
    }
  });
  return windows;
}

function endOfLine(text: string, from: number): number {
  const nl = text.indexOf("\n", from);
  return nl === -1 ? text.length : nl;
}

/** A replacement: the span and the kind of secret in it. */
export interface Finding extends Span {
  readonly kind: RedactionKind;
}

const MARKER = /\[REDACTED:[a-z0-9-]+\]/g;

/**
 * Every secret in `text`, as non-overlapping findings in text order. Rules run in priority order; a match
 * that overlaps a marker already in the text or a finding of an earlier rule is dropped and its rule
 * resumes one character later, so a secret inside it can still be found.
 */
export function findSecrets(text: string, set: RuleSet): Finding[] {
  const markers: Span[] = Array.from(text.matchAll(new RegExp(MARKER)), (m) => ({
    start: m.index,
    end: m.index + m[0].length,
  }));
  const found: Finding[] = [];
  const windows = windowsOf(text, set);
  for (const [index, r] of set.rules.entries()) {
    const list = windows.get(index);
    if (list === undefined) continue;
    const re = new RegExp(r.pattern);
    for (const window of list) {
      const slice = window.end - window.start === text.length ? text : text.slice(window.start, window.end);
      re.lastIndex = 0;
      for (let m = re.exec(slice); m !== null; m = re.exec(slice)) {
        const local = r.pick(m);
        const span = local && { start: local.start + window.start, end: local.end + window.start };
        if (
          span === undefined ||
          span.end <= span.start ||
          overlaps(markers, span) ||
          overlaps(found, span)
        ) {
          re.lastIndex = m.index + 1;
          continue;
        }
        found.splice(firstEndingAfter(found, span.start), 0, { ...span, kind: r.kind });
        if (m[0].length === 0) re.lastIndex += 1;
      }
    }
  }
  return found;
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
