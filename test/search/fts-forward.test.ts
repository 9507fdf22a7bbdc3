import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIELDS } from "../../plugin/search/document.ts";
import { encodeForward, ForwardRows, instancePostings } from "../../plugin/search/fts-forward.ts";
import { sealedDocument } from "../../plugin/search/fts-service.ts";
import { bytes, FtsStore, num, text } from "../../plugin/search/fts-store.ts";
import { located, snap, tempWorkspace } from "./helpers.ts";

describe("encodeForward", () => {
  it("packs each term's count per field, sorted by term id, and reads back through ForwardRows", () => {
    const ids = new Map([
      ["retry", 7],
      ["upsert", 300],
      ["fix", 2],
    ]);
    const row = encodeForward(["retry upsert upsert", "", "fix upsert"], ids);
    // id 2 (delta 2) field 2 count 1; id 7 (delta 5) field 0 count 1; id 300 (delta 293, two bytes) fields 0 and 2.
    expect([...row]).toEqual([2, 2, 1, 5, 0, 1, 0xa5, 0x02, 0, 2, 0, 2, 1]);
    const rows = new ForwardRows([
      [4, row],
      [9, encodeForward(["upsert", "upsert upsert upsert"], ids)],
    ]);
    expect(rows.postings(300)).toEqual([4, 0, 2, 4, 2, 1, 9, 0, 1, 9, 1, 3]);
    expect(rows.postings(2)).toEqual([4, 2, 1]);
    expect(rows.postings(8)).toEqual([]);
  });

  it("refuses a term without an id", () => {
    expect(() => encodeForward(["retry"], new Map())).toThrow(
      "big-memory: search index: term retry has no id",
    );
  });
});

describe("ForwardRows", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let store: FtsStore;
  beforeAll(async () => {
    ws = await tempWorkspace();
    store = FtsStore.open(join(ws.dir, "idx"));
    const docs = [
      snap("2026-11-20-01", {
        goal: "Fix ERR_DUPLICATE_KEY in the upsert upsert",
        next: ["retry the upsert"],
      }),
      snap("2026-11-20-02", {
        goal: "Deploy the upsert fix",
        files: [{ path: "src/db/upsert.ts", note: "" }],
      }),
      snap("2026-11-21-02", { goal: "gone", tombstone: true, name: "old-checkpoint" }),
    ].map((s) => sealedDocument(located(s)));
    store.putMonth("2026-10", docs.slice(0, 1), []);
    store.putMonth("2026-11", docs, []);
  });
  afterAll(async () => {
    store.close();
    await ws.cleanup();
  });

  it("gives, for every term of the file, the postings fts5vocab holds", () => {
    const rows = new ForwardRows(
      store.db
        .prepare("SELECT doc, terms FROM forward ORDER BY doc")
        .all()
        .map((row): [number, Uint8Array] => [num(row, "doc"), bytes(row, "terms")]),
    );
    const instances = store.db.prepare(
      "SELECT group_concat(doc || ' ' || col, ' ') AS list FROM vocab_instance WHERE term = ?",
    );
    const terms = store.db.prepare("SELECT id, term FROM term_ids").all();
    expect(terms.length).toBeGreaterThan(10);
    // Each term its own id, the months written one after the other.
    expect(new Set(terms.map((row) => num(row, "id"))).size).toBe(terms.length);
    for (const row of terms) {
      const term = text(row, "term");
      const list = instances.get(term)?.list;
      expect(rows.postings(num(row, "id")), term).toEqual(
        instancePostings(typeof list === "string" ? list : ""),
      );
    }
  });

  it("is gone with its month", () => {
    store.dropMonth("2026-10");
    const docs = store.db.prepare("SELECT doc FROM forward ORDER BY doc").all();
    const entries = store.db.prepare("SELECT doc FROM entries ORDER BY doc").all();
    expect(docs).toEqual(entries);
  });
});

describe("instancePostings", () => {
  it("counts each run of one document and column as one posting", () => {
    expect(instancePostings("")).toEqual([]);
    expect(instancePostings("3 goal 3 goal 3 code 9 goal")).toEqual([
      3,
      FIELDS.indexOf("goal"),
      2,
      3,
      FIELDS.indexOf("code"),
      1,
      9,
      FIELDS.indexOf("goal"),
      1,
    ]);
  });
});
