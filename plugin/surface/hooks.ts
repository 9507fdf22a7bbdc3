import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { detectAmnesia } from "../capture/amnesia.ts";
import { restoreNotice } from "../recover/inject.ts";
import {
  beginTurn,
  endTurn,
  newProviderMarks,
  observe,
  prepareFlush,
  requeueRestore,
  runCycle,
  type SessionRef,
  seenCount,
} from "../session/capture-service.ts";
import {
  countConversation,
  providerMarkOf,
  providerMarks,
  showsCompaction,
} from "../session/conversation.ts";
import type { CycleCapture, CycleHookEvent } from "../session/cycle.ts";
import { adoptLostCycle } from "../session/cycle-adopt.ts";
import { flushTarget } from "../session/flush-target.ts";
import { latestOfSession, restoreFor } from "../session/restore-service.ts";
import type { PendingRestore } from "../session/session-state.ts";
import type { Workspace } from "../session/workspace.ts";
import { createConsentCheck } from "./consent.ts";
import {
  agentOfSessionKey,
  isInternalSessionKey,
  type SurfaceDeps,
  warnOnce,
  workspaceOf,
} from "./context.ts";
import { contextUse, lastCallUsage } from "./hook-usage.ts";
import { restoreReceipt } from "./restore-words.ts";

/**
 * The hook adapters: each one reads what it needs from the event and context, calls the capture or
 * restore services, and fails open (one warn line, no throw, no return value).
 */

type Ctx = {
  sessionKey?: string;
  agentId?: string;
  workspaceDir?: string;
  trigger?: string;
  sessionId?: string;
};

function refOf(ctx: Ctx): SessionRef | null {
  if (ctx.sessionKey === undefined || ctx.sessionKey === "" || isInternalSessionKey(ctx.sessionKey))
    return null;
  return { sessionKey: ctx.sessionKey, agentId: ctx.agentId ?? agentOfSessionKey(ctx.sessionKey) ?? null };
}

/** What the user typed this turn, without OpenClaw's internal context. */
function userText(event: { prompt?: string; currentUserMessage?: string }): string {
  const text = event.currentUserMessage ?? event.prompt ?? "";
  const cut = text.indexOf("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT");
  return (cut >= 0 ? text.slice(0, cut) : text).trim();
}

/** What the registered hooks offer the plugin's service. */
export interface HookWork {
  idle(): Promise<void>;
}

