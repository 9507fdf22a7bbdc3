import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { z } from "zod";
import { estimateTokens } from "../recover/tokens.ts";
import { type RecallResult, recall } from "../session/recall.ts";
import { withCapture } from "../session/session-state.ts";
import { contentFromInput, formatIssues, SnapshotInput } from "../snapshot/input.ts";
import { nameProblem } from "../snapshot/naming.ts";
import { agentOfSessionKey, type SurfaceDeps, workspaceOf } from "./context.ts";
import { restoreReceipt } from "./restore-words.ts";

/** Tool names; every one is listed in the manifest's `contracts.tools` (a test checks it). */
export const TOOL_NAMES = ["big_memory_save", "big_memory_recall"] as const;

const SaveArgs = SnapshotInput.pick({
  goal: true,
  state: true,
  files: true,
  decisions: true,
  code: true,
  names: true,
  blockers: true,
  next: true,
}).extend({
  name: z
    .string()
    .optional()
    .describe("Checkpoint name to find this snapshot by later: kebab-case, 3-64 characters."),
});

export const RecallArgs = z.strictObject({
  query: z
    .string()
    .max(500)
    .optional()
    .describe("Words to search snapshots by: identifiers, file names, error codes, phrases."),
  id: z.string().max(40).optional().describe("A snapshot id such as 2026-11-22-03."),
  name: z.string().max(64).optional().describe("A checkpoint name."),
  limit: z.number().int().min(1).max(10).optional().describe("How many search hits to return (default 3)."),
});

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input", target: "draft-07" });
  return rest;
}

function text(result: string, details: Record<string, unknown>) {
  return { content: [{ type: "text" as const, text: result }], details };
}

/** Registers `big_memory_save` and `big_memory_recall` as tool factories bound to the caller's session. */
export function registerTools(api: OpenClawPluginApi, deps: SurfaceDeps): void {
  api.registerTool(
    (ctx) => ({
      name: "big_memory_save",
      label: "Save task snapshot",
      description:
        "Save a structured snapshot of the current task (goal, state, files, decisions, code, key names, blockers, next steps) to today's memory log, so work can resume exactly after context compaction or a reset. Call it after milestones: a design decision, a fixed bug, before switching tasks.",
      parameters: jsonSchema(SaveArgs),
      execute: async (_id: string, params: unknown) => {
        const parsed = SaveArgs.safeParse(params);
        if (!parsed.success) {
          return text(`big_memory_save: invalid arguments, nothing saved:\n${formatIssues(parsed.error)}`, {
            ok: false,
          });
        }
        const { name, ...input } = parsed.data;
        const content = contentFromInput(input);
        if (!content.ok) return text(`big_memory_save: ${content.error}; nothing saved`, { ok: false });
        if (name !== undefined) {
          const problem = nameProblem(name, content.content.goal);
          if (problem !== null) return text(`big_memory_save: ${problem}; nothing saved`, { ok: false });
        }
        const sessionKey = ctx.sessionKey ?? null;
        const agentId = ctx.agentId ?? agentOfSessionKey(ctx.sessionKey) ?? null;
        const ws = deps.workspaces.get(workspaceOf(deps, ctx));
        const line = sessionKey === null ? null : (await ws.session(sessionKey, agentId).read()).line;
        const saved = await ws.save(content.content, {
          trigger: "tool",
          session: sessionKey,
          agent: agentId,
          name: name ?? line?.name ?? null,
          parent: name === undefined ? (line?.parent ?? null) : null,
        });
        if (sessionKey !== null) {
          await ws.session(sessionKey, agentId).update((s) =>
            withCapture(s, {
              id: saved.id,
              file: saved.file,
              trigger: "tool",
              at: deps.now().toISOString(),
            }),
          );
        }
        const redacted =
          saved.redacted > 0 ? ` (${saved.redacted} secret${saved.redacted === 1 ? "" : "s"} redacted)` : "";
        return text(
          `Saved snapshot ${saved.id}${name === undefined ? "" : ` "${name}"`} to ${saved.file}:${saved.line}${redacted}.`,
          {
            ok: true,
            id: saved.id,
            file: saved.file,
            line: saved.line,
          },
        );
      },
    }),
    { name: "big_memory_save" },
  );

  api.registerTool(
    (ctx) => ({
      name: "big_memory_recall",
      label: "Recall task snapshot",
      description:
        "Find saved task snapshots: by id, by checkpoint name, or by words (identifiers, file names, error codes, phrases). Without arguments, returns this session's latest snapshot. Use it when context seems missing or the user refers to earlier work.",
      parameters: jsonSchema(RecallArgs),
      execute: async (_id: string, params: unknown) => {
        const parsed = RecallArgs.safeParse(params ?? {});
        if (!parsed.success)
          return text(`big_memory_recall: invalid arguments:\n${formatIssues(parsed.error)}`, { ok: false });
        const ws = deps.workspaces.get(workspaceOf(deps, ctx));
        const result: RecallResult = await recall(ws, {
          ...parsed.data,
          sessionKey: ctx.sessionKey ?? null,
          agentId: ctx.agentId ?? agentOfSessionKey(ctx.sessionKey) ?? null,
          scope: deps.config.scope,
          tokenBudget: deps.config.restore.tokenBudget,
          retentionDays: deps.config.retentionDays,
          now: deps.now(),
        });
        if (result.restored !== null) {
          const tokens = estimateTokens(result.text);
          await ws.logRestore({
            at: deps.now().toISOString(),
            id: result.restored.id,
            session: ctx.sessionKey ?? null,
            reason: "recall",
            tokens,
          });
          // The same receipt line as every other restore (hooks.ts), without the goal the tool already returned.
          deps.logger.info?.(
            restoreReceipt(
              `Restored snapshot ${result.restored.id}`,
              "recall",
              tokens,
              ctx.sessionKey ?? "no session",
            ),
          );
        }
        return text(result.text, { ok: result.found, ids: result.ids });
      },
    }),
    { name: "big_memory_recall" },
  );
}
