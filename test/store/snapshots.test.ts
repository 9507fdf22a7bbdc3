import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { olderFirst, readAllSnapshots } from "../../plugin/store/snapshots.ts";
import { located, snapshot } from "../builders.ts";
import { makeUnreadable, unreadableMessage } from "../search/helpers.ts";

let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "big-memory-snapshots-"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

async function writeLogs(logs: Record<string, string>): Promise<void> {
  for (const [file, text] of Object.entries(logs)) {
    await mkdir(join(ws, file, ".."), { recursive: true });
    await writeFile(join(ws, file), text);
  }
}

describe("readAllSnapshots", () => {
  it("reads every daily log, oldest snapshot first, and counts the logs and their bytes", async () => {
    const a = renderSnapshot(snapshot("2026-11-20-01"));
    const b = renderSnapshot(snapshot("2026-11-21-01"));
    const c = renderSnapshot(snapshot("2026-11-21-02", { timestamp: "2026-11-21T09:00:00+00:00" }));
    await writeLogs({
      "memory/2026-11-21.md": `${b}\n${c}`,
      "memory/2026-11-20.md": a,
      "memory/notes.md": a,
    });
    const ws1 = await readAllSnapshots(ws);
    expect(ws1.snapshots.map((s) => [s.snapshot.id, s.file, s.verified])).toEqual([
      ["2026-11-20-01", "memory/2026-11-20.md", true],
      ["2026-11-21-02", "memory/2026-11-21.md", true],
      ["2026-11-21-01", "memory/2026-11-21.md", true],
    ]);
    expect([ws1.files, ws1.bytes, ws1.diagnostics]).toEqual([2, Buffer.byteLength(a + b + c) + 1, []]);
  });

  it("returns nothing for a workspace without memory/", async () => {
    expect(await readAllSnapshots(ws)).toEqual({
      snapshots: [],
      diagnostics: [],
      strays: [],
      bytes: 0,
      files: 0,
    });
  });

  it("keeps both blocks of an id found in two logs and reports the second where it is", async () => {
    const block = renderSnapshot(snapshot("2026-11-22-01"));
    await writeLogs({ "memory/2026-11-22.md": block, "memory/2026-11-23.md": block });
    const read = await readAllSnapshots(ws);
    expect(read.snapshots.map((s) => s.file)).toEqual(["memory/2026-11-22.md", "memory/2026-11-23.md"]);
    expect(read.diagnostics).toEqual([
      {
        file: "memory/2026-11-23.md",
        line: 5,
        id: "2026-11-22-01",
        message:
          "duplicate snapshot id 2026-11-22-01 (also at memory/2026-11-22.md:5); both blocks are kept, address this one as memory/2026-11-23.md:5",
      },
    ]);
  });

  it("passes on the diagnostics of each log", async () => {
    await writeLogs({
      "memory/2026-11-22.md":
        "# notes\n\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-11-22-01 -->\n",
    });
    expect((await readAllSnapshots(ws)).diagnostics).toEqual([
      {
        file: "memory/2026-11-22.md",
        line: 3,
        id: "2026-11-22-01",
        message: "snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)",
      },
    ]);
  });

  it("reads the other logs when one cannot be read, names it, and reads it once it can be", async () => {
    await writeLogs({
      "memory/2026-11-20.md": renderSnapshot(snapshot("2026-11-20-01")),
      "memory/2026-11-21.md": renderSnapshot(snapshot("2026-11-21-01")),
    });
    const mend = await makeUnreadable(ws, "memory/2026-11-21.md");
    const read = await readAllSnapshots(ws);
    expect(read.snapshots.map((s) => s.snapshot.id)).toEqual(["2026-11-20-01"]);
    expect([read.files, read.diagnostics]).toEqual([
      1,
      [{ file: "memory/2026-11-21.md", line: 0, message: unreadableMessage("memory/2026-11-21.md") }],
    ]);
    await mend();
    const again = await readAllSnapshots(ws);
    expect([again.snapshots.map((s) => s.snapshot.id), again.diagnostics]).toEqual([
      ["2026-11-20-01", "2026-11-21-01"],
      [],
    ]);
  });
});

describe("olderFirst", () => {
  it("orders by the instant of the timestamp, across offsets", () => {
    const early = located(snapshot("2026-11-22-02", { timestamp: "2026-11-22T10:00:00+02:00" }));
    const late = located(snapshot("2026-11-22-01", { timestamp: "2026-11-22T09:00:00+00:00" }));
    expect([late, early].sort(olderFirst).map((s) => s.snapshot.id)).toEqual([
      "2026-11-22-02",
      "2026-11-22-01",
    ]);
  });

  it("orders by id when the times are equal or one cannot be read", () => {
    const a = located(snapshot("2026-11-22-01", { timestamp: "yesterday" }));
    const b = located(snapshot("2026-11-22-02"));
    const c = located(snapshot("2026-11-22-03"));
    expect([c, b, a].sort(olderFirst).map((s) => s.snapshot.id)).toEqual([
      "2026-11-22-01",
      "2026-11-22-02",
      "2026-11-22-03",
    ]);
  });
});
