import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyTally } from "../../plugin/search/tally.ts";
import { styleFor } from "../../plugin/surface/cli-text.ts";
import {
  journalCheck,
  journalStatusFields,
  journalSummary,
  lostFromJournal,
  unverifiedCaptures,
} from "../../plugin/surface/journal-view.ts";
import { cli, SAVE_INPUT, workspaces } from "./cli-harness.ts";

const workspace = workspaces();
const LOG = "memory/2026-11-22.md";
const plain = styleFor(false);

describe("journalSummary, journalCheck and journalStatusFields", () => {
  it("say every log holds its blocks, then name the log that lost them with the fix", async () => {
    const dir = workspace();
    await cli(["save", "--dir", dir, "--name", "oauth-fix"], { stdin: JSON.stringify(SAVE_INPUT) });
    const whole = await journalSummary(dir);
    expect(whole).toEqual({ summary: { days: 1, blocks: 1, incidents: [] }, diagnostics: [] });
    expect(journalCheck(whole.summary)).toEqual({
      name: "daily logs vs journal",
      status: "ok",
      detail: "1 block kept in .big-memory/journal/ for 1 day; every daily log holds them",
      fix: null,
    });
    expect(journalStatusFields(whole.summary, emptyTally(), plain)).toEqual([
      ["journal", "1 block kept for 1 day; every daily log holds them"],
    ]);
    writeFileSync(join(dir, LOG), "");
    const lost = await journalSummary(dir);
    expect(lost.summary.incidents.map((i) => [i.file, i.lost, i.unrecoverable])).toEqual([
      [LOG, ["2026-11-22-01"], []],
    ]);
    expect(journalCheck(lost.summary)).toMatchObject({
      status: "warn",
      detail: lost.summary.incidents[0]?.message,
    });
  });
});

describe("unverifiedCaptures", () => {
  it("names each suspect block as a diagnostic with its place", () => {
    const tally = emptyTally();
    tally.unverifiedCaptures = 1;
    tally.suspects = [
      { id: "2026-11-22-02", timestamp: "t", time: 1, file: LOG, line: 40, session: null, trigger: "reset" },
    ];
    expect(unverifiedCaptures(tally)).toEqual([
      {
        file: LOG,
        line: 40,
        id: "2026-11-22-02",
        message:
          "snapshot 2026-11-22-02 says trigger reset, but its checksum is missing or does not match and no claim gives it to a session: not counted as a capture (big-memory verify)",
      },
    ]);
  });
});

describe("lostFromJournal", () => {
  it("finds a lost snapshot by id or name, but never a name a log still holds (deleted stays deleted)", async () => {
    const dir = workspace();
    await cli(["save", "--dir", dir, "--name", "oauth-fix"], { stdin: JSON.stringify(SAVE_INPUT) });
    expect(await lostFromJournal(dir, "2026-11-22-01")).toBeNull();
    writeFileSync(join(dir, LOG), "");
    expect((await lostFromJournal(dir, "2026-11-22-01"))?.found.snapshot.name).toBe("oauth-fix");
    expect((await lostFromJournal(dir, "oauth-fix"))?.warning).toBe(
      `${LOG} no longer holds snapshot 2026-11-22-01: shown from big-memory's journal (big-memory repair appends it again)`,
    );
    expect(await lostFromJournal(dir, "oauth-fix", "agent:other:main")).toBeNull();
  });

  it("leaves a deleted name deleted when the log of its older version lost it", async () => {
    const dir = workspace();
    const day1 = new Date("2026-11-21T12:00:00Z");
    await cli(["save", "--dir", dir, "--name", "oauth-fix"], {
      stdin: JSON.stringify(SAVE_INPUT),
      now: day1,
    });
    expect((await cli(["delete", "oauth-fix", "--dir", dir])).code).toBe(0);
    writeFileSync(join(dir, "memory/2026-11-21.md"), "");
    expect((await lostFromJournal(dir, "2026-11-21-01"))?.found.snapshot.name).toBe("oauth-fix");
    expect(await lostFromJournal(dir, "oauth-fix")).toBeNull();
  });
});
