import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { snapshot as snap } from "../builders.ts";
import { cli, SAVE_INPUT, SKILL_LOG, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

describe("big-memory list", () => {
  it("exits 2 naming a missing workspace", async () => {
    const r = await cli(["list", "--dir", "/nonexistent/ws"]);
    expect([r.code, r.stderr]).toEqual([
      2,
      "big-memory: workspace /nonexistent/ws does not exist (expected a folder holding memory/; create it or pass the right --dir)\n",
    ]);
  });

  it("lists a hand-written log in the original skill's format, newest first", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const r = await cli(["list", "--dir", dir, "--json"]);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({
      snapshots: [
        {
          id: "2026-11-20-02",
          timestamp: "2026-11-20T17:40:00",
          file: "memory/2026-11-20.md",
          line: 68,
          session: null,
          agent: null,
          trigger: null,
          name: null,
          goal: "Fix the duplicate-session bug before the release\n(blocking the 2.4 release)",
          verified: null,
        },
        {
          id: "2026-11-20-01",
          timestamp: "2026-11-20T14:05:00",
          file: "memory/2026-11-20.md",
          line: 9,
          session: null,
          agent: null,
          trigger: null,
          name: null,
          goal: "Implement user authentication with JWT so the app can support multi-tenant access",
          verified: null,
        },
      ],
      diagnostics: [],
    });
  });

  it("prints an aligned table for people", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const r = await cli(["list", "--dir", dir], { columns: 100 });
    expect(r.stdout.split("\n").slice(0, 3)).toEqual([
      // 100 columns: the trigger is left out before the goal is cut below 40 columns.
      "ID             AGE     NAME  SESSION  WRITTEN BY       GOAL",
      "2026-11-20-02  2d ago  -     -        model or person  Fix the duplicate-session bug before the rel…",
      "2026-11-20-01  2d ago  -     -        model or person  Implement user authentication with JWT so th…",
    ]);
  });

  it("exits 1 when there is nothing to list", async () => {
    const r = await cli(["list", "--dir", workspace(), "--json"]);
    expect([r.code, r.json()]).toEqual([1, { snapshots: [], diagnostics: [] }]);
  });

  it("reports torn blocks as diagnostics with file and line", async () => {
    const torn =
      "# notes\n\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-11-21-01 -->\n### [SNAPSHOT] Active Goal\nhalf";
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG, "memory/2026-11-21.md": torn });
    const r = await cli(["list", "--dir", dir, "--json"]);
    expect((r.json() as { diagnostics: unknown }).diagnostics).toEqual([
      {
        file: "memory/2026-11-21.md",
        line: 3,
        id: "2026-11-21-01",
        message: "snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)",
      },
    ]);
  });
});

describe("big-memory search, recall and reindex", () => {
  it("finds a snapshot by a hyphenated identifier and a typo, best first, with the matching line", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    await cli(["save", "--dir", dir, "--session", "agent:main:main"], {
      stdin: JSON.stringify({ ...SAVE_INPUT, names: [{ label: "Ticket", value: "ADR-016" }] }),
    });
    const exact = await cli(["search", "ADR-016", "--dir", dir, "--json"]);
    expect(exact.code).toBe(0);
    const refs = (exact.json() as { snapshots: { id: string; score: number }[] }).snapshots;
    expect(refs[0]?.id).toBe("2026-11-22-01");
    expect(refs[0]?.score).toBeGreaterThan(0);
    const typo = await cli(["search", "ERR_DUPLICAT_KEY", "--dir", dir, "--json"]);
    // A typo of an identifier is not the identifier: no hit, exit 1, and the snapshot among the fuzzy matches.
    const typoDoc = typo.json() as { snapshots: unknown[]; fuzzy: { id: string; match: string }[] };
    expect([typo.code, typoDoc.snapshots]).toEqual([1, []]);
    expect(typoDoc.fuzzy.map((s) => [s.id, s.match])).toContainEqual(["2026-11-22-01", "fuzzy"]);
    const human = await cli(["search", "ADR-016", "--dir", dir]);
    expect(human.stdout.split("\n").slice(0, 3)).toEqual([
      "ID             AGE       GOAL",
      `2026-11-22-01  just now  ${SAVE_INPUT.goal}`,
      "    names: Ticket: ADR-016  (memory/2026-11-22.md:5)",
    ]);
    const none = await cli(["search", "kubernetes", "--dir", dir, "--json"]);
    expect([none.code, none.json()]).toEqual([
      1,
      {
        snapshots: [],
        fuzzy: [],
        match: "exact",
        missing: [],
        prefixes: [],
        suggestions: [],
        diagnostics: [],
      },
    ]);
  });

  it("recalls the latest snapshot of a session and of a name", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    await cli(["save", "--dir", dir, "--session", "agent:main:main", "--name", "oauth-dup-fix"], {
      stdin: JSON.stringify(SAVE_INPUT),
    });
    const bySession = await cli(["recall", "--session", "agent:main:main", "--dir", dir, "--json"]);
    expect((bySession.json() as { snapshot: { id: string } }).snapshot.id).toBe("2026-11-22-01");
    const byName = await cli(["recall", "--name", "oauth-dup-fix", "--dir", dir, "--json"]);
    expect(byName.json() as { snapshot: { name: string }; warnings: string[] }).toMatchObject({
      snapshot: { name: "oauth-dup-fix" },
      warnings: ["src/auth/oauth-callback.ts does not exist (any more, or yet)"],
    });
    const missing = await cli(["recall", "--session", "agent:main:nobody", "--dir", dir, "--json"]);
    expect([missing.code, missing.json()]).toEqual([1, { snapshot: null, warnings: [], diagnostics: [] }]);
  });

  it("rebuilds the index from the logs", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const r = await cli(["reindex", "--dir", dir, "--json"]);
    expect(r.json()).toMatchObject({ snapshots: 2, logs: 1, months: 1, diagnostics: [] });
  });
});

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
        fuzzy: [],
        match: "fuzzy",
        missing: ["ERR_QUEUE_STALLED"],
        prefixes: [],
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
