/**
 * What people read on a terminal: `list`, `search` and `status` rendered through the CLI at 80 and 200
 * columns (and piped, with no width) fit the width and keep every column aligned, whatever the snapshots
 * hold (long goals, long session keys, East Asian wide characters).
 */
import { join } from "node:path";
import stringWidth from "fast-string-width";
import { describe, expect, it } from "vitest";
import { appendLedger } from "../../plugin/store/ledger.ts";
import { appendRestoreLog } from "../../plugin/store/restore-log.ts";
import { cli, workspaces } from "./cli-harness.ts";

const workspace = workspaces();
const NOW = new Date("2026-11-22T12:00:00Z");
const LONG_SESSION = "agent:main:telegram:direct:123456789";

/** A workspace with five snapshots in two sessions, two restores and three compactions. */
async function filled(): Promise<string> {
  const dir = workspace();
  const save = (goal: string, session: string, name?: string) =>
    cli(["save", "--dir", dir, "--session", session, ...(name === undefined ? [] : ["--name", name])], {
      stdin: JSON.stringify({ goal, names: [{ label: "Error", value: "ERR_DUPLICATE_KEY" }] }),
      now: NOW,
    });
  await save("Fix ERR_DUPLICATE_KEY in the OAuth callback so that second logins work again", LONG_SESSION);
  await save(
    "日本語のドキュメントを出荷する (ship the Japanese docs, ERR_DUPLICATE_KEY in the samples)",
    "agent:main:main",
  );
  await save(
    `Migrate the session table: ${"add a unique index on user and device, ".repeat(6)}`,
    LONG_SESSION,
    "oauth-fix",
  );
  await save("Short goal", "agent:main:main");
  const state = join(dir, ".big-memory");
  await appendRestoreLog(state, {
    at: "2026-11-22T11:00:00Z",
    id: "2026-11-22-01",
    session: LONG_SESSION,
    reason: "compaction",
    tokens: 812,
  });
  await appendRestoreLog(state, {
    at: "2026-11-22T11:30:00Z",
    id: "2026-11-22-02",
    session: "agent:main:main",
    reason: "amnesia",
    tokens: 1640,
  });
  const at = (i: number) => `2026-11-22T1${i}:00:00.000Z`;
  await appendLedger(
    state,
    [0, 1, 2].map((i) => ({
      kind: "cycle" as const,
      cycle: at(i),
      session: i === 1 ? "agent:main:main" : LONG_SESSION,
      agent: "main",
      at: at(i),
      path: i === 2 ? ("overflow" as const) : ("preflight" as const),
      flush: i !== 2,
      cover: i === 2 ? ("none" as const) : ("flush" as const),
      snapshot: i === 2 ? null : `2026-11-22-0${i + 1}`,
      file: i === 2 ? null : "memory/2026-11-22.md",
      outcome: i === 2 ? ("failed" as const) : ("done" as const),
    })),
  );
  await appendLedger(state, [
    {
      kind: "restore",
      cycle: at(0),
      session: LONG_SESSION,
      at: at(1),
      snapshot: "2026-11-22-01",
      tokens: 812,
    },
  ]);
  return dir;
}

/** A line as terminal cells: a wide character takes two, the second of them "" (so indexes are columns). */
function cellsOf(line: string): string[] {
  const cells: string[] = [];
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(line)) {
    cells.push(segment);
    if (stringWidth(segment) === 2) cells.push("");
  }
  return cells;
}

/** The columns where a table's header names start. */
function starts(header: string): number[] {
  const cells = cellsOf(header);
  return cells.flatMap((c, i) =>
    c !== " " && (i === 0 || (cells[i - 1] === " " && cells[i - 2] === " ")) ? [i] : [],
  );
}

/**
 * The problems of a table's alignment: a row whose cell does not start at its header's column (two
 * spaces before it, a character on it), or a header with fewer names than `least`.
 */
