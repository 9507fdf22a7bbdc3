import { z } from "zod";
import { redactDeep } from "../snapshot/redact.ts";
import { detectBranch, detectDecisions, detectPlan, extractNames } from "./prose.ts";
import { clip, isRecord, oneLine } from "./text.ts";
import { errorExcerpt, readToolOutcome, type ToolOutcome } from "./tool-outcome.ts";
import { cleanUserText, taskText, userMessages } from "./user-text.ts";

/**
 * The session trail: what the plugin observes turn by turn (asks, tool calls and the files they touched,
 * commands and their failures, the assistant's plan, decisions and identifiers), reduced purely and kept
 * within `TRAIL_LIMITS` so the caller can persist it as JSON between turns. The readers the reducer needs
 * live here too: OpenClaw tool results, user prompt text, and the facts prose states (names, branch, plan,
 * decisions, error excerpts).
 */

/** Bounds of a trail. Counts are items, `*Chars` are UTF-16 code units (longer text is cut with `…`). */
export const TRAIL_LIMITS = {
  /** Most recent asks kept; the task the first substantial ask states is kept apart as `firstAsk`. */
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
  lastAction: z.enum(["read", "create", "write", "edit", "delete", "move"]),
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

/** An identifier seen in an ask, an assistant text or a command, with the kind its shape suggests. */
export const TrailName = z.object({ value: text(L.nameChars).min(1), kind: NameKind });
export type TrailName = z.infer<typeof TrailName>;

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

/** Options of `reduceTrail`: absolute paths under `workspaceDir` are kept relative to it. */
export interface ReduceOptions {
  workspaceDir?: string | undefined;
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
  };
}

const READ_TOOLS = new Set("read read_file view view_file open_file cat".split(" "));
const WRITE_TOOLS = new Set("write write_file create_file".split(" "));
const EDIT_TOOLS = new Set("edit multiedit multi_edit edit_file str_replace str_replace_editor".split(" "));
const EDITOR_TOOLS = new Set("str_replace_based_edit_tool text_editor".split(" "));
const EXEC_TOOLS = new Set(
  "exec bash shell run_command execute_command run_terminal_cmd terminal".split(" "),
);
const OWN_TOOLS = new Set(["big_memory_save", "big_memory_recall"]);
const PATCH_HEADER = /^\s*\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\s*\*\*\* Move to: (.+?)\s*$/gm;

type FileOp = { path: string; action: FileAction };

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The files a tool call touched, from OpenClaw's parameter names (`path`, `file_path`, `filePath`, `paths`, `input`). */
function fileOps(tool: string, params: Record<string, unknown>, outcome: ToolOutcome): FileOp[] {
  const paths = [params.path, params.file_path, params.filePath, params.paths, params.file].flatMap(
    stringsOf,
  );
  if (tool === "apply_patch") {
    const patch =
      typeof params.input === "string" ? params.input : typeof params.patch === "string" ? params.patch : "";
    const ops: FileOp[] = [];
    for (const m of patch.slice(0, 200_000).matchAll(PATCH_HEADER)) {
      const [, kind, path, moved] = m;
      if (moved !== undefined) {
        const from = ops.at(-1);
        if (from !== undefined) from.action = "delete";
        ops.push({ path: moved, action: "move" });
      } else if (path !== undefined) {
        ops.push({ path, action: kind === "Add" ? "create" : kind === "Delete" ? "delete" : "edit" });
      }
    }
    return ops;
  }
  const command = typeof params.command === "string" ? params.command : "";
  let action: FileAction | null = null;
  if (READ_TOOLS.has(tool) || (EDITOR_TOOLS.has(tool) && command === "view")) action = "read";
  else if (WRITE_TOOLS.has(tool)) action = outcome.created ? "create" : "write";
  else if (EDITOR_TOOLS.has(tool) && command === "create") action = "create";
  else if (EDIT_TOOLS.has(tool) || EDITOR_TOOLS.has(tool)) action = "edit";
  return action === null ? [] : paths.map((path) => ({ path, action }));
}

/** A path as kept in the trail, or null for a path that is not a file in play (daily logs under `memory/`). */
function normalizePath(path: string, options: ReduceOptions): string | null {
  let p = path.trim().replace(/^(?:\.\/)+/, "");
  const root = options.workspaceDir?.replace(/\/+$/, "");
  if (root !== undefined && root !== "" && p.startsWith(`${root}/`)) p = p.slice(root.length + 1);
  if (p === "" || p.length > L.pathChars || /[\p{Cc}\p{Zl}\p{Zp}]/u.test(p)) return null;
  if (p.startsWith("memory/") || /(?:^|\/)memory\/\d{4}-\d{2}-\d{2}[^/]*\.md$/.test(p)) return null;
  return p;
}

function commandOf(params: Record<string, unknown>): string {
  const value = params.command ?? params.cmd;
  return (Array.isArray(value) ? stringsOf(value).join(" ") : typeof value === "string" ? value : "").trim();
}

/** A command as shown in prose: its first line, at most 120 characters. */
export function commandLabel(command: string): string {
  const first = oneLine(command.trim().split("\n")[0] ?? "");
  return clip(command.trim().includes("\n") ? `${first} …` : first, 120);
}

function addNames(names: TrailName[], found: readonly TrailName[]): TrailName[] {
  const fresh = found
    .slice(0, L.namesPerText)
    .map((n) => ({ value: clip(n.value, L.nameChars), kind: n.kind }));
  const values = new Set(fresh.map((n) => n.value));
  return [...names.filter((n) => !values.has(n.value)), ...fresh].slice(-L.names);
}

