import { describe, expect, it } from "vitest";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";
import { absentText } from "../../plugin/surface/cli-index.ts";
import { snapshot as snap } from "../builders.ts";
import { makeUnreadable, unreadableMessage } from "../search/helpers.ts";
import { cli, SKILL_LOG, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

/** A workspace whose log of 2026-11-20 holds `snapshots`. */
const logOf = (snapshots: readonly Snapshot[]) =>
  workspace({ "memory/2026-11-20.md": snapshots.map((s) => renderSnapshot(s)).join("\n") });

/** Snapshot `2026-11-20-NN` naming `value` as its error. */
const naming = (n: number, value: string, over: Partial<Snapshot> = {}) =>
  snap(`2026-11-20-${String(n).padStart(2, "0")}`, {
    goal: `work on ${value}`,
    names: [{ label: "Error", value }],
    ...over,
  });

type Ref = { id: string; goal: string; match: string; score: number };
type Answer = {
  snapshots: Ref[];
  fuzzy: Ref[];
  match: string;
  missing: string[];
  suggestions: { word: string; closest: string[] }[];
};

const search = async (dir: string, ...args: string[]) => {
  const r = await cli(["search", ...args, "--dir", dir, "--json"]);
  return { code: r.code, answer: r.json() as Answer };
};

describe("searchIndexed", () => {
  it("answers an absent identifier with no snapshot, and keeps its closest matches apart as fuzzy", async () => {
    const dir = logOf([naming(1, "ERR_DB_TIMEOUTS"), naming(2, "ERR_WEBHOOK_REPLAY")]);
    const { code, answer } = await search(dir, "ERR_DB_TIMEOUT");
    expect([code, answer.snapshots, answer.match, answer.missing, answer.suggestions]).toEqual([
      1,
      [],
      "fuzzy",
      ["ERR_DB_TIMEOUT"],
      [{ word: "ERR_DB_TIMEOUT", closest: ["ERR_DB_TIMEOUTS"] }],
    ]);
    expect(answer.fuzzy.map((h) => [h.id, h.match, typeof h.score])).toEqual([
      ["2026-11-20-01", "fuzzy", "number"],
    ]);
    const people = await cli(["search", "ERR_DB_TIMEOUT", "--dir", dir]);
    expect([people.code, people.stdout.split("\n")[0]]).toEqual([
      1,
      "No snapshot mentions ERR_DB_TIMEOUT. Did you mean ERR_DB_TIMEOUTS? Closest matches (fuzzy):",
    ]);
    expect(people.stdout).toContain("2026-11-20-01");
  });

  it("lists as closest matches the snapshots of the identifiers it suggests, and only those", async () => {
    const values = ["ERR_AUTH_1298", "ERR_AUTH_1282", "ERR_AUTH_162", "ERR_AUTH_18", "ERR_AUTH_2"];
    const more = ["TICKET-1992", "TICKET-1000", "ADR-016", "billing_export_v2"];
    const dir = logOf([...values, ...more].map((v, i) => naming(i + 1, v)));
    for (const query of ["ERR_AUTH_12", "TICKET-1", "ADR-017", "billing_export_v3"]) {
      const { code, answer } = await search(dir, query);
      const suggested = answer.suggestions.flatMap((s) => s.closest);
      expect([query, code, answer.snapshots]).toEqual([query, 1, []]);
      expect(suggested.length).toBeGreaterThan(0);
      expect(answer.fuzzy.map((h) => h.goal.replace("work on ", "")).sort()).toEqual([...suggested].sort());
    }
    const { answer } = await search(dir, "ERR_AUTH_12");
    expect(answer.fuzzy.map((h) => h.goal)).toEqual([
      "work on ERR_AUTH_162",
      "work on ERR_AUTH_18",
      "work on ERR_AUTH_2",
    ]);
  });

  it("finds the paths under a folder, with or without its last slash", async () => {
    const dir = logOf([
      naming(1, "ERR_X", { files: [{ path: "src/auth/session.ts", note: "session store" }] }),
      naming(2, "ERR_Y", { files: [{ path: "src/db/pool.ts", note: "" }] }),
    ]);
    for (const query of ["src/auth", "src/auth/"]) {
      const { code, answer } = await search(dir, query);
      expect([query, code, answer.match, answer.snapshots.map((h) => h.id)]).toEqual([
        query,
        0,
        "exact",
        ["2026-11-20-01"],
      ]);
    }
    const absent = await search(dir, "src/billing");
    expect([absent.code, absent.answer.snapshots, absent.answer.missing]).toEqual([1, [], ["src/billing"]]);
  });

  it("refuses a query with no word to look for as a usage error", async () => {
    const dir = logOf([naming(1, "ERR_X")]);
    for (const query of ["", "  ", "./-", "the"]) {
      const r = await cli(["search", query, "--dir", dir]);
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        "",
        `big-memory: search needs words to look for, received ${JSON.stringify(query.trim())} (punctuation and common words such as "the" are not searched)\n`,
      ]);
    }
  });

  it("tells people when more hits exist than shown, and shows them all with --limit all", async () => {
    const dir = logOf(
      Array.from({ length: 12 }, (_, i) => naming(i + 1, `ERR_K_${i}`, { goal: "tune the kafka consumer" })),
    );
    const shown = await cli(["search", "kafka", "--dir", dir]);
    expect([shown.code, shown.stdout.match(/^2026-/gm)?.length, shown.stderr]).toEqual([
      0,
      10,
      "big-memory: the best 10 hits shown; more with --limit N or --limit all\n",
    ]);
    const all = await cli(["search", "kafka", "--limit", "all", "--dir", dir]);
    expect([all.code, all.stdout.match(/^2026-/gm)?.length, all.stderr]).toEqual([0, 12, ""]);
    const json = await search(dir, "kafka", "--limit", "5");
    expect(json.answer.snapshots).toHaveLength(5);
  });

  it("names the session searched when none of its snapshots mentions the words", async () => {
    const dir = logOf([
      naming(1, "ERR_X", { goal: "export invoices", session: "agent:main:other" }),
      naming(2, "ERR_DB_TIMEOUTS", { session: "agent:main:main" }),
    ]);
    const r = await cli(["search", "--session", "agent:main:main", "invoices", "--dir", dir]);
    expect([r.code, r.stdout]).toEqual([1, "No snapshot of session agent:main:main mentions invoices.\n"]);
  });
});

