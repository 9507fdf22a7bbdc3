import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { ARCHIVE_GITIGNORE, archiveBefore } from "../../plugin/store/archive.ts";
import { scrubWorkspace } from "../../plugin/store/scrub.ts";
import { snapshot } from "../builders.ts";
import { OWN_LINES, writeRealWorkspace } from "./fixtures/real-workspace.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A snapshot of `goal` with one next step. */
const snap = (id: string, goal: string) => snapshot(id, { goal, next: [`continue ${goal}`] });

function workspace(logs: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "big-memory-archive-"));
  dirs.push(dir);
  mkdirSync(join(dir, "memory"));
  for (const [date, text] of Object.entries(logs)) writeFileSync(join(dir, "memory", `${date}.md`), text);
  return dir;
}

const ids = (text: string, file: string) => parseDailyLog(text, file).snapshots.map((s) => s.snapshot.id);
const read = (dir: string, rel: string) => readFileSync(join(dir, rel), "utf8");

describe("archiveBefore", () => {
  it("moves old logs' blocks to memory/.big-memory-archive/, keeps notes in place, and loses nothing", async () => {
    const notes = "# 2026-10-01\n\nMet with Sam about the billing export.\n\n";
    const oct1 = `${notes}${renderSnapshot(snap("2026-10-01-01", "billing export"))}\nAfternoon: nothing else.\n\n${renderSnapshot(snap("2026-10-01-02", "billing export v2"))}`;
    const oct2 = renderSnapshot(snap("2026-10-02-01", "oauth fix"));
    const nov = renderSnapshot(snap("2026-11-20-01", "recent work"));
    const dir = workspace({ "2026-10-01": oct1, "2026-10-02": oct2, "2026-11-20": nov });
    const result = await archiveBefore(dir, "2026-11-01");
    expect(result).toEqual({
      archived: [
        {
          file: "memory/2026-10-01.md",
          archive: "memory/.big-memory-archive/2026-10-01.md",
          snapshots: 2,
          removed: false,
        },
        {
          file: "memory/2026-10-02.md",
          archive: "memory/.big-memory-archive/2026-10-02.md",
          snapshots: 1,
          removed: true,
        },
      ],
      problems: [],
      strays: [],
    });
    expect(read(dir, "memory/2026-10-01.md")).toBe(`${notes}\nAfternoon: nothing else.\n\n`);
    expect(existsSync(join(dir, "memory/2026-10-02.md"))).toBe(false);
    expect(read(dir, "memory/2026-11-20.md")).toBe(nov);
    expect(ids(read(dir, "memory/.big-memory-archive/2026-10-01.md"), "a")).toEqual([
      "2026-10-01-01",
      "2026-10-01-02",
    ]);
    expect(
      parseDailyLog(read(dir, "memory/.big-memory-archive/2026-10-02.md"), "a").snapshots.map((s) => [
        s.snapshot,
        s.verified,
      ]),
    ).toEqual([[snap("2026-10-02-01", "oauth fix"), true]]);
  });

  it("leaves a log untouched when its blocks would not read back identically", async () => {
    const tricky =
      "<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-10-03-01 -->\n### [SNAPSHOT] Active Goal\nexplain markers\n### [SNAPSHOT] Code Context\n```\n<!-- /BIG-MEMORY-SNAPSHOT -->\n```\n### [SNAPSHOT] Next Steps\n1. go on\n<!-- /BIG-MEMORY-SNAPSHOT -->\n";
    const dir = workspace({ "2026-10-03": tricky });
    const result = await archiveBefore(dir, "2026-11-01");
    expect(result).toEqual({
      archived: [],
      problems: [
        {
          file: "memory/2026-10-03.md",
          problem:
            "not archived: its blocks do not read back identically on their own (a block that runs into the next); run big-memory verify to see which, and fix the block by hand",
        },
      ],
      strays: [],
    });
    expect(read(dir, "memory/2026-10-03.md")).toBe(tricky);
  });

  it("keeps a torn block in the log and archives the intact ones", async () => {
    const torn =
      "<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-10-04-02 -->\n### [SNAPSHOT] Active Goal\nhalf written";
    const text = `${renderSnapshot(snap("2026-10-04-01", "intact"))}\n${torn}`;
    const dir = workspace({ "2026-10-04": text });
    const result = await archiveBefore(dir, "2026-10-05");
    expect(result.archived).toEqual([
      {
        file: "memory/2026-10-04.md",
        archive: "memory/.big-memory-archive/2026-10-04.md",
        snapshots: 1,
        removed: false,
      },
    ]);
    expect(read(dir, "memory/2026-10-04.md")).toBe(`\n${torn}`);
  });

  it("archives nothing when no log is older than the date", async () => {
    const dir = workspace({ "2026-11-20": renderSnapshot(snap("2026-11-20-01", "x")) });
    expect(await archiveBefore(dir, "2026-11-01")).toEqual({ archived: [], problems: [], strays: [] });
  });
});

