import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { draftHasSubstance, draftSnapshot } from "../capture/draft.ts";
import { flushPrompt } from "../capture/flush-prompt.ts";
import { trailFromMessages } from "../capture/messages.ts";
import { reduceTrail, type TrailEvent } from "../capture/trail.ts";
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { localTime } from "../snapshot/time.ts";
import { nextSnapshotId } from "../store/daily-log.ts";
import {
  type CoverTrigger,
  type CycleCapture,
  type CycleHookEvent,
  claimsFlush,
  cycleStep,
} from "./cycle.ts";
import { type PendingRestore, SessionState, withCapture } from "./session-state.ts";
import type { Workspace } from "./workspace.ts";

/**
 * Capture, every path: the session trail turn by turn, the flush run's prompt and the claim of what
 * it wrote, and the safety net that drafts a snapshot when nothing covers the compaction cycle.
 * Each function reads and writes only the session's small state file and, when it must, appends
 * one block: no full scans, so the awaited compaction hooks stay fast.
 */

/** Who a hook is about. */
export interface SessionRef {
  sessionKey: string;
  agentId: string | null;
}

/** How long a flush mark stays claimable by the compaction that follows it. */
const FLUSH_MARK_TTL_MS = 15 * 60_000;

/** Folds one observed event into the session's trail: in memory now, written behind (see Workspace.session). */
export function observe(ws: Workspace, ref: SessionRef, event: TrailEvent): void {
  ws.session(ref.sessionKey, ref.agentId).change((s) => ({
    ...s,
    agentId: s.agentId ?? ref.agentId,
    trail: reduceTrail(s.trail, event, { workspaceDir: ws.dir }),
    updatedAt: event.at,
  }));
}

/**
 * A user turn begins: records the ask in the trail and takes the pending restore, exactly once. With no
 * restore pending (the file unchanged since this process last saw it, or re-read), the ask is an in-memory
 * change; a pending restore is taken in one locked update (a second turn or process cannot take it again).
 */
export async function beginTurn(
  ws: Workspace,
  ref: SessionRef,
  ask: string,
  now: Date,
): Promise<{ state: SessionState; pending: PendingRestore | null }> {
  const at = now.toISOString();
  const seen = (s: SessionState): SessionState => ({
    ...(ask === ""
      ? s
      : { ...s, trail: reduceTrail(s.trail, { type: "ask", text: ask, at }, { workspaceDir: ws.dir }) }),
    agentId: s.agentId ?? ref.agentId,
    updatedAt: at,
  });
  const session = ws.session(ref.sessionKey, ref.agentId);
  const current = await session.read();
  if (current.pendingRestore === null) return { state: session.change(seen) ?? seen(current), pending: null };
  let pending: PendingRestore | null = null;
  const state = await session.update((s) => {
    pending = s.pendingRestore;
    const taken = pending === null ? null : { id: pending.id, reason: pending.reason, at };
    return { ...seen(s), pendingRestore: null, lastRestore: taken ?? s.lastRestore };
  });
  return { state, pending };
}

/**
 * Prepares the flush run: remembers where today's log ends and which id comes next, so the block
 * the model appends can be claimed for the real session, and returns the prompt to prepend.
 * `draftFrom` is the real session's state (the flush run has an internal session key), when known.
 */
export async function prepareFlush(
  ws: Workspace,
  flush: { agentId: string | null; flushSessionKey: string | null },
  draftFrom: SessionState | null,
  now: Date,
  timeZone: string | undefined,
): Promise<string> {
  const at = localTime(now, timeZone);
  const file = `memory/${at.date}.md`;
  const text = await ws.readLog(file);
  const offset = Buffer.byteLength(text);
  const id = nextSnapshotId(text, at.date);
  await ws.flushMarks().update((m) => ({
    ...m,
    marks: [...m.marks, { ...flush, file, offset, id, at: now.toISOString() }].slice(-20),
  }));
  const draft =
    draftFrom !== null && draftHasSubstance(draftFrom.trail) ? draftSnapshot(draftFrom.trail) : null;
  return flushPrompt({
    file,
    id,
    timestamp: at.iso,
    clock: at.clock,
    draft,
    session: draftFrom?.sessionKey ?? null,
    agent: flush.agentId ?? draftFrom?.agentId ?? null,
  });
}

/**
 * Takes the flush marks of an agent (recent ones only) and returns the newest valid snapshot
 * appended after them, or null. Marks are consumed either way; with none to take or drop, nothing is
 * locked or written.
 */
export async function claimFlush(
  ws: Workspace,
  agentId: string | null,
  now: Date,
): Promise<LocatedSnapshot | null> {
  const fresh = (at: string) => now.getTime() - Date.parse(at) < FLUSH_MARK_TTL_MS;
  const marks = ws.flushMarks();
  if (!(await marks.read()).marks.some((x) => x.agentId === agentId || !fresh(x.at))) return null;
  let taken: { file: string; offset: number }[] = [];
  await marks.update((m) => {
    taken = m.marks.filter((x) => x.agentId === agentId && fresh(x.at));
    return { ...m, marks: m.marks.filter((x) => x.agentId !== agentId && fresh(x.at)) };
  });
  let newest: LocatedSnapshot | null = null;
  for (const mark of taken) {
    for (const s of await ws.snapshotsSince(mark.file, mark.offset)) newest = s;
  }
  return newest;
}

/** The block the flush run wrote for the cycle, claimed for the session, or null. */
export type FlushClaim = LocatedSnapshot | null;

/**
 * The block the flush run wrote, if any, attributed to the session: the model's block stays as written;
 * when it does not name this session exactly, a claim does. Runs before the session's update (it takes
 * the flush marks' lock, not the session's).
 */
