import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  listed,
  location,
  logNameProblem,
  lostSnapshot,
  resolve,
  type SnapshotRef,
} from "../../plugin/session/history.ts";
import { workspaceEachTest } from "../builders.ts";

const NOW = new Date("2026-11-25T09:00:00Z");
const LOG = "memory/2026-11-25.md";
const workspace = workspaceEachTest("history", NOW);
const save = workspace.save;

describe("listed, location and resolve", () => {
  const ref = (id: string, over: Partial<SnapshotRef & { tombstone: boolean }> = {}) => ({
    id,
    file: `memory/${id.slice(0, 10)}.md`,
    line: 5,
    timestamp: `${id.slice(0, 10)}T10:00:00+00:00`,
    session: "agent:main:main",
    agent: "main",
    name: null as string | null,
    goal: "",
    trigger: "manual" as string | null,
    verified: true as boolean | null,
    tombstone: false,
    ...over,
  });

  it("keeps live refs unless all, filtered and cut to the limit", () => {
    const all = [ref("2026-11-22-02", { name: "a", tombstone: true }), ref("2026-11-22-01", { name: "a" })];
    expect(listed(all, { dir: "", limit: 5, all: false })).toEqual([]);
    expect(listed(all, { dir: "", limit: 1, all: true }).map((r) => r.id)).toEqual(["2026-11-22-02"]);
  });

  it("reads a location, and resolves a shared id to its own day's block with a warning", async () => {
    expect(location("memory/2026-11-22.md:14")).toEqual({ file: "memory/2026-11-22.md", line: 14 });
    expect(location("2026-11-22-01")).toBeNull();
    const own = ref("2026-11-22-01");
    const other = ref("2026-11-22-01", { file: "memory/2026-11-23.md" });
    const got: string[] = [];
    const found = await resolve(
      {
        findAll: () => [other, own],
        latest: () => null,
        getAt: async (file, line) => {
          got.push(`${file}:${line}`);
          return null;
        },
      },
      "2026-11-22-01",
    );
    expect(got).toEqual(["memory/2026-11-22.md:5"]);
    expect(found.warnings).toEqual([
      'snapshot id 2026-11-22-01 is also used by the block at memory/2026-11-23.md:5 (show it with "show memory/2026-11-23.md:5")',
    ]);
  });
});

describe("logNameProblem", () => {
  it("accepts a daily log of memory/ and names what else a location points at", () => {
    expect(logNameProblem("memory/2026-11-22.md")).toBeNull();
    expect(logNameProblem("memory/rapport-profile.md")).not.toBeNull();
  });
});

describe("lostSnapshot", () => {
  it("finds a snapshot its log lost in the journal, by id and by name, and nothing else", async () => {
    await save("Fix the OAuth callback", "oauth-fix");
    expect(await lostSnapshot(workspace.dir, { id: "2026-11-25-01" })).toBeNull();
    await writeFile(join(workspace.dir, LOG), "");
    expect((await lostSnapshot(workspace.dir, { id: "2026-11-25-01" }))?.snapshot.goal).toBe(
      "Fix the OAuth callback",
    );
    expect((await lostSnapshot(workspace.dir, { name: "oauth-fix" }))?.snapshot.id).toBe("2026-11-25-01");
    expect(await lostSnapshot(workspace.dir, { name: "other" })).toBeNull();
  });
});
