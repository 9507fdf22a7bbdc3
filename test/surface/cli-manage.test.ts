import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { snapshot } from "../builders.ts";
import { realWorkspaceFiles } from "../store/fixtures/real-workspace.ts";
import { cli, SAVE_INPUT, SKILL_LOG, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

describe("big-memory verify", () => {
  it("reports a hand-modified block, a torn block and a duplicate id, and exits 1", async () => {
    const dir = workspace();
    await cli(["save", "--dir", dir], { stdin: JSON.stringify(SAVE_INPUT) });
    const path = join(dir, "memory/2026-11-22.md");
    const text = readFileSync(path, "utf8");
    const tampered = text.replace("Write the migration", "Skip the migration");
    const torn = "\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-11-22-09 -->\n";
    const dir2 = workspace({ "memory/2026-11-22.md": tampered + torn, "memory/2026-11-23.md": text });
    const r = await cli(["verify", "--dir", dir2, "--json"]);
    expect(r.code).toBe(1);
    expect(r.json()).toEqual({
      ok: false,
      checked: 2,
      problems: [
        {
          id: "2026-11-22-01",
          file: "memory/2026-11-22.md",
          line: 5,
          problem: "checksum mismatch: the block was modified after it was written",
        },
        {
          id: "2026-11-22-09",
          file: "memory/2026-11-22.md",
          line: tampered.split("\n").length + 1,
          problem: "snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)",
        },
        {
          id: "2026-11-22-01",
          file: "memory/2026-11-23.md",
          line: 5,
          problem:
            "duplicate snapshot id 2026-11-22-01 (also at memory/2026-11-22.md:5); both blocks are kept, address this one as memory/2026-11-23.md:5",
        },
      ],
      // What reading the logs found, as every read command's diagnostics (a checksum is verify's own).
      diagnostics: [
        {
          file: "memory/2026-11-22.md",
          line: tampered.split("\n").length + 1,
          message: "snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)",
        },
        {
          file: "memory/2026-11-23.md",
          line: 5,
          message:
            "duplicate snapshot id 2026-11-22-01 (also at memory/2026-11-22.md:5); both blocks are kept, address this one as memory/2026-11-23.md:5",
        },
      ],
    });
  });

  it("exits 0 on a clean workspace", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const r = await cli(["verify", "--dir", dir, "--json"]);
    expect([r.code, r.json()]).toEqual([0, { ok: true, checked: 2, problems: [], diagnostics: [] }]);
  });
});

describe("big-memory delete and list --all", () => {
  it("hides a deleted checkpoint from list but keeps its history for list --all", async () => {
    const dir = workspace();
    await cli(["save", "--dir", dir, "--name", "oauth-dup-fix"], { stdin: JSON.stringify(SAVE_INPUT) });
    const deleted = await cli(["delete", "oauth-dup-fix", "--dir", dir, "--json"]);
    expect(deleted.json()).toEqual({
      deleted: "oauth-dup-fix",
      id: "2026-11-22-02",
      file: "memory/2026-11-22.md",
      line: 46,
    });
    expect((await cli(["list", "--dir", dir, "--json"])).code).toBe(1);
    const all = (await cli(["list", "--all", "--dir", dir, "--json"])).json() as {
      snapshots: { id: string; name: string }[];
    };
    expect(all.snapshots.map((s) => [s.id, s.name])).toEqual([
      ["2026-11-22-02", "oauth-dup-fix"],
      ["2026-11-22-01", "oauth-dup-fix"],
    ]);
    expect((await cli(["delete", "oauth-dup-fix", "--dir", dir])).code).toBe(1);
    expect((await cli(["show", "oauth-dup-fix", "--dir", dir])).code).toBe(1);
    // The name used again after its tombstone is live again, and can be deleted again (read from the index).
    await cli(["save", "--dir", dir, "--name", "oauth-dup-fix"], { stdin: JSON.stringify(SAVE_INPUT) });
    expect((await cli(["delete", "oauth-dup-fix", "--dir", dir])).code).toBe(0);
    expect((await cli(["delete", "oauth-dup-fix", "--dir", dir])).code).toBe(1);
  });
});

