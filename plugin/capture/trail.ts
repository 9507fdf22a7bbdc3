import { z } from "zod";
import { commandCore, commandKey, commandLabel, isAnswerExit } from "./command.ts";
import { failureFacts, failureKey, updateFailing } from "./failure.ts";
import {
  detectBranch,
  detectDecisions,
  detectPlan,
  detectUserPlan,
  editedSymbols,
  extractNames,
} from "./prose.ts";
import { harnessRoot, taskNames, unwrapTask } from "./task.ts";
import { clip, oneLine } from "./text.ts";
import { errorExcerpt, readToolOutcome } from "./tool-outcome.ts";
import {
  ACTION_VERB,
  commandDir,
  commandFileOps,
  countHabit,
  type FileOp,
  fileOps,
  mentionedPaths,
  normalizePath,
  touchFile,
} from "./trail-files.ts";
import { type RedactBudget, redactEvent } from "./trail-redact.ts";
import { cleanUserText, firstTask, userMessages } from "./user-text.ts";

/**
 * The session trail: what the plugin observes turn by turn (asks, tool calls and the files they touched,
 * commands and their failures, the assistant's plan, decisions and identifiers), reduced purely and kept
 * within `TRAIL_LIMITS` so the caller can persist it as JSON between turns. The readers the reducer needs
 * live here too: OpenClaw tool results, user prompt text, and the facts prose states (names, branch, plan,
 * decisions, error excerpts).
 */

/** Bounds of a trail. Counts are items, `*Chars` are UTF-16 code units (longer text is cut with `…`). */
export const TRAIL_LIMITS = {
  /** Most recent asks kept; the first substantial ask's task is `firstAsk` (with the next, when `isThinAsk`). */
  asks: 8,
  askChars: 600,
  /** Files touched by tools; the least recently used is evicted. Longer paths are ignored. */
  files: 40,
  pathChars: 300,
  /** Shell commands, newest last. */
  commands: 12,
  commandChars: 400,
  /** Error excerpt of a failed command or tool. */
  errorChars: 300,
  /** The assistant's latest stated plan, from its marker (`Next:`, `Plan:`, `## Next steps`) on. */
  planChars: 1500,
  assistantChars: 800,
  /** Sentences of the assistant that state a decision, newest last. */
  decisions: 8,
  decisionChars: 300,
  /** Identifiers, most recently seen last; at most `namesPerText` are taken from any one text. */
  names: 30,
  nameChars: 120,
  namesPerText: 15,
  branchChars: 200,
  /** The description of the last action (`ran \`npm test\` (exit 1)`). */
  actionChars: 200,
  /** Timestamps as the caller passed them. */
  atChars: 64,
  /** Characters of any one text scanned for names, plans, decisions and branches. */
  scanChars: 20_000,
  /** Identifiers of the first task (class paths, flags, versions, error names), read from its whole text. */
  taskNames: 12,
  /** Failures not yet re-run successfully, newest last. */
  failing: 5,
  /** Symbols (functions, classes) the session's edits defined or changed, most recent last. */
  symbols: 10,
  /** Paths named in one text that become files in play. */
  mentionsPerText: 5,
  /** Commands counted by how often they ran (the session's build, test and status loop). */
  habits: 12,
} as const;
const L = TRAIL_LIMITS;

/** The kind of an identifier, guessed from its shape and context. */
export const NameKind = z.enum(["error", "ticket", "endpoint", "env", "path", "identifier"]);
export type NameKind = z.infer<typeof NameKind>;

const text = (max: number) => z.string().max(max);
const count = z.number().int().nonnegative();

/** A file a tool touched. `writes` counts writes, edits, creations, moves and deletions. */
export const TrailFile = z.object({
  path: text(L.pathChars).min(1),
  reads: count,
  writes: count,
  created: z.boolean(),
  /** `mention`: named in an ask or the assistant's prose, not (yet) touched by a tool. */
  lastAction: z.enum(["read", "create", "write", "edit", "delete", "move", "mention"]),
  lastSeen: text(L.atChars),
});
export type TrailFile = z.infer<typeof TrailFile>;
export type FileAction = TrailFile["lastAction"];

