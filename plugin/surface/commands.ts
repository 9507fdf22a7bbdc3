import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { draftHasSubstance, draftSnapshot } from "../capture/draft.ts";
import { neutralise } from "../recover/fence.ts";
import { staleWarnings } from "../recover/stale.ts";
import { cleanInline } from "../recover/tokens.ts";
import { recall, visibility } from "../session/recall.ts";
import { withCapture, withPendingRestore } from "../session/session-state.ts";
import { readRestoreLog } from "../session/state-files.ts";
import { echoed } from "../snapshot/echo.ts";
import { nameProblem } from "../snapshot/naming.ts";
import { relativeAge } from "../snapshot/time.ts";
import { doctorText, runDoctor } from "./cli-doctor.ts";
import { fields, oneLine, styleFor, table } from "./cli-text.ts";
import { agentOfSessionKey, type SurfaceDeps, warnOnce, workspaceOf } from "./context.ts";
import { configPath } from "./openclaw-paths.ts";
import { injectedTokens, reasonText, tokensText } from "./restore-words.ts";

/** How many snapshots `/big-memory list` shows, newest first. */
const CHAT_LIST = 10;

const record = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The usage text of `/big-memory`. */
export const COMMAND_USAGE = [
  "Usage: /big-memory [status | save [name] | recall [query|name|id] | list | search QUERY | resume NAME [--as NEW] | delete NAME | doctor | repair | help]",
  "  status          this session's snapshots, pending restore and last restore (default)",
  "  save [name]     save a snapshot now, drafted from this session's activity",
  "  recall [q]      show the latest snapshot, or one by name or id, or the best match for words",
  "  list            the most recent snapshots in this session's scope",
  "  search QUERY    find snapshots by identifiers, file names, error codes or phrases",
  "  resume NAME     restore a named checkpoint into the next turn; --as NEW branches a new line of work",
  "  delete NAME     stop offering a checkpoint (its history stays in the log)",
  "  doctor          check that capture and restore work here, with the fix for what does not",
  "  repair          append again the snapshots a daily log lost (from big-memory's journal); --dry-run",
  "  help            this text",
  "Slash commands run in chat (through the gateway); in a terminal use `big-memory` or `openclaw big-memory`.",
].join("\n");

interface CommandCtx {
  args?: string | undefined;
  sessionKey?: string | undefined;
  agentId?: string | undefined;
}

/**
 * Runs `/big-memory ARGS` for a chat session and returns the reply text. Snapshot text in the reply is
 * cleaned value by value, and the whole reply neutralised once more: no control, bidi or invisible
 * characters, and no `<` (or look-alike) that starts a `big-memory` tag. What the person typed is quoted
 * only through `echoed` (redacted, cleaned, cut), never verbatim.
 */
export async function runCommand(deps: SurfaceDeps, ctx: CommandCtx): Promise<string> {
  return neutralise(await answer(deps, ctx));
}

/** A snapshot value on one line, cleaned and cut to `max` characters. */
const shown = (value: string, max: number): string => oneLine(cleanInline(value), max);

