import { describe, expect, it } from "vitest";
import { candidateTiers, candidateWords, ftsString } from "../../plugin/search/fts-candidates.ts";
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
    expect(all).toBe('("retry") AND ("upsert") AND ("fix")');
    expect(most).toBe('((("retry") AND ("upsert")) OR (("retry") AND ("fix")) OR (("upsert") AND ("fix")))');
    expect(any).toBe('("retry" OR "upsert" OR "fix")');
    expect(rest).toEqual([]);
    expect(candidateTiers(candidateWords("retry", 10))).toEqual(['("retry")']);
  });
});

describe("ftsString", () => {
  it("quotes a term, dropping double quotes", () => {
    expect(ftsString('a"b')).toBe('"ab"');
  });
});
