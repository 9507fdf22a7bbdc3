import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FIELDS } from "../../plugin/search/document.ts";
import { sealedDocument } from "../../plugin/search/fts-service.ts";
import {
  bytes,
  countTerms,
  decodeLengths,
  encodeLengths,
  FTS_FILE,
  FTS_VERSION,
  FtsStore,
  num,
  text,
} from "../../plugin/search/fts-store.ts";
import { located, snap, tempWorkspace } from "./helpers.ts";

const mode = async (path: string) => (await stat(path)).mode & 0o777;
const print = (file: string) => ({ file, month: "2026-11", size: 10, mtimeMs: 20, crc32: "00c0ffee" });
const doc = (id: string, goal: string) => sealedDocument(located(snap(id, { goal })));

describe("FtsStore", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let dir: string;
  beforeEach(async () => {
    ws = await tempWorkspace();
    dir = join(ws.dir, ".big-memory", "search");
  });
  afterEach(() => ws.cleanup());

  it("creates the file and its WAL 0600 in a 0700 folder", async () => {
    const store = FtsStore.open(dir);
    store.putMonth("2026-11", [doc("2026-11-20-01", "Fix the upsert")], [print("memory/2026-11-20.md")]);
    expect(store.status).toEqual({ kind: "created" });
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(join(dir, FTS_FILE))).toBe(0o600);
    expect(await mode(join(dir, `${FTS_FILE}-wal`))).toBe(0o600);
    store.close();
  });

  it("opens a file of its version as it is", () => {
    const first = FtsStore.open(dir);
    first.putMonth("2026-11", [doc("2026-11-20-01", "Fix the upsert")], [print("memory/2026-11-20.md")]);
    first.close();
    const again = FtsStore.open(dir);
    expect(again.status).toEqual({ kind: "opened" });
    expect(again.months()).toEqual(["2026-11"]);
    again.close();
  });

  it("rebuilds a file of another version empty, saying which", () => {
    FtsStore.open(dir).close();
    const db = new DatabaseSync(join(dir, FTS_FILE));
    db.exec(`PRAGMA user_version = ${FTS_VERSION + 1}`);
    db.close();
    const store = FtsStore.open(dir);
    expect(store.status).toEqual({
      kind: "rebuilt",
      reason: `version ${FTS_VERSION + 1}, expected ${FTS_VERSION}`,
    });
    expect(store.months()).toEqual([]);
    store.close();
  });

  it("rebuilds a file that is not a database", async () => {
    FtsStore.open(dir).close();
    await writeFile(join(dir, FTS_FILE), "not a database at all, just text ".repeat(200));
    const store = FtsStore.open(dir);
    expect(store.status).toEqual({ kind: "rebuilt", reason: "file is not a database" });
    expect(await mode(join(dir, FTS_FILE))).toBe(0o600);
    store.close();
  });

  it("keeps months, field lengths and log fingerprints; a month put again replaces it", () => {
    const store = FtsStore.open(dir);
    store.putMonth(
      "2026-10",
      [doc("2026-10-01-01", "alpha beta")],
      [{ ...print("memory/2026-10-01.md"), month: "2026-10" }],
    );
    store.putMonth("2026-11", [doc("2026-11-20-01", "gamma")], [print("memory/2026-11-20.md")]);
    store.putMonth(
      "2026-11",
      [doc("2026-11-20-01", "gamma delta"), doc("2026-11-21-01", "x")],
      [print("memory/2026-11-20.md")],
    );
    expect(store.months()).toEqual(["2026-10", "2026-11"]);
    expect(store.logs().map((l) => l.file)).toEqual(["memory/2026-10-01.md", "memory/2026-11-20.md"]);
    const lengths = store.lengths();
    // Documents 0 (2026-10), then 1 and 2: the replaced month's documents follow every one still held.
    expect(lengths.length).toBe(3 * FIELDS.length);
    expect(lengths[0]).toBe(2);
    expect(lengths[FIELDS.length]).toBe(2);
    expect(lengths[2 * FIELDS.length]).toBe(0);
    expect(store.size()).toBe(3);
    store.dropMonth("2026-10");
    expect(store.months()).toEqual(["2026-11"]);
    expect(store.logs().map((l) => l.file)).toEqual(["memory/2026-11-20.md"]);
    store.close();
  });

  it("rolls a month back whole when a write fails", () => {
    const store = FtsStore.open(dir);
    store.putMonth("2026-11", [doc("2026-11-20-01", "kept")], [print("memory/2026-11-20.md")]);
    const broken = { ...doc("2026-11-20-02", "lost"), fields: ["too", "few"] };
    expect(() => store.putMonth("2026-11", [broken], [])).toThrow(
      `big-memory: search index: snapshot 2026-11-20-02 has 2 fields, expected ${FIELDS.length}`,
    );
    expect(store.months()).toEqual(["2026-11"]);
    expect(store.lengths().length).toBe(FIELDS.length);
    store.close();
  });

  it("writes many months with a larger cache and fewer checkpoints, then serves with the defaults and an empty WAL", async () => {
    const store = FtsStore.open(dir);
    const pragma = (name: string) => num(store.db.prepare(`PRAGMA ${name}`).get(), name);
    const defaults = [pragma("cache_size"), pragma("wal_autocheckpoint")];
    store.bulk(true);
    expect([pragma("cache_size"), pragma("wal_autocheckpoint")]).toEqual([-32_768, 16_384]);
    store.putMonth("2026-10", [doc("2026-10-20-01", "Fix the upsert")], [print("memory/2026-10-20.md")]);
    store.putMonth("2026-11", [doc("2026-11-20-01", "Fix the cursor")], [print("memory/2026-11-20.md")]);
    expect((await stat(join(dir, `${FTS_FILE}-wal`))).size).toBeGreaterThan(0);
    store.bulk(false);
    expect([pragma("cache_size"), pragma("wal_autocheckpoint")]).toEqual(defaults);
    expect((await stat(join(dir, `${FTS_FILE}-wal`))).size).toBe(0);
    expect(await mode(join(dir, `${FTS_FILE}-wal`))).toBe(0o600);
    store.close();
    const again = FtsStore.open(dir);
    expect(again.months()).toEqual(["2026-10", "2026-11"]);
    again.close();
  });
});