async function answer(deps: SurfaceDeps, ctx: CommandCtx): Promise<string> {
  const [verb = "status", ...rest] = (ctx.args ?? "")
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
  const arg = rest.join(" ");
  const sessionKey = ctx.sessionKey ?? null;
  const agentId = ctx.agentId ?? agentOfSessionKey(ctx.sessionKey) ?? null;
  const ws = deps.workspaces.get(workspaceOf(deps, ctx));
  const now = deps.now();
  const base = {
    sessionKey,
    agentId,
    scope: deps.config.scope,
    tokenBudget: deps.config.restore.tokenBudget,
    retentionDays: deps.config.retentionDays,
    now,
  };

  switch (verb.toLowerCase()) {
    case "status":
      return sessionKey === null
        ? "big-memory: no session in this context."
        : await statusReply(ws, sessionKey, agentId, now);
    case "save": {
      if (sessionKey === null) return "big-memory: no session to save in this context.";
      if (arg !== "") {
        const problem = nameProblem(arg);
        if (problem !== null) return `big-memory: ${problem}`;
      }
      const session = ws.session(sessionKey, agentId);
      const state = await session.read();
      if (!draftHasSubstance(state.trail)) {
        return "big-memory: nothing observed in this session yet to save; ask the agent to save a snapshot with big_memory_save.";
      }
      const content = draftSnapshot(state.trail);
      const saved = await ws.save(content, {
        trigger: "manual",
        session: sessionKey,
        agent: agentId,
        name: arg === "" ? (state.line?.name ?? null) : arg,
        parent: arg === "" ? (state.line?.parent ?? null) : null,
      });
      await session.update((s) =>
        withCapture(s, { id: saved.id, file: saved.file, trigger: "manual", at: now.toISOString() }),
      );
      return `Saved snapshot ${saved.id}${arg === "" ? "" : ` ${echoed(arg)}`} to ${saved.file}:${saved.line}: ${shown(content.goal, 100)}`;
    }
    case "recall": {
      const byId = /^\d{4}-\d{2}-\d{2}-\d{2,}$/.test(arg);
      const named = !byId && /^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(arg) ? await ws.byName(arg) : null;
      const result = await recall(ws, {
        ...base,
        ...(byId ? { id: arg } : named !== null ? { name: arg } : arg === "" ? {} : { query: arg }),
      });
      return result.found ? result.reply : `big-memory: ${result.reply}`;
    }
    case "list": {
      const visible = await visibility(ws, base);
      const all = (await ws.liveRefs()).filter(visible);
      if (all.length === 0) return "big-memory: no snapshots yet in this scope.";
      const refs = all.slice(0, CHAT_LIST);
      return [
        table([
          ["ID", "AGE", "NAME", "GOAL"],
          ...refs.map((r) => [
            r.id,
            relativeAge(r.timestamp, now),
            r.name === null ? "-" : shown(r.name, 64),
            shown(r.goal, 70) || "(no goal)",
          ]),
        ]),
        ...(all.length > CHAT_LIST
          ? [`(the newest ${CHAT_LIST} of ${all.length}; \`big-memory list\` in a terminal shows more)`]
          : []),
      ].join("\n");
    }
    case "search": {
      if (arg === "") return `big-memory: search needs words to look for.\n${COMMAND_USAGE}`;
      const result = await recall(ws, { ...base, query: arg, limit: 5 });
      return result.found ? result.reply : `big-memory: ${result.reply}`;
    }
    case "resume": {
      if (sessionKey === null) return "big-memory: no session to resume into.";
      const m = /^(\S+)(?:\s+--as\s+(\S+))?$/.exec(arg);
      const [name, as] = [m?.[1], m?.[2]];
      if (name === undefined)
        return `big-memory: resume needs a checkpoint name, and optionally --as NEW-NAME.\n${COMMAND_USAGE}`;
      if (as !== undefined) {
        const problem = nameProblem(as);
        if (problem !== null) return `big-memory: ${problem}`;
      }
      const found = await ws.byName(name);
      if (found === null) return `big-memory: no checkpoint named ${echoed(name)}. Try /big-memory list.`;
      // The session takes the checkpoint's line of work when the restore is delivered, not now: what is
      // captured before that (a compaction in between) is not the checkpoint's. The restore log records the
      // delivery.
      const line = as === undefined ? { name, parent: null } : { name: as, parent: name };
      await ws.session(sessionKey, agentId).update((s) =>
        withPendingRestore(s, { id: found.snapshot.id, file: found.file }, "resume", now.toISOString(), {
          line,
        }),
      );
      const s = found.snapshot;
      const warnings = await staleWarnings(ws.dir, found);
      return [
        `Resuming: ${shown(s.goal, 100) || "(no goal)"}. Last progress: ${shown(s.state.progress, 200) || "unknown"}. Next action: ${shown(s.next[0] ?? "", 200) || "none recorded"}`,
        ...(as === undefined
          ? []
          : [`New snapshots of this session are saved as ${echoed(as)}, branched from ${echoed(name)}.`]),
        ...warnings.map((w) => `warning: ${shown(w, 300)}`),
      ].join("\n");
    }
    case "delete": {
      if (arg === "") return `big-memory: delete needs a checkpoint name.\n${COMMAND_USAGE}`;
      if ((await ws.byName(arg)) === null) return `big-memory: no checkpoint named ${echoed(arg)}.`;
      const saved = await ws.deleteName(arg, { session: sessionKey, agent: agentId });
      return `Deleted checkpoint ${echoed(arg)} (tombstone ${saved.id}); its history stays in ${saved.file}, and the name can be used again.`;
    }
    case "help":
      return COMMAND_USAGE;
    case "repair": {
      const { repair } = await import("../session/maintenance.ts");
      const { repairText } = await import("./cli-repair.ts");
      return repairText(await repair(ws.dir, { dryRun: arg === "--dry-run", now }));
    }
    case "doctor": {
      const paths = { env: deps.env, cwd: process.cwd() };
      const config = record(deps.openclawConfig);
      const report = await runDoctor({
        host: "openclaw",
        config: { path: configPath(paths), exists: true, config, problem: null, missingEnv: [] },
        agent: agentId,
        workspace: { dir: ws.dir, source: "this session's workspace" },
        paths,
        now,
      });
      return doctorText(report);
    }
    default:
      return `big-memory: unknown subcommand ${echoed(verb)}.\n${COMMAND_USAGE}`;
  }
}

