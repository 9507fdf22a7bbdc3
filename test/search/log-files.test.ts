import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { logsByMonth, logTotals, statLogSync, unchanged } from "../../plugin/search/log-files.ts";
import { listDailyLogs } from "../../plugin/store/daily-log.ts";
import { tempWorkspace } from "./helpers.ts";

describe("logsByMonth", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("lists the logs listDailyLogs lists, by month, from the folder listings alone", async () => {
    await mkdir(join(ws.dir, "memory/.big-memory-archive"));
    await mkdir(join(ws.dir, "memory/2026-11-23.md"));
    for (const name of [
      "2026-11-20.md",
      "2026-11-20-0431.md",
      "2026-12-01-notes.md",
      "2026-02-30.md",
      "2026-11-2.md",
      "notes.md",
      ".big-memory-archive/2025-01-31.md",
    ])
      await writeFile(join(ws.dir, "memory", name), "x");
    const listed = await listDailyLogs(ws.dir);
    const byMonth = logsByMonth(ws.dir);
    // A folder with a log's name is listed by name here; its stat finds no file, as for a log deleted since.
    expect(
      [...byMonth.values()]
        .flat()
        .filter((f) => statLogSync(ws.dir, f) !== null)
        .sort(),
    ).toEqual(listed.map((l) => l.file).sort());
    expect([...byMonth.keys()].sort()).toEqual(["2025-01", "2026-11", "2026-12"]);
  });

  it("is empty without memory/", async () => {
    expect(logsByMonth(join(ws.dir, "nowhere"))).toEqual(new Map());
  });
});

describe("unchanged", () => {
  it("holds while size, times and inode all match, never without a change time", async () => {
    const ws = await tempWorkspace();
    try {
      await writeFile(join(ws.dir, "memory/2026-11-20.md"), "hello");
      const log = statLogSync(ws.dir, "memory/2026-11-20.md");
      if (log === null) throw new Error("no log");
      const info = await stat(join(ws.dir, "memory/2026-11-20.md"));
      const print = {
        size: 5,
        mtimeMs: info.mtimeMs,
        ctimeMs: info.ctimeMs,
        ino: info.ino,
        crc32: "00000000",
      };
      expect(unchanged(log, print)).toBe(true);
      expect(unchanged(log, { ...print, size: 6 })).toBe(false);
      expect(unchanged(log, { size: 5, mtimeMs: info.mtimeMs, ino: info.ino, crc32: "00000000" })).toBe(
        false,
      );
      expect(statLogSync(ws.dir, "memory/gone.md")).toBeNull();
    } finally {
      await ws.cleanup();
    }
  });
});

describe("logTotals", () => {
  it("counts logs, bytes and redactions by kind", () => {
    const r = (size: number, redactions?: Record<string, number>) => ({
      size,
      mtimeMs: 0,
      crc32: "00000000",
      ...(redactions === undefined ? {} : { redactions }),
    });
    expect(logTotals([r(10, { email: 1 }), r(5), r(1, { email: 2, "api-key": 1 })])).toEqual({
      files: 3,
      bytes: 16,
      redactions: { email: 3, "api-key": 1 },
    });
  });
});
