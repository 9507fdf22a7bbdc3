import { openSync, renameSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeShard, encodeShard } from "../../plugin/search/codec.ts";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { ownEntry, SavedEntry, SavedTexts, TextCache } from "../../plugin/search/saved-texts.ts";
import { located, snap, tempWorkspace } from "./helpers.ts";

/** A file of `texts` laid end to end after `skip` bytes, and their offsets from there. */
function textFile(path: string, texts: readonly string[], skip = 5): Uint32Array {
  const bytes = texts.map((t) => Buffer.from(t, "utf8"));
  const starts = new Uint32Array(texts.length + 1);
  bytes.forEach((b, i) => {
    starts[i + 1] = (starts[i] ?? 0) + b.length;
  });
  writeFileSync(path, Buffer.concat([Buffer.alloc(skip, 0x2a), ...bytes]));
  return starts;
}

describe("TextCache", () => {
  it("keeps the texts read last, dropping the least recently read first", () => {
    const cache = new TextCache(2);
    cache.set(1, "one");
    cache.set(2, "two");
    expect(cache.get(1)).toBe("one");
    cache.set(3, "three");
    expect(cache.get(2)).toBeUndefined();
    expect([cache.get(1), cache.get(3), cache.size]).toEqual(["one", "three", 2]);
  });

  it("gives each month a range of keys of its own", () => {
    const cache = new TextCache();
    expect([cache.range(3), cache.range(2), cache.range(1)]).toEqual([0, 3, 5]);
  });
});

describe("SavedTexts", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("reads each text at its offset, and the same text after the file was replaced by a rename", () => {
    const path = join(ws.dir, "month.bmx");
    const starts = textFile(path, ["fgoal.ts", "", "d数据库 line"]);
    const texts = new SavedTexts(openSync(path, "r"), 5, starts, new TextCache());
    expect(texts.read(0)).toBe("fgoal.ts");
    textFile(`${path}.new`, ["something else entirely"], 0);
    renameSync(`${path}.new`, path);
    expect([texts.read(1), texts.read(2)]).toEqual(["", "d数据库 line"]);
    texts.close();
  });

  it("answers from the cache once read, and refuses to read a closed file", () => {
    const path = join(ws.dir, "month.bmx");
    const texts = new SavedTexts(openSync(path, "w+"), 5, textFile(path, ["a", "b"]), new TextCache());
    expect(texts.read(0)).toBe("a");
    texts.close();
    expect(texts.read(0)).toBe("a");
    expect(() => texts.read(1)).toThrow("big-memory: a search index file was read after it was closed");
  });

  it("throws when the file was cut short in place since it was loaded", () => {
    const path = join(ws.dir, "month.bmx");
    const starts = textFile(path, ["first", "second"]);
    const texts = new SavedTexts(openSync(path, "r"), 5, starts, new TextCache());
    truncateSync(path, 8);
    expect(() => texts.read(1)).toThrow(
      "big-memory: a search index file changed on disk since it was loaded",
    );
    texts.close();
  });
});

describe("SavedEntry and ownEntry", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("read the texts a saved month left on disk, and copy an entry that outlives its file", () => {
    const shard = buildFrozen("2026-11", [
      located(snap("2026-11-20-01", { goal: "Fix ERR_DUPLICATE_KEY in src/db/upsert.ts", name: "upsert" })),
      located(snap("2026-11-20-02", { goal: "数据库连接超时", session: null, trigger: null }), 40),
    ]);
    const path = join(ws.dir, "2026-11.bmx");
    const data = encodeShard(shard, {});
    writeFileSync(path, data);
    const saved = decodeShard(data, { fd: openSync(path, "r"), cache: new TextCache() }).shard;
    const entries = saved.parts.entries;
    expect(entries.every((e) => e instanceof SavedEntry)).toBe(true);
    expect(entries.map((e) => e.text)).toEqual(shard.parts.entries.map((e) => e.text));
    const own = entries.map(ownEntry);
    saved.close();
    expect(own).toEqual(shard.parts.entries);
  });

  it("leave an entry held in memory as it is", () => {
    const entry = buildFrozen("2026-11", [located(snap("2026-11-20-01"))]).parts.entries[0];
    expect(entry && ownEntry(entry)).toBe(entry);
  });
});
