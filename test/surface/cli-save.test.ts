import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, SAVE_INPUT, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

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
        stdin: JSON.stringify({ ...SAVE_INPUT, blockers: [`OPENAI_API_KEY=${secret} is in the logs`] }),
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
        goal: SAVE_INPUT.goal,
        verified: true,
        state: { phase: "debugging", branch: "fix/oauth-dup", blocked: "no", progress: "" },
        files: SAVE_INPUT.files,
        decisions: SAVE_INPUT.decisions,
        code: "",
        names: SAVE_INPUT.names,
        blockers: ["OPENAI_API_KEY=[REDACTED:openai-key] is in the logs"],
        next: SAVE_INPUT.next,
        extra: [],
        parent: null,
      },
      warnings: ["src/auth/oauth-callback.ts does not exist (any more, or yet)"],
      diagnostics: [],
    });
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
    const r = await cli(["save", "--dir", dir, "--name", "checkpoint"], {
      stdin: JSON.stringify(SAVE_INPUT),
    });
    expect([r.code, r.stderr]).toEqual([
      2,
      'big-memory: checkpoint name "checkpoint" is too generic to find again (try a name that says what the task is, like fix-err-duplicate-key-in-the)\n',
    ]);
    const path = await cli(["save", "--dir", dir, "--name", "../etc/passwd"], {
      stdin: JSON.stringify(SAVE_INPUT),
    });
    expect(path.stderr).toMatch(/looks like a path; names never become files/);
  });
});

describe("big-memory save input", () => {
  it("refuses invalid UTF-8 and lone surrogates with exit 2, naming the byte offset, writing nothing", async () => {
    const dir = workspace();
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
  });

  it("says how many values were redacted and of which kinds, never the values", async () => {
    const dir = workspace();
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
  });
});

describe("big-memory save options", () => {
  it("attributes the snapshot to the trigger and time zone given", async () => {
    const dir = workspace();
    const r = await cli(["save", "--dir", dir, "--json", "--trigger", "tool", "--time-zone", "Asia/Tokyo"], {
      stdin: JSON.stringify(SAVE_INPUT),
      now: new Date("2026-11-22T23:30:00Z"),
    });
    expect(r.json()).toMatchObject({ id: "2026-11-23-01", file: "memory/2026-11-23.md" });
    const shown = await cli(["show", "2026-11-23-01", "--dir", dir, "--json"]);
    expect(shown.json()).toMatchObject({
      snapshot: {
        trigger: "tool",
        timestamp: "2026-11-23T08:30:00+09:00",
        session: null,
        agent: null,
        name: null,
      },
    });
  });

  it("refuses an unknown trigger and an unknown time zone with exit 2 before reading stdin", async () => {
    const dir = workspace();
    const trigger = await cli(["save", "--dir", dir, "--trigger", "cron"], { stdin: "not json" });
    expect([trigger.code, trigger.stderr]).toEqual([
      2,
      'big-memory: --trigger expects one of flush, compaction, reset, manual, tool, autosave, threshold, received "cron"\n',
    ]);
    const zone = await cli(["save", "--dir", dir, "--time-zone", "Mars/Olympus"], { stdin: "not json" });
    expect([zone.code, zone.stderr]).toEqual([
      2,
      'big-memory: --time-zone: unknown time zone "Mars/Olympus" (expected an IANA name such as Europe/Paris or UTC)\n',
    ]);
    expect(readdirSync(join(dir, "memory"))).toEqual([]);
  });

  it("prints where the snapshot landed and no redaction line when nothing was redacted", async () => {
    const r = await cli(["save", "--dir", workspace()], { stdin: JSON.stringify(SAVE_INPUT) });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "saved 2026-11-22-01 to memory/2026-11-22.md:5\n", ""]);
  });
});