describe("big-memory archive", () => {
  it("moves old blocks into its own folder, leaves memory/archive/ alone, and keeps them findable", async () => {
    const userArchive = "# my own copy of October\n";
    const dir = workspace({ "memory/archive/2026-10-01.md": userArchive });
    const october = new Date("2026-10-01T12:00:00Z");
    const saved = await cli(["save", "--dir", dir, "--json", "--name", "october-billing-fix"], {
      stdin: JSON.stringify({ goal: "Fix ERR_OCTOBER_BILLING in src/billing.ts" }),
      now: october,
    });
    expect(saved.code).toBe(0);
    const archived = await cli(["archive", "--dir", dir, "--before", "2026-11-01", "--json"]);
    expect(archived.json()).toEqual({
      archived: [
        {
          file: "memory/2026-10-01.md",
          archive: "memory/.big-memory-archive/2026-10-01.md",
          snapshots: 1,
          removed: true,
        },
      ],
      problems: [],
      complete: true,
      diagnostics: [
        {
          file: "memory/archive/",
          line: null,
          message:
            "memory/archive/ holds a dated log (memory/archive/2026-10-01.md) that big-memory does not read: it reads the daily logs directly in memory/; move a log that holds snapshots up to memory/ for them to be found",
        },
      ],
    });
    expect(readFileSync(join(dir, "memory/archive/2026-10-01.md"), "utf8")).toBe(userArchive);
    const listed = await cli(["list", "--dir", dir, "--all", "--json"]);
    expect((listed.json() as { snapshots: { id: string; file: string }[] }).snapshots).toMatchObject([
      { id: "2026-10-01-01", file: "memory/.big-memory-archive/2026-10-01.md" },
    ]);
    const shown = await cli(["show", "october-billing-fix", "--dir", dir, "--json"]);
    expect(shown.code).toBe(0);
    const found = await cli(["search", "ERR_OCTOBER_BILLING", "--dir", dir, "--json"]);
    expect((found.json() as { snapshots: { id: string }[] }).snapshots.map((s) => s.id)).toEqual([
      "2026-10-01-01",
    ]);
    // A second archive run does not archive the archive.
    expect((await cli(["archive", "--dir", dir, "--before", "2026-11-01"])).code).toBe(1);
  });
});

describe("big-memory verify for people", () => {
  it("prints one line per problem, with file, line and id", async () => {
    const dir = workspace();
    await cli(["save", "--dir", dir], { stdin: JSON.stringify(SAVE_INPUT) });
    const path = join(dir, "memory/2026-11-22.md");
    writeFileSync(path, readFileSync(path, "utf8").replace("Write the migration", "Skip the migration"));
    const r = await cli(["verify", "--dir", dir]);
    expect([r.code, r.stdout]).toEqual([
      1,
      "1 problem in 1 snapshot checked:\n  memory/2026-11-22.md:5  2026-11-22-01  checksum mismatch: the block was modified after it was written\n",
    ]);
  });

  it("says ok with the counts on a clean workspace", async () => {
    const r = await cli(["verify", "--dir", workspace({ "memory/2026-11-20.md": SKILL_LOG })]);
    expect([r.code, r.stdout]).toEqual([0, "ok: 2 snapshots checked in 1 daily log, no problems\n"]);
  });
});

describe("big-memory delete for people", () => {
  it("says where the tombstone went, and that there is no live checkpoint of an unknown name", async () => {
    const dir = workspace();
    await cli(["save", "--dir", dir, "--name", "oauth-dup-fix"], { stdin: JSON.stringify(SAVE_INPUT) });
    const deleted = await cli(["delete", "oauth-dup-fix", "--dir", dir, "--session", "agent:main:main"]);
    expect([deleted.code, deleted.stdout]).toEqual([
      0,
      "deleted checkpoint oauth-dup-fix (tombstone 2026-11-22-02 in memory/2026-11-22.md:46; list --all shows its history)\n",
    ]);
    const again = await cli(["delete", "oauth-dup-fix", "--dir", dir]);
    expect([again.code, again.stdout]).toEqual([1, 'No live checkpoint named "oauth-dup-fix".\n']);
  });
});

