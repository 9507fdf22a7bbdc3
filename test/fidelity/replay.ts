import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { contentNonce, newNonce } from "../../plugin/recover/fence.ts";
import { renderRestore } from "../../plugin/recover/inject.ts";
import { estimateTokens } from "../../plugin/recover/tokens.ts";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { createDriver } from "../surface/plugin-driver.ts";
import { hookCalls } from "./hook-stream.ts";
import { followFlushPrompt } from "./scripted-model.ts";
import type { RealSession } from "./session.ts";

/**
 * One session replayed through the plugin entry (plugin/index.ts against the test driver's api, a real
 * temporary workspace) up to a cut, then compacted as OpenClaw compacts, then the next turn: the text the
 * plugin prepends to it is the restore the probes read.
 *
 * - `safety-net`: the model stays silent (no flush run, or one that wrote nothing): `before_compaction`
 *   `{ messageCount, tokenCount }`, `after_compaction`, then the next user turn.
 * - `flush`: OpenClaw's memory flush runs first (`before_prompt_build` with `trigger: "memory"` under an
 *   internal session key); a model that follows the prompt appends the block it asks for to the daily log
 *   (scripted-model.ts), then the same compaction and turn.
 */

export type Arm = "safety-net" | "flush";

export interface ReplayResult {
  /** The text prepended to the turn after compaction, "" when there was none. */
  restore: string;
  /** `estimateTokens` of the restore. */
  tokens: number;
  /** Where the snapshot came from: the flush block or the plugin's own draft. */
  snapshotSource: "flush" | "draft" | "none";
  /** Two renders of the restored snapshot as the plugin renders (the nonce of its content) are byte-identical. */
  identicalAsRendered: boolean;
  /** Two renders with the same nonce are byte-identical. */
  identicalSameNonce: boolean;
  /** Warnings the plugin logged during the replay. */
  warnings: string[];
}

/** Creates files the session read, wrote or edited (empty unless written whole), so that the restore's stale-file check sees a workspace like the real one. */
function touch(workspace: string, path: unknown, content: unknown): void {
  if (typeof path !== "string") return;
  const full = isAbsolute(path) ? path : join(workspace, path);
  if (relative(workspace, full).startsWith("..")) return;
  mkdirSync(dirname(full), { recursive: true });
  if (typeof content === "string") writeFileSync(full, content);
  else if (!existsSync(full)) writeFileSync(full, "");
}

function renders(workspace: string): { same: boolean; fresh: boolean } {
  const dir = join(workspace, "memory");
  const logs = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => /^\d{4}-\d{2}-\d{2}\.md$/.test(f))
        .sort()
    : [];
  const last = logs.at(-1);
  if (last === undefined) return { same: false, fresh: false };
  const file = `memory/${last}`;
  const located = parseDailyLog(readFileSync(join(workspace, file), "utf8"), file).snapshots.at(-1);
  if (located === undefined) return { same: false, fresh: false };
  const input = {
    snapshot: located.snapshot,
    file,
    line: located.line,
    verified: located.verified,
    reason: "compaction" as const,
    warnings: [],
    tokenBudget: 1500,
  };
  // restoreFor's nonce is the hash of what it fences (contentNonce of its input); the second pair holds one.
  const render = (nonce: string) => renderRestore({ ...input, nonce }).text;
  const [first, second] = [
    render(contentNonce(JSON.stringify(input))),
    render(contentNonce(JSON.stringify(input))),
  ];
  const nonce = newNonce();
  const [held1, held2] = [render(nonce), render(nonce)];
  return { same: held1 === held2, fresh: first === second };
}

/** Replays the first `cut` events of `session`, compacts per `arm`, and returns the restore. */
export async function replay(session: RealSession, cut: number, arm: Arm): Promise<ReplayResult> {
  const d = createDriver();
  try {
    for (const call of hookCalls(session, session.events.slice(0, cut), d.workspace)) {
      if (call.hook === "after_tool_call" && !("error" in call.event)) {
        const params = call.event.params as Record<string, unknown>;
        if (
          call.event.toolName === "write" ||
          call.event.toolName === "edit" ||
          call.event.toolName === "read"
        )
          touch(
            d.workspace,
            params.path ?? params.file_path,
            call.event.toolName === "write" ? params.content : undefined,
          );
      }
      await d.fire(call.hook, call.event, call.ctx);
    }
    let snapshotSource: ReplayResult["snapshotSource"] = "none";
    if (arm === "flush") {
      const hash = createHash("sha256").update(`${session.id}:${cut}`).digest("hex").slice(0, 12);
      const [answer] = await d.fire(
        "before_prompt_build",
        { prompt: "Pre-compaction memory flush. Store durable memories now.", messages: [] },
        { trigger: "memory", sessionKey: `agent:main:internal-session-effects:${hash}` },
      );
      const prompt = (answer as { prependContext?: string } | undefined)?.prependContext;
      if (prompt !== undefined) {
        const write = followFlushPrompt(prompt);
        mkdirSync(dirname(join(d.workspace, write.file)), { recursive: true });
        appendFileSync(join(d.workspace, write.file), write.block);
        snapshotSource = "flush";
      }
    }
    const messageCount = cut;
    await d.fire("before_compaction", { messageCount, tokenCount: 150_000 });
    await d.fire("after_compaction", {
      messageCount: 4,
      tokenCount: 20_000,
      compactedCount: Math.max(0, messageCount - 4),
    });
    const restore = (await d.userTurn("continue")) ?? "";
    if (snapshotSource === "none" && restore !== "") snapshotSource = "draft";
    const r = renders(d.workspace);
    return {
      restore,
      tokens: estimateTokens(restore),
      snapshotSource,
      identicalAsRendered: r.fresh,
      identicalSameNonce: r.same,
      warnings: [...d.reg.warnings],
    };
  } finally {
    await d.dispose();
  }
}
