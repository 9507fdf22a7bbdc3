/**
 * The restore text put in front of the model (`prependContext` of `before_prompt_build`): one snapshot,
 * fenced as saved notes (data, not instructions) by tags carrying a per-render nonce, bounded by a token
 * budget. Outside the fence stand only fixed sentences, the nonce, and the snapshot's id and time when they
 * have their validated shapes: nothing written in a snapshot. Pure: values in, text out; callers pass
 * everything (the nonce included; no clock, no randomness, no I/O).
 */
import { clockOf } from "../snapshot/render.ts";
import { type Snapshot, SnapshotId } from "../snapshot/snapshot.ts";
import { closeTag, escapeSites, fenceRules, openTag } from "./fence.ts";
import {
  cleanBlock,
  cleanInline,
  estimateTokens,
  fitToBudget,
  type LineMeter,
  lineMeter,
  type TrimStep,
  truncateToTokens,
  withinTokens,
} from "./tokens.ts";

/** Why a snapshot is restored; it shapes the preamble and the closing instruction. */
export type RestoreReason = "compaction" | "reset" | "amnesia" | "resume" | "recall";

/** Another search hit shown under the restored snapshot (for amnesia). */
export interface RelatedHit {
  id: string;
  timestamp: string;
  goal: string;
  snippet: string;
}

/** What to restore and how much room it may take. */
export interface RestoreInput {
  snapshot: Snapshot;
  /** The daily log holding the snapshot, relative to the workspace (`memory/2026-11-22.md`). */
  file: string;
  /** 1-based line of the snapshot's start marker. */
  line: number;
  /** Checksum result: `true` holds, `false` modified after it was written, `null` no checksum. */
  verified: boolean | null;
  reason: RestoreReason;
  /** Shown as written (after neutralisation): "src/x.ts does not exist (any more, or yet)", "src/y.ts changed since the snapshot". */
  warnings: string[];
  related?: RelatedHit[];
  /** Upper bound of `estimateTokens(text)`; default {@link DEFAULT_TOKEN_BUDGET}. Kept whenever it is >= 300. */
  tokenBudget?: number;
  /** The fence's nonce, 16 lowercase hex digits (`newNonce()`); a fresh one for every render. */
  nonce: string;
}

/** The rendered restore text, its estimated size and what was trimmed to fit (in trimming order). */
export interface RestoreText {
  text: string;
  tokens: number;
  dropped: string[];
  /** The notes as shown inside the fence (neutralised, without the tags): a chat reply's body. */
  notes: string;
}

/** Default `tokenBudget` of {@link renderRestore}, in estimated tokens. */
export const DEFAULT_TOKEN_BUDGET = 1500;

/** Caps in estimated tokens: attributes and the source, the notice's goal, trimmed values, long notes. */
const ATTR_CAP = 12;
const NOTICE_CAP = 24;
const MIN_PRIMARY_CAP = 16;
const MIN_SECONDARY_CAP = 8;
const LONG_NOTE = 16;
const NOTICE_WORDS = 12;

/**
 * `clean(value)` cut to `maxTokens`, cleaning no more of a long value than can be shown: a prefix is
 * cleaned first, twice as long as the most characters `maxTokens` can hold, then longer while cleaning
 * left too little of it (removed invisible characters, collapsed white space).
 */
export function shown(value: string, maxTokens: number, clean: (v: string) => string = cleanInline): string {
  const room = Math.floor(maxTokens) * 4 + 1;
  for (let cut = room * 2; cut < value.length; cut *= 2) {
    const part = clean(value.slice(0, cut));
    if (part.length > room) return truncateToTokens(part, maxTokens);
  }
  return truncateToTokens(clean(value), maxTokens);
}

/** An attribute value: cleaned and cut to {@link ATTR_CAP} tokens (`openTag` escapes it). */
export function attr(value: string): string {
  return shown(value, ATTR_CAP);
}

const ISO_TIME =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/u;

/**
 * The id and the time of a snapshot when they have their validated shapes, for the fixed lines outside a
 * fence: the id as `YYYY-MM-DD-NN`, the time as `YYYY-MM-DD HH:MM` (or `YYYY-MM-DD`) read from an ISO 8601
 * timestamp as written; `null` for a value of any other shape, which then stays inside the fence only.
 */
