import { z } from "zod";
import { updateFailing } from "./failure.ts";
import { contentText, isRecord } from "./text.ts";
import {
  emptyTrail,
  type ReduceOptions,
  reduceTrail,
  TRAIL_LIMITS,
  type Trail,
  type TrailEvent,
} from "./trail.ts";

/**
 * Transcripts as OpenClaw passes them in `agent_end.messages` and `before_reset.messages`, read into
 * trail events. The shapes are pi-agent's (openclaw `dist/*.d.ts`: `UserMessage`, `AssistantMessage`,
 * `ToolResultMessage`, `BashExecutionMessage`, `CompactionSummaryMessage`):
 * `{ role: "user", content: string | TextContent[], timestamp }`,
 * `{ role: "assistant", content: (TextContent | ThinkingContent | ToolCall)[] }` with
 * `ToolCall = { type: "toolCall", id, name, arguments }`,
 * `{ role: "toolResult", toolCallId, toolName, content, details?, isError }` and
 * `{ role: "bashExecution", command, output, exitCode, cancelled }`. OpenAI style (`tool_calls`,
 * `role: "tool"`) and Anthropic style (`tool_use` / `tool_result` parts) are read too.
 */

const Content = z.union([z.string(), z.array(z.unknown())]).nullish();
const Message = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), content: Content, runtimeContextCarrier: z.boolean().optional() }),
  z.object({ role: z.literal("assistant"), content: Content, tool_calls: z.array(z.unknown()).nullish() }),
  z.object({
    role: z.literal("toolResult"),
    toolCallId: z.string().optional(),
    toolName: z.string().optional(),
    content: Content,
    details: z.unknown().optional(),
    isError: z.boolean().optional(),
  }),
  z.object({
    role: z.literal("tool"),
    tool_call_id: z.string().optional(),
    name: z.string().optional(),
    content: Content,
  }),
  z.object({
    role: z.literal("bashExecution"),
    command: z.string(),
    output: z.string().optional(),
    exitCode: z.number().nullish(),
    cancelled: z.boolean().optional(),
  }),
]);
const CallPart = z.union([
  z.object({
    type: z.literal("toolCall"),
    id: z.string().optional(),
    name: z.string(),
    arguments: z.unknown(),
  }),
  z.object({ type: z.literal("tool_use"), id: z.string().optional(), name: z.string(), input: z.unknown() }),
]);
const OpenAiCall = z.object({
  id: z.string().optional(),
  function: z.object({ name: z.string(), arguments: z.unknown() }),
});
const ResultPart = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string().optional(),
  content: Content,
  is_error: z.boolean().optional(),
});

/** Tool arguments as a record: objects as they are, JSON strings parsed, anything else `{}`. */
function argsOf(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  if (typeof value !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : {};
  } catch {
    // Arguments a model streamed as malformed JSON: the call still counts, with no parameters.
    return {};
  }
}

/** ISO time of a message: its millisecond or string `timestamp`, else `fallback`. */
function timeOf(message: unknown, fallback: string): string {
  const ts = isRecord(message) ? message.timestamp : undefined;
  if (typeof ts === "number" && Number.isFinite(ts) && Math.abs(ts) <= 8.64e15)
    return new Date(ts).toISOString();
  return typeof ts === "string" && ts !== "" ? ts : fallback;
}

interface Call {
  tool: string;
  params: Record<string, unknown>;
  at: string;
}

/**
 * Trail events for a transcript, in order: one `ask` per user message (internal ones skipped by the
 * reducer), one `assistant` per assistant message with text, and one `tool` per tool call, paired with
 * its result by call id (a call that never got a result is emitted without one before the next user
 * message). Messages of unknown shape are skipped. `at` stands in for messages without a timestamp.
 */
export function eventsFromMessages(messages: readonly unknown[], at: string): TrailEvent[] {
  const events: TrailEvent[] = [];
  const pending = new Map<string, Call>();
  let anonymous = 0;
  const flush = (): void => {
    for (const call of pending.values()) events.push({ type: "tool", ...call });
    pending.clear();
  };
  const call = (id: string | undefined, tool: string, args: unknown, when: string): void => {
    anonymous += 1;
    pending.set(id ?? `#${anonymous}`, { tool, params: argsOf(args), at: when });
  };
  const result = (
    id: string | undefined,
    name: string | undefined,
    res: unknown,
    error: string | undefined,
    when: string,
  ) => {
    // A result without a known id answers the oldest pending call of the same tool.
    const key =
      id !== undefined && pending.has(id)
        ? id
        : [...pending.keys()].find((k) => name === undefined || pending.get(k)?.tool === name);
    const found = key === undefined ? undefined : pending.get(key);
    if (key !== undefined) pending.delete(key);
    const tool = found?.tool ?? name ?? "unknown";
    events.push({ type: "tool", tool, params: found?.params ?? {}, result: res, error, at: when });
  };
  for (const raw of messages) {
    const parsed = Message.safeParse(raw);
    if (!parsed.success) continue;
    const m = parsed.data;
    const when = timeOf(raw, at);
    if (m.role === "user") {
      for (const part of Array.isArray(m.content) ? m.content : []) {
        const r = ResultPart.safeParse(part);
        if (r.success) {
          const text = contentText(r.data.content);
          result(
            r.data.tool_use_id,
            undefined,
            { content: text },
            r.data.is_error === true ? text : undefined,
            when,
          );
        }
      }
      const text = contentText(m.content);
      if (m.runtimeContextCarrier === true || text.trim() === "") continue;
      flush();
      events.push({ type: "ask", text, at: when });
    } else if (m.role === "assistant") {
      const text = contentText(m.content);
      if (text.trim() !== "") events.push({ type: "assistant", texts: [text], at: when });
      for (const part of Array.isArray(m.content) ? m.content : []) {
        const c = CallPart.safeParse(part);
        if (c.success)
          call(c.data.id, c.data.name, c.data.type === "toolCall" ? c.data.arguments : c.data.input, when);
      }
      for (const item of m.tool_calls ?? []) {
        const c = OpenAiCall.safeParse(item);
        if (c.success) call(c.data.id, c.data.function.name, c.data.function.arguments, when);
      }
    } else if (m.role === "toolResult") {
      const res = { content: m.content, details: m.details };
      result(
        m.toolCallId,
        m.toolName,
        res,
        m.isError === true ? contentText(m.content) || "error" : undefined,
        when,
      );
    } else if (m.role === "tool") {
      result(m.tool_call_id, m.name, { content: contentText(m.content) }, undefined, when);
    } else {
      const res = { exitCode: m.exitCode ?? null, output: m.output ?? "" };
      events.push({
        type: "tool",
        tool: "bash",
        params: { command: m.command },
        result: res,
        error: m.cancelled === true ? "cancelled" : undefined,
        at: when,
      });
    }
  }
  flush();
  return events;
}