/** Registers every hook big-memory uses. Nothing here touches the disk at registration. */
export function registerHooks(api: OpenClawPluginApi, deps: SurfaceDeps): HookWork {
  const { config } = deps;
  /** Moves the session's compaction cycle by one hook event; a reset or rollover restores per `restore.afterReset`. */
  const moveCycle = async (
    ws: Workspace,
    ref: SessionRef,
    now: Date,
    event: CycleHookEvent,
    messages?: unknown[],
    onCaptured?: () => void,
  ): Promise<CycleCapture | null> => {
    const restore =
      event.type === "before-reset" ? config.restore.afterReset : config.restore.afterCompaction;
    return runCycle(ws, ref, event, {
      now,
      safetyNet: config.capture.safetyNet,
      restore,
      messages,
      ...(onCaptured === undefined ? {} : { onCaptured }),
    });
  };
  /**
   * Which path a compaction hook comes from, as far as its payload tells: an engine that owns compaction
   * sends `messageCount: -1`, the runtime's auto-compaction a context with only the session key, a
   * compaction inside an open turn is an overflow; the rest is manual (or a preflight, once its flush is
   * known: see cycle.ts).
   */
  const compactionPath = async (
    ws: Workspace,
    ref: SessionRef,
    event: { messageCount?: number },
    ctx: Ctx,
  ): Promise<"engine" | "runtime" | "overflow" | "manual"> => {
    if (event.messageCount === -1) return "engine";
    if (ctx.agentId === undefined && ctx.workspaceDir === undefined) return "runtime";
    return (await ws.session(ref.sessionKey, ref.agentId).read()).turnOpen ? "overflow" : "manual";
  };
  /**
   * A provider compaction (a marker not handled before): captured from the trail now and restored once,
   * at the next turn. Nothing else announces it: no flush, no compaction hook. The markers are taken in the
   * update that settles the cycle, so a turn's two sightings (its answer, its end) capture once, and a process
   * that exits before the snapshot is written leaves them for the next turn to capture.
   */
  const providerCompacted = async (ws: Workspace, ref: SessionRef, now: Date, marks: string[]) => {
    if (marks.length === 0) return;
    const covered = await moveCycle(ws, ref, now, {
      type: "noticed",
      path: "provider",
      at: now.toISOString(),
      marks,
    });
    if (covered === null) return;
    deps.logger.info?.(
      `big-memory: the provider compacted ${ref.sessionKey}'s context: snapshot taken, restore queued`,
    );
  };
  /** Runs `fn` for a real (not internal) session of an enabled plugin; fails open with one warning. */
  const guarded = async <T>(
    hook: string,
    ctx: Ctx,
    fn: (ws: Workspace, ref: SessionRef, now: Date) => Promise<T>,
  ): Promise<T | undefined> => {
    if (!config.enabled) return undefined;
    try {
      const ref = refOf(ctx);
      return ref === null
        ? undefined
        : await fn(deps.workspaces.get(workspaceOf(deps, ctx)), ref, deps.now());
    } catch (error) {
      warnOnce(deps, hook, error);
      return undefined;
    }
  };

  /**
   * Cycle work (reset, compaction) still running, per session. OpenClaw fires `before_reset` without
   * awaiting it (`sessions.reset` answers first), so the next user turn can begin while the reset's snapshot
   * and restore are being written: that turn waits for them rather than miss the restore.
   */
  const cycleWork = new Map<string, Promise<unknown>>();
  /** The sessions (per workspace) whose ledger was looked at for a cycle their state missed. */
  const ledgerChecked = new Set<string>();
  /** Every hook's work still running, so the plugin's service can let it finish before the process ends. */
  const inFlight = new Set<Promise<unknown>>();
  const tracked = <T>(
    hook: string,
    ctx: Ctx,
    fn: (ws: Workspace, ref: SessionRef, now: Date) => Promise<T>,
  ): Promise<T | undefined> => {
    const run = guarded(hook, ctx, fn);
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
    const key = ctx.sessionKey;
    if (key !== undefined) {
      // Work already running for the session is still waited for (`guarded` never rejects).
      const before = cycleWork.get(key);
      const all = before === undefined ? run : Promise.all([before, run]);
      cycleWork.set(key, all);
      void all.finally(() => {
        if (cycleWork.get(key) === all) cycleWork.delete(key);
      });
    }
    return run;
  };

  /**
   * What the turn's conversation shows that no hook said: whether an open compaction (a before with no after)
   * happened, a transcript trimmed with no hook (fewer user turns than the last turn saw), a provider
   * compaction marker not handled yet. Each is moved through the cycle before the turn takes its restores.
   */
  const noticeInConversation = async (ws: Workspace, ref: SessionRef, now: Date, messages: unknown[]) => {
    const state = await ws.session(ref.sessionKey, ref.agentId).read();
    const count = countConversation(messages);
    const seen = seenCount(state);
    const at = now.toISOString();
    // Nothing counted before and nothing handed now: no evidence either way, the compaction stays open.
    if (state.cycle.compacting && seen === null && messages.length === 0) return;
    if (state.cycle.compacting) {
      await moveCycle(ws, ref, now, {
        type: "turn",
        at,
        compacted: showsCompaction(count, seen, messages[0]),
      });
    } else if (seen !== null && count.asks < seen.asks && count.summaries === 0) {
      // Only an uncompacted conversation tells a trim: once a summary stands in it, the view OpenClaw
      // hands a turn may hold fewer user turns than the transcript an earlier hook counted.
      await moveCycle(ws, ref, now, { type: "noticed", path: "trim", at });
      deps.logger.info?.(
        `big-memory: ${ref.sessionKey}'s transcript holds ${count.asks} user turns where the last turn saw ${seen.asks}, with no compaction hook: snapshot taken, restore queued`,
      );
    }
    await providerCompacted(ws, ref, now, newProviderMarks(state, providerMarks(messages)));
  };

  /** The gateway log's one line for every restore, whatever its reason: which snapshot, why, its tokens. */
  const receipt = (
    s: { id: string; timestamp: string; goal: string },
    ref: SessionRef,
    why: string,
    n: number,
  ) => deps.logger.info?.(restoreReceipt(restoreNotice(s), why, n, ref.sessionKey));

  /** The smallest remaining budget, in tokens, worth a second restore in the same turn. */
  const SECOND_RESTORE_MIN_TOKENS = 300;

  /**
   * Puts the turn's pending restores in front of the model: the first (the user's own when there is one)
   * with the whole budget, the next with it when what is left of the budget holds it, else at the next
   * turn. Each delivery is logged (restore log, and the ledger for a compaction's). Null when nothing was.
   */
  const deliver = async (
    ws: Workspace,
    ref: SessionRef,
    now: Date,
    pending: PendingRestore[],
  ): Promise<string | null> => {
    let budget = config.restore.tokenBudget;
    const texts: string[] = [];
    for (const p of pending) {
      const located = await ws.snapshotIn(p.file, p.id);
      if (located === null) continue;
      if (texts.length > 0 && budget < SECOND_RESTORE_MIN_TOKENS) {
        await requeueRestore(ws, ref, p);
        continue;
      }
      const restored = await restoreFor(ws, located, p.reason, { tokenBudget: budget });
      texts.push(restored.text);
      budget -= restored.tokens;
      await ws.logRestore({
        at: now.toISOString(),
        id: p.id,
        session: ref.sessionKey,
        reason: p.reason,
        tokens: restored.tokens,
      });
      if (p.cycle !== undefined) {
        await ws.recordLedger([
          {
            kind: "restore",
            cycle: p.cycle,
            session: ref.sessionKey,
            at: now.toISOString(),
            snapshot: p.id,
            tokens: restored.tokens,
          },
        ]);
      }
      receipt(located.snapshot, ref, p.reason, restored.tokens);
    }
    return texts.length === 0 ? null : texts.join("\n\n");
  };

  api.on("before_prompt_build", async (event, ctx) => {
    if (ctx.trigger === "memory") {
      if (!config.enabled || !config.capture.flushPrompt) return;
      try {
        const ws = deps.workspaces.get(workspaceOf(deps, ctx));
        const agentId = ctx.agentId ?? agentOfSessionKey(ctx.sessionKey) ?? null;
        const flush = { agentId, flushSessionKey: ctx.sessionKey ?? null };
        // The flush runs on a view of its session's conversation: that, not file times, names the session.
        const messages = Array.isArray(event.messages) ? (event.messages as unknown[]) : undefined;
        const target = await flushTarget(ws, agentId, messages);
        return {
          prependContext: await prepareFlush(ws, flush, target, deps.now(), config.timeZone, messages),
        };
      } catch (error) {
        warnOnce(deps, "before_prompt_build", error);
        return;
      }
    }
    if (ctx.trigger !== undefined && ctx.trigger !== "user") return;
    // `guarded` never rejects: a failed reset or compaction has already said so.
    if (ctx.sessionKey !== undefined) await cycleWork.get(ctx.sessionKey);
    return guarded("before_prompt_build", ctx, async (ws, ref, now) => {
      const ask = userText(event);
      // A compaction a killed process left in the ledger only (cycle-adopt.ts): looked for once per session.
      const seenKey = `${ws.dir}\u0000${ref.sessionKey}`;
      if (!ledgerChecked.has(seenKey)) {
        ledgerChecked.add(seenKey);
        await adoptLostCycle(ws, ref, config.restore.afterCompaction);
      }
      if (Array.isArray(event.messages))
        await noticeInConversation(ws, ref, now, event.messages as unknown[]);
      // One locked update per turn: record the ask and take the pending restores together.
      const { state, pending } = await beginTurn(ws, ref, ask, now);
      const delivered = await deliver(ws, ref, now, pending);
      if (delivered !== null) return { prependContext: delivered };
      if (
        !config.restore.onAmnesia ||
        ask === "" ||
        detectAmnesia(ask, config.restore.amnesiaPhrases) === null
      )
        return undefined;
      const latest = await latestOfSession(ws, state, { retentionDays: config.retentionDays, now });
      if (latest === null) return undefined;
      const restored = await restoreFor(ws, latest, "amnesia", { tokenBudget: config.restore.tokenBudget });
      await ws.logRestore({
        at: now.toISOString(),
        id: latest.snapshot.id,
        session: ref.sessionKey,
        reason: "amnesia",
        tokens: restored.tokens,
      });
      receipt(latest.snapshot, ref, "amnesia", restored.tokens);
      return { prependContext: restored.text };
    });
  });

  api.on("after_tool_call", (event, ctx) =>
    guarded("after_tool_call", ctx, async (ws, ref, now) => {
      observe(ws, ref, {
        type: "tool",
        tool: event.toolName,
        params: event.params,
        ...(event.error === undefined ? {} : { error: event.error }),
        ...(event.result === undefined ? {} : { result: event.result }),
        ...(event.durationMs === undefined ? {} : { durationMs: event.durationMs }),
        at: now.toISOString(),
      });
    }),
  );

  api.on("llm_output", (event, ctx) => {
    if (ctx.trigger !== undefined && ctx.trigger !== "user") return;
    return guarded("llm_output", ctx, async (ws, ref, now) => {
      if (event.assistantTexts.length > 0)
        observe(ws, ref, { type: "assistant", texts: event.assistantTexts, at: now.toISOString() });
      // A provider that compacted inside this request marks the answer: the first sign, and the surest.
      // Tracked: OpenClaw does not await this hook, and the next turn waits for the capture.
      const mark = providerMarkOf(event.lastAssistant);
      if (mark !== null)
        // The cycle's update skips a marker already taken: no read of the state first.
        await tracked("llm_output", ctx, (w, r, at) => providerCompacted(w, r, at, [mark]));
      // event.usage sums every model call of the run; the last call's usage is the context in use.
      const use = contextUse(
        lastCallUsage(event.lastAssistant) ?? event.usage,
        event.contextTokenBudget ?? ctx.contextTokenBudget,
      );
      if (use === null) return;
      const state = await ws.session(ref.sessionKey, ref.agentId).read();
      const crossed = config.capture.thresholds.filter(
        (t) => use >= t && !state.cycle.thresholds.includes(t),
      );
      if (crossed.length === 0) return;
      const covered = await runCycle(
        ws,
        ref,
        { type: "thresholds", crossed, at: now.toISOString() },
        {
          now,
          safetyNet: true,
          restore: false,
        },
      );
      const id = covered === null || covered.source === "none" ? null : covered.id;
      deps.logger.info?.(
        `big-memory: context at ${Math.round(use * 100)}% of the window (threshold ${crossed.join(", ")}): ${id === null ? "nothing observed to autosave" : `autosaved snapshot ${id}`}`,
      );
    });
  });

  // The turn is over: what it observed is written now (an `openclaw agent --local` process exits next).
  // OpenClaw fires this for every attempt of a run and does not await it: a failed attempt is retried with
  // the same ask, so its conversation is not counted (the retry's would look trimmed), and the retry's
  // before_prompt_build waits for this work.
  api.on("agent_end", (event, ctx) =>
    tracked("agent_end", ctx, async (ws, ref, now) => {
      const messages = Array.isArray(event.messages) ? (event.messages as unknown[]) : undefined;
      const settled = event.success !== false;
      await providerCompacted(ws, ref, now, await endTurn(ws, ref, messages, settled));
      await ws.session(ref.sessionKey, ref.agentId).flush();
    }),
  );

  // OpenClaw waits for this hook before it compacts: it returns once the snapshot is durable in the daily log
  // (and its journal) and the ledger holds the cycle; the session's state is written behind (runCycle).
  api.on("before_compaction", (event, ctx) => {
    let captured = () => {};
    const written = new Promise<void>((resolve) => {
      captured = resolve;
    });
    const run = tracked("before_compaction", ctx, async (ws, ref, now) => {
      const path = await compactionPath(ws, ref, event, ctx);
      await moveCycle(
        ws,
        ref,
        now,
        { type: "before-compaction", path, at: now.toISOString() },
        event.messages,
        captured,
      );
    });
    return Promise.race([written, run]).then(() => undefined);
  });

  const checkConsent = createConsentCheck(deps);
  api.on("after_compaction", (event, ctx) =>
    tracked("after_compaction", ctx, async (ws, ref, now) => {
      const path = await compactionPath(ws, ref, event, ctx);
      await moveCycle(ws, ref, now, { type: "after-compaction", path, at: now.toISOString() });
      // Compaction hooks are not gated: say once when the hooks a restore needs never arrived.
      await checkConsent(ws, ref);
    }),
  );

  api.on("before_reset", (event, ctx) =>
    tracked("before_reset", ctx, async (ws, ref, now) => {
      await moveCycle(
        ws,
        ref,
        now,
        { type: "before-reset", path: "reset", at: now.toISOString() },
        event.messages,
      );
    }),
  );

  // A daily or idle rollover ends the session with no before_reset: captured the same way, and restored at
  // the first user turn of the session that follows under the same key.
  api.on("session_end", (event, ctx) => {
    if (event.reason !== "daily" && event.reason !== "idle") return;
    const key = ctx.sessionKey ?? event.sessionKey;
    return tracked(
      "session_end",
      { ...ctx, ...(key === undefined ? {} : { sessionKey: key }) },
      async (ws, ref, now) => {
        await moveCycle(ws, ref, now, { type: "before-reset", path: "rollover", at: now.toISOString() });
      },
    );
  });

  return {
    /** Waits for the hooks' work still running (OpenClaw does not await every hook) to finish. */
    idle: async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
