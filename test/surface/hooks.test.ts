import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { localTime } from "../../plugin/snapshot/time.ts";
import { createDriver, type Driver, SESSION } from "./plugin-driver.ts";

const drivers: Driver[] = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.dispose();
});
function driver(config: Record<string, unknown> = {}): Driver {
  const d = createDriver(config);
  drivers.push(d);
  return d;
}

const today = () => localTime(new Date()).date;
const logFile = (d: Driver) => join(d.workspace, "memory", `${today()}.md`);
const snapshots = (d: Driver) =>
  parseDailyLog(readFileSync(logFile(d), "utf8"), `memory/${today()}.md`).snapshots;

/** A short realistic session: an ask, a read, an edit, a failing test run, the assistant's plan. */
async function work(d: Driver): Promise<void> {
  await d.userTurn("Fix ERR_DUPLICATE_KEY on second login in src/auth/oauth-callback.ts");
  await d.tool("read", { path: "src/auth/oauth-callback.ts" });
  await d.tool("edit", { path: "src/auth/oauth-callback.ts", oldText: "insert", newText: "upsert" });
  await d.tool(
    "exec",
    { command: "npm test -- oauth" },
    { error: "Command failed with exit code 1: ERR_DUPLICATE_KEY at user_sessions" },
  );
  await d.fire(
    "llm_output",
    {
      runId: "r1",
      sessionId: "s-1",
      provider: "fake",
      model: "fake",
      assistantTexts: [
        "The insert races. Next:\n1. Add a unique index on user_sessions(user_id, device_id)\n2. Rerun npm test -- oauth",
      ],
    },
    { trigger: "user" },
  );
  await d.endTurn();
}

