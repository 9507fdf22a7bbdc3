import { mkdir, writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeShardHeader, encodeShard } from "../../plugin/search/codec.ts";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import {
  decodeHeaderFiles,
  decodeHeaderJson,
  indexDir,
  readSavedHeader,
  shardPath,
  TRIGGERS,
} from "../../plugin/search/saved-header.ts";
import { Trigger } from "../../plugin/snapshot/snapshot.ts";
import { located, snap, tempWorkspace } from "./helpers.ts";

const FILES = {
  "memory/2026-11-20.md": {
    size: 1,
    mtimeMs: 2,
    ctimeMs: 3,
    ino: 4,
    crc32: "00c0ffee",
    problems: [{ line: 7, message: "torn block", id: "2026-11-20-09" }],
    redactions: { "api-key": 2 },
  },
};
const shard = buildFrozen("2026-11", [
  located(snap("2026-11-20-01", { goal: "Fix ERR_ONE", name: "fix-one" }), 3),
  located(snap("2026-11-20-02", { trigger: null, session: null, tombstone: true }), 40),
]);
const HEADER_START = 32; // version 5: the fixed prefix holds the meta's length and checksum too

describe("readSavedHeader", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
    await mkdir(indexDir(ws.dir), { recursive: true });
  });
  afterEach(() => ws.cleanup());

  it("reads the refs and records codec.ts writes, as codec.ts decodes them", async () => {
    const bytes = encodeShard(shard, FILES);
    await writeFile(shardPath(indexDir(ws.dir), "2026-11"), bytes);
    const read = readSavedHeader(indexDir(ws.dir), "2026-11");
    expect(read).toEqual({ kind: "loaded", header: decodeShardHeader(bytes) });
  });

  it("says what is wrong with a missing, foreign, truncated, corrupt or unknown file", async () => {
    const dir = indexDir(ws.dir);
    const path = shardPath(dir, "2026-11");
    expect(readSavedHeader(dir, "2026-11")).toEqual({ kind: "missing" });
    const bytes = encodeShard(shard, FILES);
    const cases: [Buffer, string][] = [
      [Buffer.from("not a shard at all"), "not a big-memory search shard (bad magic number)"],
      [bytes.subarray(0, 10), "file is truncated (10 bytes)"],
      [bytes.subarray(0, 40), "file is truncated (header runs past the end)"],
      [
        Buffer.concat([
          bytes.subarray(0, HEADER_START + 8),
          Buffer.from("x"),
          bytes.subarray(HEADER_START + 9),
        ]),
        "checksum mismatch (file is corrupt or truncated)",
      ],
    ];
    for (const [data, problem] of cases) {
      await writeFile(path, data);
      expect(readSavedHeader(dir, "2026-11")).toEqual({ kind: "unreadable", problem });
    }
    const future = Buffer.from(bytes);
    future.writeUInt32LE(9, 4);
    await writeFile(path, future);
    expect(readSavedHeader(dir, "2026-11")).toEqual({
      kind: "unreadable",
      problem: "unknown format version 9 (expected 5)",
    });
    future.writeUInt32LE(2, 4);
    await writeFile(path, future);
    expect(readSavedHeader(dir, "2026-11")).toEqual({ kind: "old" });
  });
});

describe("decodeHeaderJson", () => {
  const json = (header: unknown) => Buffer.from(JSON.stringify(header));
  const header = (entries: unknown[], files: unknown = {}) => ({
    analysis: "x",
    month: "2026-11",
    files,
    entries,
  });
  const row = [
    "2026-11-20-01",
    "2026-11-20T10:00:00Z",
    "memory/2026-11-20.md",
    3,
    null,
    null,
    "manual",
    null,
    null,
    false,
    null,
    "goal",
  ];

  it("refuses a row or a record of the wrong shape, naming where", () => {
    expect(decodeHeaderJson(json(header([row]))).entries[0]).toMatchObject({
      id: "2026-11-20-01",
      line: 3,
      text: "",
    });
    expect(() =>
      decodeHeaderJson(json(header([row, [...row.slice(0, 6), "sometimes", ...row.slice(7)]]))),
    ).toThrow("header is invalid at entries.1: expected a snapshot ref row");
    expect(() => decodeHeaderJson(json(header([row.slice(0, 11)])))).toThrow(
      "header is invalid at entries.0",
    );
    expect(() =>
      decodeHeaderJson(json(header([], { "memory/a.md": { size: -1, mtimeMs: 0, crc32: "00000000" } }))),
    ).toThrow("header is invalid at files.memory/a.md: expected a log record");
    expect(() => decodeHeaderJson(Buffer.from("{"))).toThrow("header is not valid JSON");
    expect(() => decodeHeaderJson(json([]))).toThrow("header is invalid at the top: expected an object");
  });
});

describe("decodeHeaderFiles", () => {
  it("reads the logs' records without the rows", () => {
    const bytes = encodeShard(shard, FILES);
    const length = bytes.readUInt32LE(8);
    expect(decodeHeaderFiles(bytes.subarray(HEADER_START, HEADER_START + length))).toEqual(FILES);
  });
});

describe("TRIGGERS", () => {
  it("are the snapshot model's triggers", () => {
    expect([...TRIGGERS]).toEqual(Trigger.options);
  });
});

describe("readSavedHeader with a FIFO in a shard's place", () => {
  it("says the shard is unreadable, naming the FIFO, without blocking", async () => {
    const ws = await tempWorkspace();
    try {
      await mkdir(indexDir(ws.dir), { recursive: true });
      const { execFileSync } = await import("node:child_process");
      execFileSync("mkfifo", [shardPath(indexDir(ws.dir), "2026-11")]);
      const read = readSavedHeader(indexDir(ws.dir), "2026-11");
      expect(read.kind).toBe("unreadable");
      expect(read.kind === "unreadable" ? read.problem : "").toMatch(
        /2026-11\.bmx is not read: it is a FIFO/,
      );
    } finally {
      await ws.cleanup();
    }
  });
});
