import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildMonth, groupByMonth, LogBook, listLogs } from "../../plugin/search/sources.ts";
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

describe("LogBook", () => {
  const fingerprint = { size: 10, mtimeMs: 1, ctimeMs: 1, ino: 7, crc32: "0000abcd" };
  const torn = { file: "memory/2026-11-20.md", line: 3, message: "snapshot block has no end marker" };
  const unreadable = {
    file: "memory/2026-11-20.md",
    line: 0,
    message: "memory/2026-11-20.md cannot be read",
  };

  it("keeps a record of each log read, and none of a log that cannot be read, so that it is read again", () => {
    const book = new LogBook();
    book.read("memory/2026-11-20.md", {
      fingerprint,
      snapshots: [],
      diagnostics: [torn],
      redactions: { email: 1 },
    });
    book.read("memory/2026-10-01.md", { fingerprint, snapshots: [], diagnostics: [], redactions: {} });
    expect(Object.keys(book.ofMonth("2026-11"))).toEqual(["memory/2026-11-20.md"]);
    expect([book.diagnostics(), book.totals()]).toEqual([
      [torn],
      { files: 2, bytes: 20, redactions: { email: 1 } },
    ]);
    // The same bytes read again (only the times moved): the record's problems and redactions stay.
    const moved = { ...fingerprint, mtimeMs: 2 };
    book.read("memory/2026-11-20.md", {
      fingerprint: moved,
      snapshots: [],
      diagnostics: [],
      redactions: {},
      same: true,
    });
    expect(book.record("memory/2026-11-20.md")).toEqual({
      ...moved,
      problems: [{ line: 3, message: torn.message }],
      redactions: { email: 1 },
    });
    book.cannotRead("memory/2026-11-20.md", { unreadable });
    expect([
      book.record("memory/2026-11-20.md"),
      book.ofMonth("2026-11"),
      book.unreadable(),
      book.diagnostics(),
    ]).toEqual([undefined, {}, ["memory/2026-11-20.md"], [unreadable]]);
    book.gone("memory/2026-11-20.md");
    expect([book.unreadable(), book.diagnostics(), book.totals().files]).toEqual([[], [], 1]);
  });

  it("tells a log that could not be read at a later look while keeping its record until it is looked at again", () => {
    const book = new LogBook();
    book.remember({ "memory/2026-11-20.md": { ...fingerprint, problems: [] } });
    book.told("memory/2026-11-20.md", { unreadable });
    expect([book.record("memory/2026-11-20.md")?.crc32, book.diagnostics(), book.unreadable()]).toEqual([
      "0000abcd",
      [unreadable],
      [],
    ]);
  });
});
