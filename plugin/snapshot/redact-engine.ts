import type { RedactionKind } from "./redact.ts";
import { numbered } from "./redact-pattern.ts";
import { covers, type Finding, keep, markersIn, merge, type Span } from "./redact-spans.ts";
import { compileLiterals, type LiteralScanner } from "./redact-triggers.ts";
import { type Scanned, windowsOf } from "./redact-windows.ts";

export type { Finding, Span } from "./redact-spans.ts";

/**
 * The matching engine of the redactor: rules, the trigger scan that decides where each rule runs, and the
 * span bookkeeping that lets rules of higher priority win.
 *
 * Running some fifty regular expressions over every text would cost more than the text is worth, and most
 * of them cannot match an ordinary note at all. So every rule names trigger literals (`ghp_`, `password`,
 * `://`); one case-insensitive scan finds them all, and a rule then runs only on the line of each trigger
 * and the `reach` lines after it. A rule without triggers runs on the whole text. Markers and findings are
 * kept in order by `redact-spans.ts`.
 */

/**
 * Where a named group of the match at hand lies in the text the rule ran on: `[start, end)`, or
 * `undefined` when the group did not take part. The first call for a match runs its rule once more at the
 * match with the `d` flag, so a pick asks only once it has judged the match a secret.
 */
export type Locate = (group: string | number) => readonly [number, number] | undefined;

/**
 * The part of a match to replace, several parts (in text order), or `undefined` when the match is not a
 * secret after all. `at` gives the range of a named group (see `Locate`).
 */
export type Pick = (match: RegExpExecArray, at: Locate) => Span | readonly Span[] | undefined;

export interface Rule {
  readonly kind: RedactionKind;
  /**
   * Compiled once with the `g` flag. `findSecrets` sets its `lastIndex` before every use and nothing else
   * runs it, so calls (which are synchronous) never see each other's state; cloning it per call instead
   * would cost 1-4 µs per rule, more than scanning a short text. Without the `d` flag: group indices make
   * every match 2-5x dearer, and most matches of a text dense with them are not secrets.
   */
  readonly pattern: RegExp;
  /**
   * The named groups of the rule's source and their numbers in `pattern`, which is compiled with plain
   * numbered groups: V8 builds a `groups` object for every match of a pattern with named groups, at about
   * the cost of the match itself, so `findSecrets` builds one of a fixed shape for each match instead.
   */
  readonly names: readonly (readonly [string, number])[];
  /** The same pattern with the `d` and `y` flags: run at a match only when its pick asks where a group is. */
  readonly located: RegExp;
  readonly pick: Pick;
  /** Literals that must occur on a line for the rule to run there; empty: the rule runs on the whole text. */
  readonly triggers: readonly string[];
  /** Whether a trigger counts only in its exact case (provider prefixes) or in any case (words). */
  readonly caseSensitive: boolean;
  /** How many lines after a trigger's line a match may reach into. */
  readonly reach: number;
  /**
   * Where the rule goes on after a match that yields nothing new: `next`, one character after the match's
   * start (a secret may start inside it); `end`, after the match (a rule whose match takes the rest of a
   * command and whose pick reads every option in it: trying again inside would read the same options).
   */
  readonly resume: "next" | "end";
  /**
   * A literal every match ends with (`@` of URL userinfo), or undefined: a window is read only up to its
   * last occurrence, and not at all without one (a line of ordinary URLs costs a search, not a match try
   * at each `://`). Only for patterns that read nothing past that literal.
   */
  readonly endsWith: string | undefined;
}

export interface RuleOptions {
  readonly flags?: string;
  readonly triggers: readonly string[];
  readonly caseSensitive?: boolean;
  readonly reach?: number;
  readonly pick?: Pick;
  readonly resume?: "next" | "end";
  readonly endsWith?: string;
}

