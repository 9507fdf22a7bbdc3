/**
 * big-memory through a real OpenClaw 2026.9.6 gateway, driven the way a chat client drives it: `chat.send` on
 * one session key for the task's turns and the `/big-memory` slash command (save, status, recall), `/compact`,
 * the `sessions.reset` RPC and a "you forgot" message. Asserted on the gateway's `chat.history` replies and
 * on what the scripted model received.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, ListJson } from "./harness/big-memory-json.ts";
import { type ClassifiedRequest, type FakeModel, startFakeModel } from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { ensureOpenClaw } from "./harness/openclaw-install.ts";
import { type PluginStage, stageBigMemory } from "./harness/plugin-stage.ts";
import {
  ASKS,
  afterCompaction,
  fenceId,
  restoresOutsideSummary,
  seedWorkspace,
  TASK,
  taskScript,
  turnRestores,
  userAsk,
} from "./scenario.ts";

const TEST_TIMEOUT_MS = 300_000;
const SESSION = "agent:main:e2e-chat";
const CHECKPOINT = "auth-dup-fix";
const SNAPSHOT_ID = /\d{4}-\d{2}-\d{2}-\d{2,}/;

let stage: PluginStage;
let model: FakeModel;
let instance: Instance;

beforeAll(async () => {
  const [install, staged] = await Promise.all([ensureOpenClaw("2026.9.6"), stageBigMemory()]);
  stage = staged;
  model = await startFakeModel(taskScript("no-reply"));
  instance = await createInstance({
    install,
    modelUrl: model.url,
    plugins: [{ dir: stage.dir, id: "big-memory", config: {} }],
  });
  await seedWorkspace(instance.workspaceDir);
  await instance.startGateway();
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await instance?.dispose();
  await model?.close();
  await stage?.dispose();
});

/** Sends `message` on the test session; returns the reply text and the model requests the send caused. */
async function send(message: string): Promise<{ reply: string; requests: ClassifiedRequest[] }> {
  const from = model.requests.length;
  const exchange = await instance.chatSend(SESSION, message);
  return { reply: exchange.replyText, requests: model.requests.slice(from) };
}

/** The restore fences in the user turns of `requests` (the model calls of one send). */
function restoresIn(requests: readonly ClassifiedRequest[]): string[] {
  return requests.filter((req) => req.kind === "turn").flatMap((req) => turnRestores(req));
}

/** Snapshots of the workspace, newest first, from the staged `bin/big-memory.js list --json`. */
async function snapshots() {
  const result = await stage.cli(["list", "--json", "--dir", instance.workspaceDir], {
    env: instance.env,
    cwd: instance.root,
  });
  return cliJson(ListJson, result, "big-memory list").snapshots;
}