function touchFile(files: TrailFile[], op: FileOp, at: string): TrailFile[] {
  const old = files.find((f) => f.path === op.path);
  const read = op.action === "read";
  const next: TrailFile = {
    path: op.path,
    reads: (old?.reads ?? 0) + (read ? 1 : 0),
    writes: (old?.writes ?? 0) + (read ? 0 : 1),
    created: (old?.created ?? false) || op.action === "create",
    lastAction: op.action,
    lastSeen: at,
  };
  return [...files.filter((f) => f.path !== op.path), next].slice(-L.files);
}

const ACTION_VERB: Record<FileAction, string> = {
  read: "read",
  create: "created",
  write: "wrote",
  edit: "edited",
  delete: "deleted",
  move: "moved to",
};

function reduceTool(
  trail: Trail,
  e: Extract<TrailEvent, { type: "tool" }>,
  at: string,
  options: ReduceOptions,
): Trail {
  const tool = oneLine(e.tool).toLowerCase();
  const next: Trail = { ...trail, toolCalls: trail.toolCalls + 1, updatedAt: at };
  if (OWN_TOOLS.has(tool)) return next;
  const outcome = readToolOutcome(e.result, e.error);
  const failed = outcome.status === "failed";
  const excerpt = failed ? errorExcerpt(outcome.output, L.errorChars) : "";
  if (failed) next.failures += 1;
  const command = EXEC_TOOLS.has(tool) ? commandOf(e.params) : "";
  if (command !== "") {
    const entry: TrailCommand = {
      command: clip(command, L.commandChars),
      status: outcome.status,
      exitCode: outcome.exitCode,
      error: excerpt,
      at,
    };
    next.commands = [...trail.commands, entry].slice(-L.commands);
    const exit = outcome.exitCode !== null && outcome.exitCode !== 0 ? ` (exit ${outcome.exitCode})` : "";
    const suffix = exit !== "" ? exit : failed ? " (failed)" : "";
    const verb = outcome.status === "running" ? "started" : "ran";
    const did = `${verb} \`${commandLabel(command)}\`${suffix}`;
    next.last = { kind: "command", text: clip(did, L.actionChars) };
    const scanned = `${command.slice(0, L.scanChars)}\n${excerpt}`;
    next.names = addNames(trail.names, extractNames(scanned, { backticks: false }));
    const branch = detectBranch(failed ? "" : command, outcome.output.slice(-L.scanChars), "");
    if (branch !== null) next.branch = clip(branch, L.branchChars);
    return next;
  }
  const ops = fileOps(tool, e.params, outcome).flatMap((op) => {
    const path = normalizePath(op.path, options);
    return path === null ? [] : [{ path, action: op.action }];
  });
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
  next.files = ops.reduce((files, op) => touchFile(files, op, at), trail.files);
  const lastOp = ops[ops.length - 1] ?? ops[0];
  const kind = ops.every((op) => op.action === "read") ? "read" : "write";
  const more = ops.length > 1 ? ` (+${ops.length - 1} more)` : "";
  const described = lastOp === undefined ? tool : `${ACTION_VERB[lastOp.action]} ${lastOp.path}${more}`;
  next.last = { kind, text: clip(described, L.actionChars) };
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
  if (e.type === "ask") {
    const cleaned = cleanUserText(e.text.slice(0, L.scanChars));
    if (cleaned === null) return trail;
    const messages = userMessages(cleaned).map((m) => ({ text: m, ask: clip(m, L.askChars) }));
    // The same ask (or batch of queued asks) reported twice (a prompt hook and a transcript) is one turn.
    const recent = trail.asks.slice(-messages.length).map((a) => a.text);
    if (messages.length === 0 || recent.join("\0") === messages.map((m) => m.ask).join("\0"))
      return { ...trail, updatedAt: at };
    let next: Trail = { ...trail, turns: trail.turns + 1, updatedAt: at };
    for (const m of messages) {
      const task = next.firstAsk === null ? taskText(m.text) : null;
      const branch = detectBranch("", "", m.text);
      next = {
        ...next,
        firstAsk: next.firstAsk ?? (task === null ? null : clip(task, L.askChars)),
        asks: [...next.asks, { text: m.ask, at }].slice(-L.asks),
        names: addNames(next.names, extractNames(m.text, { backticks: true })),
        branch: branch === null ? next.branch : clip(branch, L.branchChars),
      };
    }
    return next;
  }
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
  return parsed.success ? reduceValid(trail, redactEvent(parsed.data), options) : trail;
}

/**
 * The event with every string redacted before anything of it reaches the trail (which is kept in memory and
 * written to disk). A string longer than twice `scanChars` keeps its head and its tail (`scanChars` each):
 * no rule reads more, and redaction stays bounded whatever a tool returns.
 */
function redactEvent(event: TrailEvent): TrailEvent {
  return redactDeep(boundStrings(event, L.scanChars)).value;
}

function boundStrings<T>(value: T, keep: number): T {
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") {
      return node.length <= 2 * keep ? node : `${node.slice(0, keep)}\n…\n${node.slice(-keep)}`;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (!isRecord(node)) return node;
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]));
  };
  // `walk` keeps the shape of strings, arrays and records, so the result is still a T.
  return walk(value) as T;
}
