import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { snapshot } from "../builders.ts";
import { makeUnreadable, unreadableMessage } from "../search/helpers.ts";
import { cli, SAVE_INPUT, SKILL_LOG, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

describe("list, show, recall and status over the saved refs", () => {
  it("load neither the search engine nor the markdown parser nor the watcher nor zod once indexed", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    expect((await cli(["reindex", "--dir", dir])).code).toBe(0);
    const bin = new URL("../../bin/big-memory.js", import.meta.url).pathname;
    const hook = new URL("./fixtures/record-modules.mjs", import.meta.url).pathname;
    const loaded = (args: string[]) => {
      const log = join(dir, `modules-${args.join("-")}.txt`);
      const r = spawnSync(process.execPath, ["--import", hook, bin, ...args, "--dir", dir, "--json"], {
        encoding: "utf8",
        env: { ...process.env, BIG_MEMORY_MODULE_LOG: log },
      });
      expect(r.status).toBe(0);
      return readFileSync(log, "utf8").split("\n");
    };
    const heavy =
      /\/(remark|unified|mdast|micromark|minisearch|chokidar|zod)[^/]*\/|\/search\/(search-service|snapshot-index|hot-shard|frozen-shard|light-shard|rank|codec|persist|sources)\.ts$/;
    for (const args of [
      ["list"],
      ["list", "--limit", "1"],
      ["show", "2026-11-20-01"],
      ["recall"],
      ["status"],
    ]) {
      const urls = loaded(args);
      expect(urls.some((url) => url.endsWith("/search/saved-refs.ts"))).toBe(true);
      expect(urls.filter((url) => heavy.test(url))).toEqual([]);
    }
  });

  it("answer as the search index does when a month was never indexed, and index it", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const r = await cli(["list", "--dir", dir, "--json"]);
    expect(r.json()).toMatchObject({ snapshots: [{ id: "2026-11-20-02" }, { id: "2026-11-20-01" }] });
    expect(readFileSync(join(dir, ".big-memory/search/2026-11.bmx")).length).toBeGreaterThan(0);
  });

  it("see a snapshot saved after the month was indexed, and list the newest first", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    await cli(["reindex", "--dir", dir]);
    await cli(["save", "--dir", dir, "--session", "agent:main:main"], { stdin: JSON.stringify(SAVE_INPUT) });
    const listed = await cli(["list", "--limit", "1", "--dir", dir, "--json"]);
    expect(listed.json()).toMatchObject({ snapshots: [{ session: "agent:main:main" }] });
    const recalled = await cli(["recall", "--session", "agent:main:main", "--dir", dir, "--json"]);
    expect(recalled.json()).toMatchObject({
      snapshot: { session: "agent:main:main", goal: SAVE_INPUT.goal },
    });
  });

  it("rebuild a corrupt month with one warning, as the search index does", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    await cli(["reindex", "--dir", dir]);
    writeFileSync(join(dir, ".big-memory/search/2026-11.bmx"), "not a shard at all, only text");
    const r = await cli(["show", "2026-11-20-01", "--dir", dir, "--json"]);
    expect(r.json()).toMatchObject({
      snapshot: { id: "2026-11-20-01" },
      diagnostics: [
        {
          file: ".big-memory/search",
          line: null,
          message: expect.stringContaining("not a big-memory search shard (bad magic number); rebuilding"),
        },
      ],
    });
  });
});

describe("list for people", () => {
  /** A log of `n` hand-written blocks, 2026-11-20-01 the oldest. */
  const manyBlocks = (n: number) =>
    Array.from({ length: n }, (_, i) => {
      const nn = String(i + 1).padStart(2, "0");
      return [
        "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
        `<!-- timestamp: 2026-11-20T10:${nn}:00 -->`,
        `<!-- snapshot-id: 2026-11-20-${nn} -->`,
        "### [SNAPSHOT] Active Goal",
        `step ${nn}`,
        "<!-- /BIG-MEMORY-SNAPSHOT -->",
        "",
      ].join("\n");
    }).join("\n");
  const rows = (stdout: string) => stdout.trim().split("\n").slice(1);

  it("shows the newest 50 and says how to see older ones; --limit all, --limit N and --json show more", async () => {
    for (const indexed of [false, true]) {
      const dir = workspace({ "memory/2026-11-20.md": manyBlocks(53) });
      if (indexed) expect((await cli(["reindex", "--dir", dir])).code).toBe(0);
      const shown = await cli(["list", "--dir", dir]);
      expect(shown.code).toBe(0);
      expect(rows(shown.stdout)).toHaveLength(50);
      expect(rows(shown.stdout)[0]).toMatch(/^2026-11-20-53 /);
      expect(shown.stderr).toBe(
        "big-memory: the newest 50 snapshots shown; older ones with --limit N or --limit all\n",
      );
      const all = await cli(["list", "--limit", "all", "--dir", dir]);
      expect([rows(all.stdout).length, all.stderr]).toEqual([53, ""]);
      expect(rows(all.stdout).at(-1)).toMatch(/^2026-11-20-01 /);
      const exact = await cli(["list", "--limit", "53", "--dir", dir]);
      expect([rows(exact.stdout).length, exact.stderr]).toEqual([53, ""]);
      const fewer = await cli(["list", "--limit", "3", "--dir", dir]);
      expect(rows(fewer.stdout)).toHaveLength(3);
      expect(fewer.stderr).toContain("the newest 3 snapshots shown");
      const json = await cli(["list", "--json", "--dir", dir]);
      expect([(json.json() as { snapshots: unknown[] }).snapshots.length, json.stderr]).toEqual([53, ""]);
      const limited = await cli(["list", "--json", "--limit", "3", "--dir", dir]);
      expect([(limited.json() as { snapshots: unknown[] }).snapshots.length, limited.stderr]).toEqual([
        3,
        "",
      ]);
    }
  });

  it("refuses a limit that is neither a whole number of at least 1 nor all", async () => {
    const dir = workspace({ "memory/2026-11-20.md": manyBlocks(2) });
    for (const bad of ["0", "-1", "2.5", "ALL", "every"]) {
      const r = await cli(["list", "--limit", bad, "--dir", dir]);
      expect([r.code, r.stdout]).toEqual([2, ""]);
      expect(r.stderr).toContain(`--limit expects a whole number of at least 1, or all, received "${bad}"`);
    }
  });
});

