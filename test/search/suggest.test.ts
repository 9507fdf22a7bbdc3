import { describe, expect, it } from "vitest";
import { asWritten, closestTerms, completionsIn, MAX_SUGGESTIONS } from "../../plugin/search/suggest.ts";
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

describe("completionsIn", () => {
  const terms = [
    "err_db_timeout",
    "err_db_timeouts",
    "err_duplicate_key",
    "err_dupe",
    "oauth-callback",
    "ticket-1992",
  ];
  const sorted = [...terms].sort();

  it("gives the terms a start cut inside a word begins, two characters or more to go, sorted", () => {
    expect(completionsIn([sorted], "err_dup")).toEqual(["err_duplicate_key"]);
    expect(completionsIn([sorted], "err_du")).toEqual(["err_dupe", "err_duplicate_key"]);
    expect(completionsIn([sorted], "oauth-call")).toEqual(["oauth-callback"]);
  });

  it("gives none for a start that ends a token, a number cut short or one letter short", () => {
    expect(completionsIn([sorted], "err_db")).toEqual([]);
    expect(completionsIn([sorted], "err_db_")).toEqual([]);
    expect(completionsIn([sorted], "ticket-1")).toEqual([]);
    expect(completionsIn([sorted], "err_db_timeout")).toEqual([]);
    expect(completionsIn([sorted], "")).toEqual([]);
  });

  it("draws on every vocabulary, each term once, at most five", () => {
    const many = Array.from({ length: 9 }, (_, i) => `errand${String.fromCharCode(97 + i)}x`);
    expect(completionsIn([sorted, ["err_duplicate_key", "err_dupzz"]], "err_dup")).toEqual([
      "err_duplicate_key",
      "err_dupzz",
    ]);
    expect(completionsIn([many], "erran")).toHaveLength(5);
  });
});
