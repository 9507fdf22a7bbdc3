import { basename, isAbsolute, relative } from "node:path";
import type { RealSession, SessionEvent, ToolEvent } from "./session.ts";

/**
 * Ground truth of a session at a cut, derived from the session alone, deterministically. A cut at fraction
 * `f` keeps the first `floor(f * events)` events (user messages, assistant texts and tool calls, in order).
 *
 * - **Goal**: the task is the first user message, before the cut, with at least 3 candidate words (a
 *   message such as `/mode` is not a task); of an expanded slash-command template, its `## Your task`
 *   section (its `## Context` is what the template's commands printed), and never Claude Code's pointer to
 *   an earlier transcript (see {@link taskBody}). Candidate words: tokens of 4+ characters (for a path, its last
 *   segment; wrapper tags such as `<pr_description>` dropped) that are neither English stop words nor words
 *   of agent instructions and templates (`file`, `implement`, `issue`, `please` ...; see {@link COMMON}). The 5 most distinctive are kept: identifier-like
 *   tokens first (a digit, `_`, `.`, `-` or an inner capital), then longer ones, then earlier ones.
 * - **Files**: the files written or edited (`write`, `edit`, `apply_patch`, not failed) before the cut,
 *   most recently edited first; the truth is the 3 most recent.
 * - **Failure**: shell commands (`exec`) that failed before the cut; exit 1 of a search or compare tool
 *   (`grep`, `rg`, `find`, `diff`, `cmp`, `test`, `git diff`, `git grep`, `which`) is an answer, not a
 *   failure, and so is exit 1 or 2 of `ls` (the path does not exist). A failure is healed when each step
 *   that could have failed (the `&&` steps after the last `;` or `||`, setup dropped: see
 *   {@link commandSteps}) later passed before the cut, alone or in a chain that exited 0, or, for a test
 *   run, when its runner's whole suite passed (see {@link openFailure}); the truth is the last failure still
 *   open at the cut: the identifiers in its output (exception and
 *   error class names, error codes such as `TS2339`, `ENOENT`, `ERR_X`, test names `test_x` and `::x`, at
 *   most 5) and the command itself.
 * - **Next action**: the first `read`, `write`, `edit`, `apply_patch` or `exec` call at or after the cut: its
 *   file, or its command; none when a user message comes first (the action then answers a request the
 *   snapshot could not know), and none when the session before the cut never named its file or its
 *   command's targets, nor ran the same command (a discovery: see {@link foreseeable}).
 *
 * A probe with no truth at a cut (no task message, nothing edited, no open failure, no identifier in the
 * failure's output, no action after the cut) is not counted.
 */

export interface FailureTruth {
  /** The command as run (first line, `cd ... &&` and environment assignments dropped). */
  command: string;
  /** Files or test ids the command names (`tests/test_x.py::test_y`, `src/a.test.ts`). */
  targets: string[];
  /** Identifiers of its output; may be empty. */
  identifiers: string[];
}

export type ActionTruth =
  | { kind: "file"; path: string }
  | { kind: "command"; command: string; targets: string[] };

export interface Truth {
  /** Events kept before the cut. */
  cut: number;
  goalWords: string[] | null;
  /** Edited files, workspace-relative when under the session's directory, most recent first. */
  files: string[] | null;
  failure: FailureTruth | null;
  next: ActionTruth | null;
  /** The first action after the cut, foreseeable or not (the strict figure the bench also prints). */
  firstAction: ActionTruth | null;
}

/** English stop words and the words of agent instructions and task templates: never distinctive. */
export const COMMON = new Set(
  (
    "about above after again against also because been before being below between both cannot could does doing " +
    "down during each every from further have having here hers herself himself into itself just more most must " +
    "myself once only other ours ourselves over same should some such than that their theirs them themselves then " +
    "there these they this those through under until very want were what when where which while will with would " +
    "your yours yourself yourselves it's i'm don't can't doesn't isn't won't let's we're you're that's there's " +
    "please thanks thank need needs make made sure help like look looks know think good well still even really " +
    "maybe something anything everything thing things stuff right okay alright again already another away back " +
    "able going gonna doing done call calls first last next time times into onto upon within without around " +
    "file files code task tasks issue issues problem problems repository repo directory folder following " +
    "description consider change changes implement implementation function functions test tests testing " +
    "running using user users request currently solving working work read full check update create find " +
    "write edit new add remove fix bug bugs make output input case cases example examples given below above " +
    "instructions instruction note notes step steps should would project use used uses way ways probably " +
    "actually basically currently describe describes provide provides created create understand preparing " +
    "background continue continued started start"
  ).split(" "),
);

const TOKEN = /[A-Za-z_][A-Za-z0-9_.\-/]*[A-Za-z0-9_]/g;

