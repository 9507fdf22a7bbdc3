import { PLUGIN_ID } from "./doctor-checks.ts";

/**
 * OpenClaw's next-turn injection queue (`api.session.workflow.enqueueNextTurnInjection`, 2026.9.x), for
 * restores only where `before_prompt_build` never comes. Without `hooks.allowConversationAccess` OpenClaw
 * drops that hook, and with it every `prependContext`, while session hooks still fire; what `session_start`
 * queues after a reset reaches the new session's first turn (e2e `injection.test.ts`). A queue at
 * `after_compaction` is refused by 2026.9.6 (`enqueued: false`, no id), so a compaction's restore is not
 * queued there. Everywhere else restores stay `prependContext`: big-memory's own pending restore is
 * already durable and taken once, is rendered at delivery within the turn's budget with the user's ask
 * first, and survives a reset, which drops the host's queue.
 */

/** Queues `text` for the session's next turn; true when the host holds it (now, or under the same key). */
export type HostQueue = (sessionKey: string, text: string, idempotencyKey: string) => Promise<boolean>;

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Rec) : {});

/**
 * The host's queue when restores need it: the plugin's `hooks.allowConversationAccess` is not `true` (so
 * `before_prompt_build` is dropped), `allowPromptInjection` is not `false` (which gates the queue too), and
 * this OpenClaw offers the queue (the grouped API, else the older flat alias). Null otherwise.
 */
export function hostQueue(api: unknown, openclawConfig: unknown): HostQueue | null {
  const hooks = rec(rec(rec(rec(rec(openclawConfig).plugins).entries)[PLUGIN_ID]).hooks);
  if (hooks.allowConversationAccess === true || hooks.allowPromptInjection === false) return null;
  const workflow = rec(rec(api).session).workflow;
  const grouped = rec(workflow).enqueueNextTurnInjection;
  const flat = rec(api).enqueueNextTurnInjection;
  const [fn, self] =
    typeof grouped === "function"
      ? [grouped, workflow]
      : typeof flat === "function"
        ? [flat, api]
        : [null, null];
  if (fn === null) return null;
  return async (sessionKey, text, idempotencyKey) => {
    const answer = rec(
      await Reflect.apply(fn, self, [{ sessionKey, text, idempotencyKey, placement: "prepend_context" }]),
    );
    // A second queue under a pending key answers `enqueued: false` with the pending entry's id.
    return answer.enqueued === true || (typeof answer.id === "string" && answer.id !== "");
  };
}
