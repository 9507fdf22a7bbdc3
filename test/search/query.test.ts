import { describe, expect, it } from "vitest";
import {
  absentNamed,
  closeMatches,
  fuzzinessOf,
  indexable,
  MAX_QUERY_TERMS,
  MIN_FUZZY_LENGTH,
  MIN_PREFIX_LENGTH,
  planQuery,
  suggestedQuery,
  TWO_TYPOS_LENGTH,
} from "../../plugin/search/query.ts";
import { MAX_TERM_LENGTH } from "../../plugin/search/tokenize.ts";

/** Each planned term as `term weight prefix fuzzy`, in plan order. */
const plan = (text: string) => planQuery(text).terms.map((t) => [t.term, t.weight, t.prefix, t.fuzzy]);

describe("fuzzinessOf", () => {
  it("allows no typo below five letters, one from five, two from nine", () => {
    expect([MIN_FUZZY_LENGTH, TWO_TYPOS_LENGTH]).toEqual([5, 9]);
    expect(["ship", "shard", "ledgerss", "reconcile", "reconciliation"].map(fuzzinessOf)).toEqual([
      0, 1, 1, 2, 2,
    ]);
  });

  it("allows none in a term holding a digit, however long", () => {
    expect(fuzzinessOf("inv-2026-00417")).toBe(0);
    expect(fuzzinessOf("events_2026")).toBe(0);
  });
});