/**
 * A trail built from a transcript (see `eventsFromMessages`). `at` stands in for messages without a
 * timestamp; OpenClaw-internal user messages and compaction summaries are skipped by the reducer.
 */
export function trailFromMessages(
  messages: readonly unknown[],
  at: string,
  options: ReduceOptions = {},
): Trail {
  return eventsFromMessages(messages, at).reduce(
    (trail, event) => reduceTrail(trail, event, options),
    emptyTrail(),
  );
}

/** The newest `max` of `items`. */
const newest = <T>(items: readonly T[], max: number): T[] => items.slice(Math.max(0, items.length - max));

/**
 * The session's trail with what a conversation shows and the trail missed filled in (turns before the
 * plugin loaded, after a gateway restart, a hook that never fired): the task and its names when the trail
 * has none or the conversation holds more user turns than the trail observed (it began earlier); the harness
 * root, the branch, the plan, the assistant's last words and decisions when the trail has none; asks, files,
 * commands, habits, names and edited symbols the trail does not hold, placed before its own (most often they are
 * older: the turns before the plugin loaded); failures it does not hold that none of its own commands
 * re-ran successfully; the larger of the counts. What the trail holds wins: it was observed as it happened.
 */
export function mergeTrails(own: Trail, seen: Trail): Trail {
  const L = TRAIL_LIMITS;
  const paths = new Set(own.files.map((f) => f.path));
  const commands = new Set(own.commands.map((c) => c.command));
  const asks = new Set(own.asks.map((a) => a.text));
  const names = new Set(own.names.map((n) => n.value));
  const keys = new Set(own.failing.map((f) => f.key));
  // The conversation's failures, less those the trail's own passing commands heal.
  const unhealed = own.commands
    .filter((c) => c.status === "ok")
    .reduce((open, c) => updateFailing(open, c.command, null, L.failing), seen.failing);
  // A conversation that holds more user turns than the trail observed began before it: its task is the session's.
  const task = seen.firstAsk !== null && (own.firstAsk === null || seen.turns > own.turns);
  return {
    ...own,
    firstAsk: task ? seen.firstAsk : own.firstAsk,
    taskNames: task ? seen.taskNames : own.taskNames,
    root: own.root ?? seen.root,
    branch: own.branch ?? seen.branch,
    plan: own.plan === "" ? seen.plan : own.plan,
    assistantLast: own.assistantLast === "" ? seen.assistantLast : own.assistantLast,
    decisions: own.decisions.length === 0 ? seen.decisions : own.decisions,
    asks: newest([...seen.asks.filter((a) => !asks.has(a.text)), ...own.asks], L.asks),
    files: newest([...seen.files.filter((f) => !paths.has(f.path)), ...own.files], L.files),
    commands: newest([...seen.commands.filter((c) => !commands.has(c.command)), ...own.commands], L.commands),
    names: newest([...seen.names.filter((n) => !names.has(n.value)), ...own.names], L.names),
    symbols: newest([...seen.symbols.filter((x) => !own.symbols.includes(x)), ...own.symbols], L.symbols),
    failing: newest([...unhealed.filter((f) => !keys.has(f.key)), ...own.failing], L.failing),
    habits: newest(
      [...seen.habits.filter((h) => !own.habits.some((o) => o.command === h.command)), ...own.habits],
      L.habits,
    ),
    lastCheck: own.lastCheck ?? seen.lastCheck,
    last: own.last ?? seen.last,
    turns: Math.max(own.turns, seen.turns),
    toolCalls: Math.max(own.toolCalls, seen.toolCalls),
    failures: Math.max(own.failures, seen.failures),
    updatedAt: own.updatedAt ?? seen.updatedAt,
  };
}

/**
 * The trail a draft is made from when a hook hands over the conversation (`before_compaction.messages` on
 * the preflight path, `before_reset.messages`, the flush run's `before_prompt_build.messages`): the
 * session's trail with what the conversation shows and the trail missed filled in (see `mergeTrails`);
 * the session's trail itself when no conversation was handed over.
 */
export function trailForDraft(
  trail: Trail,
  messages: readonly unknown[] | undefined,
  at: string,
  options: ReduceOptions = {},
): Trail {
  if (messages === undefined || messages.length === 0) return trail;
  return mergeTrails(trail, trailFromMessages(messages, at, options));
}
