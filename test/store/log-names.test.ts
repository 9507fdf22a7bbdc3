import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { logNameProblem, strayDailyLogs } from "../../plugin/store/log-names.ts";

const NOTE = "# 2026-02-07\n\n- Rückruf mit Anna wegen der Rechnung\n";

let root: string;
let ws: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "big-memory-names-"));
  ws = join(root, "workspace");
  mkdirSync(join(ws, "memory"), { recursive: true });
  mkdirSync(join(root, "outside"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("logNameProblem", () => {
  it("tells why a name is no daily log the readers read", () => {
    expect(
      [
        "memory/2026-02-07.md",
        "memory/2026-02-07-0431.md",
        "memory/.big-memory-archive/2026-02-07.md",
        "memory/../../outside/x.md",
        "memory/rapport-profile.md",
        "memory/daily/2026-02-24.md",
      ].map(logNameProblem),
    ).toEqual([
      null,
      null,
      null,
      "it is outside the workspace's memory/ folder",
      "it is not a daily log (memory/YYYY-MM-DD.md, or a name starting with a date)",
      "it is in a sub-folder of memory/, where big-memory reads no daily log",
    ]);
  });
});

describe("strayDailyLogs", () => {
  it("names each sub-folder of memory/ holding dated logs, once, and nothing else", () => {
    // The layouts of public OpenClaw workspaces: daily/, archive/ (old daily notes moved by cron), projects/.
    for (const rel of [
      "memory/daily/2026-02-24.md",
      "memory/daily/2026-02-25.md",
      "memory/archive/2025-12-30.md",
      "memory/projects/agent-ros-bridge.md",
      "memory/.big-memory-archive/2026-01-01.md",
      "memory/.obsidian/2026-01-02.md",
      "memory/rapport-profile.md",
    ]) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), NOTE);
    }
    symlinkSync(join(root, "outside"), join(ws, "memory", "linked"));
    expect(strayDailyLogs(ws)).toEqual([
      {
        file: "memory/archive/",
        line: 0,
        message:
          "memory/archive/ holds a dated log (memory/archive/2025-12-30.md) that big-memory does not read: it reads the daily logs directly in memory/; move a log that holds snapshots up to memory/ for them to be found",
      },
      {
        file: "memory/daily/",
        line: 0,
        message:
          "memory/daily/ holds 2 dated logs (memory/daily/2026-02-24.md, ...) that big-memory does not read: it reads the daily logs directly in memory/; move a log that holds snapshots up to memory/ for them to be found",
      },
    ]);
  });

  it("is empty without memory/", () => {
    expect(strayDailyLogs(join(root, "none"))).toEqual([]);
  });
});