export function stamp(s: { id: string; timestamp: string }): { id: string | null; saved: string | null } {
  const m = ISO_TIME.exec(s.timestamp);
  const saved = m === null ? null : m[2] === undefined ? (m[1] ?? null) : `${m[1]} ${m[2]}:${m[3]}`;
  return { id: SnapshotId.safeParse(s.id).success ? s.id : null, saved };
}

/** `snapshot 2026-11-22-03 (saved 2026-11-22 14:05)`, from {@link stamp}. */
export function snapshotPhrase(s: { id: string; timestamp: string }): string {
  const { id, saved } = stamp(s);
  return `${id === null ? "a saved snapshot" : `snapshot ${id}`}${saved === null ? "" : ` (saved ${saved})`}`;
}

/** The goal cut to its first twelve words and `cap` tokens; `(no goal recorded)` when empty. */
function shortGoal(goal: string, cap: number): string {
  const words = cleanInline(goal).split(" ");
  if (words[0] === "") return "(no goal recorded)";
  const short = words.length > NOTICE_WORDS ? `${words.slice(0, NOTICE_WORDS).join(" ")}…` : words.join(" ");
  return truncateToTokens(short, cap);
}

/**
 * The one-line notice the restore hook logs (through `api.logger`, never to the model or the chat):
 * `Restored snapshot 2026-11-22-03 from 14:05: <goal>`, with the goal cleaned and cut to twelve words (and
 * about 24 tokens) and `HH:MM` read from the timestamp as written (`--:--` when it has no time).
 */
export function restoreNotice(input: { id: string; timestamp: string; goal: string }): string {
  return `Restored snapshot ${attr(input.id)} from ${clockOf(input.timestamp)}: ${shortGoal(input.goal, NOTICE_CAP)}`;
}

const STATE_LABELS = [
  ["phase", "Phase"],
  ["branch", "Branch"],
  ["blocked", "Blocked"],
  ["progress", "Progress"],
] as const;

const MODIFIED = "this snapshot was modified after it was written (checksum mismatch)";

/** The first sentence of the preamble, by reason. */
const LEAD: Record<RestoreReason, string> = {
  compaction: "big-memory restored your working notes, saved before your context was compacted.",
  reset: "big-memory restored your working notes, saved before the session was reset.",
  amnesia:
    "big-memory restored the working notes that best match the user's message, which suggests you lost your place.",
  resume: "big-memory restored the working notes of the checkpoint the user asked to resume.",
  recall: "big-memory recalled these working notes, saved earlier, at your request.",
};

const VERIFIED = (v: boolean | null): string => (v === null ? "unverified" : v ? "yes" : "no-modified");

/** The cleaned notes (empty entries left out) and the fixed lines around them. */
type Content = ReturnType<typeof contentOf>;

const cleanCode = (x: string): string => cleanBlock(x).replace(/^\n+|\s+$/gu, "");

/** The values shown within `budget`, empty ones left out: a loop, no callback made per call. */
function shownLines(values: readonly string[], budget: number): string[] {
  const out: string[] = [];
  for (const v of values) {
    const line = shown(v, budget);
    if (line !== "") out.push(line);
  }
  return out;
}

