import { detectAmnesia } from "./amnesia.ts";

/**
 * The user's words in a prompt as the session trail keeps them: OpenClaw's wrappers removed, queued messages
 * apart, and whether an ask states a task (what a draft's goal is made of) or only steers ("continue",
 * "you forgot", a slash command).
 */

const INTERNAL_START = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT";
const INTERNAL_BLOCK =
  /<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>[\s\S]*?(?:<<<END_OPENCLAW_INTERNAL_CONTEXT>>>|$)/g;
const COMPACTION_SUMMARY = "The conversation history before this point was compacted";
const FLUSH_PROMPT = /pre-compaction memory flush/i;
/** `[WhatsApp +1555 Mon 2026-01-05 16:26:34 PST] ` and `[Mon 2026-01-05 16:26] ` envelopes. */
const ENVELOPE = /^\[[^\]\n]{0,80}\d{4}-\d{2}-\d{2}[^\]\n]{0,40}\]\s*/;
const SYSTEM_LINE = /^System: \[[^\]\n]*\][^\n]*(?:\n|$)/gm;
/** Claude Code's marks in the user's turn: `[Request interrupted by user]`, `[Request interrupted by user for tool use]`. */
const INTERRUPTED = /^\[Request interrupted by user[^\]\n]*\][ \t]*(?:\n|$)/gm;
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
    .replace(INTERRUPTED, "")
    .replace(METADATA_BLOCK, "")
    .trim()
    .replace(ENVELOPE, "")
    .trim();
  return cleaned === "" ? null : cleaned;
}

const TRIVIAL_ASK =
  /^(?:please\s+)?(?:continue|go on|keep going|proceed|carry on|resume|yes|no|ok|okay|sure|thanks|thank you|do it|go ahead|next|done)\b[\s\S]{0,24}$/i;
/** `Continue:`, `Please continue with` and the like before the words that matter. */
const STEERING_LEAD =
  /^(?:please\s+)?(?:continue|go on|keep going|proceed|carry on|resume)(?:\s+(?:with|on)\s+|\s*[:,.!-]+\s*)/i;

/** An ask that states a task: three words or more, not a slash command, not "continue"/"ok"/"thanks". */
export function isSubstantialAsk(ask: string): boolean {
  const t = ask.trim();
  return t.length >= 12 && t.split(/\s+/).length >= 3 && !t.startsWith("/") && !TRIVIAL_ASK.test(t);
}

const QUEUED_TITLE = "[Queued messages while agent was busy]";
const QUEUED_ITEM = /^---\nQueued #\d+(?: \(from [^)\n]*\))?\n/m;
const QUEUED_ORPHAN =
  "[Queued user message from a previous active turn; preserved as context only. Continue with the active prompt below.]";

/**
 * The separate messages in one prompt: OpenClaw batches messages that arrived while the agent was busy
 * (`[Queued messages while agent was busy]` then `---\nQueued #1\n...` per message) and prefixes a message left
 * over from an interrupted turn (`[Queued user message from a previous active turn; ...]`, the old message,
 * a blank line, the new prompt). Any other text is one message.
 */
export function userMessages(text: string): string[] {
  const t = text.trim();
  if (t.startsWith(QUEUED_TITLE)) {
    return t
      .slice(QUEUED_TITLE.length)
      .split(/^(?=---\nQueued #\d+)/m)
      .map((part) => part.replace(QUEUED_ITEM, "").trim())
      .filter((part) => part !== "");
  }
  if (t.startsWith(QUEUED_ORPHAN)) {
    const rest = t.slice(QUEUED_ORPHAN.length).trim();
    const gap = rest.search(/\n\s*\n/);
    return (gap < 0 ? [rest] : [rest.slice(0, gap), rest.slice(gap)])
      .map((m) => m.trim())
      .filter((m) => m !== "");
  }
  return t === "" ? [] : [t];
}

/**
 * The task an ask states, for a draft's goal: its sentences without those that only steer (an amnesia
 * phrase such as "you forgot what we were doing", "continue", "thanks") and without a leading "Continue:";
 * null when what is left is not a task (`isSubstantialAsk`) or the ask is a slash command.
 */
export function taskText(ask: string): string | null {
  const t = ask.trim();
  if (t.startsWith("/")) return null;
  const kept = t
    .split(/(?<=[.!?。！？])\s+|\n+/)
    .map((sentence) => sentence.trim().replace(STEERING_LEAD, "").trim())
    .filter((sentence) => sentence !== "" && detectAmnesia(sentence) === null && !TRIVIAL_ASK.test(sentence))
    .join(" ");
  return isSubstantialAsk(kept) ? kept : null;
}

/** Words that steer or refer rather than state a task. */
const HANDLE_WORDS = new Set(
  "start started starting continue continuing keep going ahead work working task tasks please check current state first about with this that what there lets let's".split(
    " ",
  ),
);

/** Whether an ask states little of its own: fewer than three words of four letters or more that do not just steer. */
export function isThinAsk(task: string): boolean {
  const content = (task.toLowerCase().match(/[\p{L}][\p{L}\p{N}_.'-]{3,}/gu) ?? []).filter(
    (w) => !HANDLE_WORDS.has(w),
  );
  return new Set(content).size < 3;
}

/**
 * The session's task after one more ask: the first ask's task (`taskText`), and when it names the work
 * only by a handle ("start working on #004", `isThinAsk`), the next task joined to it, which states it.
 */
export function firstTask(first: string | null, ask: string): string | null {
  if (first !== null && !isThinAsk(first)) return first;
  const task = taskText(ask);
  if (task === null) return first;
  return first === null ? task : `${first}. ${task}`;
}