describe("big-memory archive options", () => {
  it("refuses a --before that is not a date with exit 2", async () => {
    const r = await cli(["archive", "--dir", workspace(), "--before", "last-week"]);
    expect([r.code, r.stderr]).toEqual([
      2,
      'big-memory: --before expects a date YYYY-MM-DD, received "last-week"\n',
    ]);
  });

  it("says there is nothing to archive and exits 1", async () => {
    const r = await cli(["archive", "--dir", workspace(), "--before", "2026-11-01"]);
    expect([r.code, r.stdout]).toEqual([1, "Nothing to archive before 2026-11-01.\n"]);
  });
});
describe("verify, checksum lines", () => {
  it("flags a plugin-written block whose checksum line was removed, and accepts a hand-written one", async () => {
    const stripped = renderSnapshot(snapshot("2026-11-22-01", { trigger: "compaction" })).replace(
      /^<!-- checksum: .*\n/m,
      "",
    );
    const hand = renderSnapshot(
      snapshot("2026-11-22-02", { trigger: null, session: null, agent: null }),
    ).replace(/^<!-- checksum: .*\n/m, "");
    const dir = workspace({ "memory/2026-11-22.md": `${stripped}\n${hand}` });
    const r = await cli(["verify", "--dir", dir, "--json"]);
    expect([r.code, (r.json() as { problems: unknown[] }).problems]).toEqual([
      1,
      [
        {
          id: "2026-11-22-01",
          file: "memory/2026-11-22.md",
          line: 5,
          problem:
            "checksum line removed: the block carries big-memory's own metadata (a trigger other than flush, or a tombstone) but no checksum",
        },
      ],
    ]);
  });
});

describe("big-memory archive, a partial run", () => {
  it("archives what it can, names each log it leaves with its fix, sums up, and exits 1", async () => {
    const dir = workspace(realWorkspaceFiles());
    const r = await cli(["archive", "--dir", dir, "--before", "2026-02-08"]);
    expect(r.code).toBe(1);
    const fix =
      "not archived: its snapshot blocks hold a value that redaction removes (a secret written before the current rules); run big-memory scrub --logs to see them and --logs --apply to redact them, then archive again";
    expect(r.stdout.split("\n")).toEqual([
      `memory/2026-02-07.md: ${fix}`,
      `memory/2026-02-07-0431.md: ${fix}`,
      "note: memory/archive/ holds a dated log (memory/archive/2025-12-30.md) that big-memory does not read: it reads the daily logs directly in memory/; move a log that holds snapshots up to memory/ for them to be found",
      "note: memory/daily/ holds a dated log (memory/daily/2026-02-24.md) that big-memory does not read: it reads the daily logs directly in memory/; move a log that holds snapshots up to memory/ for them to be found",
      "Archived 0 snapshots from 0 logs; 2 logs left as they were (above), so this run is incomplete.",
      "",
    ]);
    const json = await cli(["archive", "--dir", dir, "--before", "2026-02-08", "--json"]);
    expect(json.code).toBe(1);
    expect(json.json()).toMatchObject({ archived: [], complete: false });
  });
});

describe("big-memory replies to rejected input", () => {
  it("quote it redacted, never verbatim", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const token = `ghp_${"Qd5v".repeat(9)}`;
    const runs = [
      await cli(["delete", token, "--dir", dir]),
      await cli(["archive", "--dir", dir, "--before", token]),
      await cli(["show", token, "--dir", dir]),
      await cli(["show", `../${token}.md:3`, "--dir", dir]),
      await cli(["list", "--dir", dir, "--limit", token]),
      await cli(["list", "--dir", dir, `--token=${token}`]),
      await cli(["frobnicate", token, "--dir", dir]),
    ];
    for (const r of runs) {
      expect(r.stdout + r.stderr).not.toContain("Qd5v");
    }
    expect(runs.slice(0, 5).map((r) => r.stdout || r.stderr)).toEqual([
      'No live checkpoint named "[REDACTED:github-token]".\n',
      'big-memory: --before expects a date YYYY-MM-DD, received "[REDACTED:github-token]"\n',
      'No snapshot with id, location or name "[REDACTED:github-token]".\n',
      `big-memory: show "../[REDACTED:github-token].md:3": not read, it is outside the workspace's memory/ folder; show reads the daily logs in memory/ (memory/2026-11-22.md:14), or give a snapshot id or a checkpoint name\n`,
      'big-memory: --limit expects a whole number of at least 1, or all, received "[REDACTED:github-token]"\n',
    ]);
  });
});
