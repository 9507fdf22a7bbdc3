import type { Decision, FileInPlay, KeyName, SnapshotContent } from "../snapshot/snapshot.ts";
import { planParts, statedIntents } from "./prose.ts";
import { clip } from "./text.ts";
import {
  commandLabel,
  type NameKind,
  type Trail,
  type TrailCommand,
  type TrailFile,
  type TrailName,
} from "./trail.ts";
import { taskText } from "./user-text.ts";

/**
 * The safety net: a task snapshot drafted from the session trail, deterministically and without a model,
 * for when the model wrote none before a compaction or reset. It aims at what an agent that lost its
 * context needs to resume: the task, the files in play, the identifiers, what failed, and the next step.
 */

/** How much of the trail a draft shows. */
export const DRAFT_LIMITS = {
  files: 15,
  decisions: 5,
  names: 12,
  blockers: 3,
  next: 6,
  /** Characters of one next step, one blocker line, and the goal. */
  stepChars: 200,
  blockerChars: 300,
  goalChars: 500,
  /** Lines of the code block (the last failing command and its error excerpt). */
  codeLines: 20,
} as const;
const D = DRAFT_LIMITS;

/** Options of `draftSnapshot`: `branch` overrides the branch the trail saw (null or absent: keep it). */
export interface DraftOptions {
  branch?: string | null | undefined;
}

const GREETING =
  /^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|ok|okay|thanks|thank you)\b[^.!?]{0,24}[.!?,]?$/i;
const TEST_COMMAND =
  /^(?!\s*git\b).*(?:\b(?:test|tests|vitest|jest|pytest|mocha|rspec|phpunit|ctest|playwright)\b|\bnpm t\b)/;
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
      : [line.replace(/^\s*(?:\d{1,2}[.)]|[-*+•])\s+/, "")];
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
    .split(/(?<=[.!?])\s+/);
  while (parts.length > 1 && GREETING.test(parts[0] ?? "")) parts.shift();
  return clip(parts.slice(0, n).join(" "), max);
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

function goalOf(trail: Trail): string {
  const tasks = tasksOf(trail);
  const first = tasks[0];
  const latest = tasks.at(-1);
  if (first !== undefined) {
    const goal = sentences(first, 2, 300);
    if (latest === undefined || latest === first) return goal;
    return clip(`${goal} Latest request: ${sentences(latest, 2, 200)}`, D.goalChars);
  }
  return planSteps(trail.plan, 1)[0] ?? NO_TASK;
}

/** Failed commands not followed by a success of the same command, newest first, one per command. */
function openFailures(commands: readonly TrailCommand[]): TrailCommand[] {
  const settled = new Set<string>();
  const open: TrailCommand[] = [];
  for (const c of [...commands].reverse()) {
    if (settled.has(c.command)) continue;
    if (c.status === "failed") open.push(c);
    if (c.status === "failed" || c.status === "ok") settled.add(c.command);
  }
  return open;
}

function excerptLine(c: TrailCommand): string {
  return c.error
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line !== "")
    .join(" / ");
}

function failureOf(c: TrailCommand): string {
  const how = c.exitCode === null ? "failed" : `exited ${c.exitCode}`;
  const excerpt = excerptLine(c);
  return clip(`\`${commandLabel(c.command)}\` ${how}${excerpt === "" ? "" : `: ${excerpt}`}`, D.blockerChars);
}

function blockerOf(c: TrailCommand): string {
  const excerpt = excerptLine(c);
  if (excerpt !== "") return clip(`\`${commandLabel(c.command)}\` failed: ${excerpt}`, D.blockerChars);
  return `\`${commandLabel(c.command)}\` failed${c.exitCode === null ? "" : ` (exit ${c.exitCode})`}`;
}

function codeOf(c: TrailCommand | undefined): string {
  if (c === undefined) return "";
  const command = c.command.split("\n").slice(0, 5);
  const lines = [`$ ${command.join("\n")}`, ...c.error.split("\n").filter((line) => line.trim() !== "")];
  const exit = c.exitCode === null ? [] : [`(exit code ${c.exitCode})`];
  return [...lines.slice(0, D.codeLines - exit.length), ...exit].join("\n");
}

function phaseOf(trail: Trail, last: TrailCommand | undefined): string {
  if (last?.status === "failed") return "debugging";
  if (trail.last?.kind === "command" && last !== undefined && TEST_COMMAND.test(last.command))
    return "testing";
  if (trail.files.some((f) => f.writes > 0)) return "implementing";
  return "planning";
}

