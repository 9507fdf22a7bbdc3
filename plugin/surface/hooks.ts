import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import {
  beginTurn,
  ensureCycleSnapshot,
  observe,
  prepareFlush,
  type SessionRef,
} from "../capture/capture-service.ts";
import { emptyTrail } from "../capture/trail.ts";
import { restoreNotice } from "../recover/inject.ts";
import { latestOfSession, restoreFor, withPendingRestore } from "../recover/restore-service.ts";
import { detectAmnesia } from "../recover/triggers.ts";
import { SessionState } from "../store/session-state.ts";
import type { Workspace } from "../workspace.ts";
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

/** The real session a flush run works for: the most recently active session state of its agent. */
async function flushTarget(ws: Workspace, agentId: string | null): Promise<SessionState | null> {
  const dir = join(ws.stateDir, "sessions");
  const names = await readdir(dir).catch(() => [] as string[]);
  const prefix = agentId === null ? "" : `agent-${agentId.replace(/[^a-zA-Z0-9_-]+/g, "-")}-`;
  const candidates = await Promise.all(
    names
      .filter((n) => n.endsWith(".json") && n.startsWith(prefix))
      .map(async (n) => ({ n, mtime: (await stat(join(dir, n)).catch(() => null))?.mtimeMs ?? 0 })),
  );
  const newest = candidates.sort((a, b) => b.mtime - a.mtime)[0];
  if (newest === undefined) return null;
  const parsed = SessionState.safeParse(
    JSON.parse(await readFile(join(dir, newest.n), "utf8").catch(() => "null")),
  );
  return parsed.success ? parsed.data : null;
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

/** What the user typed this turn, without OpenClaw's internal context. */
function userText(event: { prompt?: string; currentUserMessage?: string }): string {
  const text = event.currentUserMessage ?? event.prompt ?? "";
  const cut = text.indexOf("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT");
  return (cut >= 0 ? text.slice(0, cut) : text).trim();
}

/** Registers every hook big-memory uses. Nothing here touches the disk at registration. */
export function registerHooks(api: OpenClawPluginApi, deps: SurfaceDeps): void {
  const { config } = deps;
  const wsOf = (ctx: Ctx) => deps.workspaces.get(workspaceOf(deps, ctx));

  api.on("before_prompt_build", async (event, ctx) => {
    if (!config.enabled) return;
    try {
      const ws = wsOf(ctx);
      const now = deps.now();
      if (ctx.trigger === "memory") {
        if (!config.capture.flushPrompt) return;
        const agentId = ctx.agentId ?? agentOfSessionKey(ctx.sessionKey) ?? null;
        const target = await flushTarget(ws, agentId);
        const prependContext = await prepareFlush(
          ws,
          { agentId, flushSessionKey: ctx.sessionKey ?? null },
          target,
          now,
          config.timeZone,
        );
        return { prependContext };
      }
      if (ctx.trigger !== undefined && ctx.trigger !== "user") return;
      const ref = refOf(ctx);
      if (ref === null) return;
      const ask = userText(event);
      // One locked update per turn: record the ask and take the pending restore together.
      const { state, pending } = await beginTurn(ws, ref, ask, now);
      if (pending !== null) {
        const located = await ws.snapshotIn(pending.file, pending.id);
        if (located !== null) {
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
      }
      if (!config.restore.onAmnesia || ask === "") return;
      const amnesia = detectAmnesia(ask, config.restore.amnesiaPhrases);
      if (amnesia === null) return;
      const latest = await latestOfSession(ws, state, { retentionDays: config.retentionDays, now });
      if (latest === null) return;
      const restored = await restoreFor(ws, latest, "amnesia", { tokenBudget: config.restore.tokenBudget });
      await ws.logRestore({
        at: now.toISOString(),
        id: latest.snapshot.id,
        session: ref.sessionKey,
        reason: "amnesia",
        tokens: restored.tokens,
      });
      return { prependContext: restored.text };
    } catch (error) {
      warnOnce(deps, "before_prompt_build", error);
      return;
    }
  });

  api.on("after_tool_call", async (event, ctx) => {
    if (!config.enabled) return;
    try {
      const ref = refOf(ctx);
      if (ref === null) return;
      await observe(wsOf(ctx), ref, {
        type: "tool",
        tool: event.toolName,
        params: event.params,
        ...(event.error === undefined ? {} : { error: event.error }),
        ...(event.result === undefined ? {} : { result: event.result }),
        ...(event.durationMs === undefined ? {} : { durationMs: event.durationMs }),
        at: deps.now().toISOString(),
      });
    } catch (error) {
      warnOnce(deps, "after_tool_call", error);
    }
  });

  api.on("llm_output", async (event, ctx) => {
    if (!config.enabled || (ctx.trigger !== undefined && ctx.trigger !== "user")) return;
    try {
      const ref = refOf(ctx);
      if (ref === null) return;
      const ws = wsOf(ctx);
      const now = deps.now();
      const state =
        event.assistantTexts.length === 0
          ? await ws.session(ref.sessionKey, ref.agentId).read()
          : await observe(ws, ref, { type: "assistant", texts: event.assistantTexts, at: now.toISOString() });
      const use = contextUse(event.usage, event.contextTokenBudget ?? ctx.contextTokenBudget);
      const crossed = config.capture.thresholds.filter(
        (t) => use !== null && use >= t && !state.cycle.thresholds.includes(t),
      );
      if (crossed.length === 0 || use === null) return;
      const { capture } = await ensureCycleSnapshot(ws, ref, "threshold", { now, safetyNet: true });
      await ws.session(ref.sessionKey, ref.agentId).update((s) => ({
        ...s,
        cycle: { ...s.cycle, thresholds: [...new Set([...s.cycle.thresholds, ...crossed])] },
      }));
      deps.logger.info?.(
        `big-memory: context at ${Math.round(use * 100)}% of the window (threshold ${crossed.join(", ")}): ${capture.source === "none" ? "nothing observed to autosave" : `autosaved snapshot ${capture.id}`}`,
      );
    } catch (error) {
      warnOnce(deps, "llm_output", error);
    }
  });

  api.on("before_compaction", async (event, ctx) => {
    if (!config.enabled) return;
    try {
      const ref = refOf(ctx);
      if (ref === null) return;
      const ws = wsOf(ctx);
      const now = deps.now();
      const session = ws.session(ref.sessionKey, ref.agentId);
      // A before without an after: the previous cycle is over.
      await session.update((s) =>
        s.cycle.compacting
          ? { ...s, cycle: { n: s.cycle.n + 1, compacting: false, captured: null, thresholds: [] } }
          : s,
      );
      const { capture } = await ensureCycleSnapshot(ws, ref, "compaction", {
        now,
        safetyNet: config.capture.safetyNet,
        ...(event.messages === undefined ? {} : { messages: event.messages }),
      });
      await session.update((s) => {
        const marked = { ...s, cycle: { ...s.cycle, compacting: true } };
        return capture.source === "none" || !config.restore.afterCompaction
          ? marked
          : withPendingRestore(marked, capture, "compaction", now);
      });
    } catch (error) {
      warnOnce(deps, "before_compaction", error);
    }
  });

  api.on("after_compaction", async (_event, ctx) => {
    if (!config.enabled) return;
    try {
      const ref = refOf(ctx);
      if (ref === null) return;
      const ws = wsOf(ctx);
      const now = deps.now();
      const session = ws.session(ref.sessionKey, ref.agentId);
      const before = await session.read();
      let capture: { id: string; file: string } | null = null;
      if (!before.cycle.compacting) {
        // An after without a before: capture now, from the trail.
        const ensured = await ensureCycleSnapshot(ws, ref, "compaction", {
          now,
          safetyNet: config.capture.safetyNet,
        });
        if (ensured.capture.source !== "none") capture = ensured.capture;
      }
      await session.update((s) => {
        const queued =
          capture !== null && config.restore.afterCompaction
            ? withPendingRestore(s, capture, "compaction", now)
            : s;
        return {
          ...queued,
          cycle: { n: s.cycle.n + 1, compacting: false, captured: null, thresholds: [] },
          updatedAt: now.toISOString(),
        };
      });
    } catch (error) {
      warnOnce(deps, "after_compaction", error);
    }
  });

  api.on("before_reset", async (event, ctx) => {
    if (!config.enabled) return;
    try {
      const ref = refOf(ctx);
      if (ref === null) return;
      const ws = wsOf(ctx);
      const now = deps.now();
      const session = ws.session(ref.sessionKey, ref.agentId);
      const { capture } = await ensureCycleSnapshot(ws, ref, "reset", {
        now,
        safetyNet: config.capture.safetyNet,
        ...(event.messages === undefined ? {} : { messages: event.messages }),
      });
      await session.update((s) => {
        const fresh = {
          ...s,
          trail: emptyTrail(),
          cycle: { n: s.cycle.n + 1, compacting: false, captured: null, thresholds: [] },
        };
        return capture.source === "none" || !config.restore.afterReset
          ? fresh
          : withPendingRestore(fresh, capture, "reset", now);
      });
    } catch (error) {
      warnOnce(deps, "before_reset", error);
    }
  });
}
