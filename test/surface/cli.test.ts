import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
    const r = await cli(["list", "--dir", dir]);
    expect(r.stdout.split("\n").slice(0, 3)).toEqual([
      "ID             AGE     TRIGGER  NAME  SESSION  CHECK       GOAL",
      "2026-11-20-02  2d ago  -        -     -        unverified  Fix the duplicate-session bug before the release (blocking …",
      "2026-11-20-01  2d ago  -        -     -        unverified  Implement user authentication with JWT so the app can suppo…",
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

describe("big-memory status", () => {
  it("counts snapshots per day and per session", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    await cli(["save", "--dir", dir, "--session", "agent:main:main"], { stdin: JSON.stringify(SAVE_INPUT) });
    const r = await cli(["status", "--dir", dir, "--json"]);
    expect(r.json()).toMatchObject({
      workspace: dir,
      snapshots: 3,
      files: 2,
      verified: 1,
      unverified: 2,
      modified: 0,
      problems: 0,
      days: [
        { date: "2026-11-20", snapshots: 2 },
        { date: "2026-11-22", snapshots: 1 },
      ],
      sessions: [
        {
          session: "(none)",
          snapshots: 2,
          lastCapture: { id: "2026-11-20-02", timestamp: "2026-11-20T17:40:00", trigger: null },
        },
        { session: "agent:main:main", snapshots: 1, lastCapture: { id: "2026-11-22-01", trigger: "manual" } },
      ],
      lastCapture: { id: "2026-11-22-01", session: "agent:main:main", trigger: "manual" },
    });
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
    expect((typo.json() as { snapshots: { id: string }[] }).snapshots.map((s) => s.id)).toContain(
      "2026-11-22-01",
    );
    const human = await cli(["search", "ADR-016", "--dir", dir]);
    expect(human.stdout.split("\n").slice(0, 2)).toEqual([
      `2026-11-22-01  just now  ${SAVE_INPUT.goal}`,
      "    names: Ticket: ADR-016  (memory/2026-11-22.md:5)",
    ]);
    const none = await cli(["search", "kubernetes", "--dir", dir, "--json"]);
    expect([none.code, none.json()]).toEqual([
      1,
      { snapshots: [], match: "exact", missing: [], suggestions: [], diagnostics: [] },
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

describe("big-memory status with a folder where the restore log should be", () => {
  it("reports the problem and what to do instead of crashing", async () => {
    const dir = workspace();
    mkdirSync(join(dir, ".big-memory", "restore-log.jsonl"), { recursive: true });
    const r = await cli(["status", "--dir", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "big-memory: .big-memory/restore-log.jsonl is a folder, not a file: move it away (restores are not counted)",
    );
    const json = (await cli(["status", "--dir", dir, "--json"])).json() as { problems: number };
    expect(json.problems).toBe(1);
  });
});

describe("runCli", () => {
  it("prints the package version and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(await cli(["--version"])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  });

  it("prints the usage on stderr and exits 2 without a command", async () => {
    const r = await cli([]);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toMatch(/^Usage: big-memory \[options\] \[command\]\n/);
  });

  it("lists every command on help and exits 0", async () => {
    const r = await cli(["help"]);
    expect(r.code).toBe(0);
    for (const command of [
      "list",
      "show",
      "recall",
      "status",
      "search",
      "reindex",
      "verify",
      "delete",
      "archive",
      "scrub",
      "save",
      "doctor",
    ])
      expect(r.stdout).toContain(`  ${command}`);
  });

  it("exits 2 on an unknown option, pointing to the help", async () => {
    expect(await cli(["list", "--frob"])).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "error: unknown option '--frob'\n(run big-memory --help for usage)\n",
    });
  });

  it("exits 3 with one line on stderr when the disk fails it", async () => {
    const dir = workspace();
    rmSync(join(dir, "memory"), { recursive: true });
    writeFileSync(join(dir, "memory"), "a file where the daily logs' folder should be");
    const r = await cli(["save", "--dir", dir], { stdin: JSON.stringify(SAVE_INPUT) });
    expect([r.code, r.stdout, r.stderr.split("\n").length]).toEqual([3, "", 2]);
    expect(r.stderr).toMatch(/^big-memory: cannot append to memory\/2026-11-22\.md: /);
  });
});
