/**
 * Proves the e2e harness against a real OpenClaw: a tool-call turn, a forced compaction with its memory
 * flush seen through the probe plugin, the gateway path (chat.send, a plugin slash command, sessions.reset),
 * and the Node 22 compatibility floor (2026.9.2).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type ClassifiedRequest,
  type FakeModel,
  hasToolResult,
  lastUserText,
  messageText,
  type Reply,
  requestText,
  startFakeModel,
  toolResults,
} from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { ensureOpenClaw, type OpenClawInstall } from "./harness/openclaw-install.ts";
import { hookSequence, PROBE_MARKER, probePlugin, readProbeLog } from "./harness/probe.ts";

const TEST_TIMEOUT_MS = 300_000;
const NOTES = "Notes for the e2e harness: the secret word is HARNESS-NOTES-CONTENT.\n";

/** A memory file name the flush prompt asks for, e.g. `memory/2026-11-22.md`. */
function flushTarget(req: ClassifiedRequest): string {
  const match = /memory\/\d{4}-\d{2}-\d{2}\.md/.exec(requestText(req));
  return match?.[0] ?? "memory/unknown.md";
}

/**
 * The scripted model: a turn asking to read notes.txt calls `read`, then answers with what it read; the flush
 * appends FLUSH-NOTE to the memory file through `write`, then says NO_REPLY; everything else uses the defaults.
 */
function script(req: ClassifiedRequest): Reply | undefined {
  if (req.kind === "flush") {
    if (hasToolResult(req)) return { text: "NO_REPLY" };
    return { toolCalls: [{ name: "write", arguments: { path: flushTarget(req), content: "FLUSH-NOTE\n" } }] };
  }
  if (req.kind !== "turn" || !lastUserText(req).includes("read notes.txt")) return undefined;
  if (!hasToolResult(req)) return { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] };
  return { text: `READ-DONE: ${toolResults(req).join(" ").trim()}` };
}

/** The i-th item; throws (failing the test) when the list is shorter. */
function nth<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`expected an item at index ${index}, the list has ${list.length}`);
  return item;
}

let cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  const pending = cleanups.reverse();
  cleanups = [];
  for (const cleanup of pending) await cleanup();
});

async function setUp(
  install: OpenClawInstall,
): Promise<{ model: FakeModel; instance: Instance; log: string }> {
  const model = await startFakeModel(script);
  cleanups.push(() => model.close());
  const instance = await createInstance({
    install,
    modelUrl: model.url,
    plugins: ({ root }) => [probePlugin(path.join(root, "probe.jsonl"))],
  });
  cleanups.push(() => instance.dispose());
  const log = path.join(instance.root, "probe.jsonl");
  writeFileSync(path.join(instance.workspaceDir, "notes.txt"), NOTES.repeat(40));
  return { model, instance, log };
}