/** A rule from a pattern source; by default it replaces the whole match, case-sensitive triggers, reach 0. */
export function rule(kind: RedactionKind, source: string, options: RuleOptions): Rule {
  const plain = numbered(source);
  return {
    kind,
    pattern: new RegExp(plain.source, `g${options.flags ?? ""}`),
    names: Object.entries(plain.group).sort((a, b) => a[1] - b[1]),
    located: new RegExp(source, `dy${options.flags ?? ""}`),
    pick: options.pick ?? whole(),
    triggers: options.triggers,
    caseSensitive: options.caseSensitive ?? true,
    reach: options.reach ?? 0,
    resume: options.resume ?? "next",
    endsWith: options.endsWith,
  };
}

/** Replace the whole match when `accept` (default: always) holds for its `body` group or the match. */
export function whole(accept: (value: string) => boolean = () => true): Pick {
  return (m) => (accept(m.groups?.body ?? m[0]) ? { start: m.index, end: m.index + m[0].length } : undefined);
}

/**
 * Replace the first `secret*` group that took part in the match, when `accept` holds for it. `ends`: the
 * group ends the match (lookarounds aside), so its range is found from the match's end rather than by
 * running the rule again with group indices.
 */
export function secret(accept: (value: string, m: RegExpExecArray) => boolean, ends = false): Pick {
  return (m, at) => {
    for (const name in m.groups) {
      const value = m.groups[name];
      if (!name.startsWith("secret") || value === undefined) continue;
      if (ends) {
        // A value another rule took is not judged again (`taken`).
        const range = endingAt(m, value);
        return !taken(range[0]) && accept(value, m) ? { start: range[0], end: range[1] } : undefined;
      }
      const range = accept(value, m) ? at(name) : undefined;
      return range === undefined ? undefined : { start: range[0], end: range[1] };
    }
    return undefined;
  };
}

/**
 * The range of `value`, the text of a group that ends `after` characters before the end of match `m`
 * (a value at the end of its pattern, or before its closing quote): found without group indices.
 */
export function endingAt(m: RegExpExecArray, value: string, after = 0): [number, number] {
  const end = m.index + m[0].length - after;
  return [end - value.length, end];
}

interface Activation {
  /** The window group the trigger opens a window for. */
  readonly group: number;
  /** The trigger in its own case, checked at the hit when the group is case-sensitive. */
  readonly trigger: string;
}

/** What decides where a rule runs: its triggers, their case sensitivity and its reach. */
interface WindowGroup {
  readonly triggers: readonly string[];
  readonly caseSensitive: boolean;
  readonly reach: number;
}

/**
 * Rules compiled for scanning: one scanner over every trigger, and what each trigger starts. Rules with the
 * same triggers, case sensitivity and reach share one list of windows (a group), so a trigger word that
 * several rules wait for (`key`, `password`) costs one window, not one per rule.
 */
export interface RuleSet {
  readonly rules: readonly Rule[];
  /** The window group of each rule. */
  readonly groupOf: readonly number[];
  readonly groups: readonly WindowGroup[];
  readonly scanner: LiteralScanner;
  readonly activations: readonly (readonly Activation[])[];
  /** Per window group, the literals that open it (indices into the scanner's literals). */
  readonly openers: readonly (readonly number[])[];
  /** The longest finite `reach` of any rule, in lines. */
  readonly maxReach: number;
  /** The rules without triggers, which run on every text, and their window groups. */
  readonly untriggered: readonly Rule[];
  readonly untriggeredGroups: readonly number[];
  /** Whether no literal holds a `]`, so none starts inside a marker and ends after it. */
  readonly markerProof: boolean;
}

