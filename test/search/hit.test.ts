import { describe, expect, it } from "vitest";
import { entryOf } from "../../plugin/search/document.ts";
import {
  compareHits,
  compareLines,
  type Hit,
  lineMatcher,
  mostTogether,
  TopHits,
  together,
  type Word,
} from "../../plugin/search/hit.ts";
import type { TermLookup } from "../../plugin/search/scoring.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";
import { located, lookupsOf, snap } from "./helpers.ts";

/** A hit on a snapshot of `id`, matching two words exactly, whole and in one line, with `over` applied. */
function hit(id: string, over: Partial<Hit> = {}, content: Partial<Snapshot> = {}): Hit {
  return {
    entry: entryOf(located(snap(id, content))),
    words: 2,
    exactWords: 2,
    wholeWords: 2,
    lineWords: 2,
    pairs: 1,
    fieldWords: 2,
    score: 1,
    terms: 0b11,
    snippet: { field: "goal", text: "" },
    ...over,
  };
}

/** The masks of each query word of `lookups`, as rank.ts builds them. */
function wordsOf(lookups: readonly TermLookup[]): Map<number, Word> {
  const words = new Map<number, Word>();
  for (const l of lookups) {
    for (const role of l.term.roles) {
      const w = words.get(role.word) ?? { any: 0, whole: 0, parts: 0 };
      words.set(role.word, w);
      w.any |= l.bit;
      if (role.kind === "whole") w.whole |= l.bit;
      if (role.kind === "part") w.parts |= l.bit;
    }
  }
  return words;
}

const matcher = (lookups: TermLookup[]) => lineMatcher(lookups, wordsOf(lookups));
const all = (lookups: readonly TermLookup[]) => lookups.reduce((mask, l) => mask | l.bit, 0);

describe("together and mostTogether", () => {
  it("add words, words on one line and pairs in order, at most 3n - 1", () => {
    expect(together(hit("2026-11-20-01", { words: 3, lineWords: 2, pairs: 1 }))).toBe(6);
    expect([0, 1, 2, 4].map(mostTogether)).toEqual([0, 2, 5, 11]);
  });
});

describe("compareHits", () => {
  const base = hit("2026-11-20-01");
  it.each<[string, Partial<Hit>, Partial<Hit>]>([
    [
      "more words together, over a higher score",
      { lineWords: 2, score: 1 },
      { lineWords: 1, pairs: 0, score: 9 },
    ],
    [
      "fewer words matched only by typo or prefix",
      { exactWords: 2, fieldWords: 1 },
      { exactWords: 1, fieldWords: 2 },
    ],
    ["fewer words matched only by parts", { wholeWords: 2, score: 1 }, { wholeWords: 1, score: 9 }],
    ["more words within one section", { fieldWords: 2, score: 1 }, { fieldWords: 1, score: 9 }],
    ["the higher score", { score: 2 }, { score: 1 }],
  ])("puts first %s", (_, better, worse) => {
    const a = { ...base, ...better };
    const b = { ...base, ...worse };
    expect(compareHits(a, b)).toBeLessThan(0);
    expect(compareHits(b, a)).toBeGreaterThan(0);
  });

  it("breaks a full tie with the newer snapshot, and is 0 only for the same place", () => {
    const older = hit("2026-11-19-01");
    expect(compareHits(base, older)).toBeLessThan(0);
    expect(compareHits(older, base)).toBeGreaterThan(0);
    expect(compareHits(base, hit("2026-11-20-01"))).toBe(0);
  });
});

describe("TopHits", () => {
  it("keeps the best hits offered, in order, up to the limit", () => {
    const top = new TopHits(2);
    expect(top.threshold()).toBe(0);
    for (const score of [1, 3, 2, 0.5]) top.offer(hit(`2026-11-2${score * 2}-01`, { score }));
    expect(top.hits.map((h) => h.score)).toEqual([3, 2]);
    expect(top.threshold()).toBe(together(hit("2026-11-20-01")));
    expect(top.worthy(hit("2026-11-20-01", { score: 2.5 }))).toBe(true);
    expect(top.worthy(hit("2026-11-20-01", { score: 1.5 }))).toBe(false);
  });
});