/**
 * `/big-memory status`: this session's snapshots, compactions, pending and last restore, the tokens
 * restores injected, what was observed, as `label  value` lines in the words of `big-memory status`.
 */
async function statusReply(
  ws: ReturnType<SurfaceDeps["workspaces"]["get"]>,
  sessionKey: string,
  agentId: string | null,
  now: Date,
): Promise<string> {
  const s = await ws.session(sessionKey, agentId).read();
  const log = await readRestoreLog(ws.dir);
  const mine = injectedTokens(log.entries.filter((e) => e.session === sessionKey));
  const all = injectedTokens(log.entries);
  const last = s.snapshots[s.snapshots.length - 1];
  const r = s.lastRestore;
  const restoredTokens = r !== null && mine.last?.id === r.id ? mine.last.tokens : null;
  // The cycle is the time since the last compaction: what covers the next one, not the last.
  const next =
    s.cycle.captured === null
      ? "a snapshot will be taken before the next"
      : `the next is covered by ${s.cycle.captured}`;
  return [
    `big-memory for ${sessionKey}`,
    ...fields(
      [
        [
          "snapshots",
          `${s.snapshots.length} this session${last === undefined ? "" : `; last ${last.id} (${last.trigger}, ${relativeAge(last.at, now)})`}`,
        ],
        ["compactions", `${s.cycle.n === 0 ? "none seen yet" : `${s.cycle.n} seen`}; ${next}`],
        [
          "pending restore",
          s.pendingRestore === null
            ? "none"
            : [s.pendingRestore, ...s.queue].map((p) => `${p.id} (${reasonText(p.reason)})`).join(", then "),
        ],
        [
          "last restore",
          r === null
            ? "none"
            : `${r.id} ${reasonText(r.reason)}${restoredTokens === null ? "" : `, ${tokensText(restoredTokens)}`}, ${relativeAge(r.at, now)}`,
        ],
        [
          "tokens injected",
          `${tokensText(mine.total)} in this session, ${tokensText(all.total)} in this workspace`,
        ],
        [
          "observed",
          `${s.trail.turns} turns, ${s.trail.toolCalls} tool calls, ${s.trail.files.filter((f) => f.lastAction !== "mention").length} files`,
        ],
      ],
      PLAIN,
    ),
    ...(await journalLines(ws.dir)),
  ].join("\n");
}

/** The chat's text has no colours. */
const PLAIN = styleFor(false);

/** The chat status's lines about daily logs that lost big-memory's blocks (journal-view.ts), none when all is well. */
async function journalLines(workspaceDir: string): Promise<string[]> {
  const { journalSummary } = await import("./journal-view.ts");
  const { summary } = await journalSummary(workspaceDir);
  return summary.incidents.map(
    (i) => `daily log: ${i.message.replace("run big-memory repair", "run /big-memory repair")}`,
  );
}

/** Registers `/big-memory`. */
export function registerCommands(api: OpenClawPluginApi, deps: SurfaceDeps): void {
  api.registerCommand({
    name: "big-memory",
    description: "Task snapshots: status, save [name], recall, list, search, resume NAME, doctor, help.",
    acceptsArgs: true,
    handler: async (ctx) => {
      try {
        return { text: await runCommand(deps, ctx) };
      } catch (error) {
        warnOnce(deps, "/big-memory", error);
        return {
          text: neutralise(
            `big-memory: the command failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
        };
      }
    },
  });
}
