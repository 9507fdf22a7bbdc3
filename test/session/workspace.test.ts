import { existsSync, readFileSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePluginConfig } from "../../plugin/config.ts";
import { SearchService } from "../../plugin/search/search-service.ts";
import { SessionState, sessionStatePath } from "../../plugin/session/session-state.ts";
import { Workspace, Workspaces } from "../../plugin/session/workspace.ts";
import { textSpan } from "../../plugin/snapshot/block-span.ts";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { emptyContent } from "../../plugin/snapshot/sections.ts";
import { forgetJudged, judgedFor } from "../../plugin/store/judged-memory.ts";
import { snapshot } from "../builders.ts";
import { MAIN, NOW, TODAY_LOG, useWorkspaces } from "./fixtures.ts";

const workspace = useWorkspaces();
const content = (goal: string) => ({ ...emptyContent(), goal });
const meta = { trigger: "manual", session: MAIN.sessionKey, agent: MAIN.agentId } as const;

describe("Workspace", () => {
  it("does no I/O when constructed, and resolves its folder", async () => {
    const parent = await mkdtemp(join(tmpdir(), "big-memory-session-"));
    try {
      const dir = join(parent, "ws");
      const ws = new Workspace(relative(process.cwd(), dir), {
        config: parsePluginConfig({}),
        logger: { warn: () => {} },
        now: () => NOW,
      });
      ws.session(MAIN.sessionKey, MAIN.agentId);
      ws.flushMarks();
      expect([ws.dir, ws.stateDir]).toEqual([dir, join(dir, ".big-memory")]);
      expect(existsSync(dir)).toBe(false);
      await ws.close();
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});

describe("Workspace.save", () => {
  it("appends redacted blocks with consecutive ids to today's log, found again by liveRefs and snapshotIn", async () => {
    const { ws, dir } = await workspace();
    const first = await ws.save(content("fix the login"), meta);
    const second = await ws.save(content("token sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"), meta);
    expect([first.id, first.file, second.id]).toEqual(["2026-11-22-01", TODAY_LOG, "2026-11-22-02"]);
    const text = readFileSync(join(dir, TODAY_LOG), "utf8");
    expect(text).not.toContain("sk-ant-api03");
    expect((await ws.liveRefs()).map((r) => [r.id, r.line, r.session])).toEqual([
      [second.id, second.line, MAIN.sessionKey],
      [first.id, first.line, MAIN.sessionKey],
    ]);
    expect((await ws.snapshotIn(TODAY_LOG, second.id))?.snapshot.goal).toContain("[REDACTED:");
  });
});

describe("Workspace.readLog and snapshotIn", () => {
  it("read a missing log as empty and find nothing in it, or for an unknown id", async () => {
    const { ws } = await workspace();
    expect(await ws.readLog(TODAY_LOG)).toBe("");
    expect((await ws.readLogBytes(TODAY_LOG)).length).toBe(0);
    expect(await ws.snapshotIn(TODAY_LOG, "2026-11-22-01")).toBeNull();
    await ws.save(content("one"), meta);
    expect(await ws.snapshotIn(TODAY_LOG, "2026-11-22-09")).toBeNull();
    expect(await ws.readLog(TODAY_LOG)).toContain("<!-- snapshot-id: 2026-11-22-01 -->");
    expect((await ws.readLogBytes(TODAY_LOG)).toString("utf8")).toBe(await ws.readLog(TODAY_LOG));
  });

  it("find a block among notes and other blocks as the whole log's parse finds it, a secret redacted", async () => {
    const { ws, dir } = await workspace();
    const token = `ghp_${"Sp4n".repeat(9)}`;
    const notes = "# Notes\n\n```sh\nnpm test\n```\n\n";
    const blocks = [1, 2, 3].map((n) =>
      renderSnapshot(snapshot(`2026-11-22-0${n}`, { goal: n === 2 ? `push with ${token}` : `goal ${n}` })),
    );
    const text = `${notes}${blocks.join("\n")}\nmore notes\n`;
    await mkdir(join(dir, "memory"), { recursive: true });
    await writeFile(join(dir, TODAY_LOG), text);
    const whole = parseDailyLog(text, TODAY_LOG).snapshots;
    for (const id of ["2026-11-22-01", "2026-11-22-02", "2026-11-22-03"])
      expect(await ws.snapshotIn(TODAY_LOG, id)).toEqual(whole.find((s) => s.snapshot.id === id));
    expect((await ws.snapshotIn(TODAY_LOG, "2026-11-22-02"))?.snapshot.goal).toBe(
      "push with [REDACTED:github-token]",
    );
    // After a fence the notes leave open, the block is code to every reader: not found in the log.
    await writeFile(join(dir, TODAY_LOG), `${notes}\`\`\`\nunclosed\n\n${blocks.join("\n")}`);
    expect(await ws.snapshotIn(TODAY_LOG, "2026-11-22-03")).toBeNull();
  });

  it("find a block after text of several bytes per character at the line and with the text the whole parse gives", async () => {
    const { ws, dir } = await workspace();
    // Characters of 2, 3 and 4 bytes, a no-break space (C2 A0) and a line separator in the notes, in fence
    // lines (one closes with a no-break space after it, which is no closing fence) and in the blocks' values.
    const notes = "# Journal — 日本語\n\ncafé\u00a0au lait\u2028next 🚀\n\n~~~ é\nx\n~~~\u00a0\n~~~\n\n";
    const blocks = [1, 2, 3].map((n) =>
      renderSnapshot(
        snapshot(`2026-11-22-0${n}`, { goal: `étape ${n} → 完成 🚀`, next: ["naïve\u00a0état"] }),
      ),
    );
    const text = `${notes}${blocks.join("\n")}\nnotes après 🚀\n`;
    await mkdir(join(dir, "memory"), { recursive: true });
    await writeFile(join(dir, TODAY_LOG), text);
    const whole = parseDailyLog(text, TODAY_LOG).snapshots;
    expect(whole).toHaveLength(3);
    for (const id of ["2026-11-22-01", "2026-11-22-02", "2026-11-22-03"])
      expect(await ws.snapshotIn(TODAY_LOG, id)).toEqual(whole.find((s) => s.snapshot.id === id));
    expect((await ws.snapshotIn(TODAY_LOG, "2026-11-22-03"))?.snapshot.goal).toBe("étape 3 → 完成 🚀");
    // The same fence left open by a line that only looks like its close: every block is code, none is found.
    await writeFile(join(dir, TODAY_LOG), text.replace("~~~\u00a0\n~~~\n", "~~~\u00a0\n"));
    expect(parseDailyLog(text.replace("~~~\u00a0\n~~~\n", "~~~\u00a0\n"), TODAY_LOG).snapshots).toEqual([]);
    expect(await ws.snapshotIn(TODAY_LOG, "2026-11-22-02")).toBeNull();
  });
});

describe("Workspace and the search service read through the workspace's one memory of judged blocks", () => {
  const token = `ghp_${"Pr5e".repeat(9)}`;
  // A verified block holding a secret, written as a log under older rules holds it.
  const block = renderSnapshot(snapshot("2026-11-22-01", { goal: `push with ${token}` }));
  const key = textSpan(block, block.indexOf("<!-- BIG-MEMORY-SNAPSHOT"))?.key ?? "";
  const goals = async (ws: Workspace, dir: string) => {
    const service = await SearchService.open(dir, { logger: { warn: () => {} }, watch: false });
    try {
      await service.ready();
      return [
        (await ws.snapshotIn(TODAY_LOG, "2026-11-22-01"))?.snapshot.goal,
        (await ws.snapshotsSince(TODAY_LOG, 0))[0]?.snapshot.goal,
        (await service.get("2026-11-22-01"))?.snapshot.goal,
      ];
    } finally {
      await service.close();
    }
  };

  it("each reader trusts what the memory judgedFor(workspace) remembers, and nothing else", async () => {
    const { ws, dir } = await workspace();
    await mkdir(join(dir, "memory"), { recursive: true });
    await writeFile(join(dir, TODAY_LOG), block);
    forgetJudged();
    try {
      const redacted = "push with [REDACTED:github-token]";
      expect(await goals(ws, dir)).toEqual([redacted, redacted, redacted]);
      expect(judgedFor(dir).has(key)).toBe(false);
      // The one memory, told (as by another reader) that this text was judged clean: every reader skips it.
      judgedFor(dir).add(key);
      const kept = `push with ${token}`;
      expect(await goals(ws, dir)).toEqual([kept, kept, kept]);
    } finally {
      forgetJudged();
    }
  });

  it("what one reader judged clean is remembered for the others", async () => {
    const { ws, dir } = await workspace();
    forgetJudged();
    try {
      const saved = await ws.save(content("fix the login"), meta);
      const text = await ws.readLog(TODAY_LOG);
      const cleanKey = textSpan(text, text.indexOf("<!-- BIG-MEMORY-SNAPSHOT"))?.key ?? "";
      await ws.snapshotIn(TODAY_LOG, saved.id);
      expect(judgedFor(dir).has(cleanKey)).toBe(true);
    } finally {
      forgetJudged();
    }
  });
});

describe("Workspace.snapshotsSince", () => {
  it("reads only what was appended at or after the offset, at the lines of the whole file", async () => {
    const { ws } = await workspace();
    await ws.save(content("before the mark → 日本 🚀\u2028 été"), meta);
    const offset = Buffer.byteLength(await ws.readLog(TODAY_LOG));
    const after = await ws.save(content("after the mark"), meta);
    const since = await ws.snapshotsSince(TODAY_LOG, offset);
    expect(since.map((l) => [l.snapshot.goal, l.line])).toEqual([["after the mark", after.line]]);
    const whole = parseDailyLog(await ws.readLog(TODAY_LOG), TODAY_LOG).snapshots[1];
    expect(since[0]?.line).toBe(whole?.line);
  });

  it("finds nothing past the end, nor in a missing log", async () => {
    const { ws } = await workspace();
    const saved = await ws.save(content("one"), meta);
    expect(await ws.snapshotsSince(TODAY_LOG, 1_000_000)).toEqual([]);
    expect(await ws.snapshotsSince("memory/2026-11-21.md", 0)).toEqual([]);
    expect((await ws.snapshotsSince(TODAY_LOG, 0)).map((l) => l.snapshot.id)).toEqual([saved.id]);
  });
});

describe("Workspace.claim", () => {
  it("lays the claim over the block in every read, without touching the log", async () => {
    const { ws } = await workspace();
    const saved = await ws.save(content("the flush block"), {
      trigger: "manual",
      session: "agent:main:flush",
      agent: "main",
    });
    const before = await ws.readLog(TODAY_LOG);
    await ws.claim({
      at: NOW.toISOString(),
      file: saved.file,
      line: saved.line,
      id: saved.id,
      session: "agent:main:real",
      agent: "main",
    });
    expect(await ws.readLog(TODAY_LOG)).toBe(before);
    expect((await ws.snapshotIn(TODAY_LOG, saved.id))?.snapshot).toMatchObject({
      session: "agent:main:real",
      trigger: "flush",
    });
    expect((await ws.liveRefs())[0]?.session).toBe("agent:main:real");
    expect((await ws.byId(saved.id))?.snapshot.session).toBe("agent:main:real");
  });
});

describe("Workspace.session", () => {
  it("keeps a change in memory until flushSessions writes the session's file", async () => {
    const { ws, another } = await workspace();
    const session = ws.session(MAIN.sessionKey, MAIN.agentId);
    await session.read();
    const path = sessionStatePath(ws.stateDir, MAIN.sessionKey);
    session.change((s) => ({ ...s, updatedAt: "2026-11-22T12:00:01.000Z" }));
    expect((await session.read()).updatedAt).toBe("2026-11-22T12:00:01.000Z");
    expect(existsSync(path)).toBe(false);
    await ws.flushSessions();
    expect(SessionState.parse(JSON.parse(await readFile(path, "utf8"))).updatedAt).toBe(
      "2026-11-22T12:00:01.000Z",
    );
    expect((await another().session(MAIN.sessionKey, MAIN.agentId).read()).updatedAt).toBe(
      "2026-11-22T12:00:01.000Z",
    );
  });

  it("writes an update at once, and what is still in memory at close", async () => {
    const { ws, another } = await workspace();
    const session = ws.session(MAIN.sessionKey, MAIN.agentId);
    await session.update((s) => ({ ...s, line: { name: "auth", parent: null } }));
    expect((await another().session(MAIN.sessionKey, null).read()).line).toEqual({
      name: "auth",
      parent: null,
    });
    session.change((s) => ({ ...s, updatedAt: "2026-11-22T12:00:02.000Z" }));
    await ws.close();
    const reread = await another().session(MAIN.sessionKey, null).read();
    expect([reread.updatedAt, reread.line?.name]).toEqual(["2026-11-22T12:00:02.000Z", "auth"]);
  });

  it("gives one state object per session key, and a fresh state to a session never seen", async () => {
    const { ws } = await workspace();
    expect(ws.session("agent:ops:x", "ops")).toBe(ws.session("agent:ops:x", "ops"));
    expect(await ws.session("agent:ops:x", "ops").read()).toMatchObject({
      sessionKey: "agent:ops:x",
      agentId: "ops",
      snapshots: [],
    });
  });
});

describe("Workspace.byName, deleteName and latestVisible", () => {
  it("answer the newest live snapshot of a name, none once the name is deleted", async () => {
    const { ws } = await workspace();
    await ws.save(content("auth v1"), { ...meta, name: "auth" });
    const v2 = await ws.save(content("auth v2"), { ...meta, name: "auth" });
    const other = await ws.save(content("unnamed"), meta);
    expect((await ws.byName("auth"))?.snapshot.id).toBe(v2.id);
    await ws.deleteName("auth", { session: MAIN.sessionKey, agent: MAIN.agentId });
    expect(await ws.byName("auth")).toBeNull();
    expect((await ws.latestVisible(() => true))?.snapshot.id).toBe(other.id);
    expect(await ws.latestVisible((r) => r.name === "auth")).toBeNull();
    expect((await ws.liveRefs()).map((r) => r.id)).toEqual([other.id]);
  });
});

describe("Workspace.query", () => {
  it("finds this process's own writes at once, best first, and names an identifier no snapshot holds", async () => {
    const { ws } = await workspace();
    await ws.index();
    const saved = await ws.save(content("fix ERR_DUPLICATE_KEY in the oauth callback"), meta);
    const found = await ws.query("ERR_DUPLICATE_KEY", { limit: 3, filter: {} });
    expect([found.match, found.hits.map((h) => h.located.snapshot.id)]).toEqual(["exact", [saved.id]]);
    const absent = await ws.query("ERR_DUPLICATE_KEZ", { limit: 3, filter: {} });
    expect(absent.missing).toEqual(["ERR_DUPLICATE_KEZ"]);
  });
});

describe("Workspace.logRestore", () => {
  it("appends one versioned line per restore to the private restore log", async () => {
    const { ws } = await workspace();
    await ws.logRestore({
      at: NOW.toISOString(),
      id: "2026-11-22-01",
      session: MAIN.sessionKey,
      reason: "compaction",
      tokens: 120,
    });
    const lines = (await readFile(join(ws.stateDir, "restore-log.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        v: 1,
        at: NOW.toISOString(),
        id: "2026-11-22-01",
        session: MAIN.sessionKey,
        reason: "compaction",
        tokens: 120,
      },
    ]);
  });
});

describe("Workspaces", () => {
  it("gives one Workspace per resolved folder and closes them all", async () => {
    const { dir } = await workspace();
    const all = new Workspaces({
      config: parsePluginConfig({}),
      logger: { warn: () => {} },
      now: () => NOW,
      sessionFlushMs: 3_600_000,
    });
    const ws = all.get(dir);
    expect(all.get(join(dir, "memory", ".."))).toBe(ws);
    ws.session(MAIN.sessionKey, MAIN.agentId).change((s) => ({
      ...s,
      updatedAt: "2026-11-22T12:00:03.000Z",
    }));
    await all.closeAll();
    const reopened = all.get(dir);
    expect(reopened).not.toBe(ws);
    await reopened.close();
    const written = SessionState.parse(
      JSON.parse(await readFile(sessionStatePath(ws.stateDir, MAIN.sessionKey), "utf8")),
    );
    expect(written.updatedAt).toBe("2026-11-22T12:00:03.000Z");
  });
});

describe("Workspace and the journal", () => {
  it("warns once in the gateway log when the watcher sees a log lose its blocks, and finds them by id and name", async () => {
    const dir = await mkdtemp(join(tmpdir(), "big-memory-session-"));
    const warned: string[] = [];
    let heard: (message: string) => void = () => {};
    const ws = new Workspace(dir, {
      config: parsePluginConfig({ timeZone: "UTC" }),
      logger: {
        warn: (m) => {
          warned.push(m);
          heard(m);
        },
      },
      now: () => NOW,
      watch: () => true,
      sessionFlushMs: 3_600_000,
    });
    try {
      const saved = await ws.save(content("fix the login"), { ...meta, name: "login-fix" });
      await (await ws.index()).ready();
      const warning = new Promise<string>((resolve) => {
        heard = resolve;
      });
      // A model's `write` in an ordinary turn replaces the day's log.
      await writeFile(join(dir, TODAY_LOG), "# Today\n");
      expect(await warning).toBe(
        `big-memory: ${TODAY_LOG} lost 1 snapshot big-memory wrote there (${saved.id}) and was cut from ${saved.offset + saved.bytes} to 8 bytes: something replaced or cut it (a model's write tool, an editor). Their copies are in big-memory's journal: run big-memory repair to append them again. Text others wrote there is not kept by big-memory.`,
      );
      // Seen again (the next change, the next open): no second warning for the same incident.
      await appendFile(join(dir, TODAY_LOG), "more\n");
      await ws.checkJournal(TODAY_LOG);
      await ws.checkJournal();
      expect(warned).toHaveLength(1);
      expect((await ws.byId(saved.id))?.snapshot.goal).toBe("fix the login");
      expect((await ws.byName("login-fix"))?.snapshot.id).toBe(saved.id);
      expect((await ws.snapshotIn(TODAY_LOG, saved.id))?.snapshot.session).toBe(MAIN.sessionKey);
    } finally {
      await ws.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps a claimed flush block's copy with its session", async () => {
    const { ws, dir } = await workspace();
    const block =
      "<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-11-22-01 -->\n### [SNAPSHOT] Active Goal\nship it\n<!-- /BIG-MEMORY-SNAPSHOT -->\n";
    await mkdir(join(dir, "memory"), { recursive: true });
    await writeFile(join(dir, TODAY_LOG), block);
    await ws.claim({
      at: NOW.toISOString(),
      file: TODAY_LOG,
      line: 1,
      id: "2026-11-22-01",
      session: MAIN.sessionKey,
      agent: "main",
    });
    await writeFile(join(dir, TODAY_LOG), "");
    const found = await ws.snapshotIn(TODAY_LOG, "2026-11-22-01");
    expect([found?.snapshot.goal, found?.snapshot.session, found?.snapshot.trigger]).toEqual([
      "ship it",
      MAIN.sessionKey,
      "flush",
    ]);
  });
});
