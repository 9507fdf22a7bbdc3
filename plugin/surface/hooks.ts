import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { detectAmnesia } from "../capture/amnesia.ts";
import { restoreNotice } from "../recover/inject.ts";
import {
  beginTurn,
  flushTarget,
  observe,
  prepareFlush,
  runCycle,
  type SessionRef,
} from "../session/capture-service.ts";
import { latestOfSession, restoreFor } from "../session/restore-service.ts";
import type { Workspace } from "../session/workspace.ts";
import { createConsentCheck } from "./consent.ts";
import {
  agentOfSessionKey,
  isInternalSessionKey,
  type SurfaceDeps,
  warnOnce,
  workspaceOf,
} from "./context.ts";

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

/**
 * The fraction of the context window in use after a model call: prompt (with cache reads and
 * writes) plus the output that joins the context, over the budget OpenClaw reports. Null when either
 * is unknown.
 */
export function contextUse(
  usage: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } | undefined,
  budget: number | undefined,
): number | null {
  if (usage === undefined || budget === undefined || budget <= 0) return null;
  const used = (usage.input ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0) + (usage.output ?? 0);
  return used > 0 ? used / budget : null;
}

/** The usage of the run's last model call (`llm_output.lastAssistant.usage`), or undefined. */
export function lastCallUsage(
  lastAssistant: unknown,
): { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } | undefined {
  if (typeof lastAssistant !== "object" || lastAssistant === null) return undefined;
  const usage: unknown = Reflect.get(lastAssistant, "usage");
  if (typeof usage !== "object" || usage === null) return undefined;
  const out: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } = {};
  for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) {
    const v: unknown = Reflect.get(usage, key);
    if (typeof v === "number" && Number.isFinite(v)) out[key] = v;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** What the user typed this turn, without OpenClaw's internal context. */
function userText(event: { prompt?: string; currentUserMessage?: string }): string {
  const text = event.currentUserMessage ?? event.prompt ?? "";
  const cut = text.indexOf("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT");
  return (cut >= 0 ? text.slice(0, cut) : text).trim();
}

/** Registers every hook big-memory uses. Nothing here touches the disk at registration. */
export function registerHooks(api: OpenClawPluginApi, deps: SurfaceDeps): void {
  const { config } = deps;
  /** Moves the session's compaction cycle by one hook event; a reset restores per `restore.afterReset`. */
  const moveCycle = async (
    ws: Workspace,
    ref: SessionRef,
    now: Date,
    type: "before-compaction" | "after-compaction" | "before-reset",
    messages?: unknown[],
  ): Promise<void> => {
    const restore = type === "before-reset" ? config.restore.afterReset : config.restore.afterCompaction;
    await runCycle(
      ws,
      ref,
      { type, at: now.toISOString() },
      { now, safetyNet: config.capture.safetyNet, restore, messages },
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
  const tracked = <T>(
    hook: string,
    ctx: Ctx,
    fn: (ws: Workspace, ref: SessionRef, now: Date) => Promise<T>,
  ): Promise<T | undefined> => {
    const run = guarded(hook, ctx, fn);
    const key = ctx.sessionKey;
    if (key !== undefined) {
      cycleWork.set(key, run);
      void run.finally(() => {
        if (cycleWork.get(key) === run) cycleWork.delete(key);
      });
    }
    return run;
  };

  api.on("before_prompt_build", async (event, ctx) => {
    if (ctx.trigger === "memory") {
      if (!config.enabled || !config.capture.flushPrompt) return;
      try {
        const ws = deps.workspaces.get(workspaceOf(deps, ctx));
        const agentId = ctx.agentId ?? agentOfSessionKey(ctx.sessionKey) ?? null;
        const flush = { agentId, flushSessionKey: ctx.sessionKey ?? null };
        const target = await flushTarget(ws, agentId);
        return { prependContext: await prepareFlush(ws, flush, target, deps.now(), config.timeZone) };
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
      // One locked update per turn: record the ask and take the pending restore together.
      const { state, pending } = await beginTurn(ws, ref, ask, now);
      const located = pending === null ? null : await ws.snapshotIn(pending.file, pending.id);
      if (pending !== null && located !== null) {
        const restored = await restoreFor(ws, located, pending.reason, {
          tokenBudget: config.restore.tokenBudget,
        });
        await ws.logRestore({
          at: now.toISOString(),
          id: pending.id,
          session: ref.sessionKey,
          reason: pending.reason,
          tokens: restored.tokens,
        });
        deps.logger.info?.(
          `big-memory: ${restoreNotice({ id: located.snapshot.id, timestamp: located.snapshot.timestamp, goal: located.snapshot.goal })}`,
        );
        return { prependContext: restored.text };
      }
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
  api.on("agent_end", (_event, ctx) =>
    guarded("agent_end", ctx, (ws, ref) => ws.session(ref.sessionKey, ref.agentId).flush()),
  );

  api.on("before_compaction", (event, ctx) =>
    tracked("before_compaction", ctx, (ws, ref, now) =>
      moveCycle(ws, ref, now, "before-compaction", event.messages),
    ),
  );

  const checkConsent = createConsentCheck(deps);
  api.on("after_compaction", (_event, ctx) =>
    tracked("after_compaction", ctx, async (ws, ref, now) => {
      await moveCycle(ws, ref, now, "after-compaction");
      // Compaction hooks are not gated: say once when the hooks a restore needs never arrived.
      await checkConsent(ws, ref);
    }),
  );

  api.on("before_reset", (event, ctx) =>
    tracked("before_reset", ctx, (ws, ref, now) => moveCycle(ws, ref, now, "before-reset", event.messages)),
  );
}
