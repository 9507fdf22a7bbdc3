import { describe, expect, it } from "vitest";
import { entryOf } from "../../plugin/search/document.ts";
import { matchesFilter, monthOf, newerFirst, timeBounds } from "../../plugin/search/shard.ts";
import { located, snap } from "./helpers.ts";

describe("timeBounds", () => {
  it("is unbounded without dates, and a bare `to` date covers its whole UTC day", () => {
    expect(timeBounds({})).toEqual({ from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY });
    expect(timeBounds({ from: "2026-11-20", to: "2026-11-20" })).toEqual({
      from: Date.parse("2026-11-20T00:00:00.000Z"),
      to: Date.parse("2026-11-20T23:59:59.999Z"),
    });
    expect(timeBounds({ to: "2026-11-20T12:00:00Z" }).to).toBe(Date.parse("2026-11-20T12:00:00Z"));
  });
});

describe("matchesFilter", () => {
  const entry = entryOf(
    located(
      snap("2026-11-20-01", {
        session: "s1",
        agent: "a1",
        trigger: "flush",
        name: "rollout",
        timestamp: "2026-11-20T18:30:00+00:00",
      }),
    ),
  );

  it.each([
    [{}, true],
    [{ session: "s1", agent: "a1", trigger: "flush", name: "rollout" }, true],
    [{ session: "s2" }, false],
    [{ agent: "a2" }, false],
    [{ trigger: "manual" }, false],
    [{ name: "other" }, false],
    [{ session: "s1", agent: "a2" }, false],
    [{ from: "2026-11-20", to: "2026-11-20" }, true],
    [{ from: "2026-11-20T18:30:00Z", to: "2026-11-20T18:30:00Z" }, true],
    [{ from: "2026-11-21" }, false],
    [{ to: "2026-11-19" }, false],
    [{ to: "2026-11-20T18:29:59Z" }, false],
  ])("given %o says %s", (filter, expected) => {
    expect(matchesFilter(entry, filter)).toBe(expected);
  });

  it("keeps an entry with an unparseable timestamp only when no dates are asked for", () => {
    const undated = entryOf(located(snap("2026-11-20-01", { timestamp: "sometime" })));
    expect(matchesFilter(undated, {})).toBe(true);
    expect(matchesFilter(undated, { to: "2099-01-01" })).toBe(false);
  });
});

describe("newerFirst", () => {
  it("orders by time, then file, then line, later first, unparseable times last", () => {
    const at = (id: string, line: number, timestamp = `${id.slice(0, 10)}T10:00:00+00:00`, file?: string) =>
      entryOf(located(snap(id, { timestamp }), line, file === undefined ? {} : { file }));
    const entries = [
      at("2026-11-19-01", 1),
      at("2026-11-20-01", 1),
      at("2026-11-20-02", 40),
      at("2026-11-20-03", 1, "2026-11-20T10:00:00+00:00", "memory/2026-11-21.md"),
      at("2026-11-21-01", 1, "garbled"),
      at("2026-11-18-01", 1),
    ];
    expect(entries.sort(newerFirst).map((e) => e.id)).toEqual([
      "2026-11-20-03",
      "2026-11-20-02",
      "2026-11-20-01",
      "2026-11-19-01",
      "2026-11-18-01",
      "2026-11-21-01",
    ]);
  });
});

describe("monthOf", () => {
  it.each([
    ["memory/2026-11-22.md", "2026-11"],
    ["memory/2026-11-22-0431.md", "2026-11"],
    ["2026-01-02.md", "2026-01"],
    ["memory/notes.md", "other"],
    ["memory/2026-11.md", "other"],
    ["memory/2026-11-22.txt", "other"],
    ["memory/2026-11-22/notes.md", "other"],
    ["memory/2026-11-22-slug.md", "2026-11"],
  ])("puts %s in %s", (file, month) => {
    expect(monthOf(file)).toBe(month);
  });
});
