import { isSharedSession } from "../snapshot/lifecycle.ts";
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { relativeAge } from "../surface/cli-text.ts";
import type { Workspace } from "../workspace.ts";
import { restoreFor } from "./restore-service.ts";

/**
 * Recall for the agent tool and the chat command: a snapshot by id or checkpoint name, the best
 * search hits for words, or the latest snapshot in scope. Scoped: a session sees its own snapshots
 * (or its agent's, or the workspace's, as configured), never another agent's.
 */

export type Scope = "session" | "agent" | "workspace";

export interface RecallRequest {
  query?: string | undefined;
  id?: string | undefined;
  name?: string | undefined;
  limit?: number | undefined;
  sessionKey: string | null;
  agentId: string | null;
  scope: Scope;
  tokenBudget: number;
  retentionDays?: number | undefined;
  now: Date;
}

export interface RecallResult {
  found: boolean;
  /** Short text for the model or a chat reply. */
  text: string;
  ids: string[];
  /** Set when a whole snapshot was returned (logged as a restore). */
  restored: { id: string } | null;
}

/** The filter that keeps a request inside its scope. */
export function scopeFilter(req: Pick<RecallRequest, "scope" | "sessionKey" | "agentId">): {
  session?: string;
  agent?: string;
} {
  if (req.scope === "session" && req.sessionKey !== null) return { session: req.sessionKey };
  if (req.scope !== "workspace" && req.agentId !== null) return { agent: req.agentId };
  return {};
}

/**
 * True when `l` may be shown to the requester: its own snapshots always; in `agent` scope the
 * agent's, in `workspace` scope any; but a group or shared-channel session never sees a snapshot of
 * a direct session (or one whose session is unknown).
 */
export function inScope(
  l: LocatedSnapshot,
  req: Pick<RecallRequest, "scope" | "sessionKey" | "agentId">,
  own: ReadonlySet<string>,
): boolean {
  if (own.has(l.snapshot.id) || (req.sessionKey !== null && l.snapshot.session === req.sessionKey))
    return true;
  if (req.scope === "session") return false;
  if (isSharedSession(req.sessionKey) && !isSharedSession(l.snapshot.session)) return false;
  if (req.scope === "workspace") return true;
  return (
    req.agentId === null ||
    l.snapshot.agent === req.agentId ||
    (l.snapshot.session ?? "").startsWith(`agent:${req.agentId}:`)
  );
}

function tooOld(l: LocatedSnapshot, req: Pick<RecallRequest, "retentionDays" | "now">): boolean {
  if (req.retentionDays === undefined) return false;
  return req.now.getTime() - Date.parse(l.snapshot.timestamp) > req.retentionDays * 86_400_000;
}

/** The predicate of what a requester may see: in scope and not past retention. */
export async function visibility(
  ws: Workspace,
  req: Pick<RecallRequest, "scope" | "sessionKey" | "agentId" | "retentionDays" | "now">,
): Promise<(l: LocatedSnapshot) => boolean> {
  const own =
    req.sessionKey === null
      ? new Set<string>()
      : new Set((await ws.session(req.sessionKey, req.agentId).read()).snapshots.map((s) => s.id));
  return (l) => inScope(l, req, own) && !tooOld(l, req);
}

/** Answers a recall request. */
export async function recall(ws: Workspace, req: RecallRequest): Promise<RecallResult> {
  const visible = await visibility(ws, req);
  if (req.id !== undefined || req.name !== undefined) {
    const found = req.id !== undefined ? await ws.byId(req.id) : await ws.byName(req.name ?? "");
    if (found === null || !visible(found)) {
      const what = req.id !== undefined ? `id ${req.id}` : `name "${req.name}"`;
      return {
        found: false,
        text: `No snapshot with ${what} in this ${req.scope}'s memory.`,
        ids: [],
        restored: null,
      };
    }
    return whole(ws, found, req);
  }
  if (req.query !== undefined && req.query.trim() !== "") {
    const hits = (
      await ws.searchSnapshots(req.query, { limit: (req.limit ?? 3) * 4, filter: scopeFilter(req) })
    )
      .filter((h) => visible(h.located))
      .slice(0, req.limit ?? 3);
    if (hits.length === 0)
      return { found: false, text: `No snapshot matches "${req.query}".`, ids: [], restored: null };
    const lines = hits.map(
      (h, i) =>
        `${i + 1}. ${h.located.snapshot.id} (${relativeAge(h.located.snapshot.timestamp, req.now)}${h.located.snapshot.name === null ? "" : `, "${h.located.snapshot.name}"`}): ${h.located.snapshot.goal || "(no goal)"}\n   match: ${h.snippet}`,
    );
    return {
      found: true,
      text: `Snapshots matching "${req.query}", best first:\n${lines.join("\n")}\nCall big_memory_recall with an id for the whole snapshot.`,
      ids: hits.map((h) => h.located.snapshot.id),
      restored: null,
    };
  }
  const latest = await ws.latestVisible(visible);
  if (latest === null)
    return { found: false, text: "No snapshot saved yet in this scope.", ids: [], restored: null };
  return whole(ws, latest, req);
}

async function whole(ws: Workspace, l: LocatedSnapshot, req: RecallRequest): Promise<RecallResult> {
  const restored = await restoreFor(ws, l, "recall", { tokenBudget: req.tokenBudget });
  return { found: true, text: restored.text, ids: [l.snapshot.id], restored: { id: l.snapshot.id } };
}
