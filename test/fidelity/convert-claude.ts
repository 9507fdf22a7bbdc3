import { z } from "zod";
import { exitCodeOfOutput, openclawTool, type RealSession, type SessionEvent, textOf } from "./session.ts";

/**
 * Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`, subagents under
 * `<session>/subagents/agent-*.jsonl`) into session events. One JSON object a line; `type: "user"` and
 * `type: "assistant"` lines carry an Anthropic Messages `message` (`{ role, content }`), one content part a
 * line for the assistant: `text`, `thinking` or `tool_use { id, name, input }`; a user line's content is the
 * typed text or `tool_result { tool_use_id, content, is_error }` parts. `isMeta` lines (expanded commands,
 * caveats the CLI adds), records of the CLI's own commands and their output (`<command-name>/clear</command-name>`,
 * `<local-command-stdout>`: never a prompt, as OpenClaw's gateway answers its own slash commands without one)
 * and other line types (`summary`, `system`, `progress`, `file-history-snapshot`, `queue-operation`) are not
 * steps. A failed Bash result starts `Exit code N`.
 */

/** A user line that only records a command the CLI ran itself, or that command's output. */
const LOCAL_COMMAND =
  /^\s*(?:<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat)>[\s\S]*?<\/\1>\s*)+$/;

const Line = z.object({
  type: z.enum(["user", "assistant"]),
  isMeta: z.boolean().optional(),
  cwd: z.string().optional(),
  message: z.object({ role: z.string(), content: z.unknown() }),
});
const ToolUse = z.object({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()).catch({}),
});
const ToolResult = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.unknown(),
  is_error: z.boolean().optional(),
});

/** Claude Code's tool input in OpenClaw's parameter names (`file_path` -> `path`, `old_string` -> `oldText`). */
export function openclawParams(name: string, input: Record<string, unknown>): Record<string, unknown> {
  const { file_path, notebook_path, old_string, new_string, ...rest } = input;
  const path = file_path ?? notebook_path;
  return {
    ...rest,
    ...(path === undefined ? {} : { path }),
    ...(old_string === undefined ? {} : { oldText: old_string }),
    ...(new_string === undefined ? {} : { newText: new_string }),
    ...(name === "Bash" ? { command: input.command } : {}),
  };
}

/** Converts the text of a Claude Code transcript; throws naming the line of the first line that is not JSON. */
export function convertClaude(text: string, meta: { id: string; source: string }): RealSession {
  const events: SessionEvent[] = [];
  const pending = new Map<string, { name: string; input: Record<string, unknown> }>();
  let cwd: string | null = null;
  for (const [i, raw] of text.split("\n").entries()) {
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new Error(
        `${meta.id}:${i + 1}: Claude Code transcript line is not JSON (expected one object a line)`,
      );
    }
    const line = Line.safeParse(value);
    if (!line.success || line.data.isMeta === true) continue;
    cwd ??= line.data.cwd ?? null;
    const content = line.data.message.content;
    const parts = Array.isArray(content) ? content : [];
    if (line.data.type === "assistant") {
      const t = textOf(content).trim();
      if (t !== "") events.push({ kind: "assistant", text: t });
      for (const part of parts) {
        const use = ToolUse.safeParse(part);
        if (use.success) pending.set(use.data.id, { name: use.data.name, input: use.data.input });
      }
      continue;
    }
    const results = parts.flatMap((p) => {
      const r = ToolResult.safeParse(p);
      return r.success ? [r.data] : [];
    });
    if (results.length === 0) {
      const t = textOf(content).trim();
      if (t !== "" && !LOCAL_COMMAND.test(t)) events.push({ kind: "user", text: t });
      continue;
    }
    for (const r of results) {
      const call = pending.get(r.tool_use_id);
      pending.delete(r.tool_use_id);
      const name = call?.name ?? "unknown";
      const tool = openclawTool(name);
      const output = textOf(r.content);
      const exitCode = tool === "exec" ? exitCodeOfOutput(output) : null;
      events.push({
        kind: "tool",
        tool,
        params: openclawParams(name, call?.input ?? {}),
        output,
        failed: r.is_error === true || (exitCode !== null && exitCode !== 0),
        exitCode,
      });
    }
  }
  return { id: meta.id, source: meta.source, format: "claude-code", cwd, events };
}
