import { z } from "zod";
import { redactDeep } from "../snapshot/redact.ts";

/**
 * The session trail: what the plugin observes turn by turn (asks, tool calls and the files they touched,
 * commands and their failures, the assistant's plan, decisions and identifiers), reduced purely and kept
 * within `TRAIL_LIMITS` so the caller can persist it as JSON between turns. The readers the reducer needs
 * live here too: OpenClaw tool results, user prompt text, and the facts prose states (names, branch, plan,
 * decisions, error excerpts).
 */

/** Bounds of a trail. Counts are items, `*Chars` are UTF-16 code units (longer text is cut with `…`). */
export const TRAIL_LIMITS = {
  /** Most recent asks kept; the first substantial ask is kept apart as `firstAsk`. */
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

/** What a tool call came to, read from its result and error. */
export interface ToolOutcome {
  /** `unknown` when there is neither a result nor an error. */
  status: "ok" | "failed" | "running" | "unknown";
  exitCode: number | null;
  /** The text the model saw (content text, else `details.aggregated`, else stdout/stderr), error first. */
  output: string;
  /** `details.created === true`, as OpenClaw's `write` tool reports a new file. */
  created: boolean;
}

const FAILED_STATUS =
  /^(?:error|failed|failure|timeout|timed_out|blocked|denied|aborted|cancell?ed|killed|invalid)$/;
/** OpenClaw's exec suffix `(Command exited with code 1)`, also `(exit code 1)`, at the very end of the text. */
const EXIT_IN_TEXT = /\((?:Command exited with code|exit code) (-?\d{1,3})\)\s*$/;
/** Characters of tool output kept for excerpts: errors sit at the end of long outputs. */
const OUTPUT_TAIL = 20_000;

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function exitCodeOf(value: unknown): number | null {
  // `+ 0` turns -0 into 0 so the value survives a JSON round trip unchanged.
  return typeof value === "number" && Number.isSafeInteger(value) ? value + 0 : null;
}

/** `value` cut to at most `max` UTF-16 units, ending `…` when cut, never splitting a surrogate pair. */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = Math.max(0, max - 1);
  const code = value.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${value.slice(0, end)}…`;
}

/** `value` on one line: runs of white space and control characters become one space. */
export function oneLine(value: string): string {
  return value.replace(/[\s\p{Cc}]+/gu, " ").trim();
}

/** The text of a message content: the string itself, or its `text` parts joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      isRecord(part) && typeof part.text === "string" && part.type !== "thinking" ? part.text : "",
    )
    .filter((text) => text !== "")
    .join("\n");
}

/**
 * Reads a tool result of any shape: OpenClaw's `{ content: [{ type: "text", text }], details: { status,
 * exitCode, aggregated, created, ... } }` (a non-zero exit is `status: "completed"` with `exitCode`, and
 * the text ends `(Command exited with code N)`), a plain `{ exitCode, stdout, stderr }`, a bash
 * `{ output, exitCode, cancelled }`, or a string. A non-empty `error` always means failed.
 */
export function readToolOutcome(result: unknown, error?: string): ToolOutcome {
  const rec = isRecord(result) ? result : {};
  const details = isRecord(rec.details) ? rec.details : {};
  const fromContent = contentText(rec.content);
  const body =
    typeof result === "string"
      ? result
      : fromContent ||
        str(details.aggregated) ||
        [str(rec.stdout), str(rec.stderr)].filter((s) => s !== "").join("\n") ||
        str(rec.output);
  const errorText = error?.trim() ?? "";
  const output = [errorText, body.slice(-OUTPUT_TAIL)].filter((s) => s !== "").join("\n");
  let exitCode = exitCodeOf(details.exitCode) ?? exitCodeOf(rec.exitCode) ?? exitCodeOf(rec.exit_code);
  const suffix = EXIT_IN_TEXT.exec(output.slice(-200));
  if (exitCode === null && suffix !== null) exitCode = exitCodeOf(Number(suffix[1]));
  const status = str(details.status).toLowerCase() || str(rec.status).toLowerCase();
  const created = details.created === true;
  const failed =
    errorText !== "" ||
    details.ok === false ||
    details.success === false ||
    rec.isError === true ||
    rec.cancelled === true ||
    details.timedOut === true ||
    (typeof details.error === "string" && details.error !== "") ||
    FAILED_STATUS.test(status) ||
    (exitCode !== null && exitCode !== 0);
  if (failed) return { status: "failed", exitCode, output, created };
  if (status === "running") return { status: "running", exitCode, output, created };
  if (result === undefined || result === null) return { status: "unknown", exitCode, output, created };
  return { status: "ok", exitCode, output, created };
}

const INTERNAL_START = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT";
const INTERNAL_BLOCK =
  /<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>[\s\S]*?(?:<<<END_OPENCLAW_INTERNAL_CONTEXT>>>|$)/g;
const COMPACTION_SUMMARY = "The conversation history before this point was compacted";
const FLUSH_PROMPT = /pre-compaction memory flush/i;
/** `[WhatsApp +1555 Mon 2026-01-05 16:26:34 PST] ` and `[Mon 2026-01-05 16:26] ` envelopes. */
const ENVELOPE = /^\[[^\]\n]{0,80}\d{4}-\d{2}-\d{2}[^\]\n]{0,40}\]\s*/;
const SYSTEM_LINE = /^System: \[[^\]\n]*\][^\n]*(?:\n|$)/gm;
/** `Sender (untrusted metadata):` followed by a fenced JSON block. */
const METADATA_BLOCK = /^[^\n]*\(untrusted[^)\n]*\):[ \t]*\n(`{3,})[^\n]*\n[\s\S]*?\n\1[ \t]*(?:\n|$)/gm;