describe("a daily log that cannot be read, once the workspace is indexed", () => {
  /** Logs made unreadable: in the month of the readable log, and in another month. */
  const UNREADABLE = [
    { file: "memory/2026-11-21.md", id: "2026-11-21-01" },
    { file: "memory/2026-02-05.md", id: "2026-02-05-01" },
  ];
  /** Each command answered from the saved refs, and a text its answer holds from the readable log. */
  const READS = [
    { argv: ["list"], holds: "2026-11-20-02" },
    { argv: ["show", "2026-11-20-01"], holds: "JWT" },
    { argv: ["recall"], holds: "2026-11-20-02" },
    { argv: ["status"], holds: "1 problem" },
  ];
  const withLogs = (file: string, id: string) =>
    workspace({
      "memory/2026-11-20.md": SKILL_LOG,
      [file]: renderSnapshot(snapshot(id, { goal: "Rotate the signing keys", session: null })),
    });

  it("answer from the other logs and name it on every run, text and JSON alike, whether it was indexed before or never", async () => {
    for (const { file, id } of UNREADABLE) {
      for (const before of ["never read", "indexed"]) {
        const dir = withLogs(file, id);
        if (before === "indexed") expect((await cli(["reindex", "--dir", dir])).code).toBe(0);
        const mend = await makeUnreadable(dir, file);
        // The first run indexes what is missing; the next ones read the saved refs, and name the log again.
        for (const run of [1, 2, 3]) {
          for (const { argv, holds } of READS) {
            const at = [file, before, run, argv];
            // recall reads only the newest months its answer needs: a log of an older month is not
            // touched, so it is named only when it is in the month read.
            const named = argv[0] !== "recall" || file.startsWith("memory/2026-11");
            const text = await cli([...argv, "--dir", dir]);
            expect([...at, text.code, text.stderr]).toEqual([
              ...at,
              0,
              named ? `big-memory: ${unreadableMessage(file)}\n` : "",
            ]);
            expect(text.stdout).toContain(holds);
            expect(text.stdout).not.toContain(id);
            const json = await cli([...argv, "--dir", dir, "--json"]);
            expect([...at, json.code, json.stderr]).toEqual([...at, 0, ""]);
            expect(json.json()).toMatchObject({
              diagnostics: named ? [{ file, line: null, message: unreadableMessage(file) }] : [],
            });
            expect(json.stdout).not.toContain(id);
          }
        }
        await mend();
        const listed = await cli(["list", "--dir", dir, "--json"]);
        expect([listed.code, listed.json()]).toMatchObject([
          0,
          { snapshots: expect.arrayContaining([expect.objectContaining({ id })]), diagnostics: [] },
        ]);
        const shown = await cli(["show", id, "--dir", dir, "--json"]);
        expect([shown.code, shown.json()]).toMatchObject([0, { snapshot: { id }, diagnostics: [] }]);
        const status = await cli(["status", "--dir", dir, "--json"]);
        expect(status.json()).toMatchObject({ snapshots: 3, files: 2, problems: 0 });
      }
    }
  });

  it("say nothing found (exit 1) when the only snapshot asked for is in the log, still naming it", async () => {
    const { file, id } = UNREADABLE[0] as (typeof UNREADABLE)[number];
    const dir = withLogs(file, id);
    await cli(["reindex", "--dir", dir]);
    await makeUnreadable(dir, file);
    const r = await cli(["show", id, "--dir", dir, "--json"]);
    expect([r.code, r.json()]).toEqual([
      1,
      { snapshot: null, warnings: [], diagnostics: [{ file, line: null, message: unreadableMessage(file) }] },
    ]);
  });
});
