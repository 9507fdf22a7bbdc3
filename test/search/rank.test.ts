import { describe, expect, it } from "vitest";
import { buildFrozen } from "../../plugin/search/frozen-shard.ts";
import { RERANK_MIN } from "../../plugin/search/hit.ts";
import { rank } from "../../plugin/search/rank.ts";
import type { Shard } from "../../plugin/search/shard.ts";
import type { LocatedSnapshot } from "../../plugin/snapshot/snapshot.ts";
import { located, snap } from "./helpers.ts";

/** One frozen shard of November 2026 holding `snapshots`. */
const shardOf = (snapshots: readonly LocatedSnapshot[]): Shard[] => [buildFrozen("2026-11", snapshots)];

const ids = (shards: readonly Shard[], query: string, limit = 10) =>
  rank(shards, query, { limit }).hits.map((h) => h.entry.id);

describe("rank", () => {
  it("ranks four words written as typed above all five words on a line in another order", () => {
    const shards = shardOf([
      located(
        snap("2026-11-21-01", { goal: "misc", next: ["Kenji feature dedupe before multipart expired"] }),
      ),
      located(
        snap("2026-11-20-01", { goal: "misc", next: ["Dedupe the expired multipart feature before Sofia"] }),
      ),
    ]);
    expect(ids(shards, "dedupe expired multipart feature Kenji")).toEqual(["2026-11-20-01", "2026-11-21-01"]);
  });

  it("counts words next to each other only in the query's order, stop words skipped", () => {
    const shards = shardOf([
      located(snap("2026-11-21-01", { goal: "misc", next: ["vault keys staging rotate"] })),
      located(snap("2026-11-20-01", { goal: "misc", next: ["rotate the staging keys, then the vault"] })),
    ]);
    const hits = rank(shards, "rotate staging keys vault").hits;
    expect(hits.map((h) => [h.entry.id, h.lineWords, h.pairs])).toEqual([
      ["2026-11-20-01", 4, 3],
      ["2026-11-21-01", 4, 0],
    ]);
  });

  it("finds the phrase written as typed behind more candidates than the first pool holds", () => {
    // Many snapshots hold every word, scattered over lines of one section: by sections they all
    // promise more than the one holding four of the words in a row, which an older date puts last.
    const scattered = Array.from({ length: 3 * RERANK_MIN }, (_, i) =>
      located(
        snap(
          `2026-11-${String(10 + (i % 19)).padStart(2, "0")}-${String(10 + Math.floor(i / 19)).padStart(2, "0")}`,
          {
            goal: "misc",
            next: ["dedupe expired records", "multipart feature for Kenji"],
          },
        ),
      ),
    );
    const phrase = located(
      snap("2026-11-01-01", { goal: "misc", next: ["Dedupe the expired multipart feature before Sofia"] }),
    );
    expect(ids(shardOf([...scattered, phrase]), "dedupe expired multipart feature Kenji", 5)[0]).toBe(
      "2026-11-01-01",
    );
  });

  it("finds a folder of a path that starts a stored line as a run of its tokens, as one inside a line", () => {
    const shards = shardOf([
      located(snap("2026-11-21-01", { files: [{ path: "src/auth/session.ts", note: "session store" }] })),
      located(snap("2026-11-20-01", { names: [{ label: "Endpoint", value: "POST /api/v1/users" }] })),
      located(snap("2026-11-19-01", { next: ["fsrc/auth is another folder"] })),
    ]);
    for (const query of ["src/auth", "src/auth/", "api/v1"]) {
      const result = rank(shards, query);
      expect([query, result.match, result.missing]).toEqual([query, "exact", []]);
    }
    expect(ids(shards, "src/auth")).toEqual(["2026-11-21-01"]);
    expect(ids(shards, "auth/session.ts")).toEqual(["2026-11-21-01"]);
  });

  it("answers nothing for a folder no stored path holds, and says it is missing", () => {
    const shards = shardOf([
      located(snap("2026-11-21-01", { files: [{ path: "src/auth/session.ts", note: "" }] })),
    ]);
    expect([rank(shards, "src/billing").match, rank(shards, "src/billing").missing]).toEqual([
      "fuzzy",
      ["src/billing"],
    ]);
    expect(ids(shards, "src/billing")).toEqual([]);
  });

  it("ranks the same whether the months' counts of a query's leaves were kept by earlier queries or not", () => {
    const snapshots = [
      located(snap("2026-11-21-01", { goal: "misc", next: ["retry when ErrDbTimeout fires"] })),
      located(snap("2026-11-20-01", { goal: "misc", next: ["the db timeout and the err log"] })),
      located(snap("2026-11-19-01", { goal: "misc", next: ["db err timeout timeout db"] })),
    ];
    const answer = (shards: readonly Shard[], query: string) =>
      rank(shards, query).hits.map((h) => [h.entry.id, h.score]);
    const warm = shardOf(snapshots);
    // Counts kept by queries sharing the leaves, capped (a widening decision) and whole.
    for (const query of ["timeout", "db err", "ERR_DB_TIMEOUT", "ERR_DB_TIMEOUTS"]) answer(warm, query);
    for (const query of ["ERR_DB_TIMEOUT", "ERR_DB_TIMEOUTS", "err_db", "timeout db"])
      expect(answer(warm, query)).toEqual(answer(shardOf(snapshots), query));
  });

  it("finds an identifier written as a run of its leaves among many snapshots holding both its rarest leaves", () => {
    const apart = Array.from({ length: 12 }, (_, i) =>
      located(
        snap(`2026-11-${String(10 + i).padStart(2, "0")}-01`, { goal: "misc", next: ["err then timeout"] }),
      ),
    );
    const noDb = located(snap("2026-11-08-01", { goal: "misc", next: ["ErrTimeout err timeout"] }));
    const allApart = located(snap("2026-11-07-01", { goal: "misc", next: ["err db timeout, db again"] }));
    const inGoal = located(snap("2026-11-06-01", { goal: "fix ErrDbTimeout", next: ["err timeout"] }));
    const inPath = located(
      snap("2026-11-05-01", {
        goal: "misc",
        next: ["err timeout"],
        files: [{ path: "src/err-db-timeout.ts", note: "" }],
      }),
    );
    // db held by many more: err and timeout are the rarest leaves, and 16 snapshots hold both.
    const db = Array.from({ length: 24 }, (_, i) =>
      located(snap(`2026-10-${String(1 + i).padStart(2, "0")}-01`, { goal: "db", next: ["db db"] })),
    );
    const shards = shardOf([...apart, noDb, allApart, inGoal, inPath, ...db]);
    expect(ids(shards, "ERR_DB_TIMEOUT").sort()).toEqual(["2026-11-05-01", "2026-11-06-01"]);
    expect(rank(shards, "ERR_DB_TIMEOUT").match).toBe("exact");
  });
});