function misaligned(lines: string[], least: number): string[] {
  const [header = "", ...rows] = lines;
  const at = starts(header);
  const problems = at.length < least ? [`${at.length} columns in ${JSON.stringify(header)}`] : [];
  for (const row of rows) {
    const cells = cellsOf(row);
    for (const column of at.slice(1)) {
      if (cells[column - 1] !== " " || cells[column - 2] !== " " || (cells[column] ?? " ") === " ")
        problems.push(`column ${column} of ${JSON.stringify(row)}`);
    }
  }
  return problems;
}

/** The lines of the table that starts with `head` (up to the first blank line), `skip`ping those it matches. */
function tableAt(text: string, head: RegExp, skip = /^ {4}/): string[] {
  const lines = text.split("\n");
  const from = lines.findIndex((l) => head.test(l));
  const to = lines.findIndex((l, i) => i > from && l === "");
  return lines.slice(from, to < 0 ? undefined : to).filter((l) => !skip.test(l));
}

const widest = (text: string) => Math.max(...text.split("\n").map((l) => stringWidth(l)));

describe.each([80, 200])("list, search and status at %i columns", (columns) => {
  it("fit the width and keep every column aligned", async () => {
    const dir = await filled();
    const list = await cli(["list", "--dir", dir], { columns, now: NOW });
    const search = await cli(["search", "ERR_DUPLICATE_KEY", "--dir", dir], { columns, now: NOW });
    const status = await cli(["status", "--dir", dir], { columns, now: NOW });
    expect([list.code, search.code, status.code, list.stderr, search.stderr, status.stderr]).toEqual([
      0,
      0,
      0,
      "",
      "",
      "",
    ]);
    for (const out of [list.stdout, search.stdout, status.stdout])
      expect(widest(out)).toBeLessThanOrEqual(columns);
    const listed = tableAt(list.stdout, /^ID /);
    expect(listed).toHaveLength(5);
    expect(misaligned(listed, columns === 80 ? 5 : 7)).toEqual([]);
    const found = tableAt(search.stdout, /^ID /);
    expect(found).toHaveLength(5);
    expect(misaligned(found, 4)).toEqual([]);
    expect(misaligned(tableAt(status.stdout, /^SESSION /), 4)).toEqual([]);
    expect(misaligned(tableAt(status.stdout, /^WHEN /), 5)).toEqual([]);
    // The label/value block: every value starts at the same column.
    const block = tableAt(status.stdout, /^workspace /);
    expect(new Set(block.map((l) => /^\S+(?: \S+)*? {2,}/.exec(l)?.[0].length))).toEqual(new Set([14]));
    expect(block.join("\n")).toContain(
      [
        "restores      2, 2,452 tokens injected in all",
        `last restore  2026-11-22-02 "you forgot", 1,640 tokens, 30m ago`,
      ].join("\n"),
    );
  });
});

describe("list, search and status piped to a file", () => {
  it("print whole goals and session keys, aligned", async () => {
    const dir = await filled();
    const list = await cli(["list", "--dir", dir], { now: NOW });
    const search = await cli(["search", "ERR_DUPLICATE_KEY", "--dir", dir], { now: NOW });
    const status = await cli(["status", "--dir", dir], { now: NOW });
    expect(list.stdout).toContain("add a unique index on user and device, add a unique index");
    expect(list.stdout).not.toContain("…");
    expect(search.stdout).toContain(
      "Fix ERR_DUPLICATE_KEY in the OAuth callback so that second logins work again",
    );
    expect(status.stdout).toContain(LONG_SESSION);
    expect(misaligned(tableAt(list.stdout, /^ID /), 7)).toEqual([]);
    expect(misaligned(tableAt(status.stdout, /^SESSION /), 6)).toEqual([]);
    expect(misaligned(tableAt(status.stdout, /^WHEN /), 7)).toEqual([]);
  });
});
