import { createHash } from "node:crypto";
import { contentText } from "../capture/text.ts";
import { cleanUserText } from "../capture/user-text.ts";

/**
 * What a hook's conversation (`event.messages`) tells about compactions no hook announced, as pure
 * functions over the messages OpenClaw hands over: how many real user turns it holds (a transcript trimmed
 * with no hook holds fewer than the last turn saw), whether it begins with a compaction summary, and the
 * provider compaction markers on its assistant messages.
 */

/** How OpenClaw's compaction summary message begins. */
export const COMPACTION_SUMMARY_START = "The conversation history before this point was compacted";

/**
 * The provider compaction markers a plugin sees on an assistant message's `providerReplay`: OpenAI
 * Responses `context_management` compaction, and Anthropic's compaction block. OpenClaw's own compaction
 * through the Responses compact endpoint (`openai-responses-retained-compaction`) fires the compaction
 * hooks and is handled there, so it is not one of these.
 */
export const PROVIDER_COMPACTION_TYPES: readonly string[] = [
  "openai-responses-compaction",
  "anthropic-compaction",
];

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const textOf = (m: Record<string, unknown>): string =>
  typeof m.content === "string" ? m.content : contentText(m.content);

/** Whether a message is OpenClaw's compaction summary (whatever role carries it). */
function isSummary(m: Record<string, unknown>): boolean {
  if (m.role === "compactionSummary") return true;
  return textOf(m).trimStart().startsWith(COMPACTION_SUMMARY_START);
}

/** What a conversation holds, counted the same way at every hook. */
export interface ConversationCount {
  /** Real user turns: the user's own words (internal context, flush prompts and summaries left out). */
  asks: number;
  /** Compaction summaries. */
  summaries: number;
}

/** Counts the real user turns and compaction summaries of `messages`; entries of unknown shape are skipped. */
export function countConversation(messages: readonly unknown[]): ConversationCount {
  let asks = 0;
  let summaries = 0;
  for (const m of messages) {
    if (!isRecord(m)) continue;
    if (isSummary(m)) summaries++;
    else if (m.role === "user" && m.runtimeContextCarrier !== true && cleanUserText(textOf(m)) !== null)
      asks++;
  }
  return { asks, summaries };
}

/**
 * Whether the conversation a turn begins with shows that a compaction happened since `seen` was counted:
 * fewer user turns, or more summaries. With nothing counted before, a conversation that opens with a
 * summary is the proof.
 */
export function showsCompaction(
  now: ConversationCount,
  seen: ConversationCount | null,
  first: unknown,
): boolean {
  if (seen === null) return isRecord(first) && isSummary(first);
  return now.asks < seen.asks || now.summaries > seen.summaries;
}

/**
 * The key of a provider compaction marker on one message, or null: its id when it has one, else a hash of
 * its data (Anthropic's block carries none).
 */
export function providerMarkOf(message: unknown): string | null {
  if (!isRecord(message) || message.role !== "assistant" || !isRecord(message.providerReplay)) return null;
  const replay = message.providerReplay;
  if (typeof replay.type !== "string" || !PROVIDER_COMPACTION_TYPES.includes(replay.type)) return null;
  if (typeof replay.id === "string" && replay.id !== "") return `${replay.type}:${replay.id}`;
  if (typeof replay.data !== "string" || replay.data === "") return null;
  return `${replay.type}:${createHash("sha256").update(replay.data).digest("hex").slice(0, 24)}`;
}

/** The provider compaction markers of a conversation, in order. */
export function providerMarks(messages: readonly unknown[]): string[] {
  return messages.map(providerMarkOf).filter((k) => k !== null);
}
