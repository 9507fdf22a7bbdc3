import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { runScrub, scrubText } from "../../plugin/surface/cli-scrub.ts";
import { styleFor } from "../../plugin/surface/cli-text.ts";
import { snapshot } from "../builders.ts";
import { cli, SKILL_LOG, workspaces } from "./cli-harness.ts";

const workspace = workspaces();
const NOW = new Date("2026-11-22T12:00:00Z");

describe("big-memory scrub", () => {
  it("reports what it redacted in big-memory's files, shows what --logs would change, and changes it with --apply", async () => {
    const token = `ghp_${"Ws3c".repeat(9)}`;
    const block = renderSnapshot(
      snapshot("2026-11-22-01", { trigger: "compaction", goal: `Push with ${token}` }),
    );
    const log = `# notes\nGITHUB_TOKEN=${token}\n\n${block}`;
    const dir = workspace({
      "memory/2026-11-22.md": log,
      ".big-memory/sessions/agent-main-main-0123456789.json": `{"version":1,"ask":"use ${token}"}\n`,
    });
    const first = await cli(["scrub", "--dir", dir]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      "Redacted 1 value in big-memory's files:\n  .big-memory/sessions/agent-main-main-0123456789.json: 1 (github-token 1)",
    );
    expect(first.stdout).toContain("fixed: .big-memory/.gitignore written");
    expect(first.stdout).not.toContain(token);
    expect(readFileSync(join(dir, "memory/2026-11-22.md"), "utf8")).toBe(log);

    const preview = await cli(["scrub", "--dir", dir, "--logs"]);
    expect(preview.code).toBe(0);
    expect(preview.stdout.split("\n").slice(1)).toEqual([
      "Would redact 1 value in 1 snapshot block of 1 daily log (github-token 1); lines outside the blocks are never changed:",
      "  memory/2026-11-22.md:8  2026-11-22-01  1 (github-token 1)",
      "Nothing in memory/ was changed. Run the same command with --apply to rewrite these blocks (the original logs are kept in .big-memory/scrub-backup/).",
      "",
    ]);
    expect(readFileSync(join(dir, "memory/2026-11-22.md"), "utf8")).toBe(log);

    const applied = await cli(["scrub", "--dir", dir, "--logs", "--apply", "--json"]);
    expect(applied.code).toBe(0);
    expect(applied.json()).toMatchObject({
      applied: true,
      logs: [{ file: "memory/2026-11-22.md", blocks: [{ line: 8, id: "2026-11-22-01", total: 1 }] }],
      files: [
        { file: "memory/2026-11-22.md", total: 1, redactions: { "github-token": 1 }, rechecksummed: 1 },
      ],
      backup: ".big-memory/scrub-backup/2026-11-22T12-00-00-000Z",
    });
    expect(applied.stdout).not.toContain(token);
    const after = readFileSync(join(dir, "memory/2026-11-22.md"), "utf8");
    // The person's own line keeps what they wrote; the block no longer holds the token.
    expect(after.startsWith(`# notes\nGITHUB_TOKEN=${token}\n\n`)).toBe(true);
    expect(after.split(token).length).toBe(2);
  });

  it("refuses --apply without --logs as a usage error", async () => {
    const r = await cli(["scrub", "--dir", workspace(), "--apply"]);
    expect([r.code, r.stderr]).toEqual([
      2,
      "big-memory: --apply goes with --logs: scrub --logs shows what it would change, --logs --apply changes it\n",
    ]);
  });
});

describe("runScrub", () => {
  it("rebuilds the search index it removed from redacted reads and says how many snapshots it holds", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    expect((await cli(["reindex", "--dir", dir])).code).toBe(0);
    const report = await runScrub(dir, { logs: false, now: NOW });
    expect([report.indexRemoved, report.reindexed]).toEqual([true, 2]);
  });

  it("reports no reindex when there was no index to remove", async () => {
    const report = await runScrub(workspace(), { logs: false, now: NOW });
    expect([report.indexRemoved, report.reindexed, report.total]).toEqual([false, null, 0]);
  });
});

describe("scrubText", () => {
  const empty = {
    files: [],
    fixed: [],
    indexRemoved: false,
    logs: [],
    logsChecked: null,
    applied: false,
    problems: [],
    strays: [],
    backup: null,
    counts: {},
    total: 0,
    reindexed: null,
  };

  it("says when there was nothing to redact", () => {
    expect(scrubText(empty, styleFor(false))).toBe("No secrets found in big-memory's files.");
  });

  it("lists each file with its kinds, the blocks rewritten, renewed checksums, fixes, the rebuilt index and the backup to delete", () => {
    const text = scrubText(
      {
        ...empty,
        logs: [
          {
            file: "memory/2026-11-22.md",
            blocks: [{ line: 14, id: "2026-11-22-01", redactions: { "github-token": 2 }, total: 2 }],
            redactions: { "github-token": 2 },
            total: 2,
          },
        ],
        logsChecked: 3,
        applied: true,
        problems: [
          {
            file: "memory/2026-11-23.md",
            line: 0,
            message: "memory/2026-11-23.md is not read: it is a FIFO",
          },
        ],
        files: [
          { file: "memory/2026-11-22.md", redactions: { "github-token": 2 }, total: 2, rechecksummed: 1 },
          { file: ".big-memory/restore-log.jsonl", redactions: { "stripe-key": 1 }, total: 1 },
        ],
        fixed: [".big-memory made private (0700)"],
        indexRemoved: true,
        backup: ".big-memory/scrub-backup/2026-11-22T12-00-00-000Z",
        counts: { "github-token": 2, "stripe-key": 1 },
        total: 3,
        reindexed: 4,
      },
      styleFor(false),
    );
    expect(text.split("\n")).toEqual([
      "Redacted 1 value in big-memory's files:",
      "  .big-memory/restore-log.jsonl: 1 (stripe-key 1)",
      "  fixed: .big-memory made private (0700)",
      "  search index rebuilt from redacted reads (4 snapshots)",
      "Redacted 2 values in 1 snapshot block of 1 daily log (github-token 2); lines outside the blocks are left as written:",
      "  memory/2026-11-22.md:14  2026-11-22-01  2 (github-token 2)",
      "  memory/2026-11-22.md: 1 block checksum renewed",
      "not scrubbed: memory/2026-11-23.md is not read: it is a FIFO",
      "The original daily logs were copied to .big-memory/scrub-backup/2026-11-22T12-00-00-000Z/ (private, git-ignored) and still hold the secrets: check the logs, then delete that folder.",
    ]);
  });
});
