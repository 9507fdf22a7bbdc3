/**
 * A real agent session in one shape, whatever agent recorded it: what the user asked, what the model
 * said, and each tool call with its outcome, in the order OpenClaw's hooks would see them (a tool call
 * when its result arrives). Tool names and parameters are OpenClaw's (`read`, `write`, `edit`, `exec`,
 * `apply_patch`; `path`, `command`), so the replay hands the plugin what OpenClaw would.
 */

/** One step of a session. */
export type SessionEvent =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string }
  | {
      kind: "tool";
      /** OpenClaw's tool name (see {@link openclawTool}). */
      tool: string;
      params: Record<string, unknown>;
      /** The text the model saw. */
      output: string;
      /** The agent marked the call as an error (`isError`, `is_error`), or a command exited non-zero. */
      failed: boolean;
      /** Exit code of a shell command, when the transcript tells it. */
      exitCode: number | null;
    };

export type ToolEvent = Extract<SessionEvent, { kind: "tool" }>;

/** A converted session: where it came from and its events. */
export interface RealSession {
  /** Corpus id, `pi-large-session`. */
  id: string;
  /** Corpus source (one row of the table), `pi-mono`. */
  source: string;
  /** Transcript format, `pi` or `claude-code`. */
  format: string;
  /** The agent's working directory, when the transcript records it. */
  cwd: string | null;
  events: SessionEvent[];
}

/** OpenClaw's names for the tools of other agents; names not listed are kept, lower-cased. */
const OPENCLAW_TOOLS: Record<string, string> = {
  bash: "exec",
  shell: "exec",
  exec: "exec",
  read: "read",
  write: "write",
  edit: "edit",
  multiedit: "edit",
  notebookedit: "edit",
  apply_patch: "apply_patch",
  websearch: "web_search",
  webfetch: "web_fetch",
};

/** The OpenClaw tool name for an agent's tool name (`Bash` -> `exec`, `MultiEdit` -> `edit`). */
export function openclawTool(name: string): string {
  const key = name.toLowerCase();
  return OPENCLAW_TOOLS[key] ?? key;
}

/** The tool calls of a session. */
export function toolEvents(session: RealSession): ToolEvent[] {
  return session.events.filter((e): e is ToolEvent => e.kind === "tool");
}

/** `Command exited with code N` (pi) or `(Command exited with code N)` (OpenClaw) at the end of an output. */
const EXIT_SUFFIX = /\(?Command exited with code (-?\d{1,3})\)?\s*$/;
/** `Exit code N` on the first line of a Claude Code Bash error. */
const EXIT_PREFIX = /^Exit code (-?\d{1,3})\b/;

/** The exit code a shell tool's output states, or null. */
export function exitCodeOfOutput(output: string): number | null {
  const m = EXIT_SUFFIX.exec(output.slice(-200)) ?? EXIT_PREFIX.exec(output.slice(0, 40));
  return m === null ? null : Number(m[1]);
}

/** Text of a content value: a string, or the `text` of its text parts joined by newlines. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) =>
      typeof part === "object" && part !== null && Reflect.get(part, "type") === "text"
        ? String(Reflect.get(part, "text") ?? "")
        : "",
    )
    .filter((t) => t !== "")
    .join("\n");
}