describe("indexable", () => {
  it("refuses stop words, single letters and terms longer than the index keeps", () => {
    expect(["ledger", "7", "db", "the", "x", "é", "a".repeat(MAX_TERM_LENGTH + 1)].map(indexable)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(indexable("a".repeat(MAX_TERM_LENGTH))).toBe(true);
  });
});

describe("planQuery", () => {
  it("plans plain words whole, widened by prefix and typos, without stop words", () => {
    const planned = planQuery("deploy the ledger");
    expect(plan("deploy the ledger")).toEqual([
      ["deploy", 1, true, 1],
      ["ledger", 1, true, 1],
    ]);
    // The stop word is still a word of the query, so words keep their positions.
    expect(planned.words.map((w) => [w.word, w.raw, w.identifier])).toEqual([
      [0, "deploy", false],
      [1, "the", false],
      [2, "ledger", false],
    ]);
    expect(planned.terms.map((t) => t.roles)).toEqual([
      [{ word: 0, kind: "whole" }],
      [{ word: 2, kind: "whole" }],
    ]);
  });

  it.each([
    [
      "completes or corrects no word shorter than the limits",
      "fix bug",
      [
        ["fix", 1, false, 0],
        ["bug", 1, false, 0],
      ],
    ],
    [
      "keeps an identifier whole and adds its leaves at 0.6, not the pieces between",
      "src/auth/oauth-callback.ts",
      [
        ["src/auth/oauth-callback.ts", 1, true, 2],
        ["src", 0.6, false, 0],
        ["auth", 0.6, true, 0],
        ["oauth", 0.6, true, 1],
        ["callback", 0.6, true, 1],
        ["ts", 0.6, false, 0],
      ],
    ],
    [
      "splits camelCase identifiers into their humps",
      "parseDailyLog",
      [
        ["parsedailylog", 1, true, 2],
        ["parse", 0.6, true, 1],
        ["daily", 0.6, true, 1],
        ["log", 0.6, false, 0],
      ],
    ],
    [
      "corrects nothing holding a digit and completes no number",
      "INV-2026-00417",
      [
        ["inv-2026-00417", 1, true, 0],
        ["inv", 0.6, false, 0],
        ["2026", 0.6, false, 0],
        ["00417", 0.6, false, 0],
      ],
    ],
    [
      "does not complete a dotted number either",
      "2026.11.20",
      [
        ["2026.11.20", 1, false, 0],
        ["2026", 0.6, false, 0],
        ["11", 0.6, false, 0],
        ["20", 0.6, false, 0],
      ],
    ],
    [
      "leaves out the leaves the index drops (single letters)",
      "ERR_X_Y",
      [
        ["err_x_y", 1, true, 1],
        ["err", 0.6, false, 0],
      ],
    ],
  ])("%s: %s", (_, query, expected) => {
    expect(MIN_PREFIX_LENGTH).toBe(4);
    expect(plan(query)).toEqual(expected);
  });

  it("reads an identifier word as typed, with its finest tokens", () => {
    expect(planQuery("src/auth/oauth-callback.ts").words).toEqual([
      {
        word: 0,
        raw: "src/auth/oauth-callback.ts",
        identifier: true,
        leaves: ["src", "auth", "oauth", "callback", "ts"],
      },
    ]);
  });

  it("completes the parts of the last word only", () => {
    const prefixOf = (text: string) => planQuery(text).terms.find((t) => t.term === "timeout")?.prefix;
    expect(prefixOf("ERR_DB_TIMEOUT retry")).toBe(false);
    expect(prefixOf("retry ERR_DB_TIMEOUT")).toBe(true);
  });

  it("merges a repeated term, keeping each role and the strongest weight and expansions", () => {
    const [ledger] = planQuery("ledger ledger_sync").terms;
    expect(ledger).toEqual({
      term: "ledger",
      roles: [
        { word: 0, kind: "whole" },
        { word: 1, kind: "part" },
      ],
      weight: 1,
      prefix: true,
      fuzzy: 1,
    });
    expect(planQuery("ledger ledger").terms).toHaveLength(1);
  });

  it("looks unspaced scripts up by words and bigrams, never widened", () => {
    const planned = planQuery("数据库");
    expect(planned.words).toEqual([{ word: 0, raw: "数据库", identifier: false, leaves: [] }]);
    expect(planned.terms.map((t) => t.term)).toContain("数据");
    expect(planned.terms.every((t) => t.weight === 1 && !t.prefix && t.fuzzy === 0)).toBe(true);
    expect(planned.terms.every((t) => t.roles.every((r) => r.kind === "cjk"))).toBe(true);
  });

  it("plans nothing for stop words alone, and plans every term of a long query", () => {
    expect(planQuery("the and of").terms).toEqual([]);
    const words = Array.from(
      { length: MAX_QUERY_TERMS + 5 },
      (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}`,
    );
    // The cap is applied by rank.ts; the plan holds every term.
    expect(planQuery(words.join(" ")).terms.length).toBeGreaterThan(MAX_QUERY_TERMS);
  });
});

describe("suggestedQuery", () => {
  it("puts the suggestion in place of the missing identifier and leaves the other missing ones out", () => {
    expect(suggestedQuery("pool ERR_DB_TIMEOUT under load", "ERR_DB_TIMEOUT", "ERR_DB_TIMEOUTS", [])).toBe(
      "pool ERR_DB_TIMEOUTS under load",
    );
    expect(suggestedQuery("ERR_A_1, ERR_B_2 src/x/", "ERR_A_1", "ERR_A_12", ["ERR_A_1", "ERR_B_2"])).toBe(
      "ERR_A_12 src/x",
    );
  });
});

describe("closeMatches", () => {
  /** Hits by query: what each suggested query finds, best first, as `id`s. */
  const finder = (found: Record<string, string[]>) => (query: string) => found[query] ?? [];

  it("lists the snapshots holding each suggestion, the best of each first, in the order suggested", async () => {
    const search = finder({
      ERR_AUTH_162: ["a", "b"],
      ERR_AUTH_18: ["c", "a"],
      ERR_AUTH_2: ["d"],
    });
    const suggestions = [{ word: "ERR_AUTH_12", closest: ["ERR_AUTH_162", "ERR_AUTH_18", "ERR_AUTH_2"] }];
    expect(await closeMatches("ERR_AUTH_12", suggestions, 10, search, (h) => h)).toEqual({
      hits: ["a", "c", "d", "b"],
      suggestions,
      more: false,
    });
    expect(await closeMatches("ERR_AUTH_12", suggestions, 2, search, (h) => h)).toEqual({
      hits: ["a", "c"],
      suggestions,
      more: true,
    });
  });

  it("drops a suggestion nothing in scope holds, and tries one alone when the rest of the query finds nothing", async () => {
    const search = finder({ ERR_DB_TIMEOUTS: ["x"] });
    const suggestions = [{ word: "ERR_DB_TIMEOUT", closest: ["ERR_DB_TIMEOUTS", "ERR_DB_TIMER"] }];
    expect(await closeMatches("pool ERR_DB_TIMEOUT", suggestions, 10, search, (h) => h)).toEqual({
      hits: ["x"],
      suggestions: [{ word: "ERR_DB_TIMEOUT", closest: ["ERR_DB_TIMEOUTS"] }],
      more: false,
    });
  });

  it("finds nothing without suggestions", async () => {
    const suggestions = [{ word: "ERR_QUEUE_STALLED", closest: [] }];
    expect(await closeMatches("ERR_QUEUE_STALLED", suggestions, 10, finder({}), (h) => h)).toEqual({
      hits: [],
      suggestions,
      more: false,
    });
  });
});

describe("absentNamed", () => {
  it("names the missing identifiers, else the query's identifiers together, else the query", () => {
    expect(absentNamed("ERR_A ERR_B", ["ERR_B"])).toBe("ERR_B");
    expect(absentNamed("ERR_A ERR_B ERR_C", [])).toBe("ERR_A, ERR_B and ERR_C together");
    expect(absentNamed("  rota december ", [])).toBe("rota december");
  });
});
