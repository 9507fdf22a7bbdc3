import { describe, expect, it } from "vitest";
import { type RecallRequest, recall, visibility } from "../../plugin/session/recall.ts";
import { withCapture } from "../../plugin/session/session-state.ts";
import type { Workspace } from "../../plugin/session/workspace.ts";
import type { Scope } from "../../plugin/snapshot/lifecycle.ts";
import { emptyContent } from "../../plugin/snapshot/sections.ts";
import { MAIN, NOW, useWorkspaces } from "./fixtures.ts";

const workspace = useWorkspaces();
const NONCE = "fedcba9876543210";
const OPS = { sessionKey: "agent:ops:main", agentId: "ops" };
const request = (scope: Scope, over: Partial<RecallRequest> = {}): RecallRequest => ({
  ...MAIN,
  scope,
  tokenBudget: 1200,
  now: NOW,
  nonce: NONCE,
  ...over,
});

/**
 * Four snapshots: 01 main's session, 02 another session of main, 03 ops's (each naming ERR_WEBHOOK_REPLAY),
 * 04 written by a flush run and recorded as main's own.
 */
async function fourSnapshots(): Promise<Workspace> {
  const { ws } = await workspace();
  const save = (goal: string, session: string, agent: string, name: string | null = null) =>
    ws.save(
      { ...emptyContent(), goal, names: [{ label: "Error", value: "ERR_WEBHOOK_REPLAY" }] },
      { trigger: "manual", session, agent, name },
    );
  await save("main's own webhook fix", MAIN.sessionKey, "main", "webhooks");
  await save("main's other session on webhooks", "agent:main:other", "main");
  await save("ops's webhook audit", OPS.sessionKey, "ops");
  const flushed = await ws.save(
    { ...emptyContent(), goal: "the flush run's notes" },
    { trigger: "flush", session: "agent:main:flush-run", agent: "main" },
  );
  await ws
    .session(MAIN.sessionKey, MAIN.agentId)
    .update((s) => withCapture(s, { ...flushed, trigger: "flush", at: NOW.toISOString() }));
  return ws;
}

describe("visibility", () => {
  it("shows a session its own snapshots, its agent's in agent scope, and any in workspace scope", async () => {
    const ws = await fourSnapshots();
    const all = (await ws.liveRefs()).reverse();
    const seen = async (scope: Scope, who = MAIN) => {
      const visible = await visibility(ws, { ...who, scope, now: NOW });
      return all.filter(visible).map((r) => r.id.slice(-2));
    };
    expect(await seen("session")).toEqual(["01", "04"]);
    expect(await seen("agent")).toEqual(["01", "02", "04"]);
    expect(await seen("workspace")).toEqual(["01", "02", "03", "04"]);
    expect(await seen("agent", OPS)).toEqual(["03"]);
  });

  it("keeps a shared channel from a direct session's snapshots, and everyone from those past retention", async () => {
    const ws = await fourSnapshots();
    const all = await ws.liveRefs();
    const group = await visibility(ws, {
      sessionKey: "agent:main:telegram:group:-100",
      agentId: "main",
      scope: "workspace",
      now: NOW,
    });
    expect(all.filter(group)).toEqual([]);
    const later = new Date(NOW.getTime() + 3 * 86_400_000);
    const retained = await visibility(ws, { ...MAIN, scope: "workspace", retentionDays: 2, now: later });
    expect(all.filter(retained)).toEqual([]);
  });
});

describe("recall by id or name", () => {
  it("returns the whole snapshot fenced for the model, and the notes with their source for the user", async () => {
    const ws = await fourSnapshots();
    const r = await recall(ws, request("session", { id: "2026-11-22-04" }));
    expect([r.found, r.ids, r.restored]).toEqual([true, ["2026-11-22-04"], { id: "2026-11-22-04" }]);
    expect(r.text).toContain(`<big-memory-snapshot-${NONCE} id="2026-11-22-04"`);
    expect(r.text).toContain('reason="recall"');
    expect(r.reply).toMatch(/^Recalled .* from memory\/2026-11-22\.md:\d+:\n/);
    expect(r.reply).toContain("the flush run's notes");
    expect(r.reply).not.toContain(NONCE);
  });

  it("says no snapshot has an id that is out of scope or absent, naming the scope", async () => {
    const ws = await fourSnapshots();
    const missing = { found: false, ids: [], restored: null };
    expect(await recall(ws, request("agent", { id: "2026-11-22-03" }))).toEqual({
      ...missing,
      text: "No snapshot with id 2026-11-22-03 in this agent's memory.",
      reply: "No snapshot with id 2026-11-22-03 in this agent's memory.",
    });
    expect((await recall(ws, request("workspace", { id: "2026-11-22-99" }))).text).toBe(
      "No snapshot with id 2026-11-22-99 in this workspace's memory.",
    );
  });

  it("finds the newest live version of a name, and nothing once it is deleted", async () => {
    const ws = await fourSnapshots();
    expect((await recall(ws, request("session", { name: "webhooks" }))).ids).toEqual(["2026-11-22-01"]);
    await ws.deleteName("webhooks", { session: MAIN.sessionKey, agent: MAIN.agentId });
    expect((await recall(ws, request("session", { name: "webhooks" }))).text).toBe(
      'No snapshot with name "webhooks" in this session\'s memory.',
    );
  });
});