describe("capture and restore across compaction", () => {
  it("drafts a safety-net snapshot when the model wrote none, and restores it exactly once after compaction", async () => {
    const d = driver();
    await work(d);
    await d.restart();
    await d.fire("before_compaction", { messageCount: 12, tokenCount: 9000 });
    await d.fire("after_compaction", {
      messageCount: 3,
      tokenCount: 800,
      compactedCount: 9,
      sessionFile: "sqlite:main:s-1:x",
    });
    const written = snapshots(d);
    expect(written.map((s) => [s.snapshot.trigger, s.snapshot.session, s.verified])).toEqual([
      ["compaction", SESSION, true],
    ]);
    expect(written[0]?.snapshot.goal).toContain("ERR_DUPLICATE_KEY");
    expect(written[0]?.snapshot.files.map((f) => f.path)).toContain("src/auth/oauth-callback.ts");
    await d.restart();
    const restored = await d.userTurn("ok, go on");
    expect(restored).toContain(written[0]?.snapshot.id);
    expect(restored).toContain("ERR_DUPLICATE_KEY");
    expect(await d.userTurn("and then?")).toBeUndefined();
    expect(d.reg.warnings).toEqual([]);
  });

  it("claims the block the model wrote during the flush for the real session, without a second snapshot", async () => {
    const d = driver();
    await work(d);
    await d.restart();
    // The flush run works on a view of the session's conversation: that is how its session is known.
    const conversation = [
      { role: "user", content: "Fix ERR_DUPLICATE_KEY on second login in src/auth/oauth-callback.ts" },
    ];
    const [flush] = await d.fire(
      "before_prompt_build",
      { prompt: "Pre-compaction memory flush. Store durable memories now.", messages: conversation },
      { trigger: "memory", sessionKey: "agent:main:internal-session-effects:abc123" },
    );
    const prompt = (flush as { prependContext: string }).prependContext;
    const id = /snapshot-id: (\d{4}-\d{2}-\d{2}-\d{2,})/.exec(prompt)?.[1];
    expect(id).toBe(`${today()}-01`);
    expect(prompt).toContain(`memory/${today()}.md`);
    expect(prompt).toContain("src/auth/oauth-callback.ts");
    mkdirSync(join(d.workspace, "memory"), { recursive: true });
    appendFileSync(
      logFile(d),
      `\n## Task Snapshot -- 10:00\n\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- timestamp: ${today()}T10:00:00 -->\n<!-- snapshot-id: ${id} -->\n\n### [SNAPSHOT] Active Goal\nStop ERR_DUPLICATE_KEY on second login\n\n### [SNAPSHOT] Next Steps\n1. Add the unique index\n\n<!-- /BIG-MEMORY-SNAPSHOT -->\n`,
    );
    await d.restart();
    await d.fire("before_compaction", { messageCount: 12 });
    await d.fire("after_compaction", { messageCount: 3, compactedCount: 9 });
    expect(snapshots(d).map((s) => s.snapshot.id)).toEqual([id]);
    await d.restart();
    const restored = await d.userTurn("continue");
    expect(restored).toContain(id);
    expect(restored).toContain("Add the unique index");
  });

  it("restores after a before without an after only when the next turn's conversation was compacted", async () => {
    const d = driver();
    const asks = ["Fix ERR_DUPLICATE_KEY", "then rerun the tests", "and the logout page"].map((t) => ({
      role: "user",
      content: t,
    }));
    await work(d);
    await d.fire("agent_end", { messages: asks, success: true }, { trigger: "user" });
    await d.fire("before_compaction", { messageCount: 12 });
    await d.restart();
    const summary = {
      role: "user",
      content: "The conversation history before this point was compacted into the following summary: ...",
    };
    const [turn] = await d.fire(
      "before_prompt_build",
      { prompt: "next", messages: [summary, asks[2]] },
      { trigger: "user" },
    );
    expect((turn as { prependContext: string }).prependContext).toContain(snapshots(d)[0]?.snapshot.id);
    expect(snapshots(d)).toHaveLength(1);
    expect(await d.userTurn("next again")).toBeUndefined();
  });

  it("restores nothing after a compaction that failed (a before, no after, the same conversation next turn)", async () => {
    const d = driver();
    const asks = ["Fix ERR_DUPLICATE_KEY", "then rerun the tests"].map((t) => ({ role: "user", content: t }));
    await work(d);
    await d.fire("agent_end", { messages: asks, success: true }, { trigger: "user" });
    await d.fire("before_compaction", { messageCount: 12 });
    await d.restart();
    const [turn] = await d.fire(
      "before_prompt_build",
      { prompt: "next", messages: asks },
      { trigger: "user" },
    );
    expect(turn).toBeUndefined();
    expect(snapshots(d)).toHaveLength(1);
    const ledger = readFileSync(join(d.workspace, ".big-memory", "ledger.jsonl"), "utf8");
    expect(ledger).toContain('"outcome":"failed"');
  });

  it("captures on an after without a before", async () => {
    const d = driver();
    await work(d);
    await d.fire("after_compaction", { messageCount: 3, compactedCount: 0 });
    expect(snapshots(d).map((s) => s.snapshot.trigger)).toEqual(["compaction"]);
    expect(await d.userTurn("next")).toContain(snapshots(d)[0]?.snapshot.id);
  });

  it("writes one snapshot per cycle over two compactions", async () => {
    const d = driver();
    await work(d);
    await d.fire("before_compaction", { messageCount: 12 });
    await d.fire("after_compaction", { messageCount: 3, compactedCount: 9 });
    await d.userTurn("now the migration");
    await d.tool("write", { path: "migrations/0042_unique_session.sql", content: "create unique index" });
    await d.fire("before_compaction", { messageCount: 12 });
    await d.fire("after_compaction", { messageCount: 3, compactedCount: 9 });
    expect(snapshots(d).map((s) => s.snapshot.id)).toEqual([`${today()}-01`, `${today()}-02`]);
  });

  it("does not restore into heartbeat, cron or flush runs, nor into another session", async () => {
    const d = driver();
    await work(d);
    await d.fire("before_compaction", { messageCount: 12 });
    await d.fire("after_compaction", { messageCount: 3, compactedCount: 9 });
    for (const trigger of ["heartbeat", "cron"]) {
      const [r] = await d.fire("before_prompt_build", { prompt: "tick", messages: [] }, { trigger });
      expect(r).toBeUndefined();
    }
    expect(await d.userTurn("hello", { sessionKey: "agent:main:other" })).toBeUndefined();
    expect(await d.userTurn("hello", { sessionKey: "agent:ops:main", agentId: "ops" })).toBeUndefined();
    expect(await d.userTurn("continue")).toContain(snapshots(d)[0]?.snapshot.id);
  });

  it("captures before a reset from the reset's messages and restores on the next turn", async () => {
    const d = driver();
    await d.fire("before_reset", {
      reason: "reset",
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "Migrate billing exports to the v2 API (ticket INV-2026-00417)" }],
        },
        {
          role: "assistant",
          content: [{ type: "text", text: "Next: 1. rewrite src/billing/export.ts for /api/v2/exports" }],
        },
      ],
    });
    const [s] = snapshots(d);
    expect(s?.snapshot.trigger).toBe("reset");
    expect(s?.snapshot.goal).toContain("billing");
    expect(await d.userTurn("hi again")).toContain(s?.snapshot.id);
  });

  it("restores on a turn that begins while the reset is still being captured (OpenClaw does not await before_reset)", async () => {
    const d = driver();
    await work(d);
    // Not awaited, as the gateway's sessions.reset fires it; the next message arrives at once.
    const reset = d.fire("before_reset", { reason: "reset", messages: [] });
    const prepend = await d.userTurn("where do we stand?");
    await reset;
    const [s] = snapshots(d);
    expect(s?.snapshot.trigger).toBe("reset");
    expect(prepend).toContain(s?.snapshot.id);
  });

  it('restores the latest snapshot when the user says "you forgot"', async () => {
    const d = driver();
    await work(d);
    await d.fire("before_compaction", { messageCount: 12 });
    await d.fire("after_compaction", { messageCount: 3, compactedCount: 9 });
    await d.userTurn("continue");
    expect(await d.userTurn("thanks")).toBeUndefined();
    expect(await d.userTurn("you forgot what we were doing")).toContain(snapshots(d)[0]?.snapshot.id);
    expect(await d.userTurn("¿en qué estábamos?")).toContain(snapshots(d)[0]?.snapshot.id);
    // One receipt line in the gateway log per restore, whatever its reason.
    const receipts = d.reg.infos.filter((m) => m.startsWith("big-memory: Restored snapshot"));
    expect(
      receipts.map((m) => /\((after compaction|"you forgot"), \d+ tokens, (\S+)\)$/.exec(m)?.slice(1)),
    ).toEqual([
      ["after compaction", expect.any(String)],
      ['"you forgot"', expect.any(String)],
      ['"you forgot"', expect.any(String)],
    ]);
    expect(new Set(receipts.map((m) => m.split(", ").at(-1)))).toHaveLength(1);
  });
});

