import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runScrub, scrubText } from "../../plugin/surface/cli-scrub.ts";
import { styleFor } from "../../plugin/surface/cli-text.ts";
import { cli, SKILL_LOG, workspaces } from "./cli-harness.ts";

const workspace = workspaces();
const NOW = new Date("2026-11-22T12:00:00Z");

describe("big-memory scrub", () => {
  it("reports what it redacted in big-memory's files, and touches logs only with --logs", async () => {
    const token = `ghp_${"Ws3c".repeat(9)}`;
    const log = `# notes\nGITHUB_TOKEN=${token}\n`;
    const dir = workspace({
      "memory/2026-11-22.md": log,
      ".big-memory/sessions/agent-main-main-0123456789.json": `{"version":1,"ask":"use ${token}"}\n`,
    });
    const first = await cli(["scrub", "--dir", dir]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      "Redacted 1 value (github-token 1):\n  .big-memory/sessions/agent-main-main-0123456789.json: 1 (github-token 1)",
    );
    expect(first.stdout).toContain("fixed: .big-memory/.gitignore written");
    expect(first.stdout).not.toContain(token);
    expect(readFileSync(join(dir, "memory/2026-11-22.md"), "utf8")).toBe(log);
    const second = await cli(["scrub", "--dir", dir, "--logs", "--json"]);
    expect(second.code).toBe(0);
    expect(second.json()).toMatchObject({
      files: [{ file: "memory/2026-11-22.md", total: 1, redactions: { "github-token": 1 } }],
      backup: ".big-memory/scrub-backup/2026-11-22T12-00-00-000Z",
    });
    expect(readFileSync(join(dir, "memory/2026-11-22.md"), "utf8")).toBe(
      "# notes\nGITHUB_TOKEN=[REDACTED:github-token]\n",
    );
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
    backup: null,
    counts: {},
    total: 0,
    reindexed: null,
  };

  it("says when there was nothing to redact", () => {
    expect(scrubText(empty, styleFor(false))).toBe("No secrets found in big-memory's files.");
  });

  it("lists each file with its kinds, renewed checksums, fixes, the rebuilt index and the backup to delete", () => {
    const text = scrubText(
      {
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
      "Redacted 3 values (github-token 2, stripe-key 1):",
      "  memory/2026-11-22.md: 2 (github-token 2); 1 block checksum renewed",
      "  .big-memory/restore-log.jsonl: 1 (stripe-key 1)",
      "  fixed: .big-memory made private (0700)",
      "  search index rebuilt from redacted reads (4 snapshots)",
      "The original daily logs were copied to .big-memory/scrub-backup/2026-11-22T12-00-00-000Z/ (private, git-ignored) and still hold the secrets: check the logs, then delete that folder.",
    ]);
  });
});
