import { afterEach, describe, expect, it } from "vitest";
import { createDriver, type Driver } from "./plugin-driver.ts";

const drivers: Driver[] = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.dispose();
});

/** A driver whose session saved one snapshot naming ERR_WEBHOOK_REPLAY and one naming ERR_DB_TIMEOUTS. */
async function saved(config: Record<string, unknown> = {}): Promise<Driver> {
  const d = createDriver(config);
  drivers.push(d);
  await d.callTool("big_memory_save", {
    goal: "Stop the webhook replays",
    names: [{ label: "Error", value: "ERR_WEBHOOK_REPLAY" }],
    files: [{ path: "src/billing/webhook.ts", note: "" }],
  });
  await d.callTool("big_memory_save", {
    goal: "Raise the pool size",
    names: [{ label: "Error", value: "ERR_DB_TIMEOUTS" }],
  });
  return d;
}

describe("big_memory_recall and /big-memory search, identifiers", () => {
  it("says an identifier no snapshot holds is absent, instead of answering with another", async () => {
    const d = await saved();
    const tool = await d.callTool("big_memory_recall", { query: "ERR_QUEUE_STALLED" });
    expect(tool.text).toBe("No snapshot in this session's memory mentions ERR_QUEUE_STALLED.");
    // A path of the same folder may be offered, marked as a near match, never as the answer.
    const path = await d.command("search src/billing/refunds.ts");
    expect(path).toMatch(
      /^big-memory: No snapshot in this session's memory mentions src\/billing\/refunds\.ts\./,
    );
    if (path.includes("webhook")) expect(path).toContain("Near matches (fuzzy), not the identifier itself:");
  });

  it("marks near matches of an identifier as fuzzy", async () => {
    const d = await saved();
    const tool = await d.callTool("big_memory_recall", { query: "ERR_DB_TIMEOUT" });
    expect(tool.text.split("\n")[0]).toBe(
      "No snapshot in this session's memory mentions ERR_DB_TIMEOUT. Near matches (fuzzy), not the identifier itself:",
    );
    expect(tool.text).toContain("ERR_DB_TIMEOUTS");
  });

  it("finds an identifier that is there, only in the snapshots that hold it", async () => {
    const d = await saved();
    const tool = await d.callTool("big_memory_recall", { query: "ERR_WEBHOOK_REPLAY" });
    expect(tool.text).toContain("Stop the webhook replays");
    expect(tool.text).not.toContain("Raise the pool size");
  });

  it("suggests the closest identifiers of the snapshots in scope, never of another session's", async () => {
    const d = await saved({ scope: "workspace" });
    expect((await d.command("search ERR_WEBHOOK_RETRIES_EXHAUSTED")).split("\n")[0]).toBe(
      "big-memory: No snapshot in this workspace's memory mentions ERR_WEBHOOK_RETRIES_EXHAUSTED. Did you mean ERR_WEBHOOK_REPLAY? Near matches (fuzzy), not the identifier itself:",
    );
    const scoped = await saved();
    expect((await scoped.command("search ERR_WEBHOOK_RETRIES_EXHAUSTED")).split("\n")[0]).toBe(
      "big-memory: No snapshot in this session's memory mentions ERR_WEBHOOK_RETRIES_EXHAUSTED. Did you mean ERR_WEBHOOK_REPLAY? Near matches (fuzzy), not the identifier itself:",
    );
    const other = { sessionKey: "agent:main:other", sessionId: "s-2" };
    await scoped.callTool(
      "big_memory_save",
      { goal: "Another session's work", names: [{ label: "Error", value: "ERR_QUEUE_STALLING" }] },
      other,
    );
    const reply = await scoped.command("search ERR_QUEUE_STALLED");
    expect(reply).not.toContain("ERR_QUEUE_STALLING");
    expect(reply).toMatch(/^big-memory: No snapshot in this session's memory mentions ERR_QUEUE_STALLED\./);
    expect(await scoped.command("search ERR_QUEUE_STALLED", other)).toContain(
      "Did you mean ERR_QUEUE_STALLING?",
    );
  });
});