function contentOf(input: RestoreInput, budget: number) {
  const s = input.snapshot;
  // No value can be shown longer than the whole budget: cutting there first changes no result and
  // keeps every later render proportional to the budget, not to the snapshot.
  const one = (v: string): string => shown(v, budget);
  const block = (v: string): string => shown(v, budget, cleanCode);
  const lines = (values: string[]): string[] => shownLines(values, budget);
  const warnings = lines(input.warnings);
  // Callers may already say so; say it once, first.
  const modified = input.verified === false && !warnings.some((w) => /checksum mismatch/iu.test(w));
  const code = block(s.code);
  const longestTicks = Math.max(0, ...(code.match(/`+/gu) ?? []).map((run) => run.length));
  return {
    preamble: `${LEAD[input.reason]} ${fenceRules(input.nonce)}`,
    opening: openTag(input.nonce, [
      ["id", attr(s.id)],
      ["taken", attr(s.timestamp)],
      ...(s.name === null ? [] : [["name", attr(s.name)] as const]),
      ["source", `${attr(input.file)}:${input.line}`],
      ["reason", input.reason],
      ["verified", VERIFIED(input.verified)],
    ]),
    closing: closeTag(input.nonce),
    snapshot: snapshotPhrase(s),
    goal: one(s.goal),
    state: STATE_LABELS.map(([k, label]) => ({ label, value: one(s.state[k]) })).filter(
      (x) => x.value !== "",
    ),
    files: s.files
      .map((f) => ({ path: one(f.path), note: one(f.note) }))
      .filter((f) => f.path + f.note !== ""),
    names: s.names
      .map((n) => ({ label: one(n.label), value: one(n.value) }))
      .filter((n) => n.label + n.value !== ""),
    next: lines(s.next),
    decisions: s.decisions
      .map((x) => ({ text: one(x.text), rationale: one(x.rationale) }))
      .filter((x) => x.text + x.rationale !== ""),
    blockers: lines(s.blockers),
    code,
    fence: "`".repeat(Math.max(3, longestTicks + 1)),
    extra: s.extra
      .map((x) => ({ heading: one(x.heading), body: block(x.body).trim() }))
      .filter((x) => x.heading + x.body !== ""),
    warnings: modified ? [MODIFIED, ...warnings] : warnings,
    related: (input.related ?? []).map((r) => ({
      head: `${attr(r.id)} (${attr(r.timestamp)})`,
      goal: one(r.goal),
      snippet: one(r.snippet),
    })),
  };
}

/**
 * How much of the content is shown: counts of list items, 0/1 switches, and token caps on values
 * (primary: goal, state, paths, key names, next steps, warnings; secondary: the rest). Infinity shows all.
 */
type Limits = ReturnType<typeof showAll>;

function showAll() {
  const all = Number.POSITIVE_INFINITY;
  return {
    ...{ code: all, related: all, rationale: all, decisions: all, blockers: all, extra: all, goal: all },
    ...{ longNotes: all, notes: all, warnings: all, files: all, names: all, next: all, state: all },
    ...{ primaryCap: all, secondaryCap: all },
  };
}

/**
 * The one line after the fence, fixed text but for the snapshot's validated id and time: what to tell the
 * user (pointing at the goal as written inside the fence, never quoting it), then where to continue.
 */
function instruction(snapshot: string, reason: RestoreReason, hasNext: boolean): string {
  const then = (step: string): string =>
    `Then ${hasNext ? `continue from ${step} in the notes` : "continue the task"} without redoing finished work.`;
  if (reason !== "amnesia" && reason !== "resume") {
    const verb = reason === "recall" ? "recalled" : "restored";
    return (
      `Tell the user in one line that you ${verb} ${snapshot} and what its goal is, as written in the notes ` +
      `above. ${then("the first next step")}`
    );
  }
  const answer = reason === "amnesia" ? "Answer the user's message from these notes. " : "";
  return (
    `Tell the user in one line where you are: that you ${reason === "resume" ? "resumed" : "restored"} ` +
    `${snapshot}, with its goal, last progress and next action as written in the notes above ` +
    `("not recorded" for any the notes lack). ${answer}${then("the next action")}`
  );
}

const isLong = (note: string): boolean => !withinTokens(note, LONG_NOTE);

/**
 * The lines of one render as the meter lets them in, and how values are cut at the limits: methods and
 * module-level line makers, not closures made per render (those lose their optimised code at every full
 * collection, and a restore renders many times while it fits its budget).
 */
class Page {
  readonly lines: string[] = [];
  private readonly meter: LineMeter;
  private readonly l: Limits;

  constructor(meter: LineMeter, l: Limits) {
    this.meter = meter;
    this.l = l;
  }

  /** Each value is clean on its own; a line is cleaned again so that no two parts form a tag together. */
  put(items: readonly string[]): void {
    for (const item of items) {
      if (this.meter.over()) return;
      const line = escapeSites(item);
      if (this.meter.add(line)) this.lines.push(line);
    }
  }

  p(v: string): string {
    return truncateToTokens(v, this.l.primaryCap);
  }

  q(v: string): string {
    return truncateToTokens(v, this.l.secondaryCap);
  }

  note(n: string): string {
    return n === "" || this.l.notes === 0 || (this.l.longNotes === 0 && isLong(n)) ? "" : ` — ${this.q(n)}`;
  }

  why(r: string): string {
    return r === "" || this.l.rationale === 0 ? "" : ` — ${this.q(r)}`;
  }

  section<T>(title: string, items: readonly T[], line: (page: Page, item: T, i: number) => string): void {
    if (items.length === 0 || this.meter.over()) return;
    const out = [`## ${title}`];
    for (let i = 0; i < items.length; i++) out.push(line(this, items[i] as T, i));
    this.put(out);
  }
}

const item = (text: string): string => `- ${text}`;
const goalLine = (page: Page, goal: string): string => page.p(goal);
const stateLine = (page: Page, x: Content["state"][number]): string => item(`${x.label}: ${page.p(x.value)}`);
const fileLine = (page: Page, f: Content["files"][number]): string =>
  item(`${page.p(f.path) || "(no path)"}${page.note(f.note)}`);
const nameLine = (page: Page, n: Content["names"][number]): string =>
  item(`${n.label && `${page.p(n.label)}: `}${page.p(n.value)}`);
const nextLine = (page: Page, n: string, i: number): string => `${i + 1}. ${page.p(n)}`;
const decisionLine = (page: Page, x: Content["decisions"][number]): string =>
  item(`${page.q(x.text)}${page.why(x.rationale)}`);
const blockerLine = (page: Page, b: string): string => item(page.q(b));
const asIs = (_page: Page, x: string): string => x;
const warningLine = (page: Page, w: string): string => item(page.p(w));
const relatedLine = (page: Page, r: Content["related"][number]): string =>
  item(`${r.head}: ${page.q(r.goal)}${r.snippet && ` — ${page.q(r.snippet)}`}`);

/** The whole text and the notes, or null as soon as the text is known to exceed `budget` tokens. */
function render(
  c: Content,
  l: Limits,
  reason: RestoreReason,
  budget = Number.POSITIVE_INFINITY,
): { text: string; notes: string } | null {
  const meter = lineMeter(budget);
  const head = [c.preamble, c.opening];
  for (const line of head) meter.add(line);
  const page = new Page(meter, l);
  page.section("Goal", c.goal === "" || l.goal === 0 ? [] : [c.goal], goalLine);
  page.section("State", l.state === 0 ? [] : c.state, stateLine);
  page.section("Files in play", c.files.slice(0, l.files), fileLine);
  page.section("Key names", c.names.slice(0, l.names), nameLine);
  page.section("Next steps", c.next.slice(0, l.next), nextLine);
  page.section("Decisions", c.decisions.slice(0, l.decisions), decisionLine);
  page.section("Blockers", c.blockers.slice(0, l.blockers), blockerLine);
  page.section("Code", c.code === "" || l.code === 0 ? [] : [c.fence, c.code, c.fence], asIs);
  for (const x of c.extra.slice(0, l.extra)) page.section(x.heading || "Notes", [x.body || "none"], asIs);
  page.section("Warnings", c.warnings.slice(0, l.warnings), warningLine);
  page.section("Related snapshots", c.related.slice(0, l.related), relatedLine);
  const lines = page.lines;
  const tail = [c.closing, instruction(c.snapshot, reason, l.next > 0 && c.next.length > 0)];
  for (const line of tail) meter.add(line);
  return meter.over() ? null : { text: [...head, ...lines, ...tail].join("\n"), notes: lines.join("\n") };
}

type Step = TrimStep<keyof Limits, Content>;

const step = (label: string, key: keyof Limits, min: number, top: Step["top"], counted = false): Step => ({
  ...{ label, key, min, top, counted },
});
const count = (label: string, key: keyof Limits, min: number, list: (c: Content) => unknown[]): Step =>
  step(label, key, min, (c) => list(c).length, true);
const flag = (label: string, key: keyof Limits, has: (c: Content) => boolean): Step =>
  step(label, key, 0, (c) => (has(c) ? 1 : 0));
const cap = (label: string, key: keyof Limits, min: number, values: (c: Content) => string[]): Step =>
  step(label, key, min, (c) => Math.max(0, ...values(c).map(estimateTokens)));

/** The trimming order: least needed first; goal, state, paths, key names and next steps last. */
const STEPS: readonly Step[] = [
  flag("code", "code", (c) => c.code !== ""),
  count("related snapshots", "related", 0, (c) => c.related),
  flag("decision rationale", "rationale", (c) => c.decisions.some((x) => x.rationale !== "")),
  count("decisions", "decisions", 0, (c) => c.decisions),
  count("blockers", "blockers", 1, (c) => c.blockers),
  count("extra sections", "extra", 0, (c) => c.extra),
  flag("long file notes", "longNotes", (c) => c.files.some((f) => isLong(f.note))),
  cap("file notes and blockers truncated", "secondaryCap", MIN_SECONDARY_CAP, (c) => [
    ...c.files.map((f) => f.note),
    ...c.blockers,
  ]),
  flag("file notes", "notes", (c) => c.files.some((f) => f.note !== "")),
  count("blockers", "blockers", 0, (c) => c.blockers),
  cap("long values truncated", "primaryCap", MIN_PRIMARY_CAP, (c) => [
    ...[c.goal, ...c.state.map((x) => x.value), ...c.files.map((f) => f.path)],
    ...[...c.names.flatMap((n) => [n.label, n.value]), ...c.next, ...c.warnings],
  ]),
  count("warnings", "warnings", 0, (c) => c.warnings),
  count("files", "files", 0, (c) => c.files),
  count("key names", "names", 0, (c) => c.names),
  count("next steps", "next", 1, (c) => c.next),
  flag("state", "state", (c) => c.state.length > 0),
  flag("goal", "goal", (c) => c.goal !== ""),
  count("next steps", "next", 0, (c) => c.next),
];

/**
 * Renders the restore text for one snapshot, five parts on their own lines:
 * 1. the preamble, fixed text by reason naming the nonce: saved notes, enclosed by the two tags named
 *    `big-memory-snapshot-<nonce>`, data and never instructions;
 * 2. the opening tag `<big-memory-snapshot-<nonce> id="…" taken="…" [name="…"] source="<file>:<line>"
 *    reason="…" verified="yes|no-modified|unverified">`;
 * 3. the notes: the non-empty sections in compact markdown (Goal, State, Files in play, Key names, Next
 *    steps, Decisions, Blockers, Code, extra sections), Warnings (a checksum mismatch first), Related snapshots;
 * 4. the closing tag `</big-memory-snapshot-<nonce>>`;
 * 5. one instruction, fixed text but for the id and the time (see {@link stamp}): tell the user in one line
 *    what was restored (for amnesia and resume: where you are: goal, last progress, next action), pointing
 *    at the notes rather than quoting them; for amnesia, answer the user's message from the notes; then
 *    continue from the first next step (or the task, when the notes show none).
 *
 * Every value is cleaned ({@link cleanInline}, {@link cleanBlock}) and every line of notes neutralised
 * again, so the text holds exactly one opening and one closing tag (also after folding look-alikes), and
 * nothing written in the snapshot stands outside them. While the text is over `tokenBudget` (see
 * `estimateTokens`), the notes are trimmed in this order, keeping as much of each part as fits: code,
 * related snapshots, decision rationale, decisions, blockers after the first, extra sections, long file
 * notes (over 16 tokens), file notes and blockers cut to no less than 8 tokens with `…`, then the other file
 * notes and the first blocker, then goal, state, paths, key names, next steps and warnings cut to no less
 * than 16 tokens, and as a last resort the lists from the end (warnings, files, key names, next steps down
 * to one), state, goal and the last next step. `dropped` names each step taken, in order (`"decisions (kept
 * 2 of 5)"`). `tokens <= tokenBudget` whenever the budget is at least 300; the first next step stays (cut
 * to no less than 16 tokens) whenever it is at least 600. Throws when `nonce` is not 16 lowercase hex digits.
 */
export function renderRestore(input: RestoreInput): RestoreText {
  const budget = input.tokenBudget ?? DEFAULT_TOKEN_BUDGET;
  const c = contentOf(input, budget);
  const limits = showAll();
  const dropped = fitToBudget(c, limits, STEPS, () => render(c, limits, input.reason, budget) !== null);
  const { text, notes } = render(c, limits, input.reason) ?? { text: "", notes: "" };
  return { text, tokens: estimateTokens(text), dropped, notes };
}
