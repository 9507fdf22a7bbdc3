import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { eventsFromMessages } from "../capture/messages.ts";
import { cleanUserText } from "../capture/user-text.ts";
import { SessionState } from "./session-state.ts";
import type { Workspace } from "./workspace.ts";

/** Which session a pre-compaction flush run works for (OpenClaw runs it under an internal key). */

/** A user's words reduced for comparison: lower case, one space, at most 80 characters. */
const askKey = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim().slice(0, 80);

/**
 * The real session a flush run works for, found from the flush run's own conversation (OpenClaw runs the
 * flush on a detached view of the session's transcript, under an internal key): the session of the agent
 * whose observed asks the conversation holds, most of them; null when none or several match equally. With
 * no conversation (or no ask in it), the agent's only session, else null: never a guess among several. What this process kept in memory is written first, so every session's file
 * is current. A state file is taken only when its content names the agent (a file name can start like
 * another agent's: `main` and `main-2`), and one that cannot be read is passed over.
 */
export async function flushTarget(
  ws: Workspace,
  agentId: string | null,
  messages: readonly unknown[] | undefined,
): Promise<SessionState | null> {
  const asked = eventsFromMessages(messages ?? [], new Date(0).toISOString())
    .filter((e) => e.type === "ask")
    .map((e) => askKey(cleanUserText(e.text) ?? ""))
    .filter((k) => k !== "");
  await ws.flushSessions();
  const dir = join(ws.stateDir, "sessions");
  const names = await readdir(dir).catch(() => [] as string[]);
  // State files are named by a slug of the key cut at 60 characters (session-state.ts).
  const prefix = agentId === null ? "" : `agent-${agentId.replace(/[^a-zA-Z0-9_-]+/g, "-")}-`.slice(0, 60);
  const states = await Promise.all(
    names
      .filter((n) => n.endsWith(".json") && n.startsWith(prefix))
      .map((n) => readSessionFile(join(dir, n))),
  );
  const mine = states.filter(
    (state): state is SessionState => state !== null && (agentId === null || ofAgent(state, agentId)),
  );
  // With no conversation to tell, the agent's one session is the flush's; among several, none is guessed.
  if (asked.length === 0) return mine.length === 1 ? (mine[0] ?? null) : null;
  let best: { state: SessionState; score: number } | null = null;
  let tied = false;
  for (const state of mine) {
    const score = state.trail.asks
      .map((a) => askKey(a.text))
      .filter((k) => k !== "" && asked.some((m) => m.includes(k) || k.includes(m))).length;
    if (score === 0) continue;
    if (best === null || score > best.score) {
      best = { state, score };
      tied = false;
    } else if (score === best.score) tied = true;
  }
  return best === null || tied ? null : best.state;
}

function ofAgent(s: SessionState, agentId: string): boolean {
  return s.agentId === agentId || s.sessionKey.startsWith(`agent:${agentId}:`);
}

/** A session state file as it is on disk, or null when it is missing, torn or not a session state. */
async function readSessionFile(path: string): Promise<SessionState | null> {
  try {
    const parsed = SessionState.safeParse(JSON.parse(await readFile(path, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
