import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { History } from "../../plugin/session/history-index.ts";
import { hasLiveName } from "../../plugin/session/history-saved.ts";
import {
  archiveBefore,
  deleteCheckpoint,
  repair,
  saveSnapshot,
  scrub,
  writePrivateFile,
} from "../../plugin/session/maintenance.ts";
import { emptyContent } from "../../plugin/snapshot/sections.ts";

const NOW = new Date("2026-11-25T09:00:00Z");
const TOKEN = `ghp_${"Kd4e".repeat(9)}`;
let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "big-memory-maintenance-"));
  await mkdir(join(ws, "memory"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

const save = (goal: string, name: string | null = null, now = NOW) =>
  saveSnapshot({
    workspaceDir: ws,
    content: { ...emptyContent(), goal },
    meta: { trigger: "manual", session: "agent:main:main", name },
    now,
    timeZone: "UTC",
  });

describe("saveSnapshot", () => {
  it("appends the snapshot to today's log with the secret redacted before it reaches the disk", async () => {
    const saved = await save(`Rotate the token ${TOKEN}`);
    expect([saved.id, saved.file, saved.redacted]).toEqual(["2026-11-25-01", "memory/2026-11-25.md", 1]);
    const text = await readFile(join(ws, saved.file), "utf8");
    expect(text).not.toContain(TOKEN);
    expect(text).toContain("[REDACTED:github-token]");
  });
});

describe("deleteCheckpoint", () => {
  it("writes a tombstone for a live name only, and nothing for a name with no live snapshot", async () => {
    await save("Fix the OAuth callback", "oauth-fix");
    expect(await deleteCheckpoint({ workspaceDir: ws, name: "other", session: null, now: NOW })).toBeNull();
    const deleted = await deleteCheckpoint({ workspaceDir: ws, name: "oauth-fix", session: null, now: NOW });
    expect(deleted?.id).toBe("2026-11-25-02");
    expect(deleted?.snapshot.tombstone).toBe(true);
    expect(await hasLiveName(ws, "oauth-fix")).toBe(false);
    expect(
      await deleteCheckpoint({ workspaceDir: ws, name: "oauth-fix", session: null, now: NOW }),
    ).toBeNull();
  });
});

describe("archiveBefore", () => {
  it("moves the blocks of the logs dated before the day into the archive", async () => {
    await save("Old work", null, new Date("2026-10-02T09:00:00Z"));
    await save("New work");
    const result = await archiveBefore(ws, "2026-11-01");
    expect(result.problems).toEqual([]);
    expect(result.archived.map((a) => [a.file, a.snapshots])).toEqual([["memory/2026-10-02.md", 1]]);
    expect(await readdir(join(ws, "memory"))).not.toContain("2026-10-02.md");
  });
});

describe("scrub", () => {
  it("redacts a secret left in big-memory's own files, and rebuilds the index only when it removed it", async () => {
    await save("Fix the OAuth callback");
    await mkdir(join(ws, ".big-memory"), { recursive: true });
    await writeFile(join(ws, ".big-memory", "flush.json"), JSON.stringify({ note: `token ${TOKEN}` }));
    const report = await scrub(ws, { logs: false, now: NOW });
    expect(report.total).toBeGreaterThan(0);
    expect(await readFile(join(ws, ".big-memory", "flush.json"), "utf8")).not.toContain(TOKEN);
    // No index yet: nothing removed, nothing rebuilt.
    expect([report.indexRemoved, report.reindexed]).toEqual([false, null]);
  });

  it("rebuilds the index from redacted reads when it removed an old one", async () => {
    await save("Fix the OAuth callback");
    const history = await History.open(ws, { entriesOnly: false, warn: () => {} });
    await history.ready();
    await history.close();
    const report = await scrub(ws, { logs: false, now: NOW });
    expect([report.indexRemoved, report.reindexed]).toEqual([true, 1]);
    expect(await readdir(join(ws, ".big-memory", "search"))).not.toEqual([]);
  });
});

describe("repair", () => {
  it("says what it would append again from the journal with dryRun, and appends it without", async () => {
    await save("Fix the OAuth callback");
    await writeFile(join(ws, "memory/2026-11-25.md"), "");
    const dry = await repair(ws, { dryRun: true, now: NOW });
    expect(dry.dryRun).toBe(true);
    expect(await readFile(join(ws, "memory/2026-11-25.md"), "utf8")).toBe("");
    await repair(ws, { dryRun: false, now: NOW });
    expect(await readFile(join(ws, "memory/2026-11-25.md"), "utf8")).toContain("Fix the OAuth callback");
  });
});

describe("writePrivateFile", () => {
  it("writes the bytes as a private file", async () => {
    const path = join(ws, ".big-memory", "view.html");
    await writePrivateFile(path, Buffer.from("<p>page</p>"));
    expect(await readFile(path, "utf8")).toBe("<p>page</p>");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
