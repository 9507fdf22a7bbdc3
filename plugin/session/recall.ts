import { newNonce } from "../recover/fence.ts";
import { renderHits } from "../recover/hits.ts";
import { shown, snapshotPhrase } from "../recover/inject.ts";
import { cleanInline } from "../recover/tokens.ts";
import { absentNamed, closeMatches } from "../search/query.ts";
import { inScope, type Scope, scopeFilter, withinRetention } from "../snapshot/lifecycle.ts";
import { redact } from "../snapshot/redact.ts";
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { relativeAge } from "../snapshot/time.ts";
import { restoreFor } from "./restore-service.ts";
import type { Workspace } from "./workspace.ts";

/**
 * Recall for the agent tool and the chat command: a snapshot by id or checkpoint name, the best
 * search hits for words, or the latest snapshot in scope. Scoped: a session sees its own snapshots
 * (or its agent's, or the workspace's, as configured), never another agent's.
 */

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
  /** The nonce of the answer's fence; default a fresh `newNonce()`. */
  nonce?: string | undefined;
}

export interface RecallResult {
  found: boolean;
  /** For the model (a tool result): snapshot text inside a nonce fence, or a fixed message. */
  text: string;
  /** For the user (a chat reply): the same without the fence and the instructions, neutralised. */
  reply: string;
  ids: string[];
  /** Set when a whole snapshot was returned (logged as a restore). */
  restored: { id: string } | null;
}

/** What visibility is judged on: a snapshot's or a ref's id, session, agent and time. */
export type Seen = { id: string; session: string | null; agent: string | null; timestamp: string };

/** The predicate of what a requester may see: in scope and not past retention. */
export async function visibility(
  ws: Workspace,
  req: Pick<RecallRequest, "scope" | "sessionKey" | "agentId" | "retentionDays" | "now">,
): Promise<(s: Seen) => boolean> {
  const own =
    req.sessionKey === null
      ? new Set<string>()
      : new Set((await ws.session(req.sessionKey, req.agentId).read()).snapshots.map((s) => s.id));
  return (s) => inScope(s, req, own) && withinRetention(s.timestamp, req);
}

/** Answers a recall request. */
export async function recall(ws: Workspace, req: RecallRequest): Promise<RecallResult> {
  const visible = await visibility(ws, req);
  if (req.id !== undefined || req.name !== undefined) {
    const found = req.id !== undefined ? await ws.byId(req.id) : await ws.byName(req.name ?? "");
    if (found === null || !visible(found.snapshot)) {
      const what = req.id !== undefined ? `id ${echo(req.id)}` : `name "${echo(req.name ?? "")}"`;
      return missing(`No snapshot with ${what} in this ${req.scope}'s memory.`);
    }
    return whole(ws, found, req);
  }
  if (req.query !== undefined && req.query.trim() !== "") return byWords(ws, req, req.query, visible);
  const latest = await ws.latestVisible(visible);
  if (latest === null) return missing("No snapshot saved yet in this scope.");
  return whole(ws, latest, req);
}

type Hits = Awaited<ReturnType<Workspace["query"]>>["hits"];

/**
 * The best hits in scope for words. When no snapshot in scope holds the query's identifiers as typed,
 * the answer says so (not found) and lists apart, as near matches, the snapshots in scope that hold the
 * closest identifiers, named to the user as "did you mean" (see query.ts `closeMatches`): a suggestion
 * only ever names what a visible snapshot holds.
 */