describe("autosave at context thresholds", () => {
  const output = (input: number) => ({
    runId: "r",
    sessionId: "s-1",
    provider: "fake",
    model: "fake",
    assistantTexts: ["Working on it."],
    usage: { input, output: 500 },
    contextTokenBudget: 128_000,
  });

  it("writes one threshold snapshot per crossing per cycle, none twice for the same content", async () => {
    const d = driver({ capture: { thresholds: [0.5, 0.7] } });
    await work(d);
    await d.fire("llm_output", output(40_000), { trigger: "user" });
    expect(existsSync(join(d.workspace, "memory"))).toBe(false);
    await d.fire("llm_output", output(70_000), { trigger: "user" });
    await d.tool("read", { path: "src/auth/session-store.ts" });
    await d.fire("llm_output", output(75_000), { trigger: "user" });
    await d.fire("llm_output", output(95_000), { trigger: "user" });
    await d.fire("llm_output", output(99_000), { trigger: "user" });
    expect(snapshots(d).map((s) => s.snapshot.trigger)).toEqual(["threshold", "threshold"]);
    expect(d.reg.infos.filter((m) => m.includes("autosaved snapshot"))).toHaveLength(2);
    await d.tool("read", { path: "src/auth/device.ts" });
    await d.fire("before_compaction", { messageCount: 40 });
    await d.fire("after_compaction", { messageCount: 4, compactedCount: 36 });
    // Work was observed after the autosave, so compaction drafts a fresh snapshot.
    expect(snapshots(d).map((s) => s.snapshot.trigger)).toEqual(["threshold", "threshold", "compaction"]);
    await d.tool("read", { path: "src/auth/token.ts" });
    await d.fire("llm_output", output(70_000), { trigger: "user" });
    expect(snapshots(d).map((s) => s.snapshot.trigger)).toEqual([
      "threshold",
      "threshold",
      "compaction",
      "threshold",
    ]);
  });

  it("ignores flush runs and calls without a context budget", async () => {
    const d = driver();
    await work(d);
    await d.fire("llm_output", output(120_000), {
      trigger: "memory",
      sessionKey: "agent:main:internal-session-effects:x",
    });
    await d.fire("llm_output", { ...output(120_000), contextTokenBudget: undefined }, { trigger: "user" });
    expect(existsSync(join(d.workspace, "memory"))).toBe(false);
  });
});

