import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  isUnreadable,
  type LogRead,
  readLog,
  redactionsIn,
  snapshotsOf,
  type UnreadableLog,
} from "../../plugin/search/log-read.ts";
import { located, makeUnreadable, snap, tempWorkspace, unreadableMessage, writeLog } from "./helpers.ts";

/** A read that found the log readable, or a failed test. */
function readable<T extends LogRead>(read: T | UnreadableLog | null): T {
  if (read === null || isUnreadable(read)) throw new Error("the log was not read");
  return read;
}

describe("readLog", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("reads a log's snapshots with the fingerprint of the bytes read", async () => {
    const file = await writeLog(ws.dir, "2026-11-20", [snap("2026-11-20-01")]);
    const read = readable(await readLog(ws.dir, file));
    expect(read.snapshots.map((s) => s.snapshot.id)).toEqual(["2026-11-20-01"]);
    expect(read.fingerprint).toMatchObject({ crc32: expect.stringMatching(/^[0-9a-f]{8}$/) });
    expect(read.same).toBe(false);
  });

  it("skips parsing when the bytes are those of a known record, and is null for a log that is gone", async () => {
    const file = await writeLog(ws.dir, "2026-11-20", [snap("2026-11-20-01")]);
    const first = readable(await readLog(ws.dir, file));
    const again = await readLog(ws.dir, file, { ...first.fingerprint, problems: [] });
    expect(again).toMatchObject({ same: true, snapshots: [] });
    expect(await readLog(ws.dir, "memory/2026-11-21.md")).toBeNull();
    await writeFile(join(ws.dir, file), "# changed\n");
    expect(await readLog(ws.dir, file, { ...first.fingerprint, problems: [] })).toMatchObject({
      same: false,
    });
  });

  it("tells a log that cannot be read, with no fingerprint, and reads it once it can be", async () => {
    const file = await writeLog(ws.dir, "2026-11-20", [snap("2026-11-20-01")]);
    const mend = await makeUnreadable(ws.dir, file);
    const read = await readLog(ws.dir, file);
    expect(read).toEqual({ unreadable: { file, line: 0, message: unreadableMessage(file) } });
    expect(snapshotsOf(read)).toEqual([]);
    await mend();
    expect(snapshotsOf(await readLog(ws.dir, file)).map((s) => s.snapshot.id)).toEqual(["2026-11-20-01"]);
  });
});

describe("redactionsIn", () => {
  it("counts the redaction markers of snapshots by kind", () => {
    const s = located(
      snap("2026-11-20-01", { goal: "[REDACTED:api-key] and [REDACTED:email]", next: ["[REDACTED:email]"] }),
    );
    expect(redactionsIn([s])).toEqual({ "api-key": 1, email: 2 });
  });
});
