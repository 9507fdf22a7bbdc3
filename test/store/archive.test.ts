import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { archiveBefore } from "../../plugin/store/archive.ts";
import { snapshot } from "../builders.ts";

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
          problem: "not archived: its blocks do not read back identically on their own",
        },
      ],
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
    expect(await archiveBefore(dir, "2026-11-01")).toEqual({ archived: [], problems: [] });
  });
});
