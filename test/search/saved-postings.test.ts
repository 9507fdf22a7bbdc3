import { openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeShard, encodeShard } from "../../plugin/search/codec.ts";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { packLists, readPostings } from "../../plugin/search/postings.ts";
import { POSTINGS_WINDOW, SavedPostings } from "../../plugin/search/saved-postings.ts";
import { SavedTexts, TextCache } from "../../plugin/search/saved-texts.ts";
import { SnapshotIndex } from "../../plugin/search/snapshot-index.ts";
import { located, snap, tempWorkspace } from "./helpers.ts";

/** Posting lists of `terms` terms, term t naming `docs(t)` documents, each in field t % 3. */
function lists(terms: number, docs: (t: number) => number): number[][] {
  return Array.from({ length: terms }, (_, t) =>
    Array.from({ length: docs(t) }, (_, d) => [d * 3, ((t % 3) << 12) | ((d % 20) + 1)]).flat(),
  );
}

describe("SavedPostings", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("reads each term's postings from the file as they were packed, short and long lists alike", () => {
    // Some lists far longer than a window, most a few bytes: reads start inside, across and past windows.
    const packed = packLists(
      lists(200, (t) => (t % 50 === 7 ? POSTINGS_WINDOW : (t % 5) + 1)),
      200,
    );
    const path = join(ws.dir, "month.bmx");
    writeFileSync(path, Buffer.concat([Buffer.alloc(11, 0x2a), packed.bytes]));
    const file = new SavedTexts(openSync(path, "r"), 0, new Uint32Array([0, 0]), new TextCache());
    const saved = new SavedPostings(file, 11, packed.bytes.length);
    const read = (from: number, to: number) => {
      const out: number[][] = [];
      const c = saved.cursor(from, to);
      while (c.next()) out.push([c.doc, c.field, c.tf]);
      return out;
    };
    const { starts } = packed;
    for (const t of [0, 1, 57, 2, 199, 107, 3, 150]) {
      const from = starts[t] ?? 0;
      const to = starts[t + 1] ?? 0;
      expect(read(from, to)).toEqual(readPostings(packed.bytes, from, to));
    }
    expect(saved.all()).toEqual(packed.bytes);
    file.close();
    expect(() => saved.all()).toThrow("big-memory: a search index file was read after it was closed");
  });

  it("give a month loaded from its file the answers it gives held in memory", () => {
    const snapshots = [
      located(snap("2026-11-20-01", { goal: "Fix ERR_DUPLICATE_KEY in src/db/upsert.ts" })),
      located(snap("2026-11-20-02", { goal: "upsert retries after the deadlock" }), 40),
      located(snap("2026-11-21-01", { goal: "deadlock in src/db/pool.ts, upsert again" })),
    ];
    const shard = buildFrozen("2026-11", snapshots);
    const path = join(ws.dir, "2026-11.bmx");
    const data = encodeShard(shard, {});
    writeFileSync(path, data);
    const loaded = decodeShard(data, { fd: openSync(path, "r"), cache: new TextCache() }).shard;
    expect([loaded.parts.saved !== undefined, loaded.parts.postings.length]).toEqual([true, 0]);
    expect(loaded.whole().postings).toEqual(shard.parts.postings);
    expect(["upsert", "deadlock", "nothing"].map((t) => loaded.exactCount(t, 10))).toEqual([3, 2, 0]);
    expect(loaded.holding("deadlock", [0, 1, 2])).toEqual(shard.holding("deadlock", [0, 1, 2]));
    const inMemory = new SnapshotIndex();
    inMemory.setShard(shard);
    const fromFile = new SnapshotIndex();
    fromFile.setShard(loaded);
    for (const query of ["upsert deadlock", "ERR_DUPLICATE", "src/db/pool.ts", "deadlok", "upse"])
      expect(fromFile.query(query)).toEqual(inMemory.query(query));
    fromFile.close();
  });
});