describe("absentText", () => {
  it("names the identifiers no snapshot mentions, the closest that exist, and whether near matches follow", () => {
    const missing = {
      match: "fuzzy" as const,
      missing: ["ERR_X"],
      prefixes: [],
      suggestions: [{ word: "ERR_X", closest: ["ERR_Y"] }],
    };
    expect(absentText("ERR_X", missing, {}, true)).toBe(
      "No snapshot mentions ERR_X. Did you mean ERR_Y? Closest matches (fuzzy):",
    );
    const none = { match: "exact" as const, missing: [], prefixes: [], suggestions: [] };
    expect(absentText("billing export", none, {}, false)).toBe("No snapshot mentions billing export.");
  });

  it("names the scope searched, and identifiers that exist but never together", () => {
    const none = { match: "exact" as const, missing: [], prefixes: [], suggestions: [] };
    expect(absentText("invoices", none, { session: "s1", agent: "main" }, false)).toBe(
      "No snapshot of session s1 (agent main) mentions invoices.",
    );
    const apart = { match: "fuzzy" as const, missing: [], prefixes: [], suggestions: [] };
    expect(absentText("ERR_A ERR_B pool", apart, { agent: "main" }, true)).toBe(
      "No snapshot of agent main mentions ERR_A and ERR_B together. Closest matches (fuzzy):",
    );
  });

  it("names what an identifier typed as a start begins, and says the matches are by prefix", () => {
    const prefixes = [
      { word: "ERR_DUP", completions: ["ERR_DUPLICATE_KEY"] },
      { word: "oauth-call", completions: ["oauth-callback", "oauth-callback.ts"] },
    ];
    const started = { match: "prefix" as const, missing: [], prefixes, suggestions: [] };
    expect(absentText("ERR_DUP oauth-call", started, { session: "s1" }, true)).toBe(
      "ERR_DUP is the start of ERR_DUPLICATE_KEY; oauth-call is the start of oauth-callback, oauth-callback.ts" +
        " (no snapshot of session s1 mentions ERR_DUP, oauth-call whole). Matches by prefix:",
    );
  });
});

/**
 * A workspace whose `memory/2026-11-20.md` holds the skill's two blocks (2026-11-20-01 about JWT, -02) and
 * whose `file` (in the same month or another) holds one more block, `id`, made unreadable (see
 * makeUnreadable). Returns the workspace and what makes the log readable again.
 */
async function withUnreadableLog(
  file: string,
  id: string,
): Promise<{ dir: string; mend: () => Promise<void> }> {
  const dir = workspace({
    "memory/2026-11-20.md": SKILL_LOG,
    [file]: renderSnapshot(snap(id, { goal: "Rotate the signing keys", session: null })),
  });
  return { dir, mend: await makeUnreadable(dir, file) };
}

/** The logs made unreadable: one in the month of the readable log, one in another month. */
const UNREADABLE = [
  { file: "memory/2026-11-21.md", id: "2026-11-21-01" },
  { file: "memory/2026-02-05.md", id: "2026-02-05-01" },
];

/** Each read command and a text its answer holds from the readable log. */
const READS = [
  { argv: ["list"], holds: "2026-11-20-02" },
  { argv: ["show", "2026-11-20-01"], holds: "JWT" },
  { argv: ["recall"], holds: "2026-11-20-02" },
  { argv: ["status"], holds: "1 problem" },
  { argv: ["search", "JWT"], holds: "2026-11-20-01" },
];

