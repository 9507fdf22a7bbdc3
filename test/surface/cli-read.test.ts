import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { progress } from "../../plugin/surface/cli-progress.ts";
import { snapshot as snap } from "../builders.ts";
import { cli, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

describe("big-memory search, identifiers", () => {
  const files = {
    "memory/2026-11-20.md": renderSnapshot(
      snap("2026-11-20-01", {
        names: [{ label: "Error", value: "ERR_WEBHOOK_REPLAY" }],
        files: [{ path: "src/billing/webhook.ts", note: "" }],
      }),
    ),
    "memory/2026-11-21.md": renderSnapshot(
      snap("2026-11-21-01", { names: [{ label: "Error", value: "ERR_DB_TIMEOUTS" }] }),
    ),
  };

  it("answers an absent identifier with no hit and exit 1", async () => {
    const r = await cli(["search", "ERR_QUEUE_STALLED", "--dir", workspace(files), "--json"]);
    expect([r.code, r.json()]).toEqual([
      1,
      {
        snapshots: [],
        match: "fuzzy",
        missing: ["ERR_QUEUE_STALLED"],
        suggestions: [{ word: "ERR_QUEUE_STALLED", closest: [] }],
        diagnostics: [],
      },
    ]);
  });

  it("answers an absent path with no hit and exit 1, though its folder holds others", async () => {
    const r = await cli(["search", "src/billing/refunds.ts", "--dir", workspace(files), "--json"]);
    expect(r.code).toBe(1);
    expect((r.json() as { snapshots: unknown[] }).snapshots).toEqual([]);
  });

  it("tells people no snapshot mentions it, and the closest identifier that exists", async () => {
    const r = await cli(["search", "ERR_DB_TIMEOUT", "--dir", workspace(files)]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n")[0]).toBe(
      "No snapshot mentions ERR_DB_TIMEOUT. Did you mean ERR_DB_TIMEOUTS? Closest matches (fuzzy):",
    );
    expect(r.stdout).toContain("2026-11-21-01");
  });
});

describe("big-memory search, first answer without an index", () => {
  it("answers a large workspace's first search by reading the logs, and builds the index in the background", async () => {
    const dir = workspace({
      "memory/2026-11-20.md": renderSnapshot(
        snap("2026-11-20-01", { names: [{ label: "Error", value: "ERR_WEBHOOK_REPLAY" }] }),
      ),
      "memory/2026-11-21.md": renderSnapshot(snap("2026-11-21-01", { goal: "something else" })),
    });
    const env = { HOME: "/nonexistent-home", BIG_MEMORY_SCAN_FIRST_BYTES: "1" };
    const r = await cli(["search", "ERR_WEBHOOK_REPLAY", "--dir", dir], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("2026-11-20-01");
    expect(r.stderr).toContain("no search index yet: answered by reading 1 of 2 logs");
    const search = join(dir, ".big-memory", "search");
    for (
      let i = 0;
      i < 300 && !(existsSync(search) && readdirSync(search).some((n) => n.endsWith(".bmx")));
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(
      readdirSync(search)
        .filter((n) => n.endsWith(".bmx"))
        .sort(),
    ).toEqual(["2026-11.bmx"]);
  }, 40_000);
});

describe("big-memory show and list with a duplicate id", () => {
  const genuine = renderSnapshot(snap("2026-11-22-01", { goal: "the genuine block" }));
  const copy = renderSnapshot(snap("2026-11-22-01", { goal: "a copy pasted into an older log" }));
  const files = { "memory/2026-11-20.md": `# notes\n${copy}`, "memory/2026-11-22.md": genuine };

  it("keeps both blocks reachable: the id shows the genuine one, file:line the other", async () => {
    const dir = workspace(files);
    const byId = await cli(["show", "2026-11-22-01", "--dir", dir, "--json"]);
    const doc = byId.json() as { snapshot: { goal: string }; warnings: string[] };
    expect(doc.snapshot.goal).toBe("the genuine block");
    expect(doc.warnings).toEqual([
      'snapshot id 2026-11-22-01 is also used by the block at memory/2026-11-20.md:6 (show it with "show memory/2026-11-20.md:6")',
    ]);
    const byPlace = await cli(["show", "memory/2026-11-20.md:6", "--dir", dir, "--json"]);
    expect((byPlace.json() as { snapshot: { goal: string } }).snapshot.goal).toBe(
      "a copy pasted into an older log",
    );
    const list = await cli(["list", "--dir", dir, "--json"]);
    expect((list.json() as { snapshots: { file: string }[] }).snapshots.map((s) => s.file).sort()).toEqual([
      "memory/2026-11-20.md",
      "memory/2026-11-22.md",
    ]);
  });

  it("reports the duplicate with both locations in verify", async () => {
    const r = await cli(["verify", "--dir", workspace(files), "--json"]);
    expect(r.code).toBe(1);
    expect((r.json() as { problems: { problem: string }[] }).problems.map((p) => p.problem)).toEqual([
      "duplicate snapshot id 2026-11-22-01 (also at memory/2026-11-20.md:6); both blocks are kept, address this one as memory/2026-11-22.md:5",
    ]);
  });
});

describe("diagnostics from every read command", () => {
  it("prints the index's rebuild warning on stderr for people and into diagnostics in JSON", async () => {
    const dir = workspace({ "memory/2026-11-22.md": renderSnapshot(snap("2026-11-22-01")) });
    await cli(["search", "goal", "--dir", dir]);
    const search = join(dir, ".big-memory", "search");
    const shard = readdirSync(search).find((n) => n.endsWith(".bmx")) ?? "";
    writeFileSync(join(search, shard), "garbage");
    writeFileSync(join(search, `${shard}.prev`), "garbage");
    const people = await cli(["list", "--dir", dir]);
    expect(people.stderr).toContain("big-memory: search index");
    expect(people.stderr).toContain("rebuilding from the daily logs");
    writeFileSync(join(search, shard), "garbage");
    writeFileSync(join(search, `${shard}.prev`), "garbage");
    const json = await cli(["list", "--dir", dir, "--json"]);
    expect((json.json() as { diagnostics: { message: string }[] }).diagnostics.map((d) => d.message)).toEqual(
      [expect.stringContaining("rebuilding from the daily logs")],
    );
    expect(json.stderr).toBe("");
  });

  it("prints a torn block with its file, line and id on stderr after the table", async () => {
    const torn =
      "# notes\n\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-11-21-01 -->\n### [SNAPSHOT] Active Goal\nhalf";
    const dir = workspace({
      "memory/2026-11-21.md": torn,
      "memory/2026-11-22.md": renderSnapshot(snap("2026-11-22-01")),
    });
    const r = await cli(["list", "--dir", dir]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "big-memory: memory/2026-11-21.md:3: snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)\n",
    );
  });
});

describe("verify, checksum lines", () => {
  it("flags a plugin-written block whose checksum line was removed, and accepts a hand-written one", async () => {
    const stripped = renderSnapshot(snap("2026-11-22-01", { trigger: "compaction" })).replace(
      /^<!-- checksum: .*\n/m,
      "",
    );
    const hand = renderSnapshot(snap("2026-11-22-02", { trigger: null, session: null, agent: null })).replace(
      /^<!-- checksum: .*\n/m,
      "",
    );
    const dir = workspace({ "memory/2026-11-22.md": `${stripped}\n${hand}` });
    const r = await cli(["verify", "--dir", dir, "--json"]);
    expect([r.code, (r.json() as { problems: unknown[] }).problems]).toEqual([
      1,
      [
        {
          id: "2026-11-22-01",
          file: "memory/2026-11-22.md",
          line: 5,
          problem:
            "checksum line removed: the block carries big-memory's own metadata (a trigger other than flush, or a tombstone) but no checksum",
        },
      ],
    ]);
  });
});

describe("progress", () => {
  it("says nothing for a second, then one plain line a second when stderr is not a terminal", () => {
    let now = 0;
    const lines: string[] = [];
    const p = progress({ stderr: (t) => lines.push(t), terminal: false, clock: () => now });
    p.update("indexing");
    now = 1200;
    p.update("indexing memory/: 1 of 9 months");
    now = 1500;
    p.update("indexing memory/: 2 of 9 months");
    now = 2300;
    p.update("indexing memory/: 3 of 9 months");
    p.done();
    expect(lines).toEqual([
      "big-memory: indexing memory/: 1 of 9 months (1 s)\n",
      "big-memory: indexing memory/: 3 of 9 months (2 s)\n",
    ]);
  });
});
