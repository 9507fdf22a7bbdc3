import { describe, expect, it } from "vitest";
import { ENTRY_NAMES, LazyEntry, rowEntry, screenText } from "../../plugin/search/fts-entry.ts";
import { sequenceScreen } from "../../plugin/search/tokenize.ts";

describe("rowEntry", () => {
  const row = {
    id: "2026-11-20-01",
    timestamp: "2026-11-20T10:00:00Z",
    file: "memory/2026-11-20.md",
    line: 3,
    session: null,
    agent: "main",
    trigger: "manual",
    name: null,
    parent: null,
    tombstone: 0,
    verified: 1,
    goal: "g",
    text: "t",
  };
  it("reads a stored entry, flags as booleans and the time derived again", () => {
    const entry = rowEntry(row, 7);
    expect(entry).toMatchObject({ id: "2026-11-20-01", tombstone: false, verified: true, trigger: "manual" });
    expect(entry.time).toBe(Date.parse("2026-11-20T10:00:00Z"));
    expect(rowEntry({ ...row, verified: null }, 7).verified).toBeNull();
  });
  it("rejects what is not a stored entry, naming the document and the column", () => {
    expect(() => rowEntry({ ...row, id: 1 }, 8)).toThrow(
      "big-memory: search index: entry of document 8: column id: expected text, got number",
    );
    expect(() => rowEntry({ ...row, trigger: "later" }, 9)).toThrow(
      "big-memory: search index: entry of document 9: column trigger: unknown trigger later",
    );
  });
});

describe("LazyEntry", () => {
  it("reads the entry on first use of a field, once, and knows an indexed document is no tombstone", () => {
    let reads = 0;
    const stored = rowEntry(
      {
        id: "2026-11-20-01",
        timestamp: "2026-11-20T10:00:00Z",
        file: "memory/2026-11-20.md",
        line: 3,
        session: null,
        agent: null,
        trigger: null,
        name: null,
        parent: null,
        tombstone: 0,
        verified: null,
        goal: "g",
        text: "t",
      },
      0,
    );
    const entry = new LazyEntry(() => {
      reads++;
      return stored;
    }, true);
    expect(entry.tombstone).toBe(false);
    expect(reads).toBe(0);
    expect({ ...entry.full }).toEqual(stored);
    expect(entry.goal).toBe("g");
    expect(reads).toBe(1);
  });

  it("names every entry column in its select list", () => {
    expect(ENTRY_NAMES.split(", ")).toContain("verified");
  });
});

describe("screenText", () => {
  it("is 1 when the pattern matches the text as written or folded, else 0, also for what is not text", () => {
    const { source, flags } = sequenceScreen(["cafe", "id"]);
    expect(screenText(source, flags, "Look up CAFE_ID")).toBe(1);
    expect(screenText(source, flags, "Look up CAFÉ_ID")).toBe(1);
    expect(screenText(source, flags, "Look up the café")).toBe(0);
    expect(screenText(source, flags, null)).toBe(0);
    expect(screenText(null, flags, "CAFE_ID")).toBe(0);
  });
});
