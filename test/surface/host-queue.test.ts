import { describe, expect, it } from "vitest";
import { hostQueue } from "../../plugin/surface/host-queue.ts";

/** An OpenClaw config whose big-memory entry has these `hooks`. */
const configWith = (hooks: Record<string, unknown>) => ({
  plugins: { entries: { "big-memory": { hooks } } },
});

/** A plugin API whose grouped queue answers `answer` and records what it was given. */
function apiAnswering(answer: unknown) {
  const calls: unknown[] = [];
  const workflow = {
    enqueueNextTurnInjection(this: unknown, injection: unknown) {
      calls.push({ self: this === workflow, injection });
      return Promise.resolve(answer);
    },
  };
  return { api: { session: { workflow } }, calls };
}

describe("hostQueue", () => {
  it("is not used where before_prompt_build comes (conversation access on) or the queue is gated off", () => {
    const { api } = apiAnswering({ enqueued: true, id: "x" });
    expect(hostQueue(api, configWith({ allowConversationAccess: true }))).toBeNull();
    expect(hostQueue(api, configWith({ allowPromptInjection: false }))).toBeNull();
  });

  it("is not used when this OpenClaw has no queue", () => {
    expect(hostQueue({}, configWith({}))).toBeNull();
    expect(hostQueue({ session: { workflow: {} } }, {})).toBeNull();
  });

  it("queues a prepended text under its key, and reads the host's answer", async () => {
    const { api, calls } = apiAnswering({ enqueued: true, id: "k", sessionKey: "agent:main:main" });
    const queue = hostQueue(api, configWith({ allowConversationAccess: false }));
    expect(await queue?.("agent:main:main", "TEXT", "k")).toBe(true);
    expect(calls).toEqual([
      {
        self: true,
        injection: {
          sessionKey: "agent:main:main",
          text: "TEXT",
          idempotencyKey: "k",
          placement: "prepend_context",
        },
      },
    ]);
  });

  it("counts a pending entry under the same key as held, a refusal as not", async () => {
    const held = hostQueue(apiAnswering({ enqueued: false, id: "k" }).api, {});
    expect(await held?.("s", "t", "k")).toBe(true);
    // What OpenClaw answers for a session it does not know, or a text it refuses.
    const refused = hostQueue(apiAnswering({ enqueued: false, id: "", sessionKey: "s" }).api, {});
    expect(await refused?.("s", "t", "k")).toBe(false);
  });

  it("falls back to the older flat alias", async () => {
    const calls: unknown[] = [];
    const api = {
      enqueueNextTurnInjection: (injection: unknown) => {
        calls.push(injection);
        return Promise.resolve({ enqueued: true, id: "k" });
      },
    };
    expect(await hostQueue(api, {})?.("s", "t", "k")).toBe(true);
    expect(calls).toHaveLength(1);
  });
});
