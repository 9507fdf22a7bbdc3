import { contentNonce } from "../recover/fence.ts";
import { type RestoreInput, renderRestore } from "../recover/inject.ts";
import { staleWarnings } from "../recover/stale.ts";
import { type Retention, withinRetention } from "../snapshot/lifecycle.ts";
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import type { RestoreReason, SessionState } from "./session-state.ts";
import type { Workspace } from "./workspace.ts";

/**
 * Restore, the I/O side: which snapshot a session gets, the stale-file warnings that go with it,
 * the bounded text for the model, and the restore log.
 */

/**
 * The text to put in front of the model for `located` (fenced with `opts.nonce`, default the
 * {@link contentNonce} of everything the fence holds: the same restore is the same bytes, for prompt
 * caches), with warnings, the notes alone (for a chat reply), and what it cost.
 */
export async function restoreFor(
  ws: Workspace,
  located: LocatedSnapshot,
  reason: RestoreReason,
  opts: { tokenBudget: number; related?: RestoreInput["related"]; nonce?: string },
): Promise<{ text: string; tokens: number; warnings: string[]; notes: string }> {
  const warnings = await staleWarnings(ws.dir, located);
  const input = {
    snapshot: located.snapshot,
    file: located.file,
    line: located.line,
    verified: located.verified,
    reason,
    warnings,
    tokenBudget: opts.tokenBudget,
    ...(opts.related === undefined ? {} : { related: opts.related }),
  };
  const rendered = renderRestore({ ...input, nonce: opts.nonce ?? contentNonce(JSON.stringify(input)) });
  return { text: rendered.text, tokens: rendered.tokens, warnings, notes: rendered.notes };
}

/** The newest live snapshot written for the session (a deleted name is passed over), read from its own daily log, within retention. */
export async function latestOfSession(
  ws: Workspace,
  s: SessionState,
  retention: Retention,
): Promise<LocatedSnapshot | null> {
  for (const ref of [...s.snapshots].reverse()) {
    const found = await ws.snapshotIn(ref.file, ref.id);
    if (found === null || !(await ws.isLive(found))) continue;
    return withinRetention(found.snapshot.timestamp, retention) ? found : null;
  }
  return null;
}
