import type { Decision, FileInPlay, KeyName, SnapshotContent } from "../snapshot/snapshot.ts";
import { ACTIVITY_HEADING, ACTIVITY_LIMITS, activityOf } from "./activity.ts";
import { commandLabel, isTestCommand } from "./command.ts";
import { planParts, statedIntents } from "./prose.ts";
import { taskProse } from "./task.ts";
import { clip } from "./text.ts";
import type { NameKind, Trail, TrailCommand, TrailFailure, TrailFile, TrailName } from "./trail.ts";
import { isScratch } from "./trail-files.ts";
import { taskText } from "./user-text.ts";

export { ACTIVITY_HEADING };

/**
 * The safety net: a task snapshot drafted from the session trail, deterministically and without a model,
 * for when the model wrote none before a compaction or reset. It aims at what an agent that lost its
 * context needs to resume: the task, the files in play, the identifiers, what failed, and the next step.
 */

/** How much of the trail a draft shows. */
export const DRAFT_LIMITS = {
  files: 15,
  decisions: 5,
  names: 16,
  blockers: 3,
  next: 6,
  /** Characters of one next step, one blocker line, and the goal. */
  stepChars: 200,
  blockerChars: 300,
  goalChars: 1100,
  /** Lines of the code block (the last failing command and its error excerpt). */
  codeLines: 20,
  /** Actions in the Recent Activity section, the checks run (tests, builds), the commands run most often. */
  ...ACTIVITY_LIMITS,
} as const;
const D = DRAFT_LIMITS;

/** Options of `draftSnapshot`: `branch` overrides the branch the trail saw (null or absent: keep it). */
export interface DraftOptions {
  branch?: string | null | undefined;
}

const GREETING =
  /^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|ok|okay|thanks|thank you)\b[^.!?]{0,24}[.!?,]?$/i;
const KIND_ORDER: readonly NameKind[] = ["error", "ticket", "endpoint", "env", "identifier", "path"];
const LABELS: Readonly<Record<NameKind, string>> = {
  error: "Error",
  ticket: "Ticket",
  endpoint: "Endpoint",
  env: "Env var",
  identifier: "Identifier",
  path: "Path",
};

const LIST_ITEM = /^\s*(?:\d{1,2}[.)]|[-*+•])\s+\S/;
const NUMBER_MARK = /(?:^|\s)\d{1,2}[.)]\s+(?=\S)/g;

/** `1. add an index 2. rerun tests` as two items; a list marker, checkbox and bold markers removed. */
function stepItems(line: string): string[] {
  const parts =
    [...line.matchAll(NUMBER_MARK)].length >= 2
      ? line.split(NUMBER_MARK)
      : line.replace(/^\s*(?:\d{1,2}[.)]|[-*+•])\s+/, "").split(/,?\s+(?:and )?then\s+(?=\S)/i);
  return parts
    .map((part) =>
      part
        .replace(/^\s*\[[ xX]\]\s*/, "")
        .replace(/\*\*|__/g, "")
        .replace(/\s+/g, " ")
        .trim()
        .replace(/[.;,]+$/, ""),
    )
    .filter((part) => part !== "");
}

/**
 * The steps of a plan: the marker line's own text (inline numbered items split) and the list items after
 * it, or prose right after the marker; without a marker, the plan's list items. Deduplicated, each at most
 * `DRAFT_LIMITS.stepChars`, at most `max`.
 */
export function planSteps(plan: string, max: number): string[] {
  const { head, body } = planParts(plan);
  const items = head === null ? [] : stepItems(head);
  for (const [i, line] of body.entries()) {
    if (line.trim() === "") {
      const next = body.slice(i + 1).find((l) => l.trim() !== "");
      if (items.length > 0 && (next === undefined || !LIST_ITEM.test(next))) break;
    } else if (LIST_ITEM.test(line) || (head !== null && items.length === 0)) {
      items.push(...stepItems(line));
    } else if (items.length > 0) break;
  }
  return [...new Set(items.map((item) => clip(item, D.stepChars)))].slice(0, max);
}

/** The first `n` sentences of a text on one line, a leading greeting skipped, at most `max` characters. */
function sentences(text: string, n: number, max: number): string {
  const parts = text
    .replace(/\s+/g, " ")
    .trim()
    // A sentence ends at . ! ? but not after a list number (`Find: 1. the panel 2. the applets`).
    .split(/(?<=[^\s\d][.!?]|[!?])\s+/);
  while (parts.length > 1 && GREETING.test(parts[0] ?? "")) parts.shift();
  return clip(parts.slice(0, n).join(" "), max);
}

/** Lower-case words of three letters or more. */
function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? []);
}