describe("withIndex", () => {
  it("answers every read command of a first run (no index yet) from the logs it can read, naming the other, text and JSON alike", async () => {
    for (const { file, id } of UNREADABLE) {
      for (const { argv, holds } of READS) {
        const people = await withUnreadableLog(file, id);
        const text = await cli([...argv, "--dir", people.dir]);
        expect([file, argv, text.code, text.stderr]).toEqual([
          file,
          argv,
          0,
          `big-memory: ${unreadableMessage(file)}\n`,
        ]);
        expect(text.stdout).toContain(holds);
        expect(text.stdout).not.toContain(id);
        const scripts = await withUnreadableLog(file, id);
        const json = await cli([...argv, "--dir", scripts.dir, "--json"]);
        expect([file, argv, json.code, json.stderr]).toEqual([file, argv, 0, ""]);
        expect(json.json()).toMatchObject({
          diagnostics: [{ file, line: null, message: unreadableMessage(file) }],
        });
        expect(json.stdout).not.toContain(id);
      }
    }
  });

  it("keeps naming the log on every indexed search, and finds its snapshots once it can be read", async () => {
    for (const { file, id } of UNREADABLE) {
      const { dir, mend } = await withUnreadableLog(file, id);
      for (const run of [1, 2]) {
        const text = await cli(["search", "JWT", "--dir", dir]);
        expect([file, run, text.code, text.stderr]).toEqual([
          file,
          run,
          0,
          `big-memory: ${unreadableMessage(file)}\n`,
        ]);
        const json = await cli(["search", "JWT", "--dir", dir, "--json"]);
        expect(json.json()).toMatchObject({
          snapshots: [{ id: "2026-11-20-01" }],
          diagnostics: [{ file, line: null, message: unreadableMessage(file) }],
        });
        // Its snapshot is nowhere: not found, exit 1, and the log is still named.
        const absent = await cli(["search", "signing", "keys", "--dir", dir, "--json"]);
        expect([absent.code, absent.json()]).toMatchObject([1, { snapshots: [], diagnostics: [{ file }] }]);
      }
      await mend();
      const found = await cli(["search", "signing", "keys", "--dir", dir, "--json"]);
      expect([found.code, found.json()]).toMatchObject([0, { snapshots: [{ id }], diagnostics: [] }]);
    }
  });

  it("ends reindex with exit 3 after its answer when a log cannot be indexed, and with 0 once it can", async () => {
    for (const { file, id } of UNREADABLE) {
      const { dir, mend } = await withUnreadableLog(file, id);
      const leftOut = `big-memory: the search index leaves out ${file}, which cannot be read; the other daily logs are indexed\n`;
      const text = await cli(["reindex", "--dir", dir]);
      expect([text.code, text.stderr]).toEqual([3, `big-memory: ${unreadableMessage(file)}\n${leftOut}`]);
      expect(text.stdout).toMatch(/^reindexed 2 snapshots from 1 daily logs in \d+ ms\n$/);
      const json = await cli(["reindex", "--dir", dir, "--json"]);
      expect([json.code, json.stderr]).toEqual([3, leftOut]);
      expect(json.json()).toMatchObject({
        snapshots: 2,
        logs: 1,
        diagnostics: [{ file, line: null, message: unreadableMessage(file) }],
      });
      await mend();
      const again = await cli(["reindex", "--dir", dir, "--json"]);
      expect([again.code, again.stderr, again.json()]).toMatchObject([
        0,
        "",
        { snapshots: 3, logs: 2, diagnostics: [] },
      ]);
    }
  });

  it("ends reindex with exit 3 after its answer when the index could not be saved", async () => {
    const dir = workspace({
      "memory/2026-11-20.md": SKILL_LOG,
      ".big-memory/search": "a file, not a folder",
    });
    const r = await cli(["reindex", "--dir", dir, "--json"]);
    expect([r.code, r.json()]).toMatchObject([
      3,
      { snapshots: 2, diagnostics: [{ message: expect.stringContaining("search index update failed") }] },
    ]);
    expect(r.stderr).toBe("big-memory: the search index is incomplete: 1 update failed\n");
  });

  it("has verify report the log it could not check, and check it once it can be read", async () => {
    const { file, id } = UNREADABLE[0] as (typeof UNREADABLE)[number];
    const { dir, mend } = await withUnreadableLog(file, id);
    const r = await cli(["verify", "--dir", dir, "--json"]);
    expect([r.code, r.json()]).toEqual([
      1,
      {
        ok: false,
        checked: 2,
        problems: [{ id: null, file, line: null, problem: unreadableMessage(file) }],
        diagnostics: [{ file, line: null, message: unreadableMessage(file) }],
      },
    ]);
    await mend();
    expect((await cli(["verify", "--dir", dir, "--json"])).json()).toMatchObject({ ok: true, checked: 3 });
  });
});