/** A shell command (`exec`, `bash`, ...): `error` is an excerpt of its failure, `""` when it did not fail. */
export const TrailCommand = z.object({
  command: text(L.commandChars).min(1),
  status: z.enum(["ok", "failed", "running", "unknown"]),
  exitCode: z.number().int().nullable(),
  error: text(L.errorChars),
  at: text(L.atChars),
});
export type TrailCommand = z.infer<typeof TrailCommand>;

/**
 * A failure not yet re-run successfully: the command, the steps that must pass again (`failureKey`), the
 * exception its output ended with, the tests it reported failing, and the innermost project frame.
 */
export const TrailFailure = z.object({
  command: text(L.commandChars).min(1),
  key: text(L.commandChars + 100),
  exitCode: z.number().int().nullable(),
  error: text(L.errorChars),
  exception: text(200).nullable(),
  /** What the exception is called: its class (`ValueError`), or the error code its message carries. */
  name: text(L.nameChars).nullable(),
  tests: z.array(text(L.nameChars)).max(5),
  /** Error codes the output printed (`ERR_PACKAGE_PATH_NOT_EXPORTED`, `ENOENT`, `TS2339`). */
  codes: z.array(text(L.nameChars)).max(5).default([]),
  frameFile: text(L.pathChars).nullable(),
  at: text(L.atChars),
});
export type TrailFailure = z.infer<typeof TrailFailure>;

/** An identifier seen in an ask, an assistant text or a command, with the kind its shape suggests. */
export const TrailName = z.object({ value: text(L.nameChars).min(1), kind: NameKind });
export type TrailName = z.infer<typeof TrailName>;

const Habit = z.object({ command: text(L.commandChars), runs: count });

/**
 * The session trail, version 1: what the plugin observed turn by turn, bounded by `TRAIL_LIMITS`,
 * persisted as JSON by the caller between turns. Lists are oldest first.
 */
export const Trail = z.object({
  version: z.literal(1),
  firstAsk: text(L.askChars).nullable(),
  asks: z.array(z.object({ text: text(L.askChars).min(1), at: text(L.atChars) })).max(L.asks),
  files: z.array(TrailFile).max(L.files),
  commands: z.array(TrailCommand).max(L.commands),
  plan: text(L.planChars),
  assistantLast: text(L.assistantChars),
  decisions: z.array(text(L.decisionChars).min(1)).max(L.decisions),
  branch: text(L.branchChars).min(1).nullable(),
  names: z.array(TrailName).max(L.names),
  /** The last tool action: `read`, `write` (any file change), `command`, or another `tool`. */
  last: z
    .object({ kind: z.enum(["read", "write", "command", "tool"]), text: text(L.actionChars) })
    .nullable(),
  turns: count,
  toolCalls: count,
  /** Tool calls that failed (an error, a failed status, or a non-zero exit code). */
  failures: count,
  updatedAt: text(L.atChars).nullable(),
  /** The folder a harness names as the project's root (`/testbed`); absolute paths under it are kept relative. */
  root: text(L.pathChars).nullable().default(null),
  taskNames: z.array(TrailName).max(L.taskNames).default([]),
  failing: z.array(TrailFailure).max(L.failing).default([]),
  /** The last command that ran tests or a script: what re-checks an edit. */
  lastCheck: text(L.commandChars).nullable().default(null),
  symbols: z.array(text(L.nameChars).min(1)).max(L.symbols).default([]),
  /** The commands run most often (their working segment, `commandCore`), with their number of runs. */
  habits: z.array(Habit).max(L.habits).default([]),
});
export type Trail = z.infer<typeof Trail>;

/** An event the caller observed through a hook. An event of any other shape is ignored by `reduceTrail`. */
export const TrailEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ask"), text: z.string(), at: z.string() }),
  z.object({
    type: z.literal("tool"),
    tool: z.string(),
    params: z.record(z.string(), z.unknown()),
    error: z.string().optional(),
    result: z.unknown().optional(),
    // Unused, and never a reason to drop the event (hooks may report NaN or Infinity).
    durationMs: z.unknown().optional(),
    at: z.string(),
  }),
  z.object({ type: z.literal("assistant"), texts: z.array(z.string()), at: z.string() }),
  z.object({ type: z.literal("branch"), branch: z.string(), at: z.string() }),
]);
export type TrailEvent = z.input<typeof TrailEvent>;

