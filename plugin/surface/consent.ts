import type { SessionRef } from "../session/capture-service.ts";
import type { Workspace } from "../session/workspace.ts";
import type { SurfaceDeps } from "./context.ts";
import { PLUGIN_ID } from "./doctor-checks.ts";

/**
 * The runtime half of `doctor`'s consent checks: OpenClaw silently drops `before_prompt_build` and `llm_output`
 * of a plugin without `hooks.allowConversationAccess: true`, and `allowPromptInjection: false` blocks
 * `before_prompt_build`. Compaction hooks are not gated, so a session can be compacted with big-memory never
 * having seen one of its user turns; then nothing can be restored, and the user should hear why, once.
 */

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const ENTRY = `plugins.entries.${PLUGIN_ID}.hooks`;

/** The consent settings missing from an OpenClaw config for restore to work, as `key: value` to set. */
export function missingConsent(openclawConfig: unknown): string[] {
  const hooks = rec(rec(rec(rec(rec(openclawConfig).plugins).entries)[PLUGIN_ID]).hooks);
  return [
    ...(hooks.allowConversationAccess === true ? [] : [`${ENTRY}.allowConversationAccess: true`]),
    ...(hooks.allowPromptInjection === false ? [`${ENTRY}.allowPromptInjection: true`] : []),
  ];
}

/** The warning for a session compacted without any user turn observed. */
export function silentSessionWarning(sessionKey: string, missing: readonly string[]): string {
  const fix =
    missing.length === 0
      ? `the consent flags look set; \`openclaw plugins inspect ${PLUGIN_ID} --runtime --json\` lists blocked hooks`
      : `set ${missing.join(" and ")} in openclaw.json (openclaw config set <key> true --strict-json)`;
  return `big-memory: session ${sessionKey} was compacted, but OpenClaw never passed big-memory one of its user turns (before_prompt_build), so nothing will be restored: ${fix}; \`big-memory doctor\` checks the rest`;
}

/**
 * The check, for the `after_compaction` hook of a real session: when the session's state shows no user turn,
 * one warning per session for the life of the returned function, through `deps.logger`. Errors propagate to
 * the hook's own fail-open handling.
 */
export function createConsentCheck(deps: SurfaceDeps): (ws: Workspace, ref: SessionRef) => Promise<void> {
  const warned = new Set<string>();
  return async (ws, ref) => {
    if (warned.has(ref.sessionKey)) return;
    const state = await ws.session(ref.sessionKey, ref.agentId).read();
    if (state.trail.turns > 0 || warned.has(ref.sessionKey)) return;
    warned.add(ref.sessionKey);
    deps.logger.warn(silentSessionWarning(ref.sessionKey, missingConsent(deps.openclawConfig)));
  };
}