describe("lineMatcher", () => {
  const lookups = lookupsOf("rotate staging keys");

  it("picks the line with the most query words and pairs of them in the query's order", () => {
    const h = hit(
      "2026-11-20-01",
      { words: 3, terms: all(lookups) },
      {
        goal: "misc",
        next: ["keys staging rotate", "rotate the staging keys", "rotate keys"],
      },
    );
    expect(matcher(lookups)(h)).toEqual({
      line: { field: "next", text: "rotate the staging keys" },
      words: 3,
      pairs: 2,
      exact: true,
    });
  });

  it("takes the earlier line on a tie, and the goal when no line holds a query word", () => {
    const h = (next: string[]) => hit("2026-11-20-01", { terms: all(lookups) }, { goal: "misc", next });
    expect(matcher(lookups)(h(["rotate", "staging"])).line.text).toBe("rotate");
    expect(matcher(lookups)(h(["nothing here"]))).toEqual({
      line: { field: "goal", text: "misc" },
      words: 0,
      pairs: 0,
      exact: true,
    });
  });

  it("counts only the terms the hit matched", () => {
    const h = hit("2026-11-20-01", { terms: 0b001 }, { goal: "misc", next: ["staging keys", "rotate"] });
    expect(matcher(lookups)(h).line.text).toBe("rotate");
  });

  it("matches a completion for a prefix lookup and a near word for a typo lookup", () => {
    const widened = lookupsOf("ledg calback", true);
    const h = hit(
      "2026-11-20-01",
      { terms: all(widened) },
      { goal: "misc", next: ["ledgers", "ledgers callback"] },
    );
    expect(matcher(widened)(h)).toMatchObject({ line: { text: "ledgers callback" }, words: 2, pairs: 1 });
  });

  it("counts a word's parts only when the hit did not match it whole", () => {
    const id = lookupsOf("ERR_DB_TIMEOUT");
    const content = { goal: "misc", next: ["check db timeout", "ERR_DB_TIMEOUT again"] };
    const whole = hit("2026-11-20-01", { words: 1, terms: all(id) }, content);
    const parts = hit("2026-11-20-01", { words: 1, terms: all(id) & ~0b1 }, content);
    expect(matcher(id)(whole).line.text).toBe("ERR_DB_TIMEOUT again");
    expect(matcher(id)(parts)).toMatchObject({ line: { text: "check db timeout" }, words: 1 });
  });

  it("says without counting when no line can bring the hit to what it needs", () => {
    const h = hit(
      "2026-11-20-01",
      { words: 3, terms: all(lookups) },
      { goal: "misc", next: ["rotate", "keys"] },
    );
    expect(matcher(lookups)(h, 8)).toEqual({
      line: { field: "goal", text: "misc" },
      words: 0,
      pairs: 0,
      exact: false,
    });
  });
});

describe("compareLines", () => {
  const lookups = lookupsOf("rotate staging keys");
  // Before lines are compared, the section count stands in for the line count: 3 words, 2 pairs.
  const candidate = (id: string, next: string[]) =>
    hit(
      id,
      { words: 3, exactWords: 3, wholeWords: 3, fieldWords: 3, lineWords: 3, pairs: 2, terms: all(lookups) },
      {
        goal: "misc",
        next,
      },
    );

  it("reorders the pool by the words each hit holds on one line, and says when that is final", () => {
    const scattered = candidate("2026-11-21-01", ["rotate", "staging", "keys"]);
    const phrase = candidate("2026-11-20-01", ["rotate the staging keys"]);
    const { hits, settled } = compareLines([scattered, phrase], 1, matcher(lookups));
    expect(hits.map((h) => [h.entry.id, h.lineWords, h.pairs, h.snippet.text])).toEqual([
      ["2026-11-20-01", 3, 2, "rotate the staging keys"],
    ]);
    expect(settled).toBe(true);
  });

  it("says unsettled when a candidate ranked below the pool could still beat the last hit kept", () => {
    const pool = [
      candidate("2026-11-21-01", ["rotate", "staging", "keys"]),
      candidate("2026-11-20-01", ["keys", "rotate"]),
    ];
    const { hits, settled } = compareLines(pool, 1, matcher(lookups));
    expect(hits.map((h) => [h.entry.id, h.lineWords, h.pairs])).toEqual([["2026-11-21-01", 1, 0]]);
    expect(settled).toBe(false);
  });

  it("returns nothing, settled, for an empty pool", () => {
    expect(compareLines([], 3, matcher(lookups))).toEqual({ hits: [], settled: true });
  });
});