describe("archiveBefore on a workspace shaped like a real one", () => {
  function realWorkspace(): string {
    const dir = mkdtempSync(join(tmpdir(), "big-memory-archive-real-"));
    dirs.push(dir);
    writeRealWorkspace(dir);
    return dir;
  }

  it("moves the blocks of dated variants too, each into its own name, and names the log holding a secret with its fix", async () => {
    const dir = realWorkspace();
    // A variant whose block holds no secret, beside the fixture's two logs whose blocks do.
    const slug = `# Quartalsbericht\n\n${renderSnapshot(snap("2026-02-07-03", "quarterly report"))}`;
    writeFileSync(join(dir, "memory", "2026-02-07-quarterly-report.md"), slug);
    const result = await archiveBefore(dir, "2026-02-08");
    expect(result.archived).toEqual([
      {
        file: "memory/2026-02-07-quarterly-report.md",
        archive: "memory/.big-memory-archive/2026-02-07-quarterly-report.md",
        snapshots: 1,
        removed: false,
      },
    ]);
    const fix =
      "not archived: its snapshot blocks hold a value that redaction removes (a secret written before the current rules); run big-memory scrub --logs to see them and --logs --apply to redact them, then archive again";
    expect(result.problems).toEqual([
      { file: "memory/2026-02-07.md", problem: fix },
      { file: "memory/2026-02-07-0431.md", problem: fix },
    ]);
    expect(result.strays.map((d) => d.file)).toEqual(["memory/archive/", "memory/daily/"]);
    expect(read(dir, "memory/2026-02-07-quarterly-report.md")).toBe("# Quartalsbericht\n\n");
    expect(ids(read(dir, "memory/.big-memory-archive/2026-02-07-quarterly-report.md"), "a")).toEqual([
      "2026-02-07-03",
    ]);
    // Once scrubbed, the same logs archive; the person's own lines stay in the log.
    await scrubWorkspace(dir, { logs: true, apply: true });
    const again = await archiveBefore(dir, "2026-02-08");
    expect([again.archived.map((a) => [a.file, a.archive, a.removed]), again.problems]).toEqual([
      [
        ["memory/2026-02-07.md", "memory/.big-memory-archive/2026-02-07.md", false],
        ["memory/2026-02-07-0431.md", "memory/.big-memory-archive/2026-02-07-0431.md", false],
      ],
      [],
    ]);
    for (const line of OWN_LINES) expect(read(dir, "memory/2026-02-07.md")).toContain(line);
    expect(read(dir, "memory/2026-02-07-0431.md")).toContain("- **Session Key**: agent:main:main");
  });

  it("gives the archive folder a .gitignore, so git add -A stages none of it", async () => {
    const dir = workspace({ "2026-10-02": renderSnapshot(snap("2026-10-02-01", "oauth fix")) });
    writeFileSync(join(dir, "memory", "2026-10-03.md"), "# my notes\n");
    await archiveBefore(dir, "2026-11-01");
    expect(read(dir, "memory/.big-memory-archive/.gitignore")).toBe(ARCHIVE_GITIGNORE);
    const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" });
    git("init", "-q");
    git("add", "-A");
    expect(
      git("diff", "--cached", "--name-only")
        .split("\n")
        .filter((l) => l !== ""),
    ).toEqual(["memory/2026-10-03.md"]);
  });

  it("names a log it does not read (a FIFO) and refuses an archive folder that is a link", async () => {
    const dir = workspace({ "2026-10-02": renderSnapshot(snap("2026-10-02-01", "oauth fix")) });
    execFileSync("mkfifo", [join(dir, "memory", "2026-10-04.md")]);
    const result = await archiveBefore(dir, "2026-11-01");
    expect(result.archived.map((a) => a.file)).toEqual(["memory/2026-10-02.md"]);
    expect(result.problems).toEqual([
      {
        file: "memory/2026-10-04.md",
        problem:
          "not archived: memory/2026-10-04.md is not read: it is a FIFO (named pipe), not a regular file; move it out of memory/; its snapshots are left out",
      },
    ]);
    const other = workspace({ "2026-10-02": renderSnapshot(snap("2026-10-02-01", "oauth fix")) });
    const outside = mkdtempSync(join(tmpdir(), "big-memory-archive-out-"));
    dirs.push(outside);
    symlinkSync(outside, join(other, "memory", ".big-memory-archive"));
    await expect(archiveBefore(other, "2026-11-01")).rejects.toThrow(
      "big-memory: refusing to archive into memory/.big-memory-archive: it is a link; move it away (big-memory creates the folder)",
    );
    expect(readdirSync(outside)).toEqual([]);
  });
});
