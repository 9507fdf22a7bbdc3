import { createHash } from "node:crypto";
import { draftHasSubstance, draftSnapshot } from "../capture/draft.ts";
import { flushPrompt } from "../capture/flush-prompt.ts";
import { trailForDraft, trailFromMessages } from "../capture/messages.ts";
import { reduceTrail, type Trail, type TrailEvent } from "../capture/trail.ts";
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { localTime } from "../snapshot/time.ts";
import { nextSnapshotId } from "../store/daily-log.ts";
import type { LedgerFact } from "../store/ledger.ts";
import { type ConversationCount, countConversation, providerMarks } from "./conversation.ts";
import {
  type CoverTrigger,
  type CycleCapture,
  type CycleHookEvent,
  claimsFlush,
  cycleStep,
  freshMarks,
} from "./cycle.ts";
import {
  type FlushMarks,
  type PendingRestore,
  type SessionState,
  withCapture,
  withPendingRestore,
} from "./session-state.ts";
import type { Workspace } from "./workspace.ts";

/**
 * Capture, every path: the session trail turn by turn, the flush run's prompt and the claim of what it wrote,
 * and the safety net that drafts a snapshot when nothing covers the compaction cycle. Each function reads and
 * writes only the session's small state file and, when it must, appends one block: no full scans, so the
 * awaited compaction hooks stay fast.
 */

/** Who a hook is about. */
export interface SessionRef {
  sessionKey: string;
  agentId: string | null;
}

/** Redaction of one observed event may take this long in a turn; past it, its text is dropped (fails closed). */
const REDACT_BUDGET = { ms: 250, now: () => performance.now() };

/** How long a flush mark stays claimable by the compaction that follows it. */
const FLUSH_MARK_TTL_MS = 15 * 60_000;

/** Folds one observed event into the session's trail: in memory now, written behind (see Workspace.session). */
export function observe(ws: Workspace, ref: SessionRef, event: TrailEvent): void {
  ws.session(ref.sessionKey, ref.agentId).change((s) => ({
    ...s,
    agentId: s.agentId ?? ref.agentId,
    trail: reduceTrail(s.trail, event, { workspaceDir: ws.dir, redactBudget: REDACT_BUDGET }),
    updatedAt: event.at,
  }));
}

/**
 * A user turn begins: records the ask in the trail, marks the turn open (a compaction before its end is an
 * overflow) and takes the pending restores, exactly once, the user's own first. A resume's line of work
 * becomes the session's now, when it is delivered. With no restore pending (the file unchanged since this
 * process last saw it, or re-read), this is an in-memory change; pending restores are taken in one locked
 * update (a second turn or process cannot take them again).
 */
export async function beginTurn(
  ws: Workspace,
  ref: SessionRef,
  ask: string,
  now: Date,
): Promise<{ state: SessionState; pending: PendingRestore[] }> {
  const at = now.toISOString();
  const seen = (s: SessionState): SessionState => ({
    ...(ask === ""
      ? s
      : { ...s, trail: reduceTrail(s.trail, { type: "ask", text: ask, at }, { workspaceDir: ws.dir }) }),
    agentId: s.agentId ?? ref.agentId,
    turnOpen: true,
    updatedAt: at,
  });
  const session = ws.session(ref.sessionKey, ref.agentId);
  const current = await session.read();
  if (current.pendingRestore === null && current.queue.length === 0)
    return { state: session.change(seen) ?? seen(current), pending: [] };
  let pending: PendingRestore[] = [];
  const state = await session.update((s) => {
    pending = [...(s.pendingRestore === null ? [] : [s.pendingRestore]), ...s.queue];
    const first = pending[0];
    const line = pending.find((p) => p.line !== undefined)?.line;
    return {
      ...seen(s),
      pendingRestore: null,
      queue: [],
      line: line ?? s.line,
      lastRestore: first === undefined ? s.lastRestore : { id: first.id, reason: first.reason, at },
    };
  });
  return { state, pending };
}

/**
 * Puts back a restore taken at the start of a turn that could not be delivered with it (over the token
 * budget): it goes first at the next turn, unless something the user asked for came in meanwhile.
 */
export async function requeueRestore(ws: Workspace, ref: SessionRef, pending: PendingRestore): Promise<void> {
  const { line: _line, cycle, ...p } = pending;
  await ws
    .session(ref.sessionKey, ref.agentId)
    .update((s) => withPendingRestore(s, p, p.reason, p.at, cycle === undefined ? {} : { cycle }));
}

/**
 * The turn is over: what its conversation holds is counted (a later turn that holds fewer user turns saw a
 * compaction no hook announced), and the turn is closed. A failed attempt (`settled` false) is not counted:
 * its conversation holds the ask its retry hands over again, so the retry's view would look trimmed.
 * Returns the provider compaction markers not seen before (see {@link newProviderMarks}).
 */