/** Options of `reduceTrail`: paths under `workspaceDir` kept relative to it; `redactBudget` (trail-redact.ts). */
export interface ReduceOptions {
  workspaceDir?: string | undefined;
  redactBudget?: RedactBudget | undefined;
}

/** A trail that observed nothing yet. */
export function emptyTrail(): Trail {
  return {
    version: 1,
    firstAsk: null,
    asks: [],
    files: [],
    commands: [],
    plan: "",
    assistantLast: "",
    decisions: [],
    branch: null,
    names: [],
    last: null,
    turns: 0,
    toolCalls: 0,
    failures: 0,
    updatedAt: null,
    root: null,
    taskNames: [],
    failing: [],
    lastCheck: null,
    symbols: [],
    habits: [],
  };
}

const EXEC_TOOLS = new Set(
  "exec bash shell run_command execute_command run_terminal_cmd terminal execute_bash".split(" "),
);
const OWN_TOOLS = new Set(["big_memory_save", "big_memory_recall"]);

function commandOf(params: Record<string, unknown>): string {
  const value = params.command ?? params.cmd;
  return (Array.isArray(value) ? stringsOf(value).join(" ") : typeof value === "string" ? value : "").trim();
}

function addNames(names: TrailName[], found: readonly TrailName[]): TrailName[] {
  const fresh = found
    .slice(0, L.namesPerText)
    .map((n) => ({ value: clip(n.value, L.nameChars), kind: n.kind }))
    .filter((n, i, all) => all.findIndex((m) => m.value === n.value) === i);
  const values = new Set(fresh.map((n) => n.value));
  return [...names.filter((n) => !values.has(n.value)), ...fresh].slice(-L.names);
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function reduceCommand(
  trail: Trail,
  next: Trail,
  command: string,
  e: ToolEvent,
  at: string,
  options: ReduceOptions,
): Trail {
  const outcome = readToolOutcome(e.result, e.error);
  // Exit 1 of grep, diff, test and the like is an answer (no match, files differ), not a failure.
  const answer =
    outcome.status === "failed" && e.error === undefined && isAnswerExit(command, outcome.exitCode);
  const status = answer ? "ok" : outcome.status;
  const failed = status === "failed";
  const excerpt = failed ? errorExcerpt(outcome.output, L.errorChars) : "";
  if (failed) next.failures += 1;
  const entry: TrailCommand = {
    command: clip(command, L.commandChars),
    status,
    exitCode: outcome.exitCode,
    error: excerpt,
    at,
  };
  next.commands = [...trail.commands, entry].slice(-L.commands);
  next.habits = countHabit(trail.habits, clip(commandCore(command), L.commandChars), L.habits);
  const exit = outcome.exitCode !== null && outcome.exitCode !== 0 ? ` (exit ${outcome.exitCode})` : "";
  const suffix = answer ? " (no match)" : exit !== "" ? exit : failed ? " (failed)" : "";
  const verb = outcome.status === "running" ? "started" : "ran";
  next.last = { kind: "command", text: clip(`${verb} \`${commandLabel(command)}\`${suffix}`, L.actionChars) };
  const facts = failed ? failureFacts(outcome.output) : null;
  const frame =
    facts?.frameFile == null
      ? null
      : normalizePath(facts.frameFile, { ...options, root: next.root }, L.pathChars);
  if (status === "ok" || failed) {
    const failure: TrailFailure | null =
      facts === null
        ? null
        : {
            command: entry.command,
            key: clip(failureKey(command), L.commandChars + 100),
            exitCode: outcome.exitCode,
            error: excerpt,
            exception: facts.exception,
            name: facts.name === null ? null : clip(facts.name, L.nameChars),
            tests: facts.tests.map((t) => clip(t, L.nameChars)),
            codes: facts.codes.map((c) => clip(c, L.nameChars)),
            frameFile: frame,
            at,
          };
    next.failing = updateFailing(trail.failing, command, failure, L.failing);
  }
  const key = commandKey(command);
  if (key.startsWith("test:") || key.startsWith("script:")) next.lastCheck = entry.command;
  const found = [
    ...(facts?.name == null ? [] : [{ value: facts.name, kind: "error" as const }]),
    ...(facts?.codes ?? []).map((c) => ({ value: c, kind: "error" as const })),
    ...(facts?.tests ?? []).map((t) => ({ value: t, kind: "identifier" as const })),
    ...extractNames(`${command.split("\n")[0]?.slice(0, L.scanChars) ?? ""}\n${excerpt}`, {
      backticks: false,
    }),
  ];
  next.names = addNames(trail.names, found);
  next.root = trail.root ?? commandDir(command);
  const written = commandFileOps(command).flatMap((op) => normalized(op, options, next.root));
  if (written.length > 0 && !failed)
    next.files = written.reduce((f, op) => touchFile(f, op, at, L.files), trail.files);
  const branch = detectBranch(failed ? "" : command, outcome.output.slice(-L.scanChars), "");
  if (branch !== null) next.branch = clip(branch, L.branchChars);
  return next;
}

function normalized(op: FileOp, options: ReduceOptions, root: string | null): FileOp[] {
  const path = normalizePath(op.path, { workspaceDir: options.workspaceDir, root }, L.pathChars);
  return path === null ? [] : [{ path, action: op.action }];
}

type ToolEvent = Extract<TrailEvent, { type: "tool" }>;

function reduceTool(trail: Trail, e: ToolEvent, at: string, options: ReduceOptions): Trail {
  const tool = oneLine(e.tool).toLowerCase();
  const next: Trail = { ...trail, toolCalls: trail.toolCalls + 1, updatedAt: at };
  if (OWN_TOOLS.has(tool)) return next;
  const command = EXEC_TOOLS.has(tool) ? commandOf(e.params) : "";
  if (command !== "") return reduceCommand(trail, next, command, e, at, options);
  const outcome = readToolOutcome(e.result, e.error);
  const failed = outcome.status === "failed";
  const excerpt = failed ? errorExcerpt(outcome.output, L.errorChars) : "";
  if (failed) next.failures += 1;
  const ops = fileOps(tool, e.params, outcome).flatMap((op) => normalized(op, options, trail.root));
  if (failed) {
    const target = ops[0]?.path ?? "";
    const label = target === "" ? tool : `${tool} ${target}`;
    const first = oneLine(excerpt.split("\n")[0] ?? "");
    const did = `${label} failed${first === "" ? "" : `: ${first}`}`;
    next.last = { kind: "tool", text: clip(did, L.actionChars) };
    return next;
  }
  if (ops.length === 0) {
    next.last = { kind: "tool", text: clip(`used ${tool}`, L.actionChars) };
    return next;
  }
  next.files = ops.reduce((files, op) => touchFile(files, op, at, L.files), trail.files);
  if (ops.some((op) => op.action !== "read")) {
    const symbols = editedSymbols(e.params).map((name) => clip(name, L.nameChars));
    next.symbols = [...trail.symbols.filter((n) => !symbols.includes(n)), ...symbols].slice(-L.symbols);
  }
  const lastOp = ops[ops.length - 1] ?? ops[0];
  const kind = ops.every((op) => op.action === "read") ? "read" : "write";
  const more = ops.length > 1 ? ` (+${ops.length - 1} more)` : "";
  const described = lastOp === undefined ? tool : `${ACTION_VERB[lastOp.action]} ${lastOp.path}${more}`;
  next.last = { kind, text: clip(described, L.actionChars) };
  return next;
}

/** Paths a text names become files in play (`mention`), unless a tool touched them already. */
function withMentions(trail: Trail, text: string, at: string, options: ReduceOptions): TrailFile[] {
  const ops = mentionedPaths(text, L.mentionsPerText)
    .map((path): FileOp => ({ path, action: "mention" }))
    .flatMap((op) => normalized(op, options, trail.root));
  return ops.reduce((files, op) => touchFile(files, op, at, L.files), trail.files);
}

function reduceAsk(
  trail: Trail,
  e: Extract<TrailEvent, { type: "ask" }>,
  at: string,
  options: ReduceOptions,
): Trail {
  const raw = e.text.slice(0, L.scanChars);
  const cleaned = cleanUserText(raw);
  if (cleaned === null) return trail;
  const messages = userMessages(cleaned).map((m) => ({ text: m, ask: clip(m, L.askChars) }));
  // The same ask (or batch of queued asks) reported twice (a prompt hook and a transcript) is one turn.
  const recent = trail.asks.slice(-messages.length).map((a) => a.text);
  if (messages.length === 0 || recent.join("\0") === messages.map((m) => m.ask).join("\0"))
    return { ...trail, updatedAt: at };
  let next: Trail = { ...trail, turns: trail.turns + 1, updatedAt: at, root: trail.root ?? harnessRoot(raw) };
  for (const m of messages) {
    const unwrapped = unwrapTask(m.text);
    const first = firstTask(next.firstAsk, unwrapped);
    const branch = detectBranch("", "", unwrapped);
    const plan = detectUserPlan(unwrapped);
    next = {
      ...next,
      firstAsk: first === null ? null : clip(first, L.askChars),
      taskNames:
        next.firstAsk === null && first !== null
          ? taskNames(unwrapped, L.taskNames).map((n) => ({
              value: clip(n.value, L.nameChars),
              kind: n.kind,
            }))
          : next.taskNames,
      asks: [...next.asks, { text: clip(unwrapped, L.askChars), at }].slice(-L.asks),
      names: addNames(next.names, extractNames(unwrapped, { backticks: true })),
      branch: branch === null ? next.branch : clip(branch, L.branchChars),
      plan: plan === null ? next.plan : clip(plan, L.planChars),
    };
    next.files = withMentions(next, unwrapped, at, options);
  }
  return next;
}

function reduceValid(trail: Trail, e: TrailEvent, options: ReduceOptions): Trail {
  const at = clip(e.at, L.atChars);
  if (e.type === "tool") return reduceTool(trail, e, at, options);
  if (e.type === "branch") {
    // A git branch name has no white space or control characters; anything else is not a branch.
    const branch = e.branch.trim();
    if (!/^[^\s\p{Cc}]+$/u.test(branch) || branch.length > L.branchChars) return trail;
    return { ...trail, branch, updatedAt: at };
  }
  if (e.type === "ask") return reduceAsk(trail, e, at, options);
  const joined = e.texts
    .map((t) => t.slice(0, L.scanChars).trim())
    .filter((t) => t !== "")
    .join("\n\n")
    .slice(0, L.scanChars);
  if (joined === "") return trail;
  const plan = detectPlan(joined);
  const decisions = detectDecisions(joined).map((d) => clip(d, L.decisionChars));
  const branch = detectBranch("", "", joined);
  return {
    ...trail,
    assistantLast: clip(joined, L.assistantChars),
    plan: plan === null ? trail.plan : clip(plan, L.planChars),
    decisions: [...trail.decisions.filter((d) => !decisions.includes(d)), ...decisions].slice(-L.decisions),
    names: addNames(trail.names, extractNames(joined, { backticks: true })),
    branch: branch === null ? trail.branch : clip(branch, L.branchChars),
    files: withMentions(trail, joined, at, options),
    updatedAt: at,
  };
}

/**
 * The trail after one more event: pure, bounded by `TRAIL_LIMITS`, never throws. An event that does not
 * match `TrailEvent` (a non-object `params`, a missing `at`, ...) leaves the trail as it was; parameters
 * and results of unknown shapes are read defensively. The plugin's own tools count as tool calls only.
 */
export function reduceTrail(trail: Trail, event: TrailEvent, options: ReduceOptions = {}): Trail {
  const parsed = TrailEvent.safeParse(event);
  return parsed.success ? reduceValid(trail, redactEvent(parsed.data, options.redactBudget), options) : trail;
}
