import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  decodeShard,
  decodeShardHeader,
  encodeShard,
  FIXED_V5,
  type Fingerprint,
  SHARD_FORMAT_VERSION,
} from "../../plugin/search/codec.ts";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { located, snap } from "./helpers.ts";

const FILES: Record<string, Fingerprint> = {
  "memory/2026-11-20.md": { size: 120, mtimeMs: 1_790_000_000_000, crc32: "0badc0de" },
};

function sample() {
  return buildFrozen("2026-11", [
    located(snap("2026-11-20-01", { goal: "Fix ERR_DUPLICATE_KEY in src/db/upsert.ts", name: "upsert-fix" })),
    located(snap("2026-11-20-02", { goal: "数据库连接超时", session: null, trigger: null }), 40),
    located(snap("2026-11-20-03", { tombstone: true, name: "upsert-fix" }), 80),
  ]);
}

describe("encodeShard and decodeShard", () => {
  it("round-trip a shard and its fingerprints", () => {
    const shard = sample();
    const decoded = decodeShard(encodeShard(shard, FILES));
    expect(decoded.files).toEqual(FILES);
    expect(decoded.shard.parts).toEqual(shard.parts);
  });

  it("refuses a corrupt file", () => {
    const data = encodeShard(sample(), FILES);
    data[data.length - 3] = (data[data.length - 3] as number) ^ 0xff;
    expect(() => decodeShard(data)).toThrow("checksum mismatch (file is corrupt or truncated)");
  });

  it("refuses a truncated file", () => {
    const data = encodeShard(sample(), FILES);
    expect(() => decodeShard(data.subarray(0, data.length - 100))).toThrow("checksum mismatch");
    expect(() => decodeShard(data.subarray(0, 10))).toThrow("file is truncated (10 bytes)");
  });

  it("refuses an unknown format version", () => {
    const data = encodeShard(sample(), FILES);
    data.writeUInt32LE(SHARD_FORMAT_VERSION + 1, 4);
    expect(() => decodeShard(data)).toThrow(
      `unknown format version ${SHARD_FORMAT_VERSION + 1} (expected ${SHARD_FORMAT_VERSION})`,
    );
  });

  it("refuses a file that is not a shard", () => {
    expect(() => decodeShard(Buffer.from("# 2026-11-20\n\nnot an index at all"))).toThrow(
      "not a big-memory search shard (bad magic number)",
    );
  });

  it("refuses the version 1 fixture: older releases indexed hand-written blocks unredacted", () => {
    const data = readFileSync(new URL("./fixtures/shard-v1.bmx", import.meta.url));
    expect(() => decodeShard(data)).toThrow(`unknown format version 1 (expected ${SHARD_FORMAT_VERSION})`);
  });

  it("still reads the version 2 fixture", () => {
    const data = readFileSync(new URL("./fixtures/shard-v2.bmx", import.meta.url));
    const { shard, files } = decodeShard(data);
    expect(files).toEqual(FILES);
    expect(shard.parts.entries.map((e) => e.id)).toEqual(["2026-11-20-03", "2026-11-20-02", "2026-11-20-01"]);
    expect(shard.parts.terms).toContain("err_duplicate_key");
  });

  it("still reads the version 3 fixture, its postings packed as they load, and scores it as the shard it was built from", () => {
    const data = readFileSync(new URL("./fixtures/shard-v3.bmx", import.meta.url));
    const { shard, files } = decodeShard(data);
    expect(files).toEqual(FILES);
    expect(shard.parts).toEqual(sample().parts);
    expect(decodeShardHeader(data).entries.map((e) => e.id)).toEqual(shard.parts.entries.map((e) => e.id));
  });

  it("reads the header alone: refs without snippet text, and the problems found in each log", () => {
    const files = {
      "memory/2026-11-20.md": {
        ...(FILES["memory/2026-11-20.md"] as Fingerprint),
        ctimeMs: 1_790_000_000_001,
        ino: 42,
        problems: [{ line: 9, message: "snapshot block has no end marker", id: "2026-11-20-04" }],
      },
    };
    const data = encodeShard(sample(), files);
    const header = decodeShardHeader(data.subarray(0, FIXED_V5 + data.readUInt32LE(8)));
    expect(header.files).toEqual(files);
    expect(header.entries.map((e) => [e.id, e.text])).toEqual([
      ["2026-11-20-03", ""],
      ["2026-11-20-02", ""],
      ["2026-11-20-01", ""],
    ]);
    expect(decodeShard(data).files).toEqual(files);
    data[FIXED_V5 + 8] = (data[FIXED_V5 + 8] as number) ^ 0xff;
    expect(() => decodeShardHeader(data)).toThrow("checksum mismatch (file is corrupt or truncated)");
  });
});