export async function endTurn(
  ws: Workspace,
  ref: SessionRef,
  messages: readonly unknown[] | undefined,
  settled = true,
): Promise<string[]> {
  const session = ws.session(ref.sessionKey, ref.agentId);
  const count = messages === undefined || !settled ? null : countConversation(messages);
  const prior = await session.read();
  session.change((s) => ({
    ...s,
    turnOpen: false,
    seen: count === null ? s.seen : { ...s.seen, messages: count.asks, summaries: count.summaries },
  }));
  return messages === undefined ? [] : newProviderMarks(prior, providerMarks(messages));
}

/** What the plugin last counted of the session's conversation, or null when nothing was. */
export function seenCount(s: SessionState): ConversationCount | null {
  return s.seen.messages === null ? null : { asks: s.seen.messages, summaries: s.seen.summaries };
}

/**
 * Markers among `marks`, read from a whole conversation, the session has not handled. Markers of a session
 * not observed before are old ones: they are taken as seen, not as a compaction now.
 */
export function newProviderMarks(s: SessionState, marks: readonly string[]): string[] {
  if (s.seen.messages === null && s.trail.turns === 0) return [];
  return freshMarks(s, marks);
}

/**
 * Prepares the flush run: remembers where today's log ends and which id comes next, so the block
 * the model appends can be claimed for the real session, and returns the prompt to prepend.
 * `target` is the real session's state (the flush run has an internal session key), found from the flush
 * run's own conversation (see {@link flushTarget}); without one, the draft comes from that conversation.
 */
export async function prepareFlush(
  ws: Workspace,
  flush: { agentId: string | null; flushSessionKey: string | null },
  target: SessionState | null,
  now: Date,
  timeZone: string | undefined,
  messages?: readonly unknown[],
): Promise<string> {
  const at = localTime(now, timeZone);
  const file = `memory/${at.date}.md`;
  // The log's bytes, not its text: its size and its highest id are all the flush needs of it.
  const bytes = await ws.readLogBytes(file);
  const offset = bytes.length;
  const id = nextSnapshotId(bytes, at.date);
  const sessionKey = target?.sessionKey ?? null;
  await ws.flushMarks().update((m) => ({
    ...m,
    marks: [...m.marks, { ...flush, file, offset, id, at: now.toISOString(), sessionKey }].slice(-20),
  }));
  // The flush run's conversation is the session's: it fills what the session's trail missed.
  const trail: Trail | null =
    target !== null
      ? trailForDraft(target.trail, messages, now.toISOString(), { workspaceDir: ws.dir })
      : messages !== undefined && messages.length > 0
        ? trailFromMessages(messages, now.toISOString(), { workspaceDir: ws.dir })
        : null;
  const draft = trail !== null && draftHasSubstance(trail) ? draftSnapshot(trail) : null;
  return flushPrompt({
    file,
    id,
    timestamp: at.iso,
    clock: at.clock,
    draft,
    session: sessionKey,
    agent: flush.agentId ?? target?.agentId ?? null,
  });
}

/**
 * Takes the flush marks left for a session (those its flush run named it in, those of its agent that named no
 * session; recent ones only): whether a flush ran, and the newest valid snapshot appended after them. Marks
 * are consumed either way (fsynced behind with `durable: false`), stale ones dropped; none: nothing written.
 */
export async function takeFlush(
  ws: Workspace,
  ref: SessionRef,
  now: Date,
  opts: { durable?: boolean } = {},
): Promise<FlushClaim> {
  const fresh = (at: string) => now.getTime() - Date.parse(at) < FLUSH_MARK_TTL_MS;
  const mine = (x: FlushMarks["marks"][number]) =>
    fresh(x.at) && (x.sessionKey === ref.sessionKey || (x.sessionKey === null && x.agentId === ref.agentId));
  const marks = ws.flushMarks();
  // Asked at every compaction: while the file is unchanged, its last read answers (one stat).
  if (!(await marks.readCached()).marks.some((x) => mine(x) || !fresh(x.at)))
    return { ran: false, snapshot: null };
  let taken: { file: string; offset: number }[] = [];
  const take = (m: FlushMarks): FlushMarks => {
    taken = m.marks.filter(mine);
    return { ...m, marks: m.marks.filter((x) => !mine(x) && fresh(x.at)) };
  };
  await marks.update(take, opts);
  let newest: LocatedSnapshot | null = null;
  for (const mark of taken) {
    for (const s of await ws.snapshotsSince(mark.file, mark.offset)) newest = s;
  }
  return { ran: taken.length > 0, snapshot: newest };
}

/** The newest snapshot a flush run appended for the session (see {@link takeFlush}), or null. */
export async function claimFlush(ws: Workspace, ref: SessionRef, now: Date): Promise<LocatedSnapshot | null> {
  return (await takeFlush(ws, ref, now)).snapshot;
}

/** What the flush run did for the cycle: whether it ran, and the block it wrote (claimed for the session), or null. */
export interface FlushClaim {
  ran: boolean;
  snapshot: LocatedSnapshot | null;
}

