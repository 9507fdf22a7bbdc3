import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import {
  atLeast,
  CANDIDATES,
  candidateCount,
  candidateTiers,
  candidateWords,
  ftsString,
} from "../../plugin/search/fts-candidates.ts";
import { sequenceScreen } from "../../plugin/search/tokenize.ts";

describe("candidateWords", () => {
  it("requires an identifier whole or as all its leaves, and takes a plain word by any of its terms", () => {
    const words = candidateWords("ErrDb timeout", 10);
    expect(words.required).toEqual(['"errdb" OR ("err" AND "db")']);
    expect(words.optional).toEqual(['"timeout"']);
    expect(words.needed).toBe(10);
    expect([...words.identifierTerms].sort()).toEqual(["db", "err"]);
  });

  it("names the screens of the terms that are leaves of identifiers alone", () => {
    const words = candidateWords("ErrDb err_db_timeout err", 10);
    const sources = (term: string) => words.screens.get(term)?.map((s) => s.source);
    // `err` is also a plain word of the query: read for every snapshot, not screened.
    expect(words.screens.has("err")).toBe(false);
    expect(sources("db")).toEqual([
      sequenceScreen(["err", "db"]).source,
      sequenceScreen(["err", "db", "timeout"]).source,
    ]);
    expect(sources("timeout")).toEqual([sequenceScreen(["err", "db", "timeout"]).source]);
    expect(candidateWords("retry upsert", 10).screens.size).toBe(0);
  });
});

describe("candidateTiers", () => {
  it("asks for every word, then all but a third of the plain words, then any plain word", () => {
    const [all, most, any, ...rest] = candidateTiers(candidateWords("retry upsert fix", 10));
    expect(all).toEqual({ kind: "all", match: '("retry") AND ("upsert") AND ("fix")', probe: all?.match });
    expect(most?.kind).toBe("most");
    expect(most?.match).toBe(
      '((("retry") AND ("upsert")) OR (("retry") AND ("fix")) OR (("upsert") AND ("fix")))',
    );
    expect(most?.probe).toBe('((("retry") AND ("upsert" OR "fix")) OR (("upsert") AND ("fix")))');
    expect(any).toEqual({ kind: "any", match: '("retry" OR "upsert" OR "fix")', probe: any?.match });
    expect(rest).toEqual([]);
    expect(candidateTiers(candidateWords("retry", 10))).toEqual([
      { kind: "all", match: '("retry")', probe: '("retry")' },
    ]);
  });
});

describe("atLeast", () => {
  it("matches in FTS5 what holds at least that many of the parts, as every subset of that size would", () => {
    const db = new DatabaseSync(":memory:");
    try {
      db.exec("CREATE VIRTUAL TABLE t USING fts5(body)");
      const parts = ["alpha", "beta", "gamma", "delta", "omega"];
      const insert = db.prepare("INSERT INTO t (rowid, body) VALUES (?, ?)");
      for (let mask = 0; mask < 1 << parts.length; mask++)
        insert.run(mask, `${parts.filter((_p, i) => (mask & (1 << i)) !== 0).join(" ")} filler`);
      const bits = (mask: number) => parts.filter((_p, i) => (mask & (1 << i)) !== 0).length;
      const quoted = parts.map(ftsString);
      for (let size = 1; size <= parts.length; size++) {
        const found = db
          .prepare("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid")
          .all(atLeast(quoted, size))
          .map((row) => row.rowid);
        const expected = Array.from({ length: 1 << parts.length }, (_x, mask) => mask).filter(
          (mask) => bits(mask) >= size,
        );
        expect(found, `${size} of ${parts.length}`).toEqual(expected);
      }
      // Four of five: 14 words named in all, against 20 in the OR of the five subsets.
      expect(atLeast(quoted, 4).match(/"[a-z]+"/g)?.length).toBe(14);
    } finally {
      db.close();
    }
  });
});

describe("ftsString", () => {
  it("quotes a term, dropping double quotes", () => {
    expect(ftsString('a"b')).toBe('"ab"');
  });
});

describe("candidateCount", () => {
  it("names 500 candidates up to 25,000 snapshots and one in 50 beyond", () => {
    expect(candidateCount(0)).toBe(CANDIDATES);
    expect(candidateCount(10_000)).toBe(500);
    expect(candidateCount(25_000)).toBe(500);
    expect(candidateCount(100_000)).toBe(2000);
    expect(candidateCount(100_001)).toBe(2001);
  });
});