/** Compile `rules`, in priority order, into a rule set. */
export function compileRules(rules: readonly Rule[]): RuleSet {
  // One pass each (this runs when the module loads, in every process that redacts): a rule's group by its
  // key, and each literal's activations in group order, then trigger order.
  const groupByKey = new Map<string, number>();
  const groups: WindowGroup[] = [];
  const groupOf = rules.map((r) => {
    const key = JSON.stringify([r.triggers, r.caseSensitive, r.reach]);
    let group = groupByKey.get(key);
    if (group === undefined) {
      group = groups.length;
      groupByKey.set(key, group);
      groups.push({ caseSensitive: r.caseSensitive, reach: r.reach, triggers: r.triggers });
    }
    return group;
  });
  const byLiteral = new Map<string, Activation[]>();
  groups.forEach((g, group) => {
    for (const trigger of g.triggers) {
      const literal = trigger.toLowerCase();
      const list = byLiteral.get(literal);
      if (list === undefined) byLiteral.set(literal, [{ group, trigger }]);
      else list.push({ group, trigger });
    }
  });
  const literals = [...byLiteral.keys()];
  const activations = [...byLiteral.values()];
  return {
    rules,
    groupOf,
    groups,
    scanner: compileLiterals(literals),
    activations,
    openers: groups.map((_, group) =>
      activations.flatMap((list, literal) => (list.some((a) => a.group === group) ? [literal] : [])),
    ),
    maxReach: Math.max(0, ...rules.map((r) => r.reach).filter(Number.isFinite)),
    untriggered: rules.filter((r) => r.triggers.length === 0),
    untriggeredGroups: [...groups.keys()].filter((g) => groups[g]?.triggers.length === 0),
    markerProof: literals.every((l) => !l.includes("]")),
  };
}

/**
 * For each of `texts`, whether `findSecrets` may find anything in it: a trigger some rule waits for occurs in
 * it (in its own case when the rule wants that), or a rule without triggers matches it. When this is false,
 * `findSecrets` returns nothing for that text, since every rule with triggers runs only around them. The
 * texts are scanned as one, joined by line breaks, so many short texts (the fields of a snapshot) cost one
 * scan: every trigger inside a text is also a hit of the joined text, and a hit that straddles two texts
 * only marks the first of them, which is merely cautious.
 */
export function mayFindSecrets(texts: readonly string[], set: RuleSet): boolean[] {
  const marked = texts.map(() => false);
  const starts: number[] = [];
  let offset = 0;
  for (const text of texts) {
    starts.push(offset);
    offset += text.length + 1;
  }
  const joined = texts.join("\n");
  let current = 0;
  set.scanner.scan(joined, (at, literal) => {
    while (current + 1 < starts.length && (starts[current + 1] ?? offset) <= at) current++;
    // A marked text needs no more hits of this literal.
    if (marked[current] === true) return starts[current + 1] ?? offset;
    for (const { group, trigger } of set.activations[literal] ?? []) {
      const g = set.groups[group];
      if (g !== undefined && (!g.caseSensitive || joined.startsWith(trigger, at))) {
        marked[current] = true;
        return starts[current + 1] ?? offset;
      }
    }
    return undefined;
  });
  for (const [i, text] of texts.entries()) {
    if (marked[i] === true) continue;
    for (const r of set.untriggered) {
      r.pattern.lastIndex = 0;
      if (r.pattern.test(text)) {
        marked[i] = true;
        break;
      }
    }
  }
  return marked;
}

/**
 * When a redaction must give up: at `at` on the clock `now` (milliseconds, any origin). The engine looks
 * at the clock between rules and between the windows of a rule; every rule reads a window in linear
 * time, so a call overruns its deadline by at most one rule over one window.
 */
export interface Deadline {
  readonly at: number;
  readonly now: () => number;
}

/** Thrown by `findSecrets` when its deadline has passed; callers turn it into a fail-closed result. */
export class DeadlineExceeded extends Error {
  constructor() {
    super("big-memory: redaction ran past its time budget");
    this.name = "DeadlineExceeded";
  }
}

/**
 * Every secret in `text`, as non-overlapping findings in text order. Rules run in priority order; a match
 * that overlaps a marker already in the text or a finding of an earlier rule is dropped and its rule
 * resumes one character later, so a secret inside it can still be found. Throws `DeadlineExceeded` once
 * `deadline` has passed. `markers`: the markers in `text` (`markersIn(text)`), when the caller knows them;
 * `scanned`: what the trigger scan found, when the caller knows it, or where to keep it (`Scanned`).
 */
