import { describe, expect, it } from "vitest";
import { asWritten, closestTerms, MAX_SUGGESTIONS } from "../../plugin/search/suggest.ts";
import { leavesOf } from "../../plugin/search/tokenize.ts";

const VOCABULARY = [
  "db",
  "err_db_conn",
  "err_db_timeout",
  "err_db_timeouts",
  "err_http_timeout",
  "ledger",
  "ledgers",
  "timeout",
].sort();

/** Suggestions for an identifier as typed, the way the index asks for them. */
const suggest = (typed: string, vocabularies: readonly (readonly string[])[] = [VOCABULARY]) =>
  closestTerms(vocabularies, typed.toLowerCase(), leavesOf(typed));

describe("closestTerms", () => {
  it("suggests the nearest identifiers first, at most three", () => {
    expect(MAX_SUGGESTIONS).toBe(3);
    expect(suggest("ERR_DB_TIMEOT")).toEqual(["err_db_timeout", "err_db_timeouts", "err_db_conn"]);
  });

  it("suggests identifiers sharing the two leading tokens however far the rest is", () => {
    expect(suggest("ERR_DB_NONEXISTENT")).toEqual(["err_db_conn", "err_db_timeout", "err_db_timeouts"]);
  });

  it("never suggests the identifier itself, nor short plain words", () => {
    expect(suggest("ERR_DB_TIMEOUT")).toEqual(["err_db_timeouts", "err_http_timeout", "err_db_conn"]);
    // `ledger` is one edit away but reads as a word, not an identifier.
    expect(suggest("ledgr")).toEqual([]);
  });

  it("draws on every vocabulary given, each term once", () => {
    expect(suggest("cache_ttl", [["cache_ttl_ms"], ["cache-ttl", "cache_ttl_ms"]])).toEqual([
      "cache-ttl",
      "cache_ttl_ms",
    ]);
  });

  it("suggests nothing when no term is near", () => {
    expect(suggest("PAYMENT_GATEWAY_KEY")).toEqual([]);
    expect(suggest("ERR_DB_TIMEOT", [])).toEqual([]);
  });
});

describe("asWritten", () => {
  it("gives the term as the text writes it, or undefined when the text lacks it", () => {
    expect(asWritten("Fix Err_Db_Timeout in src/db.ts", "err_db_timeout")).toBe("Err_Db_Timeout");
    expect(asWritten("Fix the ledger", "err_db_timeout")).toBeUndefined();
  });
});