export async function claimCycleFlush(ws: Workspace, ref: SessionRef, now: Date): Promise<FlushClaim> {
  const claimed = await claimFlush(ws, ref.agentId, now);
  if (
    claimed !== null &&
    (claimed.snapshot.session !== ref.sessionKey ||
      (ref.agentId !== null && claimed.snapshot.agent !== ref.agentId) ||
      claimed.snapshot.trigger !== "flush")
  ) {
    await ws.claim({
      at: now.toISOString(),
      file: claimed.file,
      line: claimed.line,
      id: claimed.snapshot.id,
      session: ref.sessionKey,
      agent: ref.agentId,
    });
  }
  return claimed;
}

/**
 * Inside the session's update: makes sure the state has a snapshot covering the current cycle: the
 * block the flush run wrote (`claimed`), else one already written since the last compaction, else a
 * draft from the trail (or from `messages` when the trail is empty), written with `trigger`.
 */
export async function coverCycle(
  ws: Workspace,
  ref: SessionRef,
  s: SessionState,
  trigger: CoverTrigger,
  opts: { now: Date; safetyNet: boolean; messages?: unknown[]; claimed: FlushClaim },
): Promise<{ state: SessionState; capture: CycleCapture }> {
  const at = opts.now.toISOString();
  const { claimed } = opts;
  if (claimed !== null) {
    const capture: CycleCapture = { id: claimed.snapshot.id, file: claimed.file, source: "flush" };
    return {
      state: withCapture(s, { id: claimed.snapshot.id, file: claimed.file, trigger: "flush", at }),
      capture,
    };
  }
  const none = { state: s, capture: { id: "", file: "", source: "none" } as CycleCapture };
  const existing = s.cycle.captured === null ? undefined : s.snapshots.find((x) => x.id === s.cycle.captured);
  // An earlier snapshot covers the cycle only if nothing was observed after it.
  const current = existing !== undefined && (s.trail.updatedAt === null || s.trail.updatedAt <= existing.at);
  if (existing !== undefined && current && trigger !== "threshold") {
    return { state: s, capture: { id: existing.id, file: existing.file, source: "existing" } };
  }
  if (!opts.safetyNet) return none;
  const trail =
    !draftHasSubstance(s.trail) && opts.messages !== undefined && opts.messages.length > 0
      ? trailFromMessages(opts.messages, at)
      : s.trail;
  if (!draftHasSubstance(trail)) return none;
  const saved = await ws.save(draftSnapshot(trail), {
    trigger,
    session: ref.sessionKey,
    agent: ref.agentId,
    name: s.line?.name ?? null,
    parent: s.line?.parent ?? null,
  });
  return {
    state: withCapture(s, { id: saved.id, file: saved.file, trigger, at }),
    capture: { id: saved.id, file: saved.file, source: "safety-net" },
  };
}

/**
 * Moves the session's compaction cycle by one hook event (see cycle.ts): the flush run's block claimed
 * first (under the flush marks' lock), then one locked, fsynced update of the session's state that
 * applies the cover effect (at most one appended block). Returns what covered the cycle, or null when
 * the event needed no cover.
 */
export async function runCycle(
  ws: Workspace,
  ref: SessionRef,
  event: CycleHookEvent,
  opts: { now: Date; safetyNet: boolean; restore: boolean; messages?: unknown[] | undefined },
): Promise<CycleCapture | null> {
  const session = ws.session(ref.sessionKey, ref.agentId);
  const claimed = claimsFlush(await session.read(), event) ? await claimCycleFlush(ws, ref, opts.now) : null;
  let covered: CycleCapture | null = null;
  await session.update(async (s) => {
    // Apply each effect and feed its outcome back, until the cycle asks for nothing more.
    let { state, effects } = cycleStep(s, event);
    const pending = [...effects];
    for (let effect = pending.shift(); effect !== undefined; effect = pending.shift()) {
      const done = await coverCycle(ws, ref, state, effect.trigger, {
        now: opts.now,
        safetyNet: opts.safetyNet,
        claimed,
        ...(opts.messages === undefined ? {} : { messages: opts.messages }),
      });
      covered = done.capture;
      ({ state, effects } = cycleStep(done.state, {
        type: "covered",
        after: event,
        capture: done.capture,
        restore: opts.restore,
      }));
      pending.push(...effects);
    }
    return state;
  });
  return covered;
}

/**
 * The real session a flush run works for: the most recently active session state of its agent (what this
 * process kept in memory is written first, so every session's file is current). A state file is taken only
 * when its content names the agent (a file name can start like another agent's: `main` and `main-2`), and
 * one that cannot be read is passed over.
 */
export async function flushTarget(ws: Workspace, agentId: string | null): Promise<SessionState | null> {
  await ws.flushSessions();
  const dir = join(ws.stateDir, "sessions");
  const names = await readdir(dir).catch(() => [] as string[]);
  // State files are named by a slug of the key cut at 60 characters (session-state.ts).
  const prefix = agentId === null ? "" : `agent-${agentId.replace(/[^a-zA-Z0-9_-]+/g, "-")}-`.slice(0, 60);
  const candidates = await Promise.all(
    names
      .filter((n) => n.endsWith(".json") && n.startsWith(prefix))
      .map(async (n) => ({ n, mtime: (await stat(join(dir, n)).catch(() => null))?.mtimeMs ?? 0 })),
  );
  for (const { n } of candidates.sort((a, b) => b.mtime - a.mtime)) {
    const state = await readSessionFile(join(dir, n));
    if (state !== null && (agentId === null || ofAgent(state, agentId))) return state;
  }
  return null;
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