describe("recall by words", () => {
  it("lists the best hits in scope, up to the limit, fenced, without restoring any", async () => {
    const ws = await fourSnapshots();
    const agent = await recall(ws, request("agent", { query: "ERR_WEBHOOK_REPLAY" }));
    expect([agent.found, agent.ids.sort(), agent.restored]).toEqual([
      true,
      ["2026-11-22-01", "2026-11-22-02"],
      null,
    ]);
    expect(agent.text).toContain(`<big-memory-snapshot-${NONCE} results="2"`);
    expect(agent.text).not.toContain("ops's webhook audit");
    expect(agent.reply).toMatch(/^Snapshots matching "ERR_WEBHOOK_REPLAY", best first:/);
    expect(
      (await recall(ws, request("workspace", { query: "ERR_WEBHOOK_REPLAY", limit: 1 }))).ids,
    ).toHaveLength(1);
  });

  it("says nothing matches when no snapshot in scope holds the words", async () => {
    const ws = await fourSnapshots();
    const r = await recall(ws, request("session", { query: "audit" }));
    expect([r.found, r.text, r.reply, r.ids]).toEqual([
      false,
      'No snapshot in this session\'s memory matches "audit".',
      'No snapshot in this session\'s memory matches "audit".',
      [],
    ]);
  });

  it("says an identifier no snapshot in scope holds is absent, and gives the snapshots of the closest apart", async () => {
    const ws = await fourSnapshots();
    const r = await recall(ws, request("session", { query: "ERR_WEBHOOK_REPLAYS" }));
    const absent = "No snapshot in this session's memory mentions ERR_WEBHOOK_REPLAYS.";
    expect([r.found, r.ids, r.restored]).toEqual([false, ["2026-11-22-01"], null]);
    expect(r.text.split("\n")[0]).toBe(`${absent} Near matches (fuzzy), not the identifier itself:`);
    expect(r.text).toContain("main's own webhook fix");
    expect(r.reply.split("\n").slice(0, 2)).toEqual([
      `${absent} Did you mean ERR_WEBHOOK_REPLAY? Near matches (fuzzy), not the identifier itself:`,
      'Snapshots matching "ERR_WEBHOOK_REPLAY", best first:',
    ]);
    const ops = await recall(ws, request("agent", { ...OPS, query: "ERR_WEBHOOK_REPLAYS" }));
    expect([ops.found, ops.ids]).toEqual([false, ["2026-11-22-03"]]);
  });

  it("answers an identifier typed as a start with the snapshots holding what it begins, named inside the fence", async () => {
    const ws = await fourSnapshots();
    await ws.save(
      { ...emptyContent(), goal: "ops's audit", names: [{ label: "Error", value: "ERR_WEBHOOK_REPEATED" }] },
      { trigger: "manual", session: OPS.sessionKey, agent: "ops", name: null },
    );
    const r = await recall(ws, request("session", { query: "ERR_WEBHOOK_REP" }));
    const note = "No snapshot in this session's memory mentions ERR_WEBHOOK_REP whole. Matches by prefix";
    expect([r.found, r.ids, r.restored]).toEqual([false, ["2026-11-22-01"], null]);
    expect(r.text.split("\n")[0]).toBe(`${note} (identifiers that begin so):`);
    expect(r.text).toContain(`<big-memory-snapshot-${NONCE} results="1" query="ERR_WEBHOOK_REPLAY"`);
    // What only another session's snapshot holds is named nowhere.
    expect(`${r.text}\n${r.reply}`).not.toContain("ERR_WEBHOOK_REPEATED");
    expect(`${r.text}\n${r.reply}`).not.toContain("ops's audit");
  });

  it("names only what the snapshots it shows hold when a start begins identifiers of several", async () => {
    const ws = await fourSnapshots();
    await ws.save(
      {
        ...emptyContent(),
        goal: "main's retry audit",
        names: [{ label: "Error", value: "ERR_WEBHOOK_REPEATED" }],
      },
      { trigger: "manual", session: MAIN.sessionKey, agent: "main", name: null },
    );
    const both = await recall(ws, request("session", { query: "ERR_WEBHOOK_REP", limit: 2 }));
    expect(both.ids).toHaveLength(2);
    expect(both.text).toMatch(
      /query="ERR_WEBHOOK_(REPLAY, ERR_WEBHOOK_REPEATED|REPEATED, ERR_WEBHOOK_REPLAY)"/,
    );
    const one = await recall(ws, request("session", { query: "ERR_WEBHOOK_REP", limit: 1 }));
    expect(one.ids).toHaveLength(1);
    const [shown, hidden] =
      one.ids[0] === "2026-11-22-01"
        ? ["ERR_WEBHOOK_REPLAY", "ERR_WEBHOOK_REPEATED"]
        : ["ERR_WEBHOOK_REPEATED", "ERR_WEBHOOK_REPLAY"];
    expect(one.text).toContain(`query="${shown}"`);
    expect(`${one.text}\n${one.reply}`).not.toContain(hidden);
  });

  it("gives no close match, nor names one, that only another session's snapshots hold", async () => {
    const ws = await fourSnapshots();
    const r = await recall(
      ws,
      request("session", { sessionKey: "agent:main:new", agentId: "main", query: "ERR_WEBHOOK_REPLAYS" }),
    );
    const absent = "No snapshot in this session's memory mentions ERR_WEBHOOK_REPLAYS.";
    expect([r.found, r.text, r.reply, r.ids]).toEqual([false, absent, absent, []]);
  });
});

describe("recall of the latest", () => {
  it("restores the newest snapshot in scope for a blank query", async () => {
    const ws = await fourSnapshots();
    expect((await recall(ws, request("agent", { query: "  " }))).ids).toEqual(["2026-11-22-04"]);
    expect((await recall(ws, request("agent", { ...OPS }))).restored).toEqual({ id: "2026-11-22-03" });
  });

  it("says none is saved in scope", async () => {
    const ws = await fourSnapshots();
    const r = await recall(ws, request("session", { sessionKey: "agent:main:new", agentId: "main" }));
    expect([r.found, r.text]).toEqual([false, "No snapshot saved yet in this scope."]);
  });
});