/** Whether `later` says something `earlier` does not: a third of its words or more are new. */
function addsTo(earlier: string, later: string): boolean {
  const known = words(earlier);
  const fresh = [...words(later)].filter((w) => !known.has(w));
  return fresh.length * 3 >= words(later).size && fresh.length > 0;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** What a draft says when the session stated no task it could find. */
export const NO_TASK = "No task stated yet in this session";

/**
 * The tasks the session's asks state (`taskText`: amnesia phrases, slash commands and "continue" left out),
 * the first substantial one first, oldest to newest, without repeats.
 */
function tasksOf(trail: Trail): string[] {
  const texts = [trail.firstAsk, ...trail.asks.map((a) => a.text)];
  const tasks = texts
    .flatMap((t) => (t === null ? [] : [taskText(t)]))
    .filter((t): t is string => t !== null);
  return [...new Set(tasks)];
}

/**
 * The goal: the prose of the first task (code and tracebacks left to Key names), its first sentences up to
 * `GOAL_TASK_CHARS`; then the later requests that say something the first (and each other) did not, the
 * newest `LATER_REQUESTS`, as `Later requests: ...; ...` (one request: `Latest request: ...`).
 */
function goalOf(trail: Trail): string {
  const tasks = tasksOf(trail);
  const first = tasks[0];
  if (first === undefined) return planSteps(trail.plan, 1)[0] ?? NO_TASK;
  const prose = taskProse(first);
  const goal = sentences(prose === "" ? first : prose, 6, GOAL_TASK_CHARS);
  let said = first;
  const later: string[] = [];
  for (const task of tasks.slice(1)) {
    if (!addsTo(said, task)) continue;
    later.push(sentences(taskProse(task) || task, 2, LATER_CHARS));
    said = `${said} ${task}`;
  }
  const shown = later.slice(-LATER_REQUESTS);
  if (shown.length === 0) return goal;
  const label = shown.length === 1 ? "Latest request" : "Later requests";
  return clip(`${goal} ${label}: ${shown.join("; ")}`, D.goalChars);
}

/** Later requests a goal shows, and the characters of each. */
const LATER_REQUESTS = 3;
const LATER_CHARS = 160;

/** Characters of the first task in a goal. */
const GOAL_TASK_CHARS = 600;

function excerptLine(error: string): string {
  return error
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line !== "")
    .join(" / ");
}

/** What a failure says: its exception when one was read, else its error excerpt. */
function failureText(f: TrailFailure): string {
  return f.exception ?? excerptLine(f.error);
}

function failureOf(f: TrailFailure): string {
  const how = f.exitCode === null ? "failed" : `exited ${f.exitCode}`;
  const what = failureText(f);
  return clip(`\`${commandLabel(f.command)}\` ${how}${what === "" ? "" : `: ${what}`}`, D.blockerChars);
}

function blockerOf(f: TrailFailure): string {
  const what = failureText(f);
  const unnamed = f.tests.filter((t) => !what.includes(t)).slice(0, 3);
  const tests = unnamed.length === 0 ? "" : ` (failing: ${unnamed.join(", ")})`;
  if (what !== "") return clip(`\`${commandLabel(f.command)}\` failed${tests}: ${what}`, D.blockerChars);
  return clip(
    `\`${commandLabel(f.command)}\` failed${f.exitCode === null ? "" : ` (exit ${f.exitCode})`}${tests}`,
    D.blockerChars,
  );
}

function codeOf(f: TrailFailure | undefined): string {
  if (f === undefined) return "";
  const command = f.command.split("\n").slice(0, 8);
  const errors = f.error.split("\n").filter((line) => line.trim() !== "");
  const exception =
    f.exception !== null && !errors.some((l) => l.includes(f.exception ?? "")) ? [f.exception] : [];
  const lines = [`$ ${command.join("\n")}`, ...errors, ...exception];
  const exit = f.exitCode === null ? [] : [`(exit code ${f.exitCode})`];
  return [...lines.slice(0, D.codeLines - exit.length), ...exit].join("\n");
}

const isChanged = (f: TrailFile) => f.writes > 0;
const isProjectChange = (f: TrailFile) => f.writes > 0 && !isScratch(f);

function phaseOf(trail: Trail, last: TrailCommand | undefined): string {
  if (last?.status === "failed" || trail.failing.length > 0) return "debugging";
  if (trail.last?.kind === "command" && last !== undefined && isTestCommand(last.command)) return "testing";
  if (trail.files.some(isChanged)) return "implementing";
  return "planning";
}

function progressOf(trail: Trail): string {
  const changed = trail.files.filter(isChanged).length;
  const parts = [
    `${plural(trail.toolCalls, "tool call")} over ${plural(trail.turns, "turn")}`,
    `${plural(changed, "file")} changed`,
  ];
  if (trail.failures > 0) parts.push(plural(trail.failures, "failure"));
  if (trail.last !== null) parts.push(`last: ${trail.last.text}`);
  return parts.join("; ");
}

