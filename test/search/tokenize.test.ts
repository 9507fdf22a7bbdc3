import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  analyse,
  foldText,
  holdsSequence,
  MAX_TERM_LENGTH,
  mayHoldRun,
  sequenceScreen,
  tokenize,
} from "../../plugin/search/tokenize.ts";

describe("tokenize", () => {
  it.each([
    ["ERR_DUPLICATE_KEY", ["err_duplicate_key", "err", "duplicate", "key"]],
    ["ADR-016", ["adr-016", "adr", "016"]],
    ["pt-BR", ["pt-br", "pt", "br"]],
    ["INV-2026-00417", ["inv-2026-00417", "inv", "2026", "00417"]],
    ["analytics.events_2026", ["analytics.events_2026", "analytics", "events_2026", "events", "2026"]],
    [
      "src/auth/oauth-callback.ts",
      [
        "src/auth/oauth-callback.ts",
        "src",
        "auth",
        "oauth-callback.ts",
        "oauth-callback",
        "oauth",
        "callback",
        "ts",
      ],
    ],
    ["POST /api/v1/users", ["post", "api/v1/users", "api", "v1", "users"]],
    ["parseDailyLog", ["parsedailylog", "parse", "daily", "log"]],
    ["HTTPServer", ["httpserver", "http", "server"]],
  ])("finds %s whole and by its parts", (text, terms) => {
    expect(tokenize(text)).toEqual(terms);
  });

  it("folds case, Latin accents and full-width forms", () => {
    expect(tokenize("Café RÉSUMÉ ＡＤＲ－０１６")).toEqual(["cafe", "resume", "adr-016", "adr", "016"]);
  });

  it("keeps Japanese voicing marks while folding accents", () => {
    expect(foldText("がぎ café")).toBe("がぎ cafe");
  });

  it("splits Chinese into dictionary words and character bigrams", () => {
    const terms = tokenize("修复数据库连接超时");
    expect(terms).toEqual(expect.arrayContaining(["修复", "数据", "连接", "超时"]));
  });

  it("splits Japanese so a word inside a sentence is found", () => {
    expect(tokenize("ユーザー認証のリファクタリング")).toEqual(expect.arrayContaining(["ユーザー", "認証"]));
  });

  it("separates an identifier from the CJK text around it", () => {
    expect(tokenize("使用ERR_DUPLICATE_KEY错误")).toEqual(
      expect.arrayContaining(["err_duplicate_key", "duplicate", "使用", "错误"]),
    );
  });

  it("drops stop words, single letters and sentence punctuation", () => {
    expect(tokenize("The fix is in config.ts, see a note.")).toEqual([
      "fix",
      "config.ts",
      "config",
      "ts",
      "see",
      "note",
    ]);
  });

  it("keeps the parts of a term longer than the limit but not the term", () => {
    const long = `${"a".repeat(MAX_TERM_LENGTH)}_tail`;
    expect(tokenize(long)).toEqual(["a".repeat(MAX_TERM_LENGTH), "tail"]);
  });
});

describe("analyse", () => {
  it("numbers words in reading order and tells whole words from parts", () => {
    expect(analyse("fix ERR_X_Y")).toEqual([
      { term: "fix", kind: "whole", word: 0 },
      { term: "err_x_y", kind: "whole", word: 1 },
      { term: "err", kind: "part", word: 1 },
    ]);
  });

  it("marks terms of unspaced scripts as cjk", () => {
    expect(analyse("数据库").every((t) => t.kind === "cjk" && t.word === 0)).toBe(true);
  });
});

describe("mayHoldRun", () => {
  const run = (text: string, leaves: string[]) => mayHoldRun(text, leaves, sequenceScreen(leaves));

  it("passes a text holding the leaves with any connectors or case", () => {
    expect(run("retry on ErrDbTimeout twice", ["err", "db", "timeout"])).toBe(true);
    expect(run("ERR-DB: TIMEOUT", ["err", "db", "timeout"])).toBe(true);
    expect(run("the database timed out", ["err", "db", "timeout"])).toBe(false);
  });

  it("reads the folded text only for leaves that are not plain ASCII", () => {
    // Full-width letters fold to ASCII: a Cyrillic identifier written with them is screened folded.
    expect(run("ошибка_ａｐｉ", ["ошибка", "api"])).toBe(true);
    // ASCII leaves are held whole in the index: the text is not folded for them, as holdsSequence does.
    expect(run("err_ａｐｉ", ["err", "api"])).toBe(false);
    expect(holdsSequence("err_ａｐｉ", ["err", "api"])).toBe(false);
  });
});

describe("sequenceScreen", () => {
  /** The screen of any leaves in its Unicode form: what a screen of ASCII leaves must never reject. */
  const unicodeScreen = (leaves: readonly string[]) => new RegExp(leaves.join("[^\\p{L}\\p{N}]*"), "iu");

  it("passes every text the Unicode form passes, for leaves of plain ASCII", () => {
    const char = fc.constantFrom(..."seKkrv01_-./ :Sé\u017f\u212aж—\u00a0".split(""));
    const leaf = fc.stringMatching(/^[a-z0-9]{1,4}$/);
    /** Every way a letter of a leaf may be written that the Unicode form takes for it. */
    const spellings = (c: string) => [
      c,
      c.toUpperCase(),
      ...(c === "s" ? ["\u017f"] : c === "k" ? ["\u212a"] : []),
    ];
    fc.assert(
      fc.property(
        fc.array(leaf, { minLength: 1, maxLength: 3 }),
        fc.array(char, { maxLength: 40 }),
        fc.array(fc.nat(2), { minLength: 12, maxLength: 12 }),
        (leaves, chars, picks) => {
          const written = leaves.map((l) =>
            [...l].map((c, i) => spellings(c)[(picks[i] ?? 0) % spellings(c).length]).join(""),
          );
          // The leaves as written, with the random characters around and between them.
          const text = chars.join("") + written.join(chars.slice(0, 2).join("")) + chars.join("");
          if (unicodeScreen(leaves).test(text)) expect(sequenceScreen(leaves).test(text)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("finds a leaf written with a letter whose case folding is ASCII", () => {
    expect(sequenceScreen(["services", "ts"]).test("\u017fervices.t\u017f")).toBe(true);
    expect(sequenceScreen(["kafka"]).test("\u212aAFKA")).toBe(true);
    expect(sequenceScreen(["err", "db"]).test("err d b")).toBe(false);
  });
});
