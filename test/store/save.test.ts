import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { emptyContent } from "../../plugin/snapshot/sections.ts";
import type { SnapshotContent } from "../../plugin/snapshot/snapshot.ts";
import { saveSnapshot, tombstone } from "../../plugin/store/save.ts";

const NOW = new Date("2026-11-22T12:00:00Z");
const TOKEN = `ghp_${"Kd4e".repeat(9)}`;
const content: SnapshotContent = {
  ...emptyContent(),
  goal: "Fix the OAuth callback",
  next: ["Write the migration"],
};

let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "big-memory-save-"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

const save = (over: Partial<Parameters<typeof saveSnapshot>[0]> = {}) =>
  saveSnapshot({
    workspaceDir: ws,
    content,
    meta: { trigger: "manual" },
    now: NOW,
    timeZone: "UTC",
    ...over,
  });
const logText = (file: string) => readFile(join(ws, file), "utf8");

describe("saveSnapshot", () => {
  it("appends the canonical block of the snapshot to today's log and says where it landed", async () => {
    const saved = await save({
      meta: { trigger: "compaction", session: "agent:main:main", agent: "main", name: "oauth-fix" },
    });
    expect(saved).toMatchObject({
      id: "2026-11-22-01",
      file: "memory/2026-11-22.md",
      line: 5,
      redacted: 0,
      redactions: {},
    });
    expect(saved.snapshot).toEqual({
      version: 1,
      id: "2026-11-22-01",
      timestamp: "2026-11-22T12:00:00+00:00",
      session: "agent:main:main",
      agent: "main",
      trigger: "compaction",
      name: "oauth-fix",
      parent: null,
      tombstone: false,
      ...content,
    });
    expect(await logText(saved.file)).toBe(renderSnapshot(saved.snapshot));
  });

  it("gives each save of a day the next free id, after any id already in the log", async () => {
    await mkdir(join(ws, "memory"));
    await writeFile(join(ws, "memory/2026-11-22.md"), "# notes\n<!-- snapshot-id: 2026-11-22-07 -->\n");
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await save()).id);
    expect(ids).toEqual(["2026-11-22-08", "2026-11-22-09", "2026-11-22-10"]);
  });

  it("names the log and the timestamp's offset by the time zone", async () => {
    const saved = await save({ now: new Date("2026-11-22T23:30:00Z"), timeZone: "Asia/Tokyo" });
    expect([saved.file, saved.snapshot.timestamp]).toEqual([
      "memory/2026-11-23.md",
      "2026-11-23T08:30:00+09:00",
    ]);
  });

  it("writes absent attribution as absent", async () => {
    const { snapshot } = await save();
    expect([snapshot.session, snapshot.agent, snapshot.name, snapshot.parent, snapshot.tombstone]).toEqual([
      null,
      null,
      null,
      null,
      false,
    ]);
  });

  it("redacts content and metadata before anything reaches the disk, and counts what it replaced", async () => {
    const saved = await save({
      content: {
        ...content,
        goal: `push with ${TOKEN}`,
        names: [{ label: "DB_PASSWORD", value: "Tr0ub4dor-x9" }],
      },
      meta: { trigger: "manual", session: `agent:main:${TOKEN}` },
    });
    expect([saved.redacted, saved.redactions]).toEqual([3, { "github-token": 2, "secret-assignment": 1 }]);
    expect(saved.snapshot.goal).toBe("push with [REDACTED:github-token]");
    expect(saved.snapshot.names).toEqual([{ label: "DB_PASSWORD", value: "[REDACTED:secret-assignment]" }]);
    const text = await logText(saved.file);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("Tr0ub4dor-x9");
  });

  it("redacts a secret that only shows in the rendered block, and the block still verifies", async () => {
    const saved = await save({
      content: { ...content, extra: [{ heading: "password:", body: "Tr0ub4dor-x9" }] },
    });
    expect([saved.redacted, saved.snapshot.extra]).toEqual([
      1,
      [{ heading: "password:", body: "[REDACTED:secret-assignment]" }],
    ]);
    const read = parseDailyLog(await logText(saved.file), saved.file).snapshots;
    expect(read.map((s) => [s.verified, s.snapshot])).toEqual([[true, saved.snapshot]]);
  });

  it("does not change the content it is given", async () => {
    const given = { ...content, goal: `push with ${TOKEN}` };
    await save({ content: given });
    expect(given.goal).toBe(`push with ${TOKEN}`);
  });
});

describe("tombstone", () => {
  it("appends a manual tombstone block for the name, attributed as asked", async () => {
    await save({ meta: { trigger: "manual", name: "oauth-fix" } });
    const saved = await tombstone({
      workspaceDir: ws,
      name: "oauth-fix",
      session: "agent:main:main",
      now: NOW,
      timeZone: "UTC",
    });
    expect(saved.id).toBe("2026-11-22-02");
    expect(saved.snapshot).toEqual({
      version: 1,
      id: "2026-11-22-02",
      timestamp: "2026-11-22T12:00:00+00:00",
      session: "agent:main:main",
      agent: null,
      trigger: "manual",
      name: "oauth-fix",
      parent: null,
      tombstone: true,
      ...emptyContent(),
      goal: "Checkpoint oauth-fix deleted",
    });
    const read = parseDailyLog(await logText(saved.file), saved.file).snapshots;
    expect(read.map((s) => [s.snapshot.id, s.snapshot.tombstone, s.verified])).toEqual([
      ["2026-11-22-01", false, true],
      ["2026-11-22-02", true, true],
    ]);
  });
});
