import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, SAVE_INPUT, SKILL_LOG, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

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
          // Hand-written blocks (no checksum, no claim) are snapshots, not captures.
          lastCapture: null,
        },
        { session: "agent:main:main", snapshots: 1, lastCapture: { id: "2026-11-22-01", trigger: "manual" } },
      ],
      lastCapture: { id: "2026-11-22-01", session: "agent:main:main", trigger: "manual" },
    });
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

describe("big-memory status: compactions", () => {
  it("lists the last ten compactions for people, newest first, and all of them with --json", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const { appendLedger } = await import("../../plugin/store/ledger.ts");
    const at = (i: number) => `2026-11-25T10:${String(i).padStart(2, "0")}:00.000Z`;
    await appendLedger(
      join(dir, ".big-memory"),
      Array.from({ length: 12 }, (_, i) => ({
        kind: "cycle" as const,
        cycle: at(i),
        session: "agent:main:main",
        agent: "main",
        at: at(i),
        path: i === 11 ? ("trim" as const) : ("preflight" as const),
        flush: i !== 11,
        cover: i === 11 ? ("safety-net" as const) : ("flush" as const),
        snapshot: `2026-11-25-${String(i + 1).padStart(2, "0")}`,
        file: "memory/2026-11-25.md",
        outcome: "done" as const,
      })),
    );
    await appendLedger(join(dir, ".big-memory"), [
      {
        kind: "restore",
        cycle: at(11),
        session: "agent:main:main",
        at: at(12),
        snapshot: "2026-11-25-12",
        tokens: 700,
      },
    ]);
    const json = (await cli(["status", "--dir", dir, "--json"])).json() as {
      compactions: { path: string }[];
    };
    expect(json.compactions).toHaveLength(12);
    expect(json.compactions.at(-1)).toMatchObject({
      path: "trim",
      cover: "safety-net",
      restore: { tokens: 700 },
    });
    const text = (await cli(["status", "--dir", dir])).stdout;
    expect(text).toContain("compactions   12; the last 10 in the table below (status --json lists all)");
    const rows = text.split("\n").filter((l) => l.includes("agent:main:main") && /preflight|trim/.test(l));
    expect(rows).toHaveLength(10);
    expect(rows[0]).toMatch(
      /agent:main:main\s+trim\s+done\s+-\s+safety-net 2026-11-25-12\s+2026-11-25-12 700 tokens/,
    );
  });
});
