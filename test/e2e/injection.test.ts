/**
 * OpenClaw's next-turn injection queue (`api.session.workflow.enqueueNextTurnInjection`) weighed against
 * `before_prompt_build`'s `prependContext`, the way big-memory restores, in a real OpenClaw 2026.9.6 gateway
 * driven by `chat.send`. The fixture plugin `injector` (test/e2e/fixtures/injector-plugin) queues a text
 * from a command, at `after_compaction`, at `before_reset` and at the `session_start` after a reset, and
 * prepends a marker of its own; the scripted model records every request, so the test sees what reached the
 * model, when, and how often:
 * - a queued text reaches the model in the next turn, once, and a second queue under the same key does not;
 * - what was queued before a gateway stop and start is delivered after it in some runs, lost in others;
 * - a reset drops it; what `before_reset` queues (not awaited) may land after the drop; what `session_start`
 *   queues after the reset reaches the first turn of the new session;
 * - what `after_compaction` queues (`/compact`, and a preflight compaction inside a turn) is refused
 *   (`enqueued: false`, no id) and never reaches the model;
 * - with the plugin's `hooks.allowConversationAccess` off, where OpenClaw drops its `before_prompt_build`
 *   (its `prependContext` never reaches the model) and does not dispatch its chat command, what
 *   `session_start` queues after a reset still reaches the model.
 * Each finding is printed; README "Restores: prependContext or the host's queue" draws the conclusion.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClassifiedRequest, type FakeModel, requestText, startFakeModel } from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { ensureOpenClaw, repoRoot } from "./harness/openclaw-install.ts";
import { ASKS, seedWorkspace, taskScript } from "./scenario.ts";

const TEST_TIMEOUT_MS = 1_200_000;
/** A loaded machine may take minutes to start a gateway or answer a turn. */
const SLOW = { timeoutMs: 600_000 };
const PREPEND_MARKER = "INJECTOR-PREPEND-MARKER";

/** One line of the injector's log: where it queued, what, and what the host answered. */
interface QueueLine {
  at: string;
  /** When the queue call began. */
  started: string;
  from: string;
  sessionKey?: string;
  text: string;
  result?: { enqueued?: boolean; id?: string; sessionKey?: string } | string;
  error?: string;
}

let model: FakeModel;
let instance: Instance;
/** When each model request arrived, by its index. */
const arrived = new Map<number, number>();

