import { NO_SESSION } from "../session/history.ts";
import type { RestoreLogEntry } from "../session/state-files.ts";

/**
 * How restores are put in words, for the gateway log (hooks, the recall tool), `/big-memory status` and the
 * CLI's `status`: one wording wherever a restore is reported.
 */

/**
 * The tokens the restores of `entries` injected (estimated when they were made; a line without a count,
 * from the recall tool before it counted, adds none): in all, per session, and the last restore's.
 */
export function injectedTokens(entries: readonly RestoreLogEntry[]): {
  total: number;
  sessions: Record<string, number>;
  last: { id: string; at: string; reason: string; session: string | null; tokens: number | null } | null;
} {
  const sessions: Record<string, number> = {};
  let total = 0;
  for (const e of entries) {
    const key = e.session ?? NO_SESSION;
    sessions[key] = (sessions[key] ?? 0) + (e.tokens ?? 0);
    total += e.tokens ?? 0;
  }
  const e = entries[entries.length - 1];
  const last =
    e === undefined
      ? null
      : { id: e.id, at: e.at, reason: e.reason, session: e.session, tokens: e.tokens ?? null };
  return { total, sessions, last };
}

/** The gateway log's receipt of a restore, whatever its reason: `head` names the snapshot. */
export function restoreReceipt(head: string, reason: string, tokens: number, session: string): string {
  return `big-memory: ${head} (${reasonText(reason)}, ${tokensText(tokens)}, ${session})`;
}

/** Why a restore happened, in words: `after compaction`, `"you forgot"`, `resume`... */
export function reasonText(reason: string): string {
  const words: Record<string, string> = {
    compaction: "after compaction",
    reset: "after reset",
    amnesia: '"you forgot"',
    resume: "resume",
    recall: "recall tool",
  };
  return words[reason] ?? reason;
}

/** `1,234 tokens`: a token count for people. */
export const tokensText = (n: number | null): string =>
  n === null ? "? tokens" : `${n.toLocaleString("en-US")} token${n === 1 ? "" : "s"}`;