describe("hooks fail open", () => {
  it("keeps working over a corrupt session state file, with one warning", async () => {
    const d = driver();
    await work(d);
    const dir = join(d.workspace, ".big-memory", "sessions");
    for (const f of readdirSync(dir)) writeFileSync(join(dir, f), "{ torn");
    await d.restart();
    await d.userTurn("Fix the login bug in src/auth/session.ts");
    expect(d.reg.warnings.filter((w) => w.includes("not valid JSON"))).toHaveLength(1);
  });

  it("returns nothing and warns when the workspace cannot be written", async () => {
    const d = driver();
    writeFileSync(join(d.workspace, ".big-memory"), "a file where a folder should be");
    writeFileSync(join(d.workspace, "memory"), "a file where a folder should be");
    await expect(d.userTurn("Fix ERR_X")).resolves.toBeUndefined();
    await expect(d.fire("before_compaction", { messageCount: 1 })).resolves.toEqual([undefined]);
    await expect(d.fire("after_compaction", { messageCount: 1, compactedCount: 1 })).resolves.toEqual([
      undefined,
    ]);
    expect(d.reg.warnings.map((w) => w.replace(/ \(continuing.*$/, ""))).toEqual([
      "big-memory: before_prompt_build failed",
      "big-memory: before_compaction failed",
      "big-memory: after_compaction failed",
    ]);
  });
});

describe("paths no compaction hook announces", () => {
  const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
  const asks = ["Fix ERR_DUPLICATE_KEY", "then rerun the tests", "and the logout page"].map(user);
  const ledger = (d: Driver) =>
    readFileSync(join(d.workspace, ".big-memory", "ledger.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it("captures a daily or idle rollover (session_end as OpenClaw sends it) and restores at the next session's first turn", async () => {
    const d = driver();
    await work(d);
    // The payload and context OpenClaw 2026.9.6 hands session_end on a rollover.
    await d.fire(
      "session_end",
      {
        sessionId: "s-1",
        sessionKey: SESSION,
        messageCount: 14,
        reason: "idle",
        sessionFile: "sqlite:main:s-1:sessions",
        nextSessionId: "s-2",
      },
      { sessionId: "s-1", sessionKey: SESSION, agentId: "main", workspaceDir: undefined },
    );
    await d.fire("session_end", { sessionId: "s-2", sessionKey: SESSION, reason: "shutdown" }, {});
    expect(snapshots(d).map((s) => s.snapshot.trigger)).toEqual(["reset"]);
    await d.restart();
    const restored = await d.userTurn("good morning", { sessionId: "s-2" });
    expect(restored).toContain(snapshots(d)[0]?.snapshot.id);
    expect(restored).toContain('reason="reset"');
    expect(ledger(d)).toEqual([
      expect.objectContaining({ kind: "cycle", path: "rollover", cover: "safety-net" }),
      expect.objectContaining({ kind: "restore" }),
    ]);
  });

  it("notices a transcript trimmed to nothing at the next turn (sessions compact --max-lines 2 on a short session)", async () => {
    const d = driver();
    await work(d);
    await d.fire("agent_end", { messages: asks, success: true }, { trigger: "user" });
    await d.restart();
    const [turn] = await d.fire(
      "before_prompt_build",
      { prompt: "go on", messages: [] },
      { trigger: "user" },
    );
    expect((turn as { prependContext: string }).prependContext).toContain(snapshots(d)[0]?.snapshot.id);
    expect(ledger(d)[0]).toMatchObject({ path: "trim" });
  });

  it("notices a transcript trimmed with no hook at the next turn, captures it and restores it in that turn", async () => {
    const d = driver();
    await work(d);
    await d.fire("agent_end", { messages: asks, success: true }, { trigger: "user" });
    await d.restart();
    const [turn] = await d.fire(
      "before_prompt_build",
      { prompt: "go on", messages: asks.slice(2) },
      { trigger: "user" },
    );
    expect((turn as { prependContext: string }).prependContext).toContain(snapshots(d)[0]?.snapshot.id);
    expect(ledger(d)[0]).toMatchObject({ path: "trim", outcome: "done", cover: "safety-net" });
    // A trim that leaves nothing (what `--max-lines 2` does to a short session) is one too; the same
    // conversation again is no new trim.
    await d.fire("agent_end", { messages: asks.slice(2), success: true }, { trigger: "user" });
    expect(
      await d.fire("before_prompt_build", { prompt: "more", messages: asks.slice(2) }, { trigger: "user" }),
    ).toEqual([undefined]);
  });

  it("takes a failed attempt and its retry for one turn, not a trim: nothing captured, nothing restored", async () => {
    // OpenClaw fires agent_end for the failed attempt (its conversation holds the ask) and does not await
    // it; the retry of the same ask may start before or after that end is handled.
    for (const raced of [false, true]) {
      const d = driver();
      await work(d);
      const history = asks.slice(0, 2);
      const turn = (messages: unknown[]) =>
        d.fire("before_prompt_build", { prompt: "and the logout page", messages }, { trigger: "user" });
      await d.fire("agent_end", { messages: history, success: true }, { trigger: "user" });
      await turn(history);
      const failed = d.fire(
        "agent_end",
        { messages: asks, success: false, error: "server_error" },
        { trigger: "user" },
      );
      if (!raced) await failed;
      expect(await turn(history), `raced: ${raced}`).toEqual([undefined]);
      await failed;
      await d.fire("agent_end", { messages: asks, success: true }, { trigger: "user" });
      expect(
        await d.fire("before_prompt_build", { prompt: "go on", messages: asks }, { trigger: "user" }),
      ).toEqual([undefined]);
      const logs = join(d.workspace, "memory");
      expect(existsSync(logs) ? readdirSync(logs).filter((f) => f.endsWith(".md")) : []).toEqual([]);
      expect(existsSync(join(d.workspace, ".big-memory", "ledger.jsonl"))).toBe(false);
      expect(d.reg.warnings).toEqual([]);
    }
  });

  it("captures a provider's compaction from the marker on the answer at once, and restores it once at the next turn", async () => {
    const d = driver();
    await work(d);
    const marked = {
      role: "assistant",
      content: [{ type: "text", text: "Done." }],
      providerReplay: {
        v: 1,
        type: "openai-responses-compaction",
        id: "cmp_0a1b",
        data: "gAAAAB",
        replayIndex: 2,
      },
    };
    await d.fire(
      "llm_output",
      {
        runId: "r2",
        sessionId: "s-1",
        provider: "openai",
        model: "gpt-5.5",
        assistantTexts: ["Done."],
        lastAssistant: marked,
      },
      { trigger: "user" },
    );
    expect(snapshots(d).map((s) => s.snapshot.trigger)).toEqual(["compaction"]);
    // agent_end and the next turn carry the same marker: it is not taken twice.
    await d.fire("agent_end", { messages: [...asks, marked], success: true }, { trigger: "user" });
    await d.restart();
    const [turn] = await d.fire(
      "before_prompt_build",
      { prompt: "next", messages: [...asks, marked] },
      { trigger: "user" },
    );
    expect((turn as { prependContext: string }).prependContext).toContain(snapshots(d)[0]?.snapshot.id);
    const [later] = await d.fire(
      "before_prompt_build",
      { prompt: "and then?", messages: [...asks, marked, user("next")] },
      { trigger: "user" },
    );
    expect(later).toBeUndefined();
    expect(snapshots(d)).toHaveLength(1);
    expect(ledger(d).map((l) => [l.kind, l.path])).toEqual([
      ["cycle", "provider"],
      ["restore", undefined],
    ]);
  });

  it("names an overflow: a compaction inside an open turn", async () => {
    const d = driver();
    await work(d);
    await d.userTurn("one more step");
    await d.fire("before_compaction", { messageCount: 40 });
    await d.fire("after_compaction", { messageCount: 4, compactedCount: 36 });
    expect(ledger(d)[0]).toMatchObject({ path: "overflow", flush: false });
  });
});

describe("hooks OpenClaw does not await", () => {
  it("finish their writes before the plugin's service stops (a short-lived gateway ending)", async () => {
    const d = driver();
    await work(d);
    const handlers = d.reg.hooks.get("before_reset") ?? [];
    const ctx = { sessionKey: SESSION, agentId: "main", workspaceDir: d.workspace };
    // Fired and not awaited, as sessions.reset does; the process then ends.
    for (const h of handlers) void h({ reason: "reset", messages: [] }, ctx);
    for (const service of d.reg.services) await service.stop?.();
    expect(snapshots(d).map((s) => s.snapshot.trigger)).toEqual(["reset"]);
    const state = readdirSync(join(d.workspace, ".big-memory", "sessions")).filter((n) =>
      n.endsWith(".json"),
    );
    expect(state).toHaveLength(1);
    const saved = JSON.parse(
      readFileSync(join(d.workspace, ".big-memory", "sessions", state[0] ?? ""), "utf8"),
    );
    expect(saved.pendingRestore).toMatchObject({ reason: "reset" });
  });
});