function noteOf(f: TrailFile): string {
  if (f.lastAction === "mention") return "named in the conversation";
  const note = baseNote(f);
  return isScratch(f) ? `${note} (scratch)` : note;
}

function baseNote(f: TrailFile): string {
  if (f.lastAction === "delete") return "deleted";
  if (f.created) return f.writes <= 1 ? "created" : `created, edited ${f.writes - 1}x`;
  if (f.lastAction === "move" && f.writes <= 1) return "moved here";
  return f.writes > 0 ? `edited ${f.writes}x` : `read ${f.reads}x`;
}

/**
 * Project files changed, then scratch files changed, then files read, then files named; newest first in each.
 * A loop, not callbacks made per call (activity.ts says why).
 */
function filesOf(files: readonly TrailFile[]): FileInPlay[] {
  const buckets: TrailFile[][] = [[], [], [], []];
  for (let i = files.length - 1; i >= 0; i--) {
    const f = files[i] as TrailFile;
    if (f.writes > 0) buckets[isScratch(f) ? 1 : 0]?.push(f);
    else if (f.writes === 0 && f.reads > 0) buckets[2]?.push(f);
    if (f.lastAction === "mention") buckets[3]?.push(f);
  }
  const out: FileInPlay[] = [];
  for (let b = 0; b < buckets.length; b++) {
    const bucket = buckets[b] as TrailFile[];
    for (let k = 0; k < bucket.length && out.length < D.files; k++) {
      const f = bucket[k] as TrailFile;
      out.push({ path: f.path, note: noteOf(f) });
    }
  }
  return out;
}

/** `X because Y`, `X -- Y` and `X: Y` (X of three words or more) split into text and rationale. */
function decisionOf(sentence: string): Decision {
  const because = /,?\s+because\s+/i.exec(sentence);
  const dash = / (?:--|—) /.exec(sentence);
  const colon = /: /.exec(sentence);
  const at =
    because ??
    dash ??
    (colon !== null && sentence.slice(0, colon.index).split(" ").length >= 3 ? colon : null);
  if (at !== null && at.index > 0) {
    const text = sentence
      .slice(0, at.index)
      .replace(/[,;:]+$/, "")
      .trim();
    return { text, rationale: sentence.slice(at.index + at[0].length).trim() };
  }
  const label = /^[A-Za-z]+(?: [A-Za-z]+)?: /.exec(sentence);
  return { text: label === null ? sentence : sentence.slice(label[0].length), rationale: "" };
}

/**
 * Key names, most telling first: what the open failures raised and which tests failed, then the task's
 * identifiers, the symbols the edits touched, and the identifiers seen along the way (errors, tickets,
 * endpoints, env vars, identifiers, then paths not already listed as files; newest first in each).
 */
function namesOf(trail: Trail, files: readonly FileInPlay[]): KeyName[] {
  const paths = new Set(files.map((f) => f.path));
  const rank = (n: TrailName): number => KIND_ORDER.indexOf(n.kind);
  const failing = [...trail.failing].reverse();
  const failures: TrailName[] = failing.flatMap((f) => [
    ...(f.name === null ? [] : [{ value: f.name, kind: "error" as const }]),
    ...f.codes.map((value) => ({ value, kind: "error" as const })),
    ...f.tests.map((t) => ({ value: t, kind: "identifier" as const })),
  ]);
  const seen = [...trail.names].reverse().sort((a, b) => rank(a) - rank(b));
  const symbols = [...trail.symbols].reverse().map((value) => ({ value, kind: "identifier" as const }));
  const all: { n: TrailName; label: string }[] = [
    ...failures.map((n) => ({ n, label: n.kind === "error" ? "Error" : "Failing test" })),
    ...trail.taskNames.map((n) => ({ n, label: n.kind === "error" ? "Error" : "Task" })),
    ...symbols.map((n) => ({ n, label: "Edited" })),
    ...seen.map((n) => ({ n, label: LABELS[n.kind] })),
  ];
  const out: KeyName[] = [];
  const values = new Set<string>();
  for (const { n, label } of all) {
    if (values.has(n.value) || (n.kind === "path" && paths.has(n.value))) continue;
    values.add(n.value);
    out.push({ label, value: n.value });
    if (out.length >= D.names) break;
  }
  return out;
}

const SOURCE_FILE =
  /\.(?:[cm]?[jt]sx?|py|go|rs|rb|java|kt|swift|c|h|cc|cpp|cs|php|scala|ex|exs|erl|hs|ml|lua|dart|vue|svelte|sql|sh)$/;

/**
 * The project file a failure points at: its innermost project frame, else the newest source file changed
 * (not a note, a changelog or a config file, which a failure rarely lies in), else none.
 */
