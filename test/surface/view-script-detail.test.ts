import { describe, expect, it } from "vitest";
import type { ViewSnapshot } from "../../plugin/surface/view-model.ts";
import { readWholeView } from "../../plugin/surface/view-read.ts";
import { VIEW_SCRIPT_SEARCH } from "../../plugin/surface/view-script-detail.ts";
import { cli, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

type Search = (q: string) => {
  hits: Set<number>;
  missing: string[];
  named: string;
  prefixes: { raw: string; words: string[] }[];
};

/** The page's own search engine, run over `snapshots` as the page runs it. */
function pageSearch(snapshots: ViewSnapshot[]): Search {
  return new Function("S", `${VIEW_SCRIPT_SEARCH}\nreturn search;`)(snapshots) as Search;
}

const SAVES = [
  { goal: "Fix ERR_DB_TIMEOUT in the pool", names: [{ label: "Error", value: "ERR_DB_TIMEOUT" }] },
  { goal: "Raise ERR_DB_TIMEOUT_MS to 30s", names: [{ label: "Setting", value: "ERR_DB_TIMEOUT_MS" }] },
  { goal: "Refactor parseDailyLog", files: [{ path: "src/auth/oauth-callback.ts", note: "" }] },
  { goal: "Rename ErrDbTimeout in the client", code: "throw new ErrDbTimeout()" },
  { goal: "Write the release notes for timeouts" },
];

/** A workspace holding SAVES (saved through the CLI), its page data and the page's search over it. */
async function savedWorkspace() {
  const dir = workspace();
  for (const [i, input] of SAVES.entries()) {
    const at = new Date(`2026-11-25T1${i}:00:00Z`);
    expect((await cli(["save", "--dir", dir], { stdin: JSON.stringify(input), now: at })).code).toBe(0);
  }
  const data = await readWholeView(dir, new Date("2026-11-26T00:00:00Z"));
  return { dir, data, search: pageSearch(data.snapshots) };
}

describe("VIEW_SCRIPT_SEARCH", () => {
  // The CLI ranks and keeps its best hits (a hit far below the best is dropped); the page lists every
  // snapshot that holds the identifier: each CLI hit is a page hit, and both find nothing alike.
  it("finds every snapshot big-memory search finds for an identifier, and names what no snapshot mentions", async () => {
    const { dir, data, search } = await savedWorkspace();
    for (const query of [
      "ERR_DB_TIMEOUT",
      "ERR_DB_TIMEOUT_MS",
      "parseDailyLog",
      "oauth-callback.ts",
      "ErrDbTimeout",
    ]) {
      const run = await cli(["search", query, "--dir", dir, "--json", "--limit", "all"]);
      const cliIds = (run.json() as { snapshots: { id: string }[] }).snapshots.map((s) => s.id).sort();
      const pageIds = [...search(query).hits].map((i) => data.snapshots[i]?.i).sort();
      expect({ query, missed: cliIds.filter((id) => !pageIds.includes(id)) }).toEqual({ query, missed: [] });
      expect(pageIds.length > 0).toBe(cliIds.length > 0);
    }
    const spelled = [...search("ERR_DB_TIMEOUT").hits].map((i) => data.snapshots[i]?.goal);
    expect(spelled.sort()).toEqual(["Fix ERR_DB_TIMEOUT in the pool", "Rename ErrDbTimeout in the client"]);
    expect(search("ERR_NEVER_SEEN").hits.size).toBe(0);
    expect(search("ERR_NEVER_SEEN").named).toBe("ERR_NEVER_SEEN");
    expect(search("parseDailyLog ERR_DB_TIMEOUT_MS").named).toBe(
      "parseDailyLog and ERR_DB_TIMEOUT_MS together",
    );
    expect((await cli(["search", "ERR_NEVER_SEEN", "--dir", dir])).stdout).toContain(
      "No snapshot mentions ERR_NEVER_SEEN.",
    );
  });

  it("finds by prefix what big-memory search finds by prefix, and names what the start begins", async () => {
    const { dir, data, search } = await savedWorkspace();
    for (const [query, begun] of [
      ["parseDai", "parseDailyLog"],
      ["oauth-call", "oauth-callback.ts"],
      ["ERR_DB_TIMEO", "ERR_DB_TIMEOUT"],
    ] as const) {
      const run = await cli(["search", query, "--dir", dir, "--json", "--limit", "all"]);
      const answer = run.json() as { match: string; fuzzy: { id: string }[] };
      const cliIds = answer.fuzzy.map((s) => s.id).sort();
      const found = search(query);
      const pageIds = [...found.hits].map((i) => data.snapshots[i]?.i).sort();
      expect({ query, match: answer.match, missed: cliIds.filter((id) => !pageIds.includes(id)) }).toEqual({
        query,
        match: "prefix",
        missed: [],
      });
      expect([found.missing, found.prefixes[0]?.raw, found.prefixes[0]?.words], query).toEqual([
        [],
        query,
        expect.arrayContaining([begun]),
      ]);
    }
    // A token's end, a number cut short, one letter short: another name, as the CLI says.
    for (const query of ["ERR_DB", "ERR_DB_TIMEOUT_M", "parseDailyLo"]) {
      expect([query, search(query).hits.size, search(query).prefixes]).toEqual([query, 0, []]);
    }
  });

  it("matches plain words anywhere, case and accents aside", async () => {
    const dir = workspace();
    await cli(["save", "--dir", dir], { stdin: JSON.stringify({ goal: "Write the Café release notes" }) });
    const data = await readWholeView(dir, new Date());
    const search = pageSearch(data.snapshots);
    expect(search("cafe").hits.size).toBe(1);
    expect(search("RELEASE").hits.size).toBe(1);
    expect(search("deploy").hits.size).toBe(0);
  });
});