/** Distinctive words of a task message (at most `max`), most distinctive first; see the module rules. */
export function distinctiveWords(text: string, max = 5): string[] {
  const seen = new Map<string, { word: string; score: number; at: number }>();
  // Wrapper tags (`<pr_description>`, `<command-name>`) belong to the template, not the task.
  for (const m of text.replace(/<\/?[A-Za-z_][\w-]*>/g, " ").matchAll(TOKEN)) {
    const segment = m[0].includes("/")
      ? (m[0]
          .split("/")
          .filter((s) => s !== "")
          .at(-1) ?? "")
      : m[0];
    const word = segment.replace(/^[.-]+|[.-]+$/g, "");
    const lower = word.toLowerCase();
    if (word.length < 4 || COMMON.has(lower) || /^\d+$/.test(word) || seen.has(lower)) continue;
    const identifier = /[0-9_.-]/.test(word) || /[a-z][A-Z]/.test(word);
    seen.set(lower, { word: lower, score: identifier ? 2 : 1, at: m.index ?? 0 });
  }
  return [...seen.values()]
    .sort((a, b) => b.score - a.score || b.word.length - a.word.length || a.at - b.at)
    .slice(0, max)
    .map((w) => w.word);
}

/** The event count kept by a cut at `fraction` of the session's events. */
export function cutIndex(session: RealSession, fraction: number): number {
  return Math.floor(session.events.length * fraction);
}

function pathsOf(e: ToolEvent): string[] {
  const direct = [e.params.path, e.params.file_path].filter((p): p is string => typeof p === "string");
  if (e.tool !== "apply_patch") return direct;
  const patch =
    typeof e.params.input === "string"
      ? e.params.input
      : typeof e.params.patch === "string"
        ? e.params.patch
        : "";
  const headers = [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$/gm)].map(
    (m) => m[1] ?? "",
  );
  return [...direct, ...headers.filter((p) => p !== "")];
}

