import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { binCli, cli, tempWorkspace } from "./cli-harness.ts";

const skillLog = readFileSync(new URL("../snapshot/fixtures/skill-format.md", import.meta.url), "utf8");
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function workspace(files: Record<string, string> = {}) {
  const ws = tempWorkspace(files);
  cleanups.push(ws.dispose);
  return ws.dir;
}

const input = {
  goal: "Fix ERR_DUPLICATE_KEY in the OAuth callback so second logins work",
  state: { phase: "debugging", branch: "fix/oauth-dup", blocked: "no" },
  files: [{ path: "src/auth/oauth-callback.ts", note: "dedupe sessions" }],
  decisions: [{ text: "Unique index on (user_id, device_id)", rationale: "the race is in the database" }],
  names: [{ label: "Error", value: "ERR_DUPLICATE_KEY" }],
  next: ["Write the migration", "Re-run the login e2e"],
};

describe("big-memory list", () => {
  it("lists a hand-written log in the original skill's format, newest first", async () => {
    const dir = workspace({ "memory/2026-11-20.md": skillLog });
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
    const dir = workspace({ "memory/2026-11-20.md": skillLog });
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
    const dir = workspace({ "memory/2026-11-20.md": skillLog, "memory/2026-11-21.md": torn });
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

describe("big-memory save", () => {
  it("saves JSON from stdin, redacted, and show returns it", async () => {
    const dir = workspace();
    const secret = `sk-proj-${"A1b2".repeat(12)}`;
    const saved = await cli(
      [
        "save",
        "--dir",
        dir,
        "--json",
        "--session",
        "agent:main:main",
        "--agent",
        "main",
        "--name",
        "oauth-dup-fix",
      ],
      {
        stdin: JSON.stringify({ ...input, blockers: [`OPENAI_API_KEY=${secret} is in the logs`] }),
      },
    );
    expect(saved.code).toBe(0);
    expect(saved.json()).toEqual({
      id: "2026-11-22-01",
      file: "memory/2026-11-22.md",
      line: 5,
      redacted: { total: 1, kinds: { "openai-key": 1 } },
    });
    expect(readFileSync(join(dir, "memory/2026-11-22.md"), "utf8")).not.toContain(secret);
    const shown = await cli(["show", "oauth-dup-fix", "--dir", dir, "--json"]);
    expect(shown.json()).toEqual({
      snapshot: {
        id: "2026-11-22-01",
        timestamp: "2026-11-22T12:00:00+00:00",
        file: "memory/2026-11-22.md",
        line: 5,
        session: "agent:main:main",
        agent: "main",
        trigger: "manual",
        name: "oauth-dup-fix",
        goal: input.goal,
        verified: true,
        state: { phase: "debugging", branch: "fix/oauth-dup", blocked: "no", progress: "" },
        files: input.files,
        decisions: input.decisions,
        code: "",
        names: input.names,
        blockers: ["OPENAI_API_KEY=[REDACTED:openai-key] is in the logs"],
        next: input.next,
        extra: [],
        parent: null,
      },
      warnings: ["src/auth/oauth-callback.ts does not exist (any more, or yet)"],
      diagnostics: [],
    });
  });

  it("gives distinct ids to saves of the same day", async () => {
    const dir = workspace();
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push((await cli(["save", "--dir", dir, "--json"], { stdin: JSON.stringify(input) })).json());
    expect(ids.map((r) => (r as { id: string }).id)).toEqual([
      "2026-11-22-01",
      "2026-11-22-02",
      "2026-11-22-03",
    ]);
  });

  it("refuses invalid JSON, a bad field and an empty snapshot with exit 2, writing nothing", async () => {
    const dir = workspace();
    const bad = await cli(["save", "--dir", dir], { stdin: "{goal:" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^big-memory: stdin is not valid JSON \(.+\); expected one snapshot object/);
    const field = await cli(["save", "--dir", dir], {
      stdin: JSON.stringify({ goal: "x", files: [{ path: 3 }] }),
    });
    expect([field.code, field.stderr]).toEqual([
      2,
      "big-memory: invalid snapshot on stdin:\nfiles[0].path: expected string, received number\n",
    ]);
    const empty = await cli(["save", "--dir", dir], { stdin: "{}" });
    expect([empty.code, empty.stderr]).toEqual([
      2,
      "big-memory: invalid snapshot on stdin:\nthe snapshot is empty (expected at least a goal, a next step or another section)\n",
    ]);
    expect((await cli(["list", "--dir", dir, "--json"])).json()).toEqual({ snapshots: [], diagnostics: [] });
  });

  it("refuses a generic or path-like checkpoint name with a suggestion", async () => {
    const dir = workspace();
    const r = await cli(["save", "--dir", dir, "--name", "checkpoint"], { stdin: JSON.stringify(input) });
    expect([r.code, r.stderr]).toEqual([
      2,
      'big-memory: checkpoint name "checkpoint" is too generic to find again (try a name that says what the task is, like fix-err-duplicate-key-in-the)\n',
    ]);
    const path = await cli(["save", "--dir", dir, "--name", "../etc/passwd"], {
      stdin: JSON.stringify(input),
    });
    expect(path.stderr).toMatch(/looks like a path; names never become files/);
  });

  it("exits 2 naming a missing workspace", async () => {
    const r = await cli(["list", "--dir", "/nonexistent/ws"]);
    expect([r.code, r.stderr]).toEqual([
      2,
      "big-memory: workspace /nonexistent/ws does not exist (expected a folder holding memory/; create it or pass the right --dir)\n",
    ]);
  });
});

describe("big-memory verify", () => {
  it("reports a hand-modified block, a torn block and a duplicate id, and exits 1", async () => {
    const dir = workspace();
    await cli(["save", "--dir", dir], { stdin: JSON.stringify(input) });
    const path = join(dir, "memory/2026-11-22.md");
    const text = readFileSync(path, "utf8");
    const tampered = text.replace("Write the migration", "Skip the migration");
    const torn = "\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-11-22-09 -->\n";
    const dir2 = workspace({ "memory/2026-11-22.md": tampered + torn, "memory/2026-11-23.md": text });
    const r = await cli(["verify", "--dir", dir2, "--json"]);
    expect(r.code).toBe(1);
    expect(r.json()).toEqual({
      ok: false,
      checked: 2,
      problems: [
        {
          id: "2026-11-22-01",
          file: "memory/2026-11-22.md",
          line: 5,
          problem: "checksum mismatch: the block was modified after it was written",
        },
        {
          id: "2026-11-22-09",
          file: "memory/2026-11-22.md",
          line: tampered.split("\n").length + 1,
          problem: "snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)",
        },
        {
          id: "2026-11-22-01",
          file: "memory/2026-11-23.md",
          line: 5,
          problem:
            "duplicate snapshot id 2026-11-22-01 (also at memory/2026-11-22.md:5); both blocks are kept, address this one as memory/2026-11-23.md:5",
        },
      ],
    });
  });

  it("exits 0 on a clean workspace", async () => {
    const dir = workspace({ "memory/2026-11-20.md": skillLog });
    const r = await cli(["verify", "--dir", dir, "--json"]);
    expect([r.code, r.json()]).toEqual([0, { ok: true, checked: 2, problems: [] }]);
  });
});

describe("big-memory status", () => {
  it("counts snapshots per day and per session", async () => {
    const dir = workspace({ "memory/2026-11-20.md": skillLog });
    await cli(["save", "--dir", dir, "--session", "agent:main:main"], { stdin: JSON.stringify(input) });
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

describe("bin/big-memory.js", () => {
  it("runs as a real process: save from stdin, exit codes 0, 1 and 2", () => {
    const dir = workspace();
    const saved = binCli(["save", "--dir", dir, "--json"], JSON.stringify(input));
    expect([saved.code, JSON.parse(saved.stdout).file]).toEqual([
      0,
      expect.stringMatching(/^memory\/\d{4}-\d{2}-\d{2}\.md$/),
    ]);
    expect(binCli(["show", "no-such-checkpoint", "--dir", dir]).code).toBe(1);
    const unknown = binCli(["frobnicate"]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      expect.stringContaining("unknown command 'frobnicate'"),
    ]);
  });
});

describe("big-memory search, recall and reindex", () => {
  it("finds a snapshot by a hyphenated identifier and a typo, best first, with the matching line", async () => {
    const dir = workspace({ "memory/2026-11-20.md": skillLog });
    await cli(["save", "--dir", dir, "--session", "agent:main:main"], {
      stdin: JSON.stringify({ ...input, names: [{ label: "Ticket", value: "ADR-016" }] }),
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
      `2026-11-22-01  just now  ${input.goal}`,
      "    names: Ticket: ADR-016  (memory/2026-11-22.md:5)",
    ]);
    const none = await cli(["search", "kubernetes", "--dir", dir, "--json"]);
    expect([none.code, none.json()]).toEqual([
      1,
      { snapshots: [], match: "exact", missing: [], suggestions: [], diagnostics: [] },
    ]);
  });

  it("recalls the latest snapshot of a session and of a name", async () => {
    const dir = workspace({ "memory/2026-11-20.md": skillLog });
    await cli(["save", "--dir", dir, "--session", "agent:main:main", "--name", "oauth-dup-fix"], {
      stdin: JSON.stringify(input),
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
    const dir = workspace({ "memory/2026-11-20.md": skillLog });
    const r = await cli(["reindex", "--dir", dir, "--json"]);
    expect(r.json()).toMatchObject({ snapshots: 2, logs: 1, months: 1, diagnostics: [] });
  });
});

describe("big-memory delete and list --all", () => {
  it("hides a deleted checkpoint from list but keeps its history for list --all", async () => {
    const dir = workspace();
    await cli(["save", "--dir", dir, "--name", "oauth-dup-fix"], { stdin: JSON.stringify(input) });
    const deleted = await cli(["delete", "oauth-dup-fix", "--dir", dir, "--json"]);
    expect(deleted.json()).toEqual({
      deleted: "oauth-dup-fix",
      id: "2026-11-22-02",
      file: "memory/2026-11-22.md",
      line: 46,
    });
    expect((await cli(["list", "--dir", dir, "--json"])).code).toBe(1);
    const all = (await cli(["list", "--all", "--dir", dir, "--json"])).json() as {
      snapshots: { id: string; name: string }[];
    };
    expect(all.snapshots.map((s) => [s.id, s.name])).toEqual([
      ["2026-11-22-02", "oauth-dup-fix"],
      ["2026-11-22-01", "oauth-dup-fix"],
    ]);
    expect((await cli(["delete", "oauth-dup-fix", "--dir", dir])).code).toBe(1);
    expect((await cli(["show", "oauth-dup-fix", "--dir", dir])).code).toBe(1);
  });
});

describe("big-memory save input", () => {
  it("refuses invalid UTF-8 and lone surrogates with exit 2, naming the byte offset, writing nothing", async () => {
    const { dir, dispose } = tempWorkspace();
    try {
      const bad = Buffer.concat([Buffer.from('{"goal":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
      const r = await cli(["save", "--dir", dir], { stdin: bad });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        "big-memory: stdin is not valid UTF-8 text: invalid UTF-8 at byte 12 (nothing was saved)\n",
      );
      const lone = await cli(["save", "--dir", dir], { stdin: '{"goal":"x\\ud800"}' });
      expect(lone.code).toBe(2);
      expect(lone.stderr).toBe(
        "big-memory: stdin is not valid UTF-8 text: lone surrogate escape \\ud800 at byte 10 (nothing was saved)\n",
      );
      expect(readdirSync(join(dir, "memory"))).toEqual([]);
    } finally {
      dispose();
    }
  });

  it("says how many values were redacted and of which kinds, never the values", async () => {
    const { dir, dispose } = tempWorkspace();
    try {
      const token = `ghp_${"Kd4e".repeat(9)}`;
      const r = await cli(["save", "--dir", dir], {
        stdin: JSON.stringify({
          goal: `push with ${token}`,
          names: [{ label: "DB_PASSWORD", value: "Tr0ub4dor-x9" }],
        }),
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        "saved 2026-11-22-01 to memory/2026-11-22.md:5\nredacted 2 values before writing (github-token 1, secret-assignment 1)\n",
      );
      const status = await cli(["status", "--dir", dir, "--json"]);
      expect((status.json() as { redactions: unknown }).redactions).toEqual({
        snapshots: { total: 2, kinds: { "github-token": 1, "secret-assignment": 1 } },
        state: { total: 0, kinds: {} },
      });
    } finally {
      dispose();
    }
  });
});

describe("big-memory scrub", () => {
  it("reports what it redacted in big-memory's files, and touches logs only with --logs", async () => {
    const token = `ghp_${"Ws3c".repeat(9)}`;
    const log = `# notes\nGITHUB_TOKEN=${token}\n`;
    const { dir, dispose } = tempWorkspace({
      "memory/2026-11-22.md": log,
      ".big-memory/sessions/agent-main-main-0123456789.json": `{"version":1,"ask":"use ${token}"}\n`,
    });
    try {
      const first = await cli(["scrub", "--dir", dir]);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(
        "Redacted 1 value (github-token 1):\n  .big-memory/sessions/agent-main-main-0123456789.json: 1 (github-token 1)",
      );
      expect(first.stdout).toContain("fixed: .big-memory/.gitignore written");
      expect(first.stdout).not.toContain(token);
      expect(readFileSync(join(dir, "memory/2026-11-22.md"), "utf8")).toBe(log);
      const second = await cli(["scrub", "--dir", dir, "--logs", "--json"]);
      expect(second.code).toBe(0);
      expect(second.json()).toMatchObject({
        files: [{ file: "memory/2026-11-22.md", total: 1, redactions: { "github-token": 1 } }],
        backup: ".big-memory/scrub-backup/2026-11-22T12-00-00-000Z",
      });
      expect(readFileSync(join(dir, "memory/2026-11-22.md"), "utf8")).toBe(
        "# notes\nGITHUB_TOKEN=[REDACTED:github-token]\n",
      );
    } finally {
      dispose();
    }
  });
});

describe("big-memory archive", () => {
  it("moves old blocks into its own folder, leaves memory/archive/ alone, and keeps them findable", async () => {
    const userArchive = "# my own copy of October\n";
    const { dir, dispose } = tempWorkspace({ "memory/archive/2026-10-01.md": userArchive });
    try {
      const october = new Date("2026-10-01T12:00:00Z");
      const saved = await cli(["save", "--dir", dir, "--json", "--name", "october-billing-fix"], {
        stdin: JSON.stringify({ goal: "Fix ERR_OCTOBER_BILLING in src/billing.ts" }),
        now: october,
      });
      expect(saved.code).toBe(0);
      const archived = await cli(["archive", "--dir", dir, "--before", "2026-11-01", "--json"]);
      expect(archived.json()).toEqual({
        archived: [
          {
            file: "memory/2026-10-01.md",
            archive: "memory/.big-memory-archive/2026-10-01.md",
            snapshots: 1,
            removed: true,
          },
        ],
        problems: [],
      });
      expect(readFileSync(join(dir, "memory/archive/2026-10-01.md"), "utf8")).toBe(userArchive);
      const listed = await cli(["list", "--dir", dir, "--all", "--json"]);
      expect((listed.json() as { snapshots: { id: string; file: string }[] }).snapshots).toMatchObject([
        { id: "2026-10-01-01", file: "memory/.big-memory-archive/2026-10-01.md" },
      ]);
      const shown = await cli(["show", "october-billing-fix", "--dir", dir, "--json"]);
      expect(shown.code).toBe(0);
      const found = await cli(["search", "ERR_OCTOBER_BILLING", "--dir", dir, "--json"]);
      expect((found.json() as { snapshots: { id: string }[] }).snapshots.map((s) => s.id)).toEqual([
        "2026-10-01-01",
      ]);
      // A second archive run does not archive the archive.
      expect((await cli(["archive", "--dir", dir, "--before", "2026-11-01"])).code).toBe(1);
    } finally {
      dispose();
    }
  });
});

describe("big-memory status with a folder where the restore log should be", () => {
  it("reports the problem and what to do instead of crashing", async () => {
    const { dir, dispose } = tempWorkspace();
    try {
      mkdirSync(join(dir, ".big-memory", "restore-log.jsonl"), { recursive: true });
      const r = await cli(["status", "--dir", dir]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(
        "big-memory: .big-memory/restore-log.jsonl is a folder, not a file: move it away (restores are not counted)",
      );
      const json = (await cli(["status", "--dir", dir, "--json"])).json() as { problems: number };
      expect(json.problems).toBe(1);
    } finally {
      dispose();
    }
  });
});