async function byWords(
  ws: Workspace,
  req: RecallRequest,
  query: string,
  visible: (s: Seen) => boolean,
): Promise<RecallResult> {
  const limit = req.limit ?? 3;
  const ask = async (words: string) => {
    const result = await ws.query(words, { limit: limit * 4, filter: scopeFilter(req) });
    return { ...result, hits: result.hits.filter((h) => visible(h.located.snapshot)) };
  };
  const result = await ask(query);
  const where = `in this ${req.scope}'s memory`;
  if (result.match === "exact")
    return result.hits.length === 0
      ? missing(`No snapshot ${where} matches "${echo(query)}".`)
      : listed(req, query, result.hits.slice(0, limit));
  // Identifiers typed as the start of longer ones: the snapshots holding those, said to match by prefix.
  // What they begin comes from the snapshots, so the model reads it only inside the fence.
  if (result.match === "prefix" && result.hits.length > 0) {
    const typed = result.prefixes.map((p) => echo(p.word)).join(", ");
    const note = `No snapshot ${where} mentions ${typed} whole. Matches by prefix (identifiers that begin so):\n`;
    // Only what a snapshot shown holds (the index's vocabulary is the whole workspace's): each shown
    // snapshot's text read once, not once per completion.
    const shown = result.hits.slice(0, limit);
    const texts = shown.map((h) => JSON.stringify(h.located.snapshot).toLowerCase());
    const held = (term: string) => texts.some((text) => text.includes(term.toLowerCase()));
    const begun = result.prefixes.flatMap((p) => p.completions.filter(held)).join(", ") || query;
    return { ...listed(req, begun, shown, { text: note, reply: note }), found: false };
  }
  // No snapshot in scope holds every identifier as typed: said to be absent, never answered with another one.
  const near =
    result.missing.length === 0
      ? { hits: result.hits.slice(0, limit), suggestions: [] }
      : await closeMatches(
          query,
          result.suggestions,
          limit,
          async (words) => {
            const found = await ask(words);
            return found.match === "exact" ? found.hits : [];
          },
          (h) => `${h.located.file}:${h.located.line}`,
        );
  const absent = `No snapshot ${where} mentions ${echo(absentNamed(query, result.missing))}.`;
  const closest = near.suggestions.flatMap((s) => s.closest).map(cleanInline);
  // A suggestion is kept only with a hit in scope: none without near matches.
  if (near.hits.length === 0) return missing(absent);
  const meant = closest.length === 0 ? absent : `${absent} Did you mean ${closest.join(", ")}?`;
  // The model reads the suggested identifiers only inside the fence, as what the near matches match.
  const note = (said: string) => `${said} Near matches (fuzzy), not the identifier itself:\n`;
  const matching = closest.length === 0 ? query : closest.join(", ");
  return { ...listed(req, matching, near.hits, { text: note(absent), reply: note(meant) }), found: false };
}

/** Hits rendered for the model (fenced) and for the user, each after its `note` (none by default). */
function listed(
  req: RecallRequest,
  query: string,
  hits: Hits,
  note: { text: string; reply: string } = { text: "", reply: "" },
): RecallResult {
  const shown = renderHits({
    query,
    hits: hits.map(({ located: { snapshot: s }, snippet }) => ({
      ...{ id: s.id, timestamp: s.timestamp, age: relativeAge(s.timestamp, req.now) },
      ...{ name: s.name, goal: s.goal, snippet },
    })),
    nonce: req.nonce ?? newNonce(),
  });
  return {
    found: true,
    text: note.text + shown.text,
    reply: note.reply + shown.reply,
    ids: hits.map((h) => h.located.snapshot.id),
    restored: null,
  };
}

/** What the requester typed, redacted, cleaned and cut to 40 tokens, to quote in a message. */
function echo(text: string): string {
  return shown(redact(text).text, 40);
}

function missing(message: string): RecallResult {
  return { found: false, text: message, reply: message, ids: [], restored: null };
}

async function whole(ws: Workspace, l: LocatedSnapshot, req: RecallRequest): Promise<RecallResult> {
  const restored = await restoreFor(ws, l, "recall", {
    tokenBudget: req.tokenBudget,
    ...(req.nonce === undefined ? {} : { nonce: req.nonce }),
  });
  const source = `${cleanInline(l.file)}:${l.line}`;
  return {
    found: true,
    text: restored.text,
    reply: `Recalled ${snapshotPhrase(l.snapshot)} from ${source}:\n${restored.notes}`,
    ids: [l.snapshot.id],
    restored: { id: l.snapshot.id },
  };
}
