import { openSync, truncateSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeShard, encodeShard } from "../../plugin/search/codec.ts";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { indexDir, loadShardFile, shardPath, writeShardFile } from "../../plugin/search/persist.ts";
import { FileEntry } from "../../plugin/search/snippet-file.ts";
import { located, snap, tempWorkspace } from "./helpers.ts";

const FILES = { "memory/2026-11-20.md": { size: 1, mtimeMs: 2, crc32: "00c0ffee" } };

function sample(goal = "Fix ERR_DUPLICATE_KEY") {
  return buildFrozen("2026-11", [
    located(
      snap("2026-11-20-01", {
        goal,
        names: [{ label: "Error code", value: "ERR_DUPLICATE_KEY" }],
        next: ["Ship the upsert fix"],
      }),
    ),
    located(
      snap("2026-11-20-02", { goal: "数据库连接超时", blockers: ["连接池耗尽 in src/db/pool.ts"] }),
      40,
    ),
    located(snap("2026-11-20-03", { goal: "Nothing else", next: [] }), 80),
  ]);
}

describe("snippet texts read from the shard file", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let dir: string;
  beforeEach(async () => {
    ws = await tempWorkspace();
    dir = indexDir(ws.dir);
  });
  afterEach(() => ws.cleanup());

  it("are the texts held in memory, read again and again, non-ASCII included", async () => {
    const shard = sample();
    await writeShardFile(dir, "2026-11", encodeShard(shard, FILES));
    const load = await loadShardFile(dir, "2026-11");
    if (load.kind !== "loaded") throw new Error(load.kind);
    const entries = load.file.shard.parts.entries;
    expect(entries.every((e) => e instanceof FileEntry)).toBe(true);
    const texts = shard.parts.entries.map((e) => e.text);
    expect(texts.some((t) => /[^ -~\n]/.test(t))).toBe(true);
    for (let round = 0; round < 2; round++) {
      expect(entries.map((e) => e.text)).toEqual(texts);
      expect([...entries].reverse().map((e) => e.text)).toEqual([...texts].reverse());
    }
    expect(entries.map((e) => e.goal)).toEqual(shard.parts.entries.map((e) => e.goal));
  });

  it("are the texts the file held when loaded, after the month is written again", async () => {
    const first = sample("first");
    await writeShardFile(dir, "2026-11", encodeShard(first, FILES));
    const load = await loadShardFile(dir, "2026-11");
    if (load.kind !== "loaded") throw new Error(load.kind);
    await writeShardFile(dir, "2026-11", encodeShard(sample("second, with a longer goal"), FILES));
    expect(load.file.shard.parts.entries.map((e) => e.text)).toEqual(first.parts.entries.map((e) => e.text));
  });

  it("are refused with a message when the file was cut short in place", async () => {
    await writeShardFile(dir, "2026-11", encodeShard(sample(), FILES));
    const path = shardPath(dir, "2026-11");
    const load = await loadShardFile(dir, "2026-11");
    if (load.kind !== "loaded") throw new Error(load.kind);
    truncateSync(path, 64);
    expect(() => load.file.shard.parts.entries[1]?.text).toThrow(
      "big-memory: search index file was cut short after it was loaded",
    );
  });

  it("take claims laid over their entry like any entry", async () => {
    const data = encodeShard(sample(), FILES);
    await writeShardFile(dir, "2026-11", data);
    const { shard } = decodeShard(data, openSync(shardPath(dir, "2026-11"), "r"));
    const entry = shard.parts.entries[0];
    if (entry === undefined) throw new Error("no entry");
    entry.session = "agent:main:other";
    entry.trigger = "flush";
    entry.claimed = true;
    expect(entry).toMatchObject({ session: "agent:main:other", trigger: "flush", claimed: true });
    expect(entry.text).toBe(sample().parts.entries[0]?.text);
  });
});