export function findSecrets(
  text: string,
  set: RuleSet,
  deadline?: Deadline,
  markers: readonly Span[] = markersIn(text),
  scanned: Scanned = {},
): Finding[] {
  let found: Finding[] = [];
  const windows = scanned.windows ?? windowsOf(text, set, markers, scanned.witnesses);
  for (let index = 0; index < set.rules.length; index++) {
    const list = windows[set.groupOf[index] ?? -1];
    const r = set.rules[index];
    if (list === undefined || r === undefined) continue;
    const re = r.pattern;
    scan.rule = r;
    scan.markers = markers;
    scan.found = found;
    // A rule's findings come in text order; they are merged into the earlier rules' findings once the rule
    // is done, so a rule finding thousands of secrets between thousands of others costs a merge, not an
    // insertion in the middle of a long list for each.
    const mine: Finding[] = [];
    scan.mine = mine;
    for (let w = 0; w + 1 < list.length; w += 2) {
      const start = list[w] ?? 0;
      const end = list[w + 1] ?? text.length;
      if (deadline !== undefined && deadline.now() > deadline.at) throw new DeadlineExceeded();
      const last = r.endsWith === undefined ? end : text.lastIndexOf(r.endsWith, end - r.endsWith.length);
      const stop = r.endsWith === undefined ? end : last + r.endsWith.length;
      if (last < start) continue;
      const slice = stop - start === text.length ? text : text.slice(start, stop);
      scan.offset = start;
      re.lastIndex = 0;
      for (let m = re.exec(slice); m !== null; m = re.exec(slice)) {
        if (r.names.length > 0) m.groups = groupsOf(m, r.names);
        scan.match = m;
        scan.located = undefined;
        const picked = r.pick(m, locate);
        let added = 0;
        if (picked === undefined) added = 0;
        else if ("start" in picked) added = keep(picked, start, r.kind, markers, found, mine);
        else for (const local of picked) added += keep(local, start, r.kind, markers, found, mine);
        if (added === 0 && r.resume === "next") re.lastIndex = m.index + 1;
        else if (m[0].length === 0) re.lastIndex = m.index + 1;
      }
    }
    if (mine.length > 0) found = found.length === 0 ? mine : merge(found, mine);
  }
  // A pick run outside a scan finds nothing `taken`.
  scan.markers = scan.found = scan.mine = [];
  scan.offset = 0;
  return found;
}

/**
 * The rule and match `findSecrets` has at hand, for `locate` (one function for every match: a closure per
 * rule and call would be garbage for every short text). `findSecrets` is synchronous and picks never call
 * it, so one record serves every call.
 */
const scan: {
  rule: Rule | null;
  match: RegExpExecArray | null;
  located: RegExpIndicesArray | null | undefined;
  offset: number;
  markers: readonly Span[];
  found: readonly Finding[];
  mine: readonly Finding[];
} = { rule: null, match: null, located: undefined, offset: 0, markers: [], found: [], mine: [] };

/**
 * Whether a span a pick would return starting at `start` (in the text the rule ran on) would be dropped:
 * that character is in a marker or in an earlier rule's finding, or the rule's last finding ends after it
 * (see `keep`). A pick asks before judging its value: a value another rule already took costs no verdict.
 */
export function taken(start: number): boolean {
  const at = start + scan.offset;
  const last = scan.mine.at(-1);
  return (last !== undefined && last.end > at) || covers(scan.markers, at) || covers(scan.found, at);
}

/** The `groups` of match `m` of a pattern whose named groups were numbered (see `Rule.names`). */
function groupsOf(m: RegExpExecArray, names: readonly (readonly [string, number])[]): Record<string, string> {
  const groups: Record<string, string> = {};
  // `groups` holds undefined for a group that did not take part, as V8's own does.
  for (const [name, index] of names) groups[name] = m[index] as string;
  return groups;
}

/** Where a group of the match at hand lies: its rule run once more there with the `d` flag. */
const locate: Locate = (group) => {
  const { rule: r, match } = scan;
  if (scan.located === undefined && r !== null && match !== null) {
    r.located.lastIndex = match.index;
    scan.located = r.located.exec(match.input)?.indices ?? null;
  }
  return typeof group === "number" ? scan.located?.[group] : scan.located?.groups?.[group];
};
