import { z } from "zod";
import { exitCodeOfOutput, openclawTool, type RealSession, type SessionEvent, textOf } from "./session.ts";

/**
 * pi session files (`~/.pi/agent/sessions/.../*.jsonl`, the format OpenClaw's own transcripts share) into
 * session events. One JSON object a line: a `{ type: "session", cwd }` header, then
 * `{ type: "message", message }` entries whose message is pi-agent's `UserMessage`
 * (`{ role: "user", content }`), `AssistantMessage` (`content` of `text`, `thinking` and
 * `toolCall { id, name, arguments }` parts) or `ToolResultMessage` (`{ role: "toolResult", toolCallId,
 * toolName, content, isError }`); other entry types (`model_change`, `thinking_level_change`, pi's own
 * `compaction`) carry no step and are skipped. A bash result that failed ends `Command exited with code N`.
 */

const Header = z.object({ type: z.literal("session"), cwd: z.string().optional() });
const ToolCall = z.object({
  type: z.literal("toolCall"),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).catch({}),
});
const Message = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), content: z.unknown() }),
  z.object({ role: z.literal("assistant"), content: z.array(z.unknown()).catch([]) }),
  z.object({
    role: z.literal("toolResult"),
    toolCallId: z.string(),
    toolName: z.string().optional(),
    content: z.unknown(),
    isError: z.boolean().optional(),
  }),
]);
const Entry = z.object({ type: z.literal("message"), message: z.unknown() });

/** Converts the text of a pi session file; throws naming the line of the first line that is not JSON. */
export function convertPi(text: string, meta: { id: string; source: string }): RealSession {
  const events: SessionEvent[] = [];
  const pending = new Map<string, { name: string; params: Record<string, unknown> }>();
  let cwd: string | null = null;
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${meta.id}:${i + 1}: pi session line is not JSON (expected one object a line)`);
    }
    const header = Header.safeParse(value);
    if (header.success) {
      cwd = header.data.cwd ?? null;
      continue;
    }
    const entry = Entry.safeParse(value);
    if (!entry.success) continue;
    const message = Message.safeParse(entry.data.message);
    if (!message.success) continue;
    const m = message.data;
    if (m.role === "user") {
      const t = textOf(m.content).trim();
      if (t !== "") events.push({ kind: "user", text: t });
    } else if (m.role === "assistant") {
      const t = textOf(m.content).trim();
      if (t !== "") events.push({ kind: "assistant", text: t });
      for (const part of m.content) {
        const call = ToolCall.safeParse(part);
        if (call.success) pending.set(call.data.id, { name: call.data.name, params: call.data.arguments });
      }
    } else {
      const call = pending.get(m.toolCallId);
      pending.delete(m.toolCallId);
      const name = call?.name ?? m.toolName ?? "unknown";
      const tool = openclawTool(name);
      const output = textOf(m.content);
      const exitCode = tool === "exec" ? exitCodeOfOutput(output) : null;
      events.push({
        kind: "tool",
        tool,
        params: call?.params ?? {},
        output,
        failed: m.isError === true || (exitCode !== null && exitCode !== 0),
        exitCode,
      });
    }
  }
  return { id: meta.id, source: meta.source, format: "pi", cwd, events };
}
