import { execFileSync } from "node:child_process";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeShard } from "../../plugin/search/codec.ts";
import { buildFrozen, FrozenShard } from "../../plugin/search/frozen-shard.ts";
import { HotShard } from "../../plugin/search/hot-shard.ts";
import {
  indexDir,
  listShardFiles,
  loadShardFile,
  loadShardHeader,
  removeShardFile,
  saveMonth,
  shardPath,
  VocabularyFile,
  writeShardFile,
} from "../../plugin/search/persist.ts";
import { shardStamp } from "../../plugin/search/saved-header.ts";
import { SavedEntry, TextCache } from "../../plugin/search/saved-texts.ts";
import {
  decodeVocabulary,
  encodeVocabulary,
  readVocabulary,
  vocabularyPath,
} from "../../plugin/search/saved-vocabulary.ts";
import { SnapshotIndex } from "../../plugin/search/snapshot-index.ts";
import { allTerms } from "../../plugin/search/terms.ts";
import { mergeTerms } from "../../plugin/search/vocabulary.ts";
import { located, snap, tempWorkspace } from "./helpers.ts";

const FILES = { "memory/2026-11-20.md": { size: 1, mtimeMs: 2, crc32: "00c0ffee" } };
const termsIn = (index: SnapshotIndex, month: string) => {
  const shard = index.shard(month);
  return shard instanceof FrozenShard || shard instanceof HotShard ? shard.terms() : [];
};
const shardWith = (goal: string) => buildFrozen("2026-11", [located(snap("2026-11-20-01", { goal }))]);

describe("shard files", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let dir: string;
  beforeEach(async () => {
    ws = await tempWorkspace();
    dir = indexDir(ws.dir);
  });
  afterEach(() => ws.cleanup());

  it("live under the workspace's .big-memory/, or under a state dir keyed by workspace", () => {
    expect(indexDir("/w")).toBe(join("/w", ".big-memory", "search"));
    expect(indexDir("/w", "/state")).toMatch(/^\/state\/search\/[0-9a-f]{16}$/);
    expect(indexDir("/w", "/state")).not.toBe(indexDir("/v", "/state"));
  });

  it("round-trip through an atomic write and keep the previous copy", async () => {
    await writeShardFile(dir, "2026-11", encodeShard(shardWith("first"), FILES));
    await writeShardFile(dir, "2026-11", encodeShard(shardWith("second"), FILES));
    const load = await loadShardFile(dir, "2026-11");
    expect(load.kind === "loaded" && load.file.shard.parts.entries[0]?.goal).toBe("second");
    const previous = await readFile(`${shardPath(dir, "2026-11")}.prev`);
    expect(previous.length).toBeGreaterThan(0);
    expect(await listShardFiles(dir)).toEqual(["2026-11"]);
  });

  it("fall back to the previous copy when the current one is corrupt, saying why", async () => {
    await writeShardFile(dir, "2026-11", encodeShard(shardWith("first"), FILES));
    await writeShardFile(dir, "2026-11", encodeShard(shardWith("second"), FILES));
    await writeFile(shardPath(dir, "2026-11"), "garbage");
    const load = await loadShardFile(dir, "2026-11");
    expect(load).toMatchObject({
      kind: "loaded",
      fromPrevious: true,
      problem: "file is truncated (7 bytes)",
    });
    expect(load.kind === "loaded" && load.file.shard.parts.entries[0]?.goal).toBe("first");
  });

  it("report an unreadable month when no copy can be read, and a missing one when there is none", async () => {
    await writeShardFile(dir, "2026-11", Buffer.from("not a shard at all"));
    expect(await loadShardFile(dir, "2026-11")).toEqual({
      kind: "unreadable",
      problem: "not a big-memory search shard (bad magic number)",
    });
    expect(await loadShardFile(dir, "2026-10")).toEqual({ kind: "missing" });
    await removeShardFile(dir, "2026-11");
    expect(await listShardFiles(dir)).toEqual([]);
  });
});

