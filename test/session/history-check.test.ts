import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  claimedSnapshots,
  indexFacts,
  logFacts,
  snapshotsOf,
  verifyHistory,
} from "../../plugin/session/history-check.ts";
import { History } from "../../plugin/session/history-index.ts";
import { workspaceEachTest } from "../builders.ts";

const NOW = new Date("2026-11-25T09:00:00Z");
const LOG = "memory/2026-11-25.md";
const workspace = workspaceEachTest("history-check", NOW);
const save = workspace.save;

/** Changes a block's goal after it was written, so that its checksum no longer holds. */
async function tamper(from: string, to: string): Promise<void> {
  const path = join(workspace.dir, LOG);
  await writeFile(path, (await readFile(path, "utf8")).replace(from, to));
}

describe("verifyHistory", () => {
  it("finds no problem in blocks as written, and a checksum mismatch in one changed after", async () => {
    await save("Fix the OAuth callback");
    await save("Write the migration");
    expect(await verifyHistory(workspace.dir)).toEqual({
      checked: 2,
      files: 1,
      problems: [],
      diagnostics: [],
      strays: [],
    });
    await tamper("Write the migration", "Write the migrations");
    const report = await verifyHistory(workspace.dir);
    expect(report.problems).toEqual([
      {
        id: "2026-11-25-02",
        file: LOG,
        line: expect.any(Number),
        problem: "checksum mismatch: the block was modified after it was written",
      },
    ]);
  });
});

describe("logFacts", () => {
  it("names the newest capture, and a block whose checksum fails as a problem", async () => {
    await save("Fix the OAuth callback");
    await save("Write the migration");
    expect(await logFacts(workspace.dir)).toEqual({
      files: 1,
      snapshots: 2,
      lastCapture: { id: "2026-11-25-02", timestamp: "2026-11-25T09:00:00+00:00" },
      problems: [],
    });
    await tamper("Write the migration", "Write the migrations");
    const facts = await logFacts(workspace.dir);
    expect(facts.lastCapture?.id).toBe("2026-11-25-01");
    expect(facts.problems).toEqual([
      expect.stringMatching(/^memory\/2026-11-25\.md:\d+: checksum mismatch$/),
    ]);
  });
});

describe("indexFacts", () => {
  it("names the months not indexed yet, then counts the saved ones", async () => {
    await save("Fix the OAuth callback");
    expect(await indexFacts(workspace.dir, new Set(["2026-11"]))).toEqual({
      months: 0,
      unreadable: [],
      missing: ["2026-11"],
    });
    const history = await History.open(workspace.dir, { entriesOnly: true, skipLoad: true, warn: () => {} });
    await history.reindex();
    await history.close();
    expect(await indexFacts(workspace.dir, new Set(["2026-11"]))).toEqual({
      months: 1,
      unreadable: [],
      missing: [],
    });
  });
});

describe("claimedSnapshots and snapshotsOf", () => {
  it("read every snapshot, or only those of the refs given, oldest first", async () => {
    await save("Fix the OAuth callback");
    await save("Write the migration");
    const all = await claimedSnapshots(workspace.dir);
    expect(all.snapshots.map((s) => s.snapshot.id)).toEqual(["2026-11-25-01", "2026-11-25-02"]);
    expect(all.diagnostics).toEqual([]);
    const second = all.snapshots[1];
    if (second === undefined) throw new Error("no second snapshot");
    const { id, timestamp, session, agent, name, goal, trigger } = second.snapshot;
    const refs = [
      {
        id,
        timestamp,
        session,
        agent,
        name,
        goal,
        trigger,
        file: second.file,
        line: second.line,
        verified: true,
      },
    ];
    const some = await snapshotsOf(workspace.dir, refs);
    expect(some.snapshots.map((s) => s.snapshot.id)).toEqual(["2026-11-25-02"]);
  });

  it("names a log of the refs that cannot be read, and reads the others", async () => {
    const refs = [
      {
        id: "2026-11-24-01",
        file: "memory/2026-11-24.md",
        line: 3,
        timestamp: "2026-11-24T09:00:00+00:00",
        session: null,
        agent: null,
        name: null,
        goal: "",
        trigger: null,
        verified: null,
      },
    ];
    const read = await snapshotsOf(workspace.dir, refs);
    expect(read.snapshots).toEqual([]);
    expect(read.diagnostics).toEqual([
      { file: "memory/2026-11-24.md", line: 0, message: expect.stringMatching(/^not read: /) },
    ]);
  });
});
