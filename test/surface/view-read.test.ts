import { describe, expect, it } from "vitest";
import { readViewPage, readWholeView } from "../../plugin/surface/view-read.ts";
import { cli, workspaces } from "./cli-harness.ts";
import { FEATURE, NIGHTLY, writeTimelineWorkspace } from "./view-fixture.ts";

const workspace = workspaces();
const NOW = new Date("2026-11-26T00:00:00Z");

describe("readWholeView", () => {
  it("reads every live snapshot as list does, the whole ledger and every restore", async () => {
    const dir = workspace();
    await writeTimelineWorkspace(dir);
    const data = await readWholeView(dir, NOW);
    const listed = (await cli(["list", "--dir", dir, "--json"])).json() as { snapshots: { id: string }[] };
    expect(data.snapshots.map((s) => s.i).reverse()).toEqual(listed.snapshots.map((s) => s.id));
    expect(data.compactions.map((c) => [c.s, c.p, c.c])).toEqual([
      [FEATURE, "preflight", "flush"],
      [NIGHTLY, "overflow", "none"],
      [FEATURE, "reset", "existing"],
    ]);
    expect(data.compactions[0]?.r).toEqual({ t: "2026-11-25T10:01:00.000Z", sn: "2026-11-25-01", k: 640 });
    expect(data.restores.map((r) => [r.why, r.k])).toEqual([
      ["compaction", 640],
      ["amnesia", 512],
      ["resume", 300],
    ]);
    expect(data.problems).toEqual([]);
    expect(data.paging).toBeNull();
  });

  it("names a ledger line it skipped, and reads the rest", async () => {
    const dir = workspace({ ".big-memory/ledger.jsonl": '{"v":2,"kind":"cycle"}\nnot json\n' });
    const data = await readWholeView(dir, NOW);
    expect(data.problems).toEqual([
      ".big-memory/ledger.jsonl: 2 line(s) skipped (torn or of another version)",
    ]);
  });
});

describe("readViewPage", () => {
  // list --json hands over the refs the index holds, newest first, as the workspace's liveRefs does.
  it("pages the refs, newest first, a page past the last is the last, each compaction and restore on one page", async () => {
    const dir = workspace();
    await writeTimelineWorkspace(dir);
    const refs = {
      liveRefs: async () =>
        ((await cli(["list", "--dir", dir, "--json"])).json() as { snapshots: never[] }).snapshots,
    };
    const pages = await Promise.all(
      [1, 2, 3].map((page) => readViewPage(dir, refs, { agent: "main", page, now: NOW, size: 2 })),
    );
    expect(pages.map((p) => p.snapshots.map((s) => s.i))).toEqual([
      ["2026-11-25-01", "2026-11-25-02"],
      ["2026-11-24-01", "2026-11-24-02"],
      ["2026-11-24-01", "2026-11-24-02"],
    ]);
    expect(pages[0]?.paging).toEqual({
      page: 1,
      pages: 2,
      size: 2,
      total: 4,
      newer: null,
      older: "?agent=main&page=2",
    });
    expect(pages[1]?.paging).toMatchObject({ page: 2, newer: "?agent=main&page=1", older: null });
    const all = [...(pages[0]?.compactions ?? []), ...(pages[1]?.compactions ?? [])];
    expect(all).toHaveLength(3);
    expect([...(pages[0]?.restores ?? []), ...(pages[1]?.restores ?? [])]).toHaveLength(3);
  });
});