/**
 * The user's own words in a prompt: OpenClaw runtime-context blocks, compaction summaries and
 * memory-flush prompts give `null`; channel envelopes, `System:` event lines and untrusted-metadata
 * blocks are removed. Returns `null` when nothing is left.
 */
export function cleanUserText(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.startsWith(INTERNAL_START) || trimmed.startsWith(COMPACTION_SUMMARY)) return null;
  if (FLUSH_PROMPT.test(trimmed.slice(0, 300))) return null;
  const cleaned = trimmed
    .replace(INTERNAL_BLOCK, "")
    .replace(SYSTEM_LINE, "")
    .replace(METADATA_BLOCK, "")
    .trim()
    .replace(ENVELOPE, "")
    .trim();
  return cleaned === "" ? null : cleaned;
}

const ERRNO =
  /\bE(?:NOENT|ACCES|EXIST|PERM|PIPE|NOTDIR|ISDIR|NOTEMPTY|MFILE|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|AI_AGAIN)\b/g;
const ERRNO_EXACT = new RegExp(`^${ERRNO.source}$`);
const CAPS = /(\$\{?|process\.env\.)?\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b(=)?/g;
const ERROR_CLASS = /\b[A-Z][A-Za-z0-9]*[a-z0-9](?:Error|Exception)\b/g;
const TICKET = /\b([A-Z]{2}[A-Z0-9]{0,8})-\d+(?:-\d+)*\b/g;
const ISSUE = /(?<![\w#&/])#\d{2,6}\b/g;
const ENDPOINT = /\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \/[\w\-./{}:]*/g;
const BACKTICK = /`([^`\s]{2,80})`/g;
const NOT_TICKETS = new Set("UTF SHA ISO TLS SSL HTTP HTTPS AES RSA IPV MD GPT ECMA CP".split(" "));
const ERROR_WORD =
  /^E(?:RR)?_|(?:^|_)(?:ERR|ERROR|FAIL|FAILED|FAILURE|EXCEPTION|INVALID|DENIED|TIMEOUT|CONFLICT|DUPLICATE|MISMATCH|MISSING|UNAUTHORIZED|FORBIDDEN|VIOLATION|NOT_FOUND|UNKNOWN|UNSUPPORTED)(?:_|$)/;
const ENV_SUFFIX = /_(?:URL|URI|KEY|TOKEN|HOST|PORT|PATH|DIR|HOME|ENV|SECRET|PASSWORD|USER|MODE|LEVEL)$/;
const FILE_EXT =
  /\.(?:[cm]?[jt]sx?|py|go|rs|rb|java|kt|swift|c|h|cc|cpp|cs|php|md|json|jsonc|ya?ml|toml|ini|sql|sh|css|scss|html|vue|svelte|txt|lock|env|xml|csv)$/i;

function capsKind(token: string, prefix: string | undefined, assigned: boolean): NameKind {
  if (prefix !== undefined || assigned) return "env";
  if (ERROR_WORD.test(token)) return "error";
  return ENV_SUFFIX.test(token) ? "env" : "identifier";
}

function spanKind(span: string): NameKind | null {
  if (!/[A-Za-z]/.test(span) || /^(?:true|false|null|undefined|none)$/i.test(span)) return null;
  if (ERRNO_EXACT.test(span) || /^[A-Z]\w*(?:Error|Exception)$/.test(span)) return "error";
  const ticket = /^([A-Z]{2}[A-Z0-9]{0,8})-\d+(?:-\d+)*$/.exec(span);
  if (ticket?.[1] !== undefined && !NOT_TICKETS.has(ticket[1])) return "ticket";
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(span)) return capsKind(span, undefined, false);
  if (span.includes("/") || FILE_EXT.test(span)) return "path";
  return "identifier";
}

/**
 * Identifiers in a text, in order of appearance, deduplicated: error codes (`ERR_DUPLICATE_KEY`,
 * `ENOENT`, `UniqueViolationError`), tickets (`ADR-016`, `INV-2026-00417`, `#412`), endpoints
 * (`POST /api/v1/users`), environment variables (`$DATABASE_URL`, `NODE_ENV=test`, `*_URL`), and
 * with `backticks` any backticked span without white space (a path or an identifier).
 */
export function extractNames(
  text: string,
  options: { backticks: boolean },
): { value: string; kind: NameKind }[] {
  const found: { index: number; value: string; kind: NameKind }[] = [];
  const add = (index: number, value: string, kind: NameKind | null): void => {
    if (kind !== null) found.push({ index, value, kind });
  };
  for (const m of text.matchAll(ENDPOINT)) add(m.index, m[0].replace(/[.:]+$/, ""), "endpoint");
  for (const m of text.matchAll(ERRNO)) add(m.index, m[0], "error");
  for (const m of text.matchAll(ERROR_CLASS)) add(m.index, m[0], "error");
  for (const m of text.matchAll(CAPS)) {
    const token = m[2] ?? "";
    add(m.index + (m[1]?.length ?? 0), token, capsKind(token, m[1], m[3] !== undefined));
  }
  for (const m of text.matchAll(TICKET)) add(m.index, m[0], NOT_TICKETS.has(m[1] ?? "") ? null : "ticket");
  for (const m of text.matchAll(ISSUE)) add(m.index, m[0], "ticket");
  if (options.backticks)
    for (const m of text.matchAll(BACKTICK)) add(m.index, m[1] ?? "", spanKind(m[1] ?? ""));
  found.sort((a, b) => a.index - b.index);
  const seen = new Set<string>();
  return found.flatMap(({ value, kind }) => {
    if (seen.has(value)) return [];
    seen.add(value);
    return [{ value, kind }];
  });
}

const GIT_SWITCH =
  /\bgit\s+(?:checkout|switch)\s+(?:(-[bBcC]|--create|--orphan|--force-create)\s+)?(["']?)([^\s;&|"'<>()]+)\2/g;
const OUTPUT_BRANCH = /Switched to (?:a new )?branch '([^'\n]+)'|^On branch (\S+)|Already on '([^'\n]+)'/gm;
const PROSE_BRANCH =
  /\bon (?:the )?(?:branch\s+(?:([`'"])([\w./-]+)\1|([\w./-]+))|([`'"])([\w./-]+)\4\s+branch)/gi;
const BRANCH_NAME = /^\w[\w./-]*$/;
const COMMON_BRANCHES = new Set(["main", "master", "develop", "dev", "trunk", "staging", "production"]);

function validBranch(name: string | undefined): name is string {
  return name !== undefined && name.length <= 200 && BRANCH_NAME.test(name) && !name.endsWith(".lock");
}

/**
 * The git branch a command, its output or some prose names, or null. Output (`Switched to a new branch
 * 'x'`, `On branch x`) wins over the command (`git checkout -b x`, `git switch -c x`, `git switch x`,
 * `git checkout x` when `x` does not look like a file or commit) over prose (`on branch feat/x`, `on the
 * \`x\` branch`; a bare word only when it looks like a branch). The last mention of each kind counts.
 */
export function detectBranch(command: string, output: string, prose: string): string | null {
  let fromOutput: string | undefined;
  for (const m of output.matchAll(OUTPUT_BRANCH)) fromOutput = m[1] ?? m[2] ?? m[3];
  if (validBranch(fromOutput)) return fromOutput;
  let fromCommand: string | undefined;
  for (const m of command.matchAll(GIT_SWITCH)) {
    const name = m[3] ?? "";
    const rest = command.slice(m.index + m[0].length);
    const plain = m[1] === undefined;
    const fileLike = /\.[A-Za-z]{1,5}$/.test(name) || /^[0-9a-f]{7,40}$/.test(name) || name === "HEAD";
    if (validBranch(name) && !(plain && (fileLike || /^\s+--(?:\s|$)/.test(rest)))) fromCommand = name;
  }
  if (fromCommand !== undefined) return fromCommand;
  let fromProse: string | undefined;
  for (const m of prose.matchAll(PROSE_BRANCH)) {
    const quoted = m[2] ?? m[5];
    const bare = m[3]?.replace(/[./]+$/, "");
    if (validBranch(quoted)) fromProse = quoted;
    else if (validBranch(bare) && (/[/\-_\d]/.test(bare) || COMMON_BRANCHES.has(bare))) fromProse = bare;
  }
  return fromProse ?? null;
}

/** Lines of a text with the lines inside code fences blanked, so fenced code is never read as prose. */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split(/\r?\n/).map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return "";
    }
    return fence === null ? line : "";
  });
}

const PLAN_MARKER =
  /^\s*(?:[->+]\s+)?(#{1,6}\s+)?(?:\*\*|__)?\s*(?:next steps?|next up|next|plan|remaining (?:steps|work)|to-?do)\b\s*(?:\*\*|__)?\s*(:)?(?:\*\*|__)?\s*/i;
const NUMBERED = /^\s*\d{1,2}[.)]\s+\S/;
const INTENT = /\b(?:i'll|i will|let me|let's|going to|steps?|plan|next|then|remaining)\b/i;

/** Index of the first line that opens a plan (`Next:`, `Plan:`, `**Next steps:**`, `## Next steps`), or -1. */
function markerIndex(lines: readonly string[]): number {
  return lines.findIndex((line) => {
    const m = PLAN_MARKER.exec(line);
    return m !== null && (m[1] !== undefined || m[2] !== undefined);
  });
}

/**
 * The plan an assistant text states, from its marker line to the end, or from a numbered list (two
 * items or more) announced by an intent (`I'll`, `steps`, `then`, ...). Null when it states none.
 */
export function detectPlan(text: string): string | null {
  const lines = proseLines(text);
  const marker = markerIndex(lines);
  if (marker >= 0) return lines.slice(marker).join("\n").trim();
  const first = lines.findIndex((line) => NUMBERED.test(line));
  if (first < 0 || lines.filter((line) => NUMBERED.test(line)).length < 2) return null;
  if (!INTENT.test(lines.slice(0, first + 1).join("\n"))) return null;
  return lines
    .slice(Math.max(0, first - 1))
    .join("\n")
    .trim();
}

/**
 * A plan split at its marker (`Next:`, `Plan:`, `**Next steps:**`, `## Next steps`): the marker line's own
 * text after the marker (null when the plan has none) and the lines after it, fenced code blanked.
 */
export function planParts(plan: string): { head: string | null; body: string[] } {
  const lines = proseLines(plan);
  const marker = markerIndex(lines);
  if (marker < 0) return { head: null, body: lines };
  return { head: (lines[marker] ?? "").replace(PLAN_MARKER, ""), body: lines.slice(marker + 1) };
}

const DECISION =
  /\b(?:decided|decide to|chose|choosing|going with|go with|instead of|we'll use|we will use|i'll use|i will use|let's use|opted|opting|settled on)\b/i;

/** Sentences of a text that state a decision (`decided`, `chose`, `going with`, `instead of`, `we'll use`, ...), at most 5. */
export function detectDecisions(text: string): string[] {
  const sentences = proseLines(text).flatMap((line) =>
    line
      .replace(/^\s*(?:#{1,6}\s+|(?:\d{1,2}[.)]|[-*+•>])\s+)?/, "")
      .split(/(?<=[.!?])\s+(?=[A-Z`"'(*])/)
      .map((s) => s.replace(/\s+/g, " ").trim()),
  );
  const decisions = sentences.filter((s) => s.length >= 12 && DECISION.test(s));
  return [...new Set(decisions)].slice(0, 5);
}

const ERROR_LINE =
  /error|fail|exception|cannot|can't|unable|not found|no such|denied|refused|invalid|expected|assert|panic|fatal|traceback|✗|×|\bERR_|\bE(?:NOENT|ACCES|EXIST|PERM|CONNREFUSED|ADDRINUSE)\b/i;
const EXIT_LINE = /^\((?:Command exited with code|exit code) -?\d+\)$/;

/**
 * A short excerpt of a failure's output: its lines that read as errors (from the first on), else its last
 * three lines; whole lines while they fit in `max` characters, the exit-code suffix dropped.
 */
export function errorExcerpt(output: string, max: number): string {
  const lines = output
    .slice(-OUTPUT_TAIL)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !EXIT_LINE.test(line));
  const hits = lines.filter((line) => ERROR_LINE.test(line));
  let excerpt = "";
  for (const line of new Set(hits.length > 0 ? hits : lines.slice(-3))) {
    const longer = excerpt === "" ? line : `${excerpt}\n${line}`;
    if (longer.length > max) return excerpt === "" ? clip(line, max) : excerpt;
    excerpt = longer;
  }
  return excerpt;
}

const TRIVIAL_ASK =
  /^(?:please\s+)?(?:continue|go on|keep going|proceed|carry on|resume|yes|no|ok|okay|sure|thanks|thank you|do it|go ahead|next|done)\b[\s\S]{0,24}$/i;

/** An ask that states a task: three words or more, not a slash command, not "continue"/"ok"/"thanks". */
export function isSubstantialAsk(ask: string): boolean {
  const t = ask.trim();
  return t.length >= 12 && t.split(/\s+/).length >= 3 && !t.startsWith("/") && !TRIVIAL_ASK.test(t);
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
    const ask = clip(cleaned, L.askChars);
    // The same ask reported twice (a prompt hook and a transcript) is one turn.
    if (trail.asks.at(-1)?.text === ask) return { ...trail, updatedAt: at };
    const firstAsk = trail.firstAsk ?? (isSubstantialAsk(cleaned) ? ask : null);
    const branch = detectBranch("", "", cleaned);
    return {
      ...trail,
      firstAsk,
      asks: [...trail.asks, { text: ask, at }].slice(-L.asks),
      names: addNames(trail.names, extractNames(cleaned, { backticks: true })),
      branch: branch === null ? trail.branch : clip(branch, L.branchChars),
      turns: trail.turns + 1,
      updatedAt: at,
    };
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