/** A path as the workspace sees it: relative to the session's directory when under it. */
export function workspacePath(path: string, cwd: string | null): string {
  if (cwd === null || !isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

const EDIT_TOOLS = new Set(["write", "edit", "apply_patch"]);
const ACTION_TOOLS = new Set(["read", "write", "edit", "apply_patch", "exec"]);

/** Files edited (not failed) before `cut`, most recently edited first. */
export function editedFiles(session: RealSession, cut: number): string[] {
  const order: string[] = [];
  for (const e of session.events.slice(0, cut)) {
    if (e.kind !== "tool" || !EDIT_TOOLS.has(e.tool) || e.failed) continue;
    for (const p of pathsOf(e)) {
      const path = workspacePath(p, session.cwd);
      const i = order.indexOf(path);
      if (i >= 0) order.splice(i, 1);
      order.unshift(path);
    }
  }
  return order;
}

/**
 * A command's identity: its first line with leading `cd X &&` / `cd X;`, environment assignments and
 * `timeout N` dropped, and trailing `| head`, `| tail` (also inside the closing quote of a quoted command:
 * `ssh host "cat x | tail -5"`), `2>&1` dropped, whitespace collapsed.
 */
export function commandKey(command: string): string {
  let line = (command.trim().split("\n")[0] ?? "").trim();
  for (;;) {
    const before = line;
    line = line
      .replace(/^cd\s+\S+\s*(?:&&|;)\s*/, "")
      .replace(/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+/, "")
      .replace(/^timeout\s+\d+[smh]?\s+/, "");
    if (line === before) break;
  }
  return line
    .replace(/\s*2>&1/g, "")
    .replace(/(?:\s*\|\s*(?:head|tail)(?:\s+-n?\s*\d+|\s+-\d+)?)+(\s*["']?)\s*$/, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

/** Files and test ids a command names: tokens with a `/`, a file extension or `::`. */
export function commandTargets(command: string): string[] {
  const out = new Set<string>();
  for (const token of commandKey(command).split(" ")) {
    const t = token.replace(/^['"]|['"]$/g, "");
    if (t.startsWith("-") || t.startsWith("http")) continue;
    if (
      t.includes("::") ||
      /\/[\w.-]+\.\w+$/.test(t) ||
      /^[\w.-]+\.(?:py|ts|js|tsx|jsx|rs|go|rb|java|sh|mjs|cjs)$/.test(t)
    )
      out.add(t);
  }
  return [...out];
}

/** Search and compare tools, whose exit code 1 answers the question ("no match", "they differ"). */
const ANSWER_TOOLS =
  /^(?:grep|egrep|fgrep|rg|ag|find|diff|cmp|test|\[|which|git\s+(?:diff|grep)|command\s+-v)\b/;

/** True when a shell call's non-zero exit is a failure, not an answer (`grep` finding nothing). */
export function isFailure(e: ToolEvent): boolean {
  if (e.tool !== "exec" || !e.failed) return false;
  const key = commandKey(typeof e.params.command === "string" ? e.params.command : "");
  if (/^ls\b/.test(key) && (e.exitCode === 1 || e.exitCode === 2)) return false;
  return !(e.exitCode === 1 && ANSWER_TOOLS.test(key));
}

const IDENTIFIER_RULES = [
  /\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Failure|Fault)\b/g,
  /\b(?:TS\d{4}|E[A-Z]{4,}|ERR_[A-Z0-9_]+|E\d{4})\b/g,
  /\btest_[A-Za-z0-9_]+\b/g,
  /::([A-Za-z_][A-Za-z0-9_]*)\b/g,
];
/** Identifiers in a failure's output (see the module rules), at most 5, in order of appearance. */
export function identifiersOf(output: string): string[] {
  const found: { at: number; id: string }[] = [];
  for (const rule of IDENTIFIER_RULES) {
    for (const m of output.matchAll(rule)) {
      found.push({ at: m.index ?? 0, id: m[1] ?? m[0] });
    }
  }
  const out: string[] = [];
  for (const { id } of found.sort((a, b) => a.at - b.at)) if (!out.includes(id)) out.push(id);
  return out.slice(0, 5);
}

/**
 * Splits a command's first line at `&&`, `||` and `;` outside quotes, with the operator before each part.
 * The same splitter as plugin/capture/command.ts's, kept apart on purpose: the truth never reads a
 * session through the code it measures, so a fault of the draft's cannot hide in its own truth.
 */
function chain(line: string): { op: string; part: string }[] {
  const parts: { op: string; part: string }[] = [];
  let quote: string | null = null;
  let start = 0;
  let op = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== null) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === ";" || ((c === "&" || c === "|") && line[i + 1] === c)) {
      parts.push({ op, part: line.slice(start, i).trim() });
      op = c === ";" ? ";" : `${c}${c}`;
      if (c !== ";") i++;
      start = i + 1;
    }
  }
  parts.push({ op, part: line.slice(start).trim() });
  return parts.filter((p) => p.part !== "");
}

/** Steps that only prepare the shell; they decide nothing. */
const SETUP_STEP = /^(?:cd|pushd|popd|source|\.|export|set|unset)\b/;

/**
 * The steps that decide a command's exit status, each keyed as {@link commandKey} keys a command (`sudo`
 * dropped too): the `&&` steps after the last `;` or `||`, setup (`cd`, `source`, `export`) left out. A
 * chain that exits 0 passed each of them; a chain that fails failed in one of them, which one the exit
 * code does not say. A command with no such step is its own step.
 */
export function commandSteps(command: string): string[] {
  const line = (command.trim().split("\n")[0] ?? "").trim();
  const parts = chain(line);
  const last = parts.findLastIndex((p) => p.op === ";" || p.op === "||");
  const steps = parts
    .slice(Math.max(0, last))
    .map((p) => p.part)
    .filter((p) => !SETUP_STEP.test(p))
    .map((p) => commandKey(p.replace(/^sudo\s+/, "")))
    .filter((k) => k !== "");
  return steps.length === 0 ? [commandKey(command)] : [...new Set(steps)];
}

/** Test runners, for a run of a whole suite. */
const TEST_RUNNER =
  /^(?:python\d?(?:\.\d+)?\s+-m\s+)?(?:pytest|go test|cargo test|npm test|npm run test|yarn test|pnpm test|bun test|npx vitest run|npx vitest|npx jest|vitest run|jest|tox)\b/;

/** Whether a passing step ran the whole suite of `failed`'s test runner: the runner with flags alone, or `./...`. */
function wholeSuite(step: string, failed: string): boolean {
  const runner = TEST_RUNNER.exec(step)?.[0];
  if (runner === undefined || TEST_RUNNER.exec(failed)?.[0] !== runner) return false;
  return step
    .slice(runner.length)
    .trim()
    .split(/\s+/)
    .every((a) => a === "" || a.startsWith("-") || a === "./..." || a === ".");
}

/**
 * The last shell failure before `cut` not healed since, or null. A failure is healed when each step that
 * could have failed (see {@link commandSteps}) passed later before the cut: run alone, or as a step of a
 * later chain that exited 0; a failed test run is also healed by a later passing run of its runner's whole
 * suite (`go test ./...`, `pytest`). The exit code does not say which step of a chain failed, so every
 * step must have passed since.
 */
export function openFailure(session: RealSession, cut: number): ToolEvent | null {
  const calls = session.events
    .slice(0, cut)
    .filter((e): e is ToolEvent => e.kind === "tool" && e.tool === "exec");
  for (let i = calls.length - 1; i >= 0; i--) {
    const e = calls[i];
    if (e === undefined || !isFailure(e)) continue;
    const passed = calls
      .slice(i + 1)
      .filter((later) => !later.failed)
      .flatMap((later) => commandSteps(String(later.params.command ?? "")));
    const healed = commandSteps(String(e.params.command ?? "")).every(
      (step) => passed.includes(step) || passed.some((p) => wholeSuite(p, step)),
    );
    if (!healed) return e;
  }
  return null;
}

/** Claude Code's line after a plan or a summary it hands the model: where the old transcript is, no task. */
const TRANSCRIPT_POINTER =
  /^If you need specific details from before [^\n]*read the full transcript at: \S+\s*$/gm;

/**
 * The words of a user message that state the task: an expanded slash-command template (Claude Code's
 * custom commands: a `## Context` section of command outputs, then `## Your task`) states it in its task
 * section, the context being a git status, a diff or a pull request the template's commands printed; the
 * pointer to an earlier transcript Claude Code appends to an approved plan is no part of it.
 */
export function taskBody(text: string): string {
  const t = text.replace(TRANSCRIPT_POINTER, "");
  const context = /^##\s+Context\s*$/m.exec(t);
  const task = /^##\s+Your task\s*$/m.exec(t);
  return context !== null && task !== null && task.index > context.index ? t.slice(task.index) : t;
}

function taskMessage(events: SessionEvent[]): string | null {
  for (const e of events) {
    if (e.kind !== "user") continue;
    const body = taskBody(e.text);
    if (distinctiveWords(body).length >= 3) return body;
  }
  return null;
}

/** The first action at or after `cut`, or null. */
export function firstAction(session: RealSession, cut: number): ActionTruth | null {
  for (const e of session.events.slice(cut)) {
    if (e.kind === "user") return null;
    if (e.kind !== "tool" || !ACTION_TOOLS.has(e.tool)) continue;
    if (e.tool === "exec") {
      const command = String(e.params.command ?? "");
      if (commandKey(command) !== "")
        return { kind: "command", command: commandKey(command), targets: commandTargets(command) };
      continue;
    }
    const path = pathsOf(e)[0];
    if (path !== undefined) return { kind: "file", path: workspacePath(path, session.cwd) };
  }
  return null;
}

/**
 * Whether the session before `cut` names what `action` acts on, so that a snapshot taken at the cut could:
 * its file (by base name) or one of its command's targets in a user or assistant text or in a tool call's
 * parameters, or the same command run before. An action on something never named before (a new `ls`, the
 * next file of a listing a tool printed) is a discovery no snapshot can hold; so is a name that appears
 * only in the body of a file the session wrote (a write's content, an edit's old and new text, a patch's
 * hunks: the file it is in is named, not what its code mentions).
 */
export function foreseeable(session: RealSession, cut: number, action: ActionTruth): boolean {
  const before = session.events.slice(0, cut);
  const commands = new Set<string>();
  const texts: string[] = [];
  for (const e of before) {
    if (e.kind !== "tool") texts.push(e.text);
    else {
      // What a call names, not the bodies it writes (a patch's file headers are its paths).
      const {
        content: _c,
        oldText: _o,
        newText: _n,
        old_string: _os,
        new_string: _ns,
        input: _i,
        patch: _p,
        ...named
      } = e.params;
      texts.push(JSON.stringify(named), ...pathsOf(e));
      if (e.tool === "exec") commands.add(commandKey(String(e.params.command ?? "")));
    }
  }
  const said = texts.join("\n").toLowerCase();
  // A name on its own (`watcher.go`), not the end of another (`fswatcher.go`).
  const named = (p: string) => {
    const base = basename(p).toLowerCase();
    const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return base.length >= 3 && new RegExp(`(?<![\\w.-])${escaped}(?![\\w-])`).test(said);
  };
  return action.kind === "file"
    ? named(action.path)
    : commands.has(action.command) || action.targets.some(named);
}

/** The next action (see the module rules): the first action after the cut, when the session foresaw it. */
export function nextAction(session: RealSession, cut: number): ActionTruth | null {
  const action = firstAction(session, cut);
  return action !== null && foreseeable(session, cut, action) ? action : null;
}

/** The truth of `session` at the cut keeping `fraction` of its events. */
export function truthAt(session: RealSession, fraction: number): Truth {
  const cut = cutIndex(session, fraction);
  const task = taskMessage(session.events.slice(0, cut));
  const files = editedFiles(session, cut).slice(0, 3);
  const failed = openFailure(session, cut);
  const command = failed === null ? "" : String(failed.params.command ?? "");
  return {
    cut,
    goalWords: task === null ? null : distinctiveWords(task),
    files: files.length === 0 ? null : files,
    failure:
      failed === null
        ? null
        : {
            command: commandKey(command),
            targets: commandTargets(command),
            identifiers: identifiersOf(failed.output),
          },
    next: nextAction(session, cut),
    firstAction: firstAction(session, cut),
  };
}