function queueLog(): QueueLine[] {
  const file = path.join(instance.root, "injector.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as QueueLine);
}

/** What the fixture queues for `/inject KEY TEXT`: not the command's own text, which stays in the history. */
const queued = (text: string): string => `QUEUED[${text}]`;

/** The turn requests (not the flush, not the summarizer) that carry `text`, anywhere in their messages. */
const carrying = (requests: readonly ClassifiedRequest[], text: string) =>
  requests.filter((req) => req.kind === "turn" && requestText(req).includes(text));

/** Sends `message` to `key` and returns the model requests it caused. */
async function send(key: string, message: string): Promise<ClassifiedRequest[]> {
  const from = model.requests.length;
  await instance.chatSend(key, message, SLOW);
  return model.requests.slice(from);
}

/** Queues `text` under `idempotencyKey` for `key` through the fixture's command; the host's answer. */
async function inject(key: string, idempotencyKey: string, text: string): Promise<unknown> {
  const exchange = await instance.chatSend(key, `/inject ${idempotencyKey} ${text}`, SLOW);
  const match = /INJECT-RESULT (.*)$/s.exec(exchange.replyText);
  return match === null ? exchange.replyText : JSON.parse(match[1] ?? "null");
}

/** Where `text` sits in a request: the role of its message, its index, and whether it precedes the prepended marker. */
function placement(req: ClassifiedRequest, text: string) {
  const at = req.messages.findIndex((m) => JSON.stringify(m.content ?? "").includes(text));
  const content = JSON.stringify(req.messages[at]?.content ?? "");
  return {
    role: req.messages[at]?.role,
    message: at,
    of: req.messages.length,
    beforePrepend: content.indexOf(text) < content.indexOf(PREPEND_MARKER),
    withPrepend: content.includes(PREPEND_MARKER),
  };
}

/** A gateway with the injector plugin (conversation access as given) and a 4 kb transcript cap. */
async function start(conversationAccess: boolean): Promise<void> {
  const task = taskScript("no-reply");
  model = await startFakeModel((req) => {
    arrived.set(req.index, Date.now());
    return task(req);
  });
  instance = await createInstance({
    install: await ensureOpenClaw("2026.9.6"),
    modelUrl: model.url,
    plugins: ({ root }) => [
      {
        dir: path.join(repoRoot, "test", "e2e", "fixtures", "injector-plugin"),
        id: "injector",
        config: { logFile: path.join(root, "injector.jsonl") },
      },
    ],
    // The task's session crosses the cap on its second turn and compacts before a later one (preflight).
    compaction: { maxActiveTranscriptBytes: "4kb", forceFlushTranscriptBytes: "2kb" },
    config: {
      plugins: { entries: { injector: { hooks: { allowConversationAccess: conversationAccess } } } },
    },
  });
  await seedWorkspace(instance.workspaceDir);
  await instance.startGateway({ timeoutMs: 400_000 });
}

async function stop(): Promise<void> {
  await instance?.dispose();
  await model?.close();
  arrived.clear();
}

describe("the next-turn injection queue (openclaw 2026.9.6 gateway)", () => {
  beforeAll(() => start(true), TEST_TIMEOUT_MS);
  afterAll(stop);

  it(
    "delivers a queued text at the next turn, once; a second queue under the same key is refused",
    async () => {
      const KEY = "agent:main:e2e-inject-once";
      await send(KEY, "hello");
      const first = await inject(KEY, "restore-1", "INJECT-ONCE-A");
      const again = await inject(KEY, "restore-1", "INJECT-ONCE-DUPLICATE");
      console.log(`queue answers: ${JSON.stringify([first, again])}`);
      expect(first).toMatchObject({ enqueued: true, sessionKey: KEY });
      expect(again).toMatchObject({ enqueued: false });

      const next = await send(KEY, "what now?");
      const later = await send(KEY, "and then?");
      const hit = carrying(next, queued("INJECT-ONCE-A"));
      console.log(`placement: ${JSON.stringify(hit.map((req) => placement(req, queued("INJECT-ONCE-A"))))}`);
      expect(hit.length).toBeGreaterThan(0);
      expect(carrying(next, queued("INJECT-ONCE-DUPLICATE"))).toEqual([]);
      // Not persisted in the transcript either: the turn after carries it nowhere.
      expect(carrying(later, queued("INJECT-ONCE-A"))).toEqual([]);
      // A command to a key with no turn yet: the command's own session entry holds the queue (seen: enqueued).
      const unknown = await inject("agent:main:e2e-inject-none", "k", "INJECT-NO-SESSION");
      console.log(`queue for the command's own new session: ${JSON.stringify(unknown)}`);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "drops a queued text on reset; session_start after the reset delivers",
    async () => {
      const KEY = "agent:main:e2e-inject-reset";
      await send(KEY, "hello");
      expect(await inject(KEY, "before-reset", "INJECT-QUEUED-BEFORE-RESET")).toMatchObject({
        enqueued: true,
      });
      await instance.gatewayCall("sessions.reset", { key: KEY }, SLOW);
      const next = await send(KEY, "after the reset");
      const lines = queueLog().filter((l) => l.sessionKey === KEY && l.from !== "command");
      console.log(`hook queues: ${JSON.stringify(lines)}`);
      console.log(
        `after reset: ${JSON.stringify(
          [queued("INJECT-QUEUED-BEFORE-RESET"), "INJECT-IN-BEFORE-RESET", "INJECT-AT-SESSION-START"].map(
            (t) => [t, carrying(next, t).length],
          ),
        )}`,
      );
      expect(carrying(next, queued("INJECT-QUEUED-BEFORE-RESET"))).toEqual([]);
      // OpenClaw does not await before_reset: what it queues lands before the host's drop (dropped) or after
      // it (seen here: delivered to the new session). A restore can rely on neither.
      expect(carrying(next, "INJECT-IN-BEFORE-RESET").length).toBeLessThanOrEqual(1);
      expect(lines.map((l) => l.from)).toContain("session_start");
      expect(carrying(next, "INJECT-AT-SESSION-START").length).toBeGreaterThan(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "refuses what after_compaction queues (/compact and a preflight compaction)",
    async () => {
      const KEY = "agent:main:e2e-inject-compact";
      const from = model.requests.length;
      await send(KEY, ASKS.fix);
      await send(KEY, ASKS.test);
      await send(KEY, ASKS.proceed);
      await send(KEY, "/compact");
      await send(KEY, ASKS.after);
      await send(KEY, ASKS.left);
      const requests = model.requests.slice(from);
      console.log(`requests: ${requests.map((r) => `${r.kind}#${r.index}`).join(" ")}`);
      const queued = queueLog().filter((l) => l.from === "after_compaction" && l.sessionKey === KEY);
      console.log(`after_compaction queues: ${JSON.stringify(queued)}`);
      expect(queued.length).toBeGreaterThan(0);
      // OpenClaw 2026.9.6 refuses a queue at after_compaction (preflight and /compact alike): no entry, no
      // id, and nothing of it reaches the model.
      for (const line of queued) {
        expect(line.result).toEqual({ enqueued: false, id: "", sessionKey: KEY });
        const firstTurnAfter = requests.find(
          (r) => r.kind === "turn" && (arrived.get(r.index) ?? 0) >= Date.parse(line.started),
        );
        console.log(`${line.text}: first turn after #${firstTurnAfter?.index}`);
        expect(carrying(model.requests, line.text)).toEqual([]);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "delivers a text queued before a gateway stop and start at most once, and in some runs not at all",
    async () => {
      const KEY = "agent:main:e2e-inject-restart";
      await send(KEY, "hello");
      expect(await inject(KEY, "across-restart", "INJECT-ACROSS-RESTART")).toMatchObject({ enqueued: true });
      await instance.stopGateway();
      await instance.startGateway({ timeoutMs: 400_000 });
      const next = await send(KEY, "still there?");
      const later = await send(KEY, "and now?");
      // On 2026.9.6 a text accepted before the stop is delivered after the start in some runs and lost in
      // others (the docs call the queue durable): never more than once. big-memory's own pending restore is
      // kept on disk and taken once under a lock, whatever the timing of the stop.
      const carried = carrying([...next, ...later], queued("INJECT-ACROSS-RESTART"));
      console.log(`queued before the restart: delivered in ${carried.length} of the 2 turns after it`);
      expect(carried.length).toBeLessThanOrEqual(1);
    },
    TEST_TIMEOUT_MS,
  );
});
