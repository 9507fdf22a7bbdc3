import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { latestOfSession, restoreFor } from "../../plugin/session/restore-service.ts";
import { initialSessionState, type SessionState, withCapture } from "../../plugin/session/session-state.ts";
import type { Workspace } from "../../plugin/session/workspace.ts";
import { emptyContent } from "../../plugin/snapshot/sections.ts";
import { located, snapshot } from "../builders.ts";
import { MAIN, NOW, useWorkspaces } from "./fixtures.ts";

const workspace = useWorkspaces();
const NONCE = "0123456789abcdef";
const count = (text: string, part: string) => text.split(part).length - 1;

describe("restoreFor", () => {
  const auth = located(
    snapshot("2026-11-22-03", {
      goal: "Fix ERR_DUPLICATE_KEY on second login",
      next: ["rerun npm test -- oauth"],
      files: [
        { path: "src/gone.ts", note: "deleted since" },
        { path: "src/changed.ts", note: "edited since" },
        { path: "src/same.ts", note: "untouched" },
      ],
    }),
    14,
  );
  /** The files of `auth` as they are now: one gone, one written after the snapshot, one before it. */
  async function filesInPlay(ws: Workspace): Promise<void> {
    await mkdir(join(ws.dir, "src"));
    for (const [name, at] of [
      ["changed.ts", "2026-11-22T11:00:00Z"],
      ["same.ts", "2026-11-22T09:00:00Z"],
    ] as const) {
      await writeFile(join(ws.dir, "src", name), "");
      await utimes(join(ws.dir, "src", name), new Date(at), new Date(at));
    }
  }

  it("fences the notes with the given nonce, once, naming the reason and the source", async () => {
    const { ws } = await workspace();
    await filesInPlay(ws);
    const r = await restoreFor(ws, auth, "compaction", { tokenBudget: 1200, nonce: NONCE });
    expect(count(r.text, `<big-memory-snapshot-${NONCE} `)).toBe(1);
    expect(count(r.text, `</big-memory-snapshot-${NONCE}>`)).toBe(1);
    expect(r.text).toContain('id="2026-11-22-03"');
    expect(r.text).toContain('source="memory/2026-11-22.md:14"');
    expect(r.text).toContain('reason="compaction"');
    expect(r.text).toContain("ERR_DUPLICATE_KEY");
    expect(r.notes).toContain("rerun npm test -- oauth");
    expect(r.notes).not.toContain("big-memory-snapshot-");
    expect(r.tokens).toBeGreaterThan(0);
    expect(r.tokens).toBeLessThanOrEqual(1200);
  });

  it("warns about files in play that are gone or changed since the snapshot, in the text too", async () => {
    const { ws } = await workspace();
    await filesInPlay(ws);
    const r = await restoreFor(ws, auth, "amnesia", { tokenBudget: 1200, nonce: NONCE });
    expect(r.warnings).toEqual([
      "src/gone.ts does not exist (any more, or yet)",
      "src/changed.ts changed since the snapshot was taken",
    ]);
    for (const w of r.warnings) expect(r.text).toContain(w);
  });

  it("says first when the block was modified after it was written", async () => {
    const { ws } = await workspace();
    await filesInPlay(ws);
    const r = await restoreFor(ws, { ...auth, verified: false }, "resume", {
      tokenBudget: 1200,
      nonce: NONCE,
    });
    expect(r.warnings[0]).toBe("this snapshot was modified after it was written (checksum mismatch)");
    expect(r.text).toContain('verified="no-modified"');
  });

  it("renders the same restore to the same bytes, and another restore under another nonce", async () => {
    const { ws } = await workspace();
    const text = async (reason: "recall" | "compaction") =>
      (await restoreFor(ws, auth, reason, { tokenBudget: 1200 })).text;
    const tag = (t: string) => /<big-memory-snapshot-([0-9a-f]{16}) /.exec(t)?.[1];
    const [a, b, c] = [await text("recall"), await text("recall"), await text("compaction")];
    expect(tag(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(b).toBe(a);
    expect(tag(c)).not.toBe(tag(a));
  });
});

describe("latestOfSession", () => {
  const meta = { trigger: "manual", session: MAIN.sessionKey, agent: MAIN.agentId } as const;
  /** Saves one snapshot per goal and records each in the session's state, oldest first. */
  async function written(ws: Workspace, goals: string[]): Promise<SessionState> {
    let s = initialSessionState(MAIN.sessionKey, MAIN.agentId);
    for (const goal of goals) {
      const saved = await ws.save({ ...emptyContent(), goal }, meta);
      s = withCapture(s, { ...saved, trigger: "manual", at: NOW.toISOString() });
    }
    return s;
  }
  const now = { now: NOW };

  it("reads the newest snapshot the session wrote from its own log", async () => {
    const { ws } = await workspace();
    const s = await written(ws, ["first", "second"]);
    expect((await latestOfSession(ws, s, now))?.snapshot.goal).toBe("second");
  });

  it("is null for a session that wrote none", async () => {
    const { ws } = await workspace();
    expect(await latestOfSession(ws, initialSessionState(MAIN.sessionKey, null), now)).toBeNull();
  });

  it("passes over a tombstone and a snapshot no longer in its log", async () => {
    const { ws } = await workspace();
    const s = await written(ws, ["the one left"]);
    const tomb = await ws.deleteName("old-name", { session: MAIN.sessionKey, agent: MAIN.agentId });
    const withTomb = withCapture(s, { ...tomb, trigger: "manual", at: NOW.toISOString() });
    const lost = withCapture(withTomb, {
      id: "2026-11-21-01",
      file: "memory/2026-11-21.md",
      trigger: "manual",
      at: NOW.toISOString(),
    });
    const missing = withCapture(lost, {
      id: "2026-11-22-09",
      file: tomb.file,
      trigger: "manual",
      at: NOW.toISOString(),
    });
    expect((await latestOfSession(ws, missing, now))?.snapshot.goal).toBe("the one left");
  });

  it("passes over a snapshot whose checkpoint name was deleted since, and takes one of the name saved after", async () => {
    const { ws } = await workspace();
    const older = await written(ws, ["before auth"]);
    const saved = await ws.save({ ...emptyContent(), goal: "auth work" }, { ...meta, name: "auth" });
    const s = withCapture(older, { ...saved, trigger: "manual", at: NOW.toISOString() });
    expect((await latestOfSession(ws, s, now))?.snapshot.goal).toBe("auth work");
    await ws.deleteName("auth", { session: MAIN.sessionKey, agent: MAIN.agentId });
    expect(await ws.byName("auth")).toBeNull();
    expect((await latestOfSession(ws, s, now))?.snapshot.goal).toBe("before auth");
    const again = await ws.save({ ...emptyContent(), goal: "auth again" }, { ...meta, name: "auth" });
    const s2 = withCapture(s, { ...again, trigger: "manual", at: NOW.toISOString() });
    expect((await latestOfSession(ws, s2, now))?.snapshot.goal).toBe("auth again");
  });

  it("gives nothing once the newest snapshot is past retention", async () => {
    const { ws } = await workspace();
    const s = await written(ws, ["ten days old"]);
    const tenDaysOn = new Date(NOW.getTime() + 10 * 86_400_000);
    expect(await latestOfSession(ws, s, { retentionDays: 5, now: tenDaysOn })).toBeNull();
    expect((await latestOfSession(ws, s, { retentionDays: 30, now: tenDaysOn }))?.snapshot.goal).toBe(
      "ten days old",
    );
  });
});
