import { extractNames } from "./prose.ts";
import type { NameKind } from "./trail.ts";

type TrailNameLike = { value: string; kind: NameKind };

/**
 * The task a first message states, without the wrapper an agent harness puts around it. Issue runners
 * and coding agents wrap the user's words in templates: `<uploaded_files>` and `<pr_description>` or
 * `<issue_description>` (OpenHands), "We're currently solving the following issue within our repository.
 * Here's the issue text: ISSUE: ... INSTRUCTIONS: ..." (issue-solving harnesses), `<environment_context>` and
 * `<user_instructions>` (Codex), `<system-reminder>` and `<command-message>` (Claude Code). The task is what
 * the user wrote; the wrapper's words are neither the goal nor its identifiers.
 */

/** Tags whose content is the task itself. */
const TASK_TAGS = [
  "pr_description",
  "issue_description",
  "issue",
  "problem_statement",
  "task_description",
  "task",
  "user_request",
  "user_query",
  "request",
];
/** Tags whose content is harness context, never the task. */
const CONTEXT_TAGS = [
  "uploaded_files",
  "environment_context",
  "user_instructions",
  "system-reminder",
  "system_reminder",
  "ide_opened_file",
  "ide_selection",
  "command-message",
  "command-name",
  "command-args",
  "local-command-stdout",
  "local-command-stderr",
  "user-prompt-submit-hook",
  "instructions",
  "INSTRUCTIONS",
  "context",
  "env",
];