describe("big-memory on the gateway (openclaw 2026.9.6, chat.send)", () => {
  let savedId = "";

  it(
    "runs the task's turns with tool calls through chat.send",
    async () => {
      const fix = await send(ASKS.fix);
      expect(fix.requests.map((req) => req.kind)).toEqual(["turn", "turn", "turn"]);
      expect(fix.requests[0]?.toolNames).toEqual(
        expect.arrayContaining(["big_memory_save", "big_memory_recall"]),
      );
      expect(fix.reply).toContain(`I replaced the plain insert in ${TASK.file}`);
      const test = await send(ASKS.test);
      expect(test.reply).toContain(`Next:\n1. ${TASK.planStep}`);
      expect(restoresIn([...fix.requests, ...test.requests])).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "/big-memory save NAME saves a named checkpoint and the reply names its id and the name",
    async () => {
      const save = await send(`/big-memory save ${CHECKPOINT}`);
      expect(save.requests).toEqual([]);
      const match = new RegExp(
        `^Saved snapshot (${SNAPSHOT_ID.source}) "${CHECKPOINT}" to (memory/\\d{4}-\\d{2}-\\d{2}\\.md):\\d+: `,
      ).exec(save.reply);
      expect(match, save.reply).not.toBeNull();
      savedId = match?.[1] ?? "";
      expect(await snapshots()).toEqual([
        expect.objectContaining({
          id: savedId,
          name: CHECKPOINT,
          session: SESSION,
          trigger: "manual",
          verified: true,
        }),
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "/big-memory status reports the session's snapshot and what it observed",
    async () => {
      const status = await send("/big-memory status");
      expect(status.requests).toEqual([]);
      expect(status.reply).toContain(`big-memory for ${SESSION}`);
      expect(status.reply).toContain(`snapshots        1 this session; last ${savedId} (manual,`);
      expect(status.reply).toContain(`compactions      none seen yet; the next is covered by ${savedId}`);
      expect(status.reply).toContain("pending restore  none");
      expect(status.reply).toMatch(/observed {9}2 turns, 3 tool calls, 1 files/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "/big-memory recall NAME shows the checkpoint's notes",
    async () => {
      const recall = await send(`/big-memory recall ${CHECKPOINT}`);
      expect(recall.requests).toEqual([]);
      expect(recall.reply).toContain("## Goal");
      expect(recall.reply).toContain(TASK.errorCode);
      expect(recall.reply).toContain(TASK.file);
      expect(recall.reply).not.toContain("<big-memory-snapshot");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "/compact compacts the session, and the next message's model request carries the restore once",
    async () => {
      const compact = await send("/compact");
      // A manual compaction runs the summarizer only (no memory flush): the saved checkpoint covers the cycle.
      expect(compact.requests.map((req) => req.kind)).toEqual(["summarizer"]);
      expect(compact.reply).toMatch(/^⚙️ Compaction finished/);

      const next = await send(ASKS.proceed);
      const first = next.requests[0];
      expect(first?.kind).toBe("turn");
      expect(first === undefined ? "" : userAsk(first)).toBe(ASKS.proceed);
      const restores = restoresIn(next.requests.slice(0, 1));
      expect(restores.map(fenceId)).toEqual([savedId]);
      expect(restores[0]).toContain('reason="compaction"');
      expect(restores[0]).toContain(`name="${CHECKPOINT}"`);
      expect(next.reply).toBe(`Writing ${TASK.migration} next.`);
      expect(afterCompaction(model.requests).flatMap((req) => restoresOutsideSummary(req))).toHaveLength(1);

      const again = await send(ASKS.after);
      expect(restoresIn(again.requests)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "sessions.reset captures the session, and the next message's model request carries that snapshot",
    async () => {
      const before = new Set((await snapshots()).map((s) => s.id));
      const reset = await instance.gatewayCall("sessions.reset", { key: SESSION });
      expect(reset).toMatchObject({ ok: true, key: SESSION });
      // OpenClaw answers sessions.reset without awaiting before_reset: its snapshot lands just after.
      let written = (await snapshots()).filter((s) => !before.has(s.id));
      for (const started = Date.now(); written.length === 0 && Date.now() - started < 30_000; ) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        written = (await snapshots()).filter((s) => !before.has(s.id));
      }
      expect(written).toEqual([
        expect.objectContaining({ trigger: "reset", session: SESSION, verified: true }),
      ]);
      const resetId = written[0]?.id ?? "(no reset snapshot)";

      const next = await send("Where do we stand?");
      const restores = restoresIn(next.requests);
      expect(restores.map(fenceId)).toEqual([resetId]);
      expect(restores[0]).toContain('reason="reset"');
      expect(restores[0]).toContain(TASK.errorCode);
      expect(next.reply).toMatch(/^fake reply to request \d+$/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    '"you forgot what we were doing" carries the latest snapshot of the session',
    async () => {
      const latest = (await snapshots()).find((s) => s.session === SESSION);
      const forgot = await send(ASKS.amnesia);
      const restores = restoresIn(forgot.requests);
      expect(restores.map(fenceId)).toEqual([latest?.id]);
      expect(restores[0]).toContain('reason="amnesia"');
      expect(forgot.reply).toMatch(/^fake reply to request \d+$/);
    },
    TEST_TIMEOUT_MS,
  );
});