describe("countTerms", () => {
  it("counts the documents holding each term anywhere and in each field, once a document", () => {
    const counts = new Map<string, number[]>();
    const doc = (at: Record<number, string[]>) => FIELDS.map((_f, i) => at[i] ?? []);
    countTerms(doc({ 0: ["fix", "err_x"], 2: ["err_x"] }), 0, counts);
    countTerms(doc({ 2: ["fix"] }), 1, counts);
    countTerms(doc({}), 2, counts);
    const row = (docs: number, at: Record<number, number>, last: number) => [
      docs,
      ...FIELDS.map((_f, i) => at[i] ?? 0),
      last,
    ];
    expect(Object.fromEntries(counts)).toEqual({
      fix: row(2, { 0: 1, 2: 1 }, 1),
      err_x: row(1, { 0: 1, 2: 1 }, 0),
    });
  });

  it("gives the distinct terms of each field with the document", () => {
    const d = sealedDocument(located(snap("2026-11-20-01", { goal: "fix the fix of ERR_X" })));
    const goal = FIELDS.indexOf("goal");
    expect(d.distinct[goal]).toEqual([...new Set(d.fields[goal]?.split(" "))]);
    expect(d.lengths[goal]).toBe(d.distinct[goal]?.length);
  });
});

describe("encodeLengths", () => {
  it("round-trips through decodeLengths, clamping at 65535", () => {
    expect([...decodeLengths(encodeLengths([0, 1, 300, 70_000]))]).toEqual([0, 1, 300, 65_535]);
  });
});

describe("row cells", () => {
  it("give checked values and name the column and what came instead", () => {
    const row = { a: "x", b: 2, c: new Uint8Array([1]), d: null };
    expect(text(row, "a")).toBe("x");
    expect(num(row, "b")).toBe(2);
    expect([...bytes(row, "c")]).toEqual([1]);
    expect(() => text(row, "b")).toThrow("big-memory: search index: column b: expected text, got number");
    expect(() => num(row, "d")).toThrow("big-memory: search index: column d: expected a number, got null");
    expect(() => bytes(undefined, "c")).toThrow(
      "big-memory: search index: column c: expected bytes, got undefined",
    );
  });
});

describe("the file", () => {
  it("holds the snapshots it was given (what a search for a secret in it would find)", async () => {
    const ws = await tempWorkspace();
    const dir = join(ws.dir, "idx");
    const store = FtsStore.open(dir);
    store.putMonth("2026-11", [doc("2026-11-20-01", "Fix ERR_DUPLICATE_KEY now")], []);
    store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    store.close();
    expect((await readFile(join(dir, FTS_FILE))).includes("ERR_DUPLICATE_KEY")).toBe(true);
    await ws.cleanup();
  });
});