/**
 * The block the flush run wrote, if any, attributed to the session: the model's block stays as written; when
 * it does not name this session exactly, a claim does. Runs before the session's update (under the marks' lock).
 */
export async function claimCycleFlush(ws: Workspace, ref: SessionRef, now: Date, durable = true) {
  const { ran, snapshot: claimed } = await takeFlush(ws, ref, now, { durable });
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
  return { ran, snapshot: claimed };
}

/**
 * Inside the session's update: makes sure the state has a snapshot covering the current cycle: the
 * block the flush run wrote (`claimed`), else one already written since the last compaction, else a
 * draft from the trail with what the hook's `messages` show and the trail missed filled in
 * (`trailForDraft`), written with `trigger`.
 */
export async function coverCycle(
  ws: Workspace,
  ref: SessionRef,
  s: SessionState,
  trigger: CoverTrigger,
  opts: { now: Date; safetyNet: boolean; messages?: unknown[]; claimed: FlushClaim | null },
): Promise<{ state: SessionState; capture: CycleCapture }> {
  const at = opts.now.toISOString();
  const claimed = opts.claimed?.snapshot ?? null;
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
  const trail = trailForDraft(s.trail, opts.messages, at, { workspaceDir: ws.dir });
  if (!draftHasSubstance(trail)) return none;
  const content = draftSnapshot(trail);
  // Two cycles in one turn (a flush, then the compaction) draft the same content: the first one covers both.
  const hash = createHash("sha256").update(JSON.stringify(content)).digest("hex").slice(0, 32);
  const twin = s.lastDraft !== null && s.lastDraft.hash === hash ? s.lastDraft : null;
  if (twin !== null && s.snapshots.some((x) => x.id === twin.id)) {
    return {
      state: withCapture(s, { id: twin.id, file: twin.file, trigger, at }),
      capture: { id: twin.id, file: twin.file, source: "existing" },
    };
  }
  const saved = await ws.save(content, {
    trigger,
    session: ref.sessionKey,
    agent: ref.agentId,
    name: s.line?.name ?? null,
    parent: s.line?.parent ?? null,
  });
  return {
    state: {
      ...withCapture(s, { id: saved.id, file: saved.file, trigger, at }),
      lastDraft: { hash, id: saved.id, file: saved.file },
    },
    capture: { id: saved.id, file: saved.file, source: "safety-net" },
  };
}

/**
 * Moves the session's compaction cycle by one hook event (see cycle.ts): the flush run's block claimed
 * first (under the flush marks' lock), then one locked update of the session's state that applies the cover
 * effect (at most one block appended, durably, with its journal copy) and appends the cycle's ledger facts
 * (no fsync of their own). Returns what covered the cycle, or null when the event needed no cover.
 *
 * `onCaptured` runs once the block and the ledger facts are written, before the new state is: a hook that
 * returns then (before_compaction) leaves the state's write to finish behind, still under the session's
 * lock, so no other process reads and rewrites the state in between, and this process's next read of the
 * session waits for it. At a {@link BEHIND} event the state and the flush marks are fsynced behind too: a
 * crash of the process loses neither the block nor the ledger line; a power cut in those milliseconds may
 * lose that compaction's restore, not its snapshot.
 */
export async function runCycle(
  ws: Workspace,
  ref: SessionRef,
  event: CycleHookEvent,
  opts: {
    now: Date;
    safetyNet: boolean;
    restore: boolean;
    messages?: unknown[] | undefined;
    onCaptured?: () => void;
  },
): Promise<CycleCapture | null> {
  const session = ws.session(ref.sessionKey, ref.agentId);
  const durable = !BEHIND.includes(event.type);
  const claims = claimsFlush(await session.read(), event);
  const claimed = claims ? await claimCycleFlush(ws, ref, opts.now, durable) : null;
  let covered: CycleCapture | null = null;
  // Apply each effect and feed its outcome back, until the cycle asks for nothing more.
  const apply = async (s: SessionState): Promise<SessionState> => {
    const facts: LedgerFact[] = [];
    let { state, effects } = cycleStep(s, event);
    const pending = [...effects];
    for (let effect = pending.shift(); effect !== undefined; effect = pending.shift()) {
      if (effect.type === "record") {
        facts.push(effect.fact);
        continue;
      }
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
        flushRan: claimed?.ran ?? false,
      }));
      pending.push(...effects);
    }
    // The session as the hook names it; on record before the state is written (see onCaptured).
    if (facts.length > 0) await ws.recordLedger(facts.map((f) => ({ ...f, session: ref.sessionKey })));
    if (opts.onCaptured !== undefined) {
      opts.onCaptured();
      // The hook's caller goes on first; the state's redaction and write follow in a later turn of the loop.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return state;
  };
  await session.update(apply, { durable });
  return covered;
}

/** Events whose state is fsynced behind: a before_compaction (awaited; what its state holds is restored later). */
export const BEHIND: readonly CycleHookEvent["type"][] = ["before-compaction"];