describe("shard files with their snippet texts left on disk", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let dir: string;
  beforeEach(async () => {
    ws = await tempWorkspace();
    dir = indexDir(ws.dir);
  });
  afterEach(() => ws.cleanup());

  it("load with a text cache: the texts are read from the file, the same as loaded whole", async () => {
    const shard = buildFrozen("2026-11", [located(snap("2026-11-20-01", { goal: "texts on disk" }))]);
    await writeShardFile(dir, "2026-11", encodeShard(shard, FILES));
    const load = await loadShardFile(dir, "2026-11", new TextCache());
    const loaded = load.kind === "loaded" ? load.file.shard : undefined;
    expect([...(loaded?.documents() ?? [])].map(([, e]) => [e instanceof SavedEntry, e.text])).toEqual(
      shard.parts.entries.map((e) => [true, e.text]),
    );
    loaded?.close();
  });

  it("load a month's terms from a saved vocabulary only when the file bears the stamp saved there", async () => {
    const shard = buildFrozen("2026-11", [
      located(snap("2026-11-20-01", { goal: "terms from the vocabulary" })),
    ]);
    const data = encodeShard(shard, FILES);
    await writeShardFile(dir, "2026-11", data);
    const terms = [...shard.terms()];
    const stamp = shardStamp(data) ?? "";
    const loadWith = async (months: { month: string; stamp: string; terms: readonly string[] }[]) => {
      const load = await loadShardFile(
        dir,
        "2026-11",
        new TextCache(),
        decodeVocabulary(encodeVocabulary(months)),
      );
      const loaded = load.kind === "loaded" ? load.file.shard : undefined;
      loaded?.close();
      return { shared: loaded?.parts.shared !== undefined, terms: loaded?.terms(), stamp: loaded?.stamp };
    };
    const other = ["aardvark", "zebra", "zz"];
    expect(
      await loadWith([
        { month: "2026-11", stamp, terms },
        { month: "2026-10", stamp: "x", terms: other },
      ]),
    ).toEqual({ shared: true, terms, stamp });
    // Another stamp, or positions that do not fit the month: its own terms are read.
    expect(await loadWith([{ month: "2026-11", stamp: `${stamp}0`, terms }])).toEqual({
      shared: false,
      terms,
      stamp,
    });
    expect(await loadWith([{ month: "2026-11", stamp, terms: terms.slice(1) }])).toEqual({
      shared: false,
      terms,
      stamp,
    });
  });

  it("are described by a vocabulary file written when it no longer says what they hold", async () => {
    const index = new SnapshotIndex();
    index.replaceFile("memory/2026-10-20.md", [located(snap("2026-10-20-01", { goal: "older month" }))]);
    index.replaceFile("memory/2026-11-20.md", [located(snap("2026-11-20-01", { goal: "newest month" }))]);
    const words = new VocabularyFile(dir);
    await words.read(index);
    await saveMonth(dir, index, "2026-10", FILES, false, new TextCache(), words);
    await words.save(index, true);
    expect(readVocabulary(dir)).toBeUndefined(); // the hot month was never saved: its terms on disk are unknown
    await saveMonth(dir, index, "2026-11", FILES, true, new TextCache(), words);
    await words.save(index, false);
    expect(readVocabulary(dir)).toBeUndefined(); // not every month loaded
    await words.save(index, true);
    const saved = readVocabulary(dir);
    expect(saved && allTerms(saved.terms)).toEqual(
      mergeTerms(["2026-10", "2026-11"].map((m) => termsIn(index, m))),
    );
    const written = (await stat(vocabularyPath(dir))).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await words.save(index, true);
    expect((await stat(vocabularyPath(dir))).mtimeMs).toBe(written);
    // Read again, a frozen month loaded from the file it names takes its terms from it.
    const again = new SnapshotIndex();
    const load = await loadShardFile(dir, "2026-10", new TextCache());
    if (load.kind === "loaded") again.setShard(load.file.shard);
    const reader = new VocabularyFile(dir);
    await reader.read(again);
    expect(again.shard("2026-10")).toMatchObject({ parts: { shared: { vocabulary: reader.saved?.terms } } });
    expect(again.search("older").map((h) => h.id)).toEqual(["2026-10-20-01"]);
    expect(allTerms(again.vocabulary())).toEqual(termsIn(index, "2026-10"));
    index.close();
    again.close();
  });

  it("are what a month saved with a text cache reads from then on, unless it stays hot", async () => {
    const index = new SnapshotIndex();
    index.replaceFile("memory/2026-11-20.md", [located(snap("2026-11-20-01", { goal: "saved then read" }))]);
    const text = index.shard("2026-11")?.entry(0)?.text;
    await saveMonth(dir, index, "2026-11", FILES, true, new TextCache());
    expect(index.shard("2026-11")?.entry(0)).not.toBeInstanceOf(SavedEntry);
    await saveMonth(dir, index, "2026-11", FILES, false, new TextCache());
    const entry = index.shard("2026-11")?.entry(0);
    expect([entry instanceof SavedEntry, entry?.text]).toEqual([true, text]);
    expect(index.search("saved then read").map((h) => h.id)).toEqual(["2026-11-20-01"]);
    index.close();
  });
});