/** Lead-in sentences of issue templates, before the issue's own text. */
const LEAD_INS: readonly RegExp[] = [
  /^[\s\S]{0,400}?Here(?:'s| is) the issue text:\s*/i,
  /^\s*ISSUE:\s*/,
  /^\s*I've uploaded a[\s\S]{0,200}?repository in the directory \S+\.?\s*/i,
  /^\s*Consider the following (?:PR|issue) description:\s*/i,
];
/** Claude Code's pointer to an earlier transcript, appended to an approved plan or a summary: no part of the task. */
const TRANSCRIPT_POINTER =
  /^If you need specific details from before [^\n]*read the full transcript at: \S+[ \t]*$/gm;
/**
 * An expanded slash-command template (Claude Code's custom commands): a `## Context` section whose lines are
 * the output of commands the template ran (a git status, a diff, a pull request), then `## Your task`.
 */
const CONTEXT_SECTION = /^##\s+Context\s*$/m;
const TASK_SECTION = /^##\s+Your task\s*$/m;

/** Where a template's instructions begin after the task: the task ends there. */
const TRAILERS: readonly RegExp[] = [
  /\n\s*INSTRUCTIONS:\s*\n[\s\S]*$/,
  /\n\s*Can you help me implement the necessary changes[\s\S]*$/i,
  /\n\s*Your task is to make (?:the )?(?:minimal )?changes[\s\S]*$/i,
  /\n\s*Follow these (?:phases|steps) to resolve the issue[\s\S]*$/i,
  /\n\s*I've already taken care of all changes to any of the test files[\s\S]*$/i,
];

function tagged(text: string, tag: string): RegExpExecArray | null {
  return new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)(?:</${tag}>|$)`).exec(text);
}

/** The root folder a harness names (`<uploaded_files>/workspace/x</uploaded_files>`, `<cwd>/repo</cwd>`), or null. */
export function harnessRoot(text: string): string | null {
  const uploaded = tagged(text, "uploaded_files")?.[1]?.trim().split(/\s+/)[0];
  if (uploaded?.startsWith("/")) return uploaded.replace(/\/+$/, "");
  const cwd = /<cwd>\s*(\/[^<\s]+)\s*<\/cwd>/.exec(text)?.[1];
  return cwd === undefined ? null : cwd.replace(/\/+$/, "");
}

/**
 * The task a message states with the harness's wrapper removed: the content of a task tag when there is
 * one, else the message without context tags, a slash-command template's context section, the pointer to
 * an earlier transcript, lead-in sentences and trailing instructions. Returns the
 * text unchanged (trimmed) when it carries no known wrapper.
 */
export function unwrapTask(text: string): string {
  for (const tag of TASK_TAGS) {
    const inner = tagged(text, tag)?.[1]?.trim();
    if (inner !== undefined && inner.length >= 12) return unwrapTask(inner);
  }
  let t = text.replace(TRANSCRIPT_POINTER, "");
  const context = CONTEXT_SECTION.exec(t);
  const task = TASK_SECTION.exec(t);
  if (context !== null && task !== null && task.index > context.index)
    t = t.slice(task.index + task[0].length);
  for (const tag of CONTEXT_TAGS) {
    t = t.replace(new RegExp(`<${tag}(?:\\s[^>]*)?>[\\s\\S]*?</${tag}>`, "g"), " ");
  }
  for (const lead of LEAD_INS) t = t.replace(lead, "");
  for (const trailer of TRAILERS) t = t.replace(trailer, "");
  t = t.trim();
  return t === "" ? text.trim() : t;
}

/** Fenced code and traceback lines of a task: where its identifiers are, not its prose. */
const FENCE = /^(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n\1[^\n]*(?:\n|$)|$)/gm;
const TRACE_LINE = /^\s*(?:File "|Traceback \(most recent|at \S+ \(|>>> |\$ |\.\.\. )/;

/** The prose of a task: fenced code, traceback and console lines removed, white space folded. */
export function taskProse(task: string): string {
  return task
    .replace(FENCE, " ")
    .split("\n")
    .filter((line) => !TRACE_LINE.test(line))
    .join("\n")
    .replace(/\s+/g, " ")
    .trim();
}

/** `django.db.models.Q`, `Model.save()`, `get_prep_value`, `QuerySet`, `--no-cache`, `3.2.1`. */
const DOTTED = /(?<![\w/.-])((?:[A-Za-z_]\w*\.){1,6}[A-Za-z_]\w*)(?:\(\))?(?![\w/-])/g;
const SNAKE = /(?<![\w.-])([a-z][a-z0-9]*(?:_[a-z0-9]+){1,6})(?:\(\))?(?![\w-])/g;
const CAMEL = /(?<![\w.-])([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z]+[A-Z][A-Za-z0-9]*)(?![\w-])/g;
const FLAG = /(?<![\w-])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?![\w-])/g;
const VERSION = /(?<![\w.])v?(\d+\.\d+(?:\.\d+)?(?:[a-z]+\d*)?)(?![\w.]*\w)/g;
/** Dotted words that are prose, not names: `e.g`, `i.e`, `a.k.a`. */
const NOT_DOTTED = /^(?:e\.g|i\.e|etc|vs|a\.k\.a|p\.s)$/i;
/** `cosmic-panel`, `nvidia-smi`, `run-validation-round`: a kebab-case name (words of two letters or more). */
const KEBAB = /(?<![\w.-])([a-z][a-z0-9]+(?:-[a-z0-9]{2,})+)(?![\w-])/g;
/** Hyphenated English that is no name. */
const PLAIN_HYPHENATED =
  /^(?:well|non|re|co|pre|post|self|multi|sub|semi|anti|up|out|over|under|so|one|two|three|built|read|write|long|short|high|low|real|full|half|open|end|day|time|user|third|first|second|front|back|top|low)-[a-z]+$/;

/**
 * How specific a name is: the words it joins (`session.SessionData.Exchanges` 4, `fmt.Sprintf` 2), capped at
 * 6 so a long path does not outrank everything; a name of more words is less likely a library's or a word's.
 */
function parts(value: string): number {
  const words = value
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s._\-/:]+/)
    .filter((w) => w !== "");
  return Math.min(6, words.length);
}

/**
 * Identifiers of a task, most telling first: error names and codes, then names (backticked spans, dotted
 * paths, CamelCase and snake_case names, flags and versions) the more specific first (`parts`), then
 * paths; in order of appearance among equals, each once, at most `max`. Read from the whole task,
 * code and tracebacks included: that is where class paths and flags stand.
 */
export function taskNames(task: string, max: number): TrailNameLike[] {
  const found: TrailNameLike[] = [];
  const seen = new Set<string>();
  const add = (value: string, kind: TrailNameLike["kind"]): void => {
    const v = value.replace(/\(\)$/, "");
    if (v.length < 3 || v.length > 120 || seen.has(v)) return;
    seen.add(v);
    found.push({ value: v, kind });
  };
  for (const n of extractNames(task, { backticks: true })) add(n.value, n.kind);
  for (const m of task.matchAll(DOTTED)) {
    const v = m[1] ?? "";
    if (!NOT_DOTTED.test(v) && /[a-z]/.test(v) && !/^\d/.test(v))
      add(v, /\.[a-z]{1,4}$/.test(v) && !/[A-Z_]/.test(v) ? "path" : "identifier");
  }
  for (const m of task.matchAll(CAMEL)) add(m[1] ?? "", "identifier");
  for (const m of task.matchAll(SNAKE)) add(m[1] ?? "", "identifier");
  for (const m of task.matchAll(KEBAB)) {
    const v = m[1] ?? "";
    if (!PLAIN_HYPHENATED.test(v)) add(v, "identifier");
  }
  for (const m of task.matchAll(FLAG)) add(m[1] ?? "", "identifier");
  for (const m of task.matchAll(VERSION)) add(m[1] ?? "", "identifier");
  const rank = (n: TrailNameLike): number => (n.kind === "error" ? 0 : n.kind === "path" ? 2 : 1);
  return found
    .map((n, i) => ({ n, i }))
    .sort((a, b) => rank(a.n) - rank(b.n) || parts(b.n.value) - parts(a.n.value) || a.i - b.i)
    .slice(0, max)
    .map(({ n }) => n);
}
