import { isAbsolute, join, relative } from "node:path";
import type { RealSession, SessionEvent, ToolEvent } from "./session.ts";

/**
 * Session events as OpenClaw's hook calls, the payloads the plugin reads (plugin/surface/hooks.ts): a user
 * message opens a turn (`agent_end` of the open one, then `before_prompt_build` `{ prompt, messages }` with
 * `trigger: "user"`); an assistant text is an `llm_output` `{ assistantTexts, lastAssistant }`; a tool call is
 * `before_tool_call` `{ toolName, params }` then `after_tool_call` `{ toolName, params, result | error }`,
 * with OpenClaw's result shape (`{ content: [{ type: "text", text }], details }`; a shell command that
 * exited non-zero is `details: { status: "completed", exitCode }` and text ending
 * `(Command exited with code N)`; a failed call of another tool is an `error`). The last open turn ends
 * with `agent_end`. Absolute paths under the session's directory are moved into `workspace`.
 */

export interface HookCall {
  hook: string;
  event: Record<string, unknown>;
  ctx: Record<string, unknown>;
}

const PATH_KEYS = ["path", "file_path", "filePath"] as const;

/** Tool parameters with absolute paths under `cwd` moved to the same place under `workspace`. */
export function movedParams(
  params: Record<string, unknown>,
  cwd: string | null,
  workspace: string,
): Record<string, unknown> {
  const out = { ...params };
  for (const key of PATH_KEYS) {
    const value = out[key];
    if (cwd === null || typeof value !== "string" || !isAbsolute(value)) continue;
    const rel = relative(cwd, value);
    if (!rel.startsWith("..") && !isAbsolute(rel)) out[key] = join(workspace, rel);
  }
  return out;
}

const OWN_EXIT = /\n*\(?Command exited with code -?\d{1,3}\)?\s*$/;

/** The `after_tool_call` fields for a tool event: `result` (OpenClaw's shape) or `error`. */
export function toolOutcome(e: ToolEvent): { result?: unknown; error?: string } {
  if (e.tool === "exec" && e.exitCode !== null) {
    const body = e.output.replace(OWN_EXIT, "");
    const text = e.exitCode === 0 ? body : `${body}\n\n(Command exited with code ${e.exitCode})`;
    return {
      result: {
        content: [{ type: "text", text }],
        details: { status: "completed", exitCode: e.exitCode, aggregated: body },
      },
    };
  }
  if (e.failed) return { error: e.output.trim() === "" ? `${e.tool} failed` : e.output };
  return {
    result: {
      content: [{ type: "text", text: e.output }],
      details: e.tool === "exec" ? { status: "completed", exitCode: 0, aggregated: e.output } : {},
    },
  };
}

/** The hook calls of `events` (a session's first events, up to a cut), ending the open turn. */
export function hookCalls(session: RealSession, events: SessionEvent[], workspace: string): HookCall[] {
  const calls: HookCall[] = [];
  const user = { trigger: "user" };
  let open = false;
  for (const e of events) {
    if (e.kind === "user") {
      if (open) calls.push({ hook: "agent_end", event: { messages: [], success: true }, ctx: user });
      calls.push({ hook: "before_prompt_build", event: { prompt: e.text, messages: [] }, ctx: user });
      open = true;
    } else if (e.kind === "assistant") {
      calls.push({
        hook: "llm_output",
        event: {
          assistantTexts: [e.text],
          lastAssistant: { role: "assistant", content: [{ type: "text", text: e.text }] },
        },
        ctx: user,
      });
    } else {
      const params = movedParams(e.params, session.cwd, workspace);
      calls.push({
        hook: "before_tool_call",
        event: { toolName: e.tool, params },
        ctx: { ...user, toolName: e.tool },
      });
      calls.push({
        hook: "after_tool_call",
        event: { toolName: e.tool, params, durationMs: 0, ...toolOutcome(e) },
        ctx: { ...user, toolName: e.tool },
      });
    }
  }
  if (open) calls.push({ hook: "agent_end", event: { messages: [], success: true }, ctx: user });
  return calls;
}