describe("shard files with a FIFO in their place", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let dir: string;
  beforeEach(async () => {
    ws = await tempWorkspace();
    dir = indexDir(ws.dir);
  });
  afterEach(() => ws.cleanup());

  it("fall back to the previous copy, naming the FIFO, without blocking", async () => {
    await writeShardFile(dir, "2026-11", encodeShard(shardWith("first"), FILES));
    await writeShardFile(dir, "2026-11", encodeShard(shardWith("second"), FILES));
    await rm(shardPath(dir, "2026-11"));
    execFileSync("mkfifo", [shardPath(dir, "2026-11")]);
    const load = await loadShardFile(dir, "2026-11");
    expect(load).toMatchObject({ kind: "loaded", fromPrevious: true });
    expect(load.kind === "loaded" ? load.problem : "").toMatch(/2026-11\.bmx is not read: it is a FIFO/);
    expect(load.kind === "loaded" && load.file.shard.parts.entries[0]?.goal).toBe("first");
  });

  it("report the month unreadable when both copies are FIFOs, and loadShardHeader too", async () => {
    await mkdir(dir, { recursive: true });
    execFileSync("mkfifo", [shardPath(dir, "2026-11")]);
    execFileSync("mkfifo", [`${shardPath(dir, "2026-11")}.prev`]);
    const load = await loadShardFile(dir, "2026-11");
    expect(load.kind).toBe("unreadable");
    expect(load.kind === "unreadable" ? load.problem : "").toMatch(/is not read: it is a FIFO/);
    const header = await loadShardHeader(dir, "2026-11");
    expect(header.kind === "unreadable" ? header.problem : header.kind).toMatch(/is not read: it is a FIFO/);
  });
});

describe("loadShardHeader", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let dir: string;
  beforeEach(async () => {
    ws = await tempWorkspace();
    dir = indexDir(ws.dir);
  });
  afterEach(() => ws.cleanup());

  it("reads the refs and logs of a saved month without its postings", async () => {
    await writeShardFile(dir, "2026-11", encodeShard(shardWith("first"), FILES));
    const load = await loadShardHeader(dir, "2026-11");
    expect(load.kind).toBe("loaded");
    const header = load.kind === "loaded" ? load.header : undefined;
    expect(header?.month).toBe("2026-11");
    expect(header?.files).toEqual(FILES);
    expect(header?.entries.map((e) => [e.id, e.goal, e.file, e.line])).toEqual([
      ["2026-11-20-01", "first", "memory/2026-11-20.md", 1],
    ]);
  });

  it("says a month is missing when it has no file, and unreadable when the file is cut short or foreign", async () => {
    expect(await loadShardHeader(dir, "2026-11")).toEqual({ kind: "missing" });
    const whole = encodeShard(shardWith("first"), FILES);
    await writeShardFile(dir, "2026-11", whole.subarray(0, 40));
    expect(await loadShardHeader(dir, "2026-11")).toEqual({
      kind: "unreadable",
      problem: "file is truncated (header runs past the end)",
    });
    await writeShardFile(dir, "2026-11", Buffer.from("not a shard at all"));
    expect(await loadShardHeader(dir, "2026-11")).toEqual({
      kind: "unreadable",
      problem: "not a big-memory search shard (bad magic number)",
    });
  });
});
