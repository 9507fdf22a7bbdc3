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