function fileToFix(trail: Trail, f: TrailFailure): string | null {
  if (f.frameFile !== null) return f.frameFile;
  const changed = [...trail.files]
    .reverse()
    .find((x) => x.writes > 0 && !isScratch(x) && SOURCE_FILE.test(x.path));
  return changed?.path ?? null;
}

/** The step an open failure calls for: fix what it raised where it points, then re-run it. */
function fixStep(trail: Trail, f: TrailFailure): string {
  const what = f.name;
  const where = fileToFix(trail, f);
  const fix = what === null ? "the failure" : `\`${what}\``;
  return clip(
    `Fix ${fix}${where === null ? "" : ` in \`${where}\``}, then re-run \`${commandLabel(f.command)}\``,
    D.stepChars,
  );
}

/** After an edit with no failure open: re-run the last check (tests or a script) against it. */
function recheckStep(trail: Trail): string | null {
  if (trail.lastCheck === null || trail.last?.kind !== "write") return null;
  const edited = trail.files.findLast(isProjectChange);
  const target = edited === undefined ? "" : ` to check the change to \`${edited.path}\``;
  return clip(`Re-run \`${commandLabel(trail.lastCheck)}\`${target}`, D.stepChars);
}

/**
 * The next steps: the fix of the newest open failure, then the stated plan (the assistant's, or the user's
 * `Plan: ...`), after the steps the assistant's latest text announced in single sentences when the plan is
 * older than that text (else those steps alone when there is no plan); an item of an enumeration
 * that is no action is left out. After an edit, a re-run of the last check. When nothing was stated, one
 * step that says where to pick up: the last action, else the goal.
 */
function nextOf(trail: Trail, goal: string): string[] {
  const open = trail.failing.at(-1);
  const steps = planSteps(trail.plan, D.next);
  const intents = statedIntents(trail.assistantLast, D.next).map((s) => clip(s, D.stepChars));
  const older = steps.length > 0 && !trail.assistantLast.includes(trail.plan.slice(0, 60).trim());
  const stated = steps.length === 0 ? intents : older ? [...intents.slice(0, 2), ...steps] : steps;
  const fix = open === undefined ? [] : [fixStep(trail, open)];
  const recheck = open === undefined ? recheckStep(trail) : null;
  const next = [...fix, ...stated, ...(recheck === null ? [] : [recheck])];
  if (next.length > 0) return [...new Set(next)].slice(0, D.next);
  if (trail.last !== null)
    return [clip(`Check where the last action left off (${trail.last.text})`, D.stepChars)];
  return [
    goal === NO_TASK
      ? "Ask the user what the task is"
      : "Work out the first step toward the goal (no plan was stated)",
  ];
}

/**
 * A snapshot drafted from `trail`, deterministic and pure. Goal: the task of the first substantial ask with
 * its harness wrapper removed (its prose, up to six sentences) plus the later requests that say something
 * new (`Latest request: ...`, `Later requests: ...; ...`); never an amnesia phrase, a slash command or a "continue" (`taskText`); else the
 * plan's first step, else `NO_TASK`. State: the phase (debugging while a failure is open, testing when
 * tests ran last, implementing when files changed, else planning), the branch, `yes -- <failure>` while a
 * failure is open (a failure stays open until each of its steps passes again), and counts. Files: project
 * files changed, scratch files, files read, files named. Decisions: the assistant's decision sentences
 * split at `because`. Code: the newest open failure, its command and exception. Names: the failures'
 * exceptions and tests, the task's identifiers, edited symbols, then what was seen. Blockers: open
 * failures. Next: see `nextOf`. One extra section, Recent Activity: the latest commands and files touched.
 */
export function draftSnapshot(trail: Trail, opts: DraftOptions = {}): SnapshotContent {
  const last = trail.commands.at(-1);
  const open = [...trail.failing].reverse();
  const newest = open[0];
  const files = filesOf(trail.files);
  const goal = goalOf(trail);
  const activity = activityOf(trail);
  return {
    goal,
    state: {
      phase: phaseOf(trail, last),
      branch: opts.branch ?? trail.branch ?? "",
      blocked: newest === undefined ? "no" : `yes -- ${failureOf(newest)}`,
      progress: progressOf(trail),
    },
    files,
    decisions: trail.decisions.slice(-D.decisions).map(decisionOf),
    code: codeOf(newest),
    names: namesOf(trail, files),
    blockers: open.slice(0, D.blockers).map(blockerOf),
    next: nextOf(trail, goal),
    extra: activity === "" ? [] : [{ heading: ACTIVITY_HEADING, body: activity }],
  };
}

/** Whether the trail observed anything to draft from: an ask or a tool call. */
export function draftHasSubstance(trail: Trail): boolean {
  return trail.firstAsk !== null || trail.asks.length > 0 || trail.toolCalls > 0;
}
