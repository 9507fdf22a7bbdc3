import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildMonth, groupByMonth, listLogs, logsByMonth, presentLogs } from "../../plugin/search/sources.ts";
import { makeUnreadable, snap, tempWorkspace, unreadableMessage, writeLog } from "./helpers.ts";

describe("listLogs and groupByMonth", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("list the daily logs oldest first and group them by month", async () => {
    await writeLog(ws.dir, "2026-11-20", [snap("2026-11-20-01")]);
    await writeLog(ws.dir, "2026-10-01", [snap("2026-10-01-01")]);
    await writeFile(join(ws.dir, "memory/notes.md"), "not a daily log");
    const logs = await listLogs(ws.dir);
    expect(logs.map((l) => l.file)).toEqual(["memory/2026-10-01.md", "memory/2026-11-20.md"]);
    expect([...groupByMonth(logs).keys()]).toEqual(["2026-10", "2026-11"]);
  });
});

describe("presentLogs", () => {
  it("gives a month's logs listed by name in listLogs's order, without a folder or a log gone since", async () => {
    const ws = await tempWorkspace();
    try {
      await writeLog(ws.dir, "2026-11-21", [snap("2026-11-21-01")]);
      await writeLog(ws.dir, "2026-11-20-0431", [snap("2026-11-20-02")]);
      await writeLog(ws.dir, "2026-11-20", [snap("2026-11-20-01")]);
      await mkdir(join(ws.dir, "memory/.big-memory-archive"));
      await writeLog(ws.dir, ".big-memory-archive/2026-11-20", [snap("2026-11-20-03")]);
      await mkdir(join(ws.dir, "memory/2026-11-22.md"));
      const listed = logsByMonth(ws.dir).get("2026-11") ?? [];
      expect(listed).toHaveLength(5);
      const present = presentLogs(ws.dir, [...listed, "memory/2026-11-23.md"]);
      expect(present).toEqual((await listLogs(ws.dir)).map((l) => l.file));
      expect(present).toEqual([
        "memory/2026-11-20.md",
        "memory/.big-memory-archive/2026-11-20.md",
        "memory/2026-11-20-0431.md",
        "memory/2026-11-21.md",
      ]);
    } finally {
      await ws.cleanup();
    }
  });
});

describe("buildMonth", () => {
  it("builds a month's shard from its logs, telling each log as read, and nothing for a month without blocks", async () => {
    const ws = await tempWorkspace();
    try {
      const a = await writeLog(ws.dir, "2026-11-20", [snap("2026-11-20-01"), snap("2026-11-20-02")]);
      const b = await writeLog(ws.dir, "2026-11-21", []);
      const read: string[] = [];
      const shard = await buildMonth(
        ws.dir,
        "2026-11",
        [a, b, "memory/2026-11-22.md"],
        (file) => read.push(file),
        (file) => read.push(`unreadable ${file}`),
      );
      expect(read).toEqual([a, b]);
      expect(shard?.size).toBe(2);
      const none = () => {};
      expect(await buildMonth(ws.dir, "2026-11", [b], none, none)).toBeUndefined();
    } finally {
      await ws.cleanup();
    }
  });

  it("leaves out a log that cannot be read, telling it, and builds the month from the others", async () => {
    const ws = await tempWorkspace();
    try {
      const a = await writeLog(ws.dir, "2026-11-20", [snap("2026-11-20-01")]);
      const b = await writeLog(ws.dir, "2026-11-21", [snap("2026-11-21-01")]);
      await makeUnreadable(ws.dir, a);
      const told: unknown[] = [];
      const shard = await buildMonth(
        ws.dir,
        "2026-11",
        [a, b],
        (file) => told.push(file),
        (file, read) => told.push([file, read.unreadable]),
      );
      expect(told).toEqual([[a, { file: a, line: 0, message: unreadableMessage(a) }], b]);
      expect([...(shard?.documents() ?? [])].map(([, e]) => e.id)).toEqual(["2026-11-21-01"]);
    } finally {
      await ws.cleanup();
    }
  });
});