describe("harness on openclaw 2026.9.6 (Node 24)", () => {
  let install: OpenClawInstall;

  beforeAll(async () => {
    install = await ensureOpenClaw("2026.9.6");
  });

  it(
    "runs a tool-call turn, then a forced compaction: flush, before/after_compaction, marker in the next request",
    async () => {
      const { model, instance, log } = await setUp(install);

      const inspect = await instance.cli(["plugins", "inspect", "probe", "--runtime", "--json"]);
      expect(inspect.code, inspect.stderr).toBe(0);
      expect(inspect.json).toMatchObject({
        plugin: { id: "probe", status: "loaded", commands: ["probe"] },
        policy: { allowConversationAccess: true },
      });

      const first = await instance.runAgentTurn("please read notes.txt");
      expect(first.code, first.stderr).toBe(0);
      expect(first.json).toMatchObject({
        payloads: [{ text: expect.stringContaining("HARNESS-NOTES-CONTENT") }],
      });
      expect(model.requests.map((req) => req.kind)).toEqual(["turn", "turn"]);
      expect(nth(model.requests, 0).toolNames).toContain("read");
      expect(lastUserText(nth(model.requests, 0))).toMatch(/PROBE-CONTEXT-MARKER\n\nplease read notes.txt/);
      expect(toolResults(nth(model.requests, 1)).join("")).toContain("HARNESS-NOTES-CONTENT");

      const logged = readProbeLog(log).length;
      const requested = model.requests.length;
      await instance.updateConfig({
        agents: {
          defaults: {
            compaction: {
              maxActiveTranscriptBytes: "4kb",
              memoryFlush: { forceFlushTranscriptBytes: "2kb" },
            },
          },
        },
      });
      const second = await instance.runAgentTurn("second turn: what is next?");
      expect(second.code, second.stderr).toBe(0);

      const requests = model.requests.slice(requested);
      expect(requests.map((req) => req.kind)).toEqual(["flush", "flush", "summarizer", "turn"]);
      const [flush, summarizer, turn] = [nth(requests, 0), nth(requests, 2), nth(requests, 3)];
      expect(flush.toolNames.toSorted()).toEqual(["read", "write"]);
      expect(lastUserText(flush)).toMatch(/^PROBE-CONTEXT-MARKER\n\nPre-compaction memory flush/);
      expect(summarizer.toolNames).toEqual([]);
      expect(summarizer.systemText).toContain("context summarization assistant");
      expect(lastUserText(turn)).toContain(`${PROBE_MARKER}\n\nsecond turn: what is next?`);
      expect(messageText(turn.messages[1])).toContain(
        "The conversation history before this point was compacted",
      );
      const memoryFile = path.join(instance.workspaceDir, flushTarget(flush));
      expect(readFileSync(memoryFile, "utf8")).toContain("FLUSH-NOTE");

      const entries = readProbeLog(log).slice(logged);
      expect(
        hookSequence(entries, ["before_prompt_build", "before_compaction", "after_compaction", "agent_end"]),
      ).toEqual([
        "before_prompt_build:memory",
        "before_compaction:-",
        "after_compaction:-",
        "before_prompt_build:user",
        "agent_end:user",
      ]);
      const flushBuild = entries.find((entry) => entry.hook === "before_prompt_build");
      expect(flushBuild?.ctx.sessionKey).toMatch(/^agent:main:internal-session-effects:/);
      const compaction = entries.filter((entry) => entry.hook.endsWith("_compaction"));
      expect(compaction.map((entry) => entry.ctx.sessionKey)).toEqual(["agent:main:main", "agent:main:main"]);
      expect(compaction[1]?.event.sessionFile).toMatch(/^sqlite:main:/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "drives the gateway: chat.send and its reply, the /probe plugin command, sessions.reset",
    async () => {
      const { model, instance, log } = await setUp(install);
      const gateway = await instance.startGateway();
      expect(gateway.port).toBeGreaterThan(0);

      const chat = await instance.chatSend("agent:main:e2e", "hello gateway");
      expect(chat.replyText).toBe("fake reply to request 0");
      expect(model.requests.map((req) => req.kind)).toEqual(["turn"]);

      const command = await instance.chatSend("agent:main:e2e", "/probe some args");
      expect(command.replyText).toBe("PROBE-COMMAND-REPLY args=some args sessionKey=agent:main:e2e");
      expect(command.newMessages.at(-1)).toMatchObject({ role: "assistant", model: "gateway-injected" });
      expect(model.requests).toHaveLength(1);

      const reset = await instance.gatewayCall("sessions.reset", { key: "agent:main:e2e" });
      expect(reset).toMatchObject({ ok: true, key: "agent:main:e2e" });
      await instance.stopGateway();

      const hooks = readProbeLog(log).map((entry) => entry.hook);
      expect(hooks).toContain("command:probe");
      expect(hooks.indexOf("before_reset")).toBeGreaterThan(hooks.indexOf("command:probe"));
      const resetEntry = readProbeLog(log).find((entry) => entry.hook === "before_reset");
      expect(resetEntry?.event).toMatchObject({ reason: "reset", messages: { length: 4 } });
    },
    TEST_TIMEOUT_MS,
  );
});

describe("harness on openclaw 2026.9.2 (Node 22 floor)", () => {
  it(
    "runs one turn with the probe plugin loaded",
    async () => {
      const install = await ensureOpenClaw("2026.9.2");
      expect(install.nodeBin).toContain(path.join(".cache", "node", "22"));
      const { model, instance, log } = await setUp(install);

      const turn = await instance.runAgentTurn("hello from the floor");
      expect(turn.code, turn.stderr).toBe(0);
      expect(turn.json).toMatchObject({ payloads: [{ text: "fake reply to request 0" }] });
      const request = nth(model.requests, 0);
      expect(lastUserText(request)).toContain(`${PROBE_MARKER}\n\nhello from the floor`);
      expect(requestText(request)).toMatch(/node=v22\./);
      expect(hookSequence(readProbeLog(log), ["before_prompt_build", "agent_end"])).toEqual([
        "before_prompt_build:user",
        "agent_end:user",
      ]);
    },
    TEST_TIMEOUT_MS,
  );
});
