/**
 * The scripted Responses API the provider-compaction e2e test runs OpenClaw against
 * (harness/openai-responses.ts): a Node process given its environment reaches it as
 * `https://api.openai.com` (the preload resolves the host, the throwaway CA is trusted), a request's input
 * items are read as chat messages, and a reply with `compaction` streams that output item before the answer.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText } from "./harness/fake-model.ts";
import {
  classifyResponses,
  type FakeResponses,
  responseEvents,
  startFakeResponses,
} from "./harness/openai-responses.ts";

const run = promisify(execFile);

describe("the scripted Responses API", () => {
  let api: FakeResponses;

  beforeAll(async () => {
    // Any free port: the test names it in the URL; OpenClaw's default route needs 443.
    api = await startFakeResponses(
      (req) => ({ text: `echo: ${lastUserText(req)}`, compaction: "cmp_test_1" }),
      0,
    );
  });

  afterAll(async () => {
    await api?.close();
  });

  it("answers a process started with its environment at https://api.openai.com", async () => {
    const client = `
      const res = await fetch("https://api.openai.com:${api.port}/v1/responses", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer " + process.env.OPENAI_API_KEY },
        body: JSON.stringify({
          model: "gpt-5.5",
          stream: true,
          instructions: "You are a test.",
          input: [{ role: "user", content: [{ type: "input_text", text: "hello there" }] }],
        }),
      });
      process.stdout.write(await res.text());
    `;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", client], {
      env: { PATH: process.env.PATH ?? "", ...api.env },
      timeout: 60_000,
    });
    const events = stdout
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.output_item.added",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const done = events.filter((e) => e.type === "response.output_item.done").map((e) => e.item);
    expect(done[0]).toMatchObject({
      type: "compaction",
      id: "cmp_test_1",
      encrypted_content: expect.any(String),
    });
    expect(done[1]).toMatchObject({
      type: "message",
      content: [{ type: "output_text", text: "echo: hello there" }],
    });
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({ kind: "turn", systemText: "You are a test." });
  });

  it("reads input items as chat messages and classifies the flush and the summarizer", () => {
    const flush = classifyResponses(
      {
        instructions: "system",
        tools: [
          { type: "function", name: "read" },
          { type: "function", name: "write" },
        ],
        input: [
          { type: "compaction", id: "cmp_1", encrypted_content: "x" },
          { role: "user", content: [{ type: "input_text", text: "fix it" }] },
          { type: "function_call", call_id: "c1", name: "read", arguments: "{}" },
          { type: "function_call_output", call_id: "c1", output: "file text" },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] },
          {
            role: "user",
            content: "Pre-compaction memory flush. Store durable memories only in memory/x.md",
          },
        ],
      },
      0,
    );
    expect(flush.kind).toBe("flush");
    expect(flush.messages.map((m) => m.role)).toEqual([
      "system",
      "compaction",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
    expect(flush.toolNames).toEqual(["read", "write"]);
    const summarizer = classifyResponses(
      { instructions: "You are a context summarization assistant.", input: [{ role: "user", content: "x" }] },
      1,
    );
    expect(summarizer.kind).toBe("summarizer");
  });

  it("streams tool calls as function_call items with their arguments", () => {
    const events = responseEvents(
      { toolCalls: [{ name: "read", arguments: { path: "a.ts" } }] },
      "gpt-5.5",
      10,
    );
    const item = events.find((e) => e.type === "response.output_item.done")?.item;
    expect(item).toMatchObject({ type: "function_call", name: "read", arguments: '{"path":"a.ts"}' });
    expect(events.at(-1)).toMatchObject({ type: "response.completed", response: { status: "completed" } });
  });
});
