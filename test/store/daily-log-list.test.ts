import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listDailyLogs } from "../../plugin/store/daily-log.ts";

describe("listDailyLogs", () => {
  it("lists date-prefixed logs with their date, the plain log of a date first, and skips the rest silently", async () => {
    const dir = mkdtempSync(join(tmpdir(), "big-memory-list-"));
    mkdirSync(join(dir, "memory", "2026-02-09.md"), { recursive: true }); // a folder: cannot hold blocks
    for (const name of [
      "2026-02-07-0431.md",
      "2026-02-07.md",
      "2026-02-07-release-notes.md",
      "2026-02-08_standup.md",
      "2026-02-30.md",
      "2026-02-071.md",
      "notes.md",
      "2026-02-07.txt",
    ]) {
      writeFileSync(join(dir, "memory", name), "x");
    }
    const logs = await listDailyLogs(dir);
    expect(logs.map((l) => [l.date, l.file])).toEqual([
      ["2026-02-07", "memory/2026-02-07.md"],
      ["2026-02-07", "memory/2026-02-07-0431.md"],
      ["2026-02-07", "memory/2026-02-07-release-notes.md"],
      ["2026-02-08", "memory/2026-02-08_standup.md"],
    ]);
  });
});
