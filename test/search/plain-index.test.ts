import fc from "fast-check";
import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { HotShard, MINISEARCH_OPTIONS } from "../../plugin/search/hot-shard.ts";
import { fromPlainIndex, toPlainIndex } from "../../plugin/search/plain-index.ts";
import { located, snap } from "./helpers.ts";

const goals = fc.array(fc.constantFrom("ledger", "oauth", "ERR_X_Y", "src/a-b.ts", "数据库", "pt-BR"), {
  maxLength: 5,
});
const corpus = fc
  .array(goals, { minLength: 1, maxLength: 12 })
  .map((list) =>
    list.map((g, i) => located(snap(`2026-11-${String(i + 1).padStart(2, "0")}-01`, { goal: g.join(" ") }))),
  );

describe("toPlainIndex and fromPlainIndex", () => {
  it("round-trip a frozen shard through minisearch unchanged", () => {
    fc.assert(
      fc.property(corpus, (docs) => {
        const parts = buildFrozen("2026-11", docs).parts;
        const search = MiniSearch.loadJS(toPlainIndex(parts), MINISEARCH_OPTIONS);
        const entries = new Map(parts.entries.map((e, doc) => [doc, e]));
        expect(fromPlainIndex("2026-11", search.toJSON(), entries)).toEqual(parts);
      }),
    );
  });

  it("leave out what a hot shard removed, even before minisearch vacuums it", () => {
    const docs = [
      located(snap("2026-11-01-01", { goal: "alpha" })),
      located(snap("2026-11-02-01", { goal: "beta" })),
    ];
    const hot = HotShard.thaw(buildFrozen("2026-11", docs));
    hot.removeFile("memory/2026-11-02.md");
    const parts = hot.freeze().parts;
    expect(parts.entries.map((e) => e.id)).toEqual(["2026-11-01-01"]);
    expect(parts.terms).toEqual(["alpha"]);
  });
});
