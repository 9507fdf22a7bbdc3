import { appendFile, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type LogWatcher, watchLogs } from "../../plugin/search/watch.ts";
import { tempWorkspace } from "./helpers.ts";

describe("watchLogs", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let watcher: LogWatcher | undefined;
  beforeEach(async () => {
    ws = await tempWorkspace();
  });
  afterEach(async () => {
    await watcher?.close();
    await ws.cleanup();
  });

  it("reports a burst of writes to one log once, after the burst", async () => {
    const reports: string[] = [];
    let reported: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      reported = resolve;
    });
    watcher = watchLogs(ws.dir, {
      debounceMs: 100,
      onChange: (file) => {
        reports.push(file);
        reported();
      },
      onError: (error) => {
        throw error;
      },
    });
    await watcher.ready;
    const log = join(ws.dir, "memory", "2026-11-22.md");
    await writeFile(log, "# 2026-11-22\n");
    for (let i = 0; i < 5; i++) await appendFile(log, `line ${i}\n`);
    await writeFile(join(ws.dir, "memory", "notes.txt"), "not a daily log");
    await first;
    // Absence can only be shown by waiting: three more debounce periods bring no second report.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await watcher.close();
    expect(reports).toEqual(["memory/2026-11-22.md"]);
  });

  it("reports a log removed", async () => {
    const log = join(ws.dir, "memory", "2026-11-21.md");
    await writeFile(log, "# 2026-11-21\n");
    const reports: string[] = [];
    const removed = new Promise<void>((resolve) => {
      watcher = watchLogs(ws.dir, {
        debounceMs: 10,
        onChange: (file) => {
          reports.push(file);
          resolve();
        },
        onError: () => {},
      });
    });
    await watcher?.ready;
    await rm(log);
    await removed;
    expect(reports).toEqual(["memory/2026-11-21.md"]);
  });

  it("sees a memory folder created after it started, and ignores logs in subfolders", async () => {
    await rm(join(ws.dir, "memory"), { recursive: true });
    const reports: string[] = [];
    let reported: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      reported = resolve;
    });
    watcher = watchLogs(ws.dir, {
      debounceMs: 10,
      onChange: (file) => {
        reports.push(file);
        reported();
      },
      onError: () => {},
    });
    await watcher.ready;
    await mkdir(join(ws.dir, "memory", "archive"), { recursive: true });
    await writeFile(join(ws.dir, "memory", "archive", "2026-01-01.md"), "old");
    await writeFile(join(ws.dir, "memory", "2026-11-23.md"), "# 2026-11-23\n");
    await first;
    expect(reports).toEqual(["memory/2026-11-23.md"]);
  });
});
