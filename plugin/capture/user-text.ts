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

const TRIVIAL_ASK =
  /^(?:please\s+)?(?:continue|go on|keep going|proceed|carry on|resume|yes|no|ok|okay|sure|thanks|thank you|do it|go ahead|next|done)\b[\s\S]{0,24}$/i;

/** An ask that states a task: three words or more, not a slash command, not "continue"/"ok"/"thanks". */
export function isSubstantialAsk(ask: string): boolean {
  const t = ask.trim();
  return t.length >= 12 && t.split(/\s+/).length >= 3 && !t.startsWith("/") && !TRIVIAL_ASK.test(t);
}
