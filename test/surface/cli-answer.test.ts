import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listed, resolve, shownArgument } from "../../plugin/surface/cli-answer.ts";
import { UsageError } from "../../plugin/surface/cli-args.ts";
import { cli, SKILL_LOG, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

const ref = (
  id: string,
  over: Partial<{ name: string | null; tombstone: boolean; session: string | null }> = {},
) => ({
  id,
  timestamp: `${id.slice(0, 10)}T10:00:00Z`,
  file: `memory/${id.slice(0, 10)}.md`,
  line: Number(id.slice(11)),
  session: null,
  agent: null,
  trigger: null,
  name: null,
  goal: "",
  verified: null,
  tombstone: false,
  ...over,
});

describe("listed", () => {
  const all = [
    ref("2026-11-22-03", { name: "a", tombstone: true }),
    ref("2026-11-22-02", { session: "s" }),
    ref("2026-11-22-01", { name: "a" }),
  ];

  it("leaves out tombstones and what they hide unless all, then filters and limits", () => {
    const base = { dir: "/w", limit: Number.POSITIVE_INFINITY, all: false };
    expect(listed(all, base).map((r) => r.id)).toEqual(["2026-11-22-02"]);
    expect(listed(all, { ...base, all: true, limit: 2 }).map((r) => r.id)).toEqual([
      "2026-11-22-03",
      "2026-11-22-02",
    ]);
    expect(listed(all, { ...base, all: true, session: "s" }).map((r) => r.id)).toEqual(["2026-11-22-02"]);
  });
});

describe("resolve", () => {
  const blocks = [ref("2026-11-22-01"), { ...ref("2026-11-22-01"), file: "memory/2026-11-23.md", line: 9 }];
  const index = {
    findAll: (id: string) => blocks.filter((b) => b.id === id),
    latest: () => null,
    getAt: async (file: string, line: number) => ({
      snapshot: {} as never,
      file,
      line,
      verified: null,
      checksum: null,
    }),
  };

  it("takes an id's block in its own day's log and names the others", async () => {
    const { found, warnings } = await resolve(index, "2026-11-22-01");
    expect(found).toMatchObject({ file: "memory/2026-11-22.md", line: 1 });
    expect(warnings).toEqual([
      'snapshot id 2026-11-22-01 is also used by the block at memory/2026-11-23.md:9 (show it with "show memory/2026-11-23.md:9")',
    ]);
  });

  it("reads a file:line from its log, and finds nothing for an unknown name", async () => {
    expect((await resolve(index, "memory/2026-11-23.md:9")).found).toMatchObject({ line: 9 });
    expect(await resolve(index, "no-such-name")).toEqual({ found: null, warnings: [] });
  });
});

describe("shownArgument", () => {
  it("names a location relative to the workspace however it was written, and refuses an empty argument", () => {
    const ws = "/home/dev/app";
    expect(shownArgument(" 2026-11-20-01 ", ws)).toBe("2026-11-20-01");
    expect(shownArgument("auth-refactor", ws)).toBe("auth-refactor");
    expect(shownArgument("./memory/2026-11-20.md:9", ws)).toBe("memory/2026-11-20.md:9");
    expect(shownArgument("/home/dev/app/memory/2026-11-20.md:9", ws)).toBe("memory/2026-11-20.md:9");
    expect(shownArgument("memory//x/../2026-11-20.md:9", ws)).toBe("memory/2026-11-20.md:9");
    for (const empty of ["", "   "]) expect(() => shownArgument(empty, ws)).toThrow(UsageError);
  });

  it("lets show reach a block by ./ and absolute locations, and exit 2 on an empty argument", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const plain = await cli(["show", "2026-11-20-01", "--dir", dir, "--json"]);
    const { file, line } = (plain.json() as { snapshot: { file: string; line: number } }).snapshot;
    for (const where of [`./${file}:${line}`, `${join(dir, file)}:${line}`]) {
      const r = await cli(["show", where, "--dir", dir, "--json"]);
      expect(r.code, where).toBe(0);
      expect((r.json() as { snapshot: { file: string; id: string } }).snapshot).toMatchObject({
        file,
        id: "2026-11-20-01",
      });
    }
    const empty = await cli(["show", "", "--dir", dir]);
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([
      2,
      "",
      "big-memory: show needs a snapshot id, a file:line or a checkpoint name\n",
    ]);
  });
});