function progressOf(trail: Trail): string {
  const changed = trail.files.filter((f) => f.writes > 0).length;
  const parts = [
    `${plural(trail.toolCalls, "tool call")} over ${plural(trail.turns, "turn")}`,
    `${plural(changed, "file")} changed`,
  ];
  if (trail.failures > 0) parts.push(plural(trail.failures, "failure"));
  if (trail.last !== null) parts.push(`last: ${trail.last.text}`);
  return parts.join("; ");
}

function noteOf(f: TrailFile): string {
  if (f.lastAction === "delete") return "deleted";
  if (f.created) return f.writes <= 1 ? "created" : `created, edited ${f.writes - 1}x`;
  if (f.lastAction === "move" && f.writes <= 1) return "moved here";
  return f.writes > 0 ? `edited ${f.writes}x` : `read ${f.reads}x`;
}

/** Changed files before files only read, most recently touched first within each group. */
function filesOf(files: readonly TrailFile[]): FileInPlay[] {
  const changed = files.filter((f) => f.writes > 0).reverse();
  const read = files.filter((f) => f.writes === 0).reverse();
  return [...changed, ...read].slice(0, D.files).map((f) => ({ path: f.path, note: noteOf(f) }));
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

/** Errors, tickets, endpoints, env vars, identifiers, then paths not already listed as files; newest first in each. */
function namesOf(names: readonly TrailName[], files: readonly FileInPlay[]): KeyName[] {
  const paths = new Set(files.map((f) => f.path));
  const rank = (n: TrailName): number => KIND_ORDER.indexOf(n.kind);
  return [...names]
    .reverse()
    .filter((n) => !(n.kind === "path" && paths.has(n.value)))
    .sort((a, b) => rank(a) - rank(b))
    .slice(0, D.names)
    .map((n) => ({ label: LABELS[n.kind], value: n.value }));
}

/**
 * The next steps: the fix of a failed last command, then the assistant's plan, else the steps it announced in
 * single sentences; never the user's own words. When the assistant stated nothing, one step that says where
 * to pick up: the last action, else the goal.
 */
function nextOf(trail: Trail, failed: TrailCommand | undefined, goal: string): string[] {
  const steps = planSteps(trail.plan, D.next);
  const stated =
    steps.length > 0 ? steps : statedIntents(trail.assistantLast, D.next).map((s) => clip(s, D.stepChars));
  const fix = failed === undefined ? [] : [`Fix the failure of \`${commandLabel(failed.command)}\``];
  const next = [...fix, ...stated];
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
 * A snapshot drafted from `trail`, deterministic and pure. Goal: the task of the first substantial ask (one
 * or two sentences) plus `Latest request: ...` when a later ask states another task; never an amnesia
 * phrase, a slash command or a "continue" (`taskText`); else the plan's first step, else `NO_TASK`. State:
 * the phase (debugging when the last command failed, testing when tests ran last, implementing when files
 * changed, else planning), the branch, `yes -- <failure>` or `no`, and counts. Files: changed before read,
 * newest first. Decisions: the assistant's decision sentences split at `because`. Code: the newest open
 * failure and its error excerpt. Names: labelled by shape. Blockers: open failures. Next: `Fix the failure
 * of ...` when the last command failed, then the assistant's plan or announced steps (see `nextOf`).
 */
export function draftSnapshot(trail: Trail, opts: DraftOptions = {}): SnapshotContent {
  const last = trail.commands.at(-1);
  const failed = last?.status === "failed" ? last : undefined;
  const open = openFailures(trail.commands);
  const files = filesOf(trail.files);
  const goal = goalOf(trail);
  return {
    goal,
    state: {
      phase: phaseOf(trail, last),
      branch: opts.branch ?? trail.branch ?? "",
      blocked: failed === undefined ? "no" : `yes -- ${failureOf(failed)}`,
      progress: progressOf(trail),
    },
    files,
    decisions: trail.decisions.slice(-D.decisions).map(decisionOf),
    code: codeOf(open[0]),
    names: namesOf(trail.names, files),
    blockers: open.slice(0, D.blockers).map(blockerOf),
    next: nextOf(trail, failed, goal),
    extra: [],
  };
}

/** Whether the trail observed anything to draft from: an ask or a tool call. */
export function draftHasSubstance(trail: Trail): boolean {
  return trail.firstAsk !== null || trail.asks.length > 0 || trail.toolCalls > 0;
}
