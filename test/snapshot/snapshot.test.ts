import { describe, expect, it } from "vitest";
import { emptyContent } from "../../plugin/snapshot/sections.ts";
import {
  CheckpointName,
  Snapshot,
  SnapshotContent,
  SnapshotId,
  Trigger,
} from "../../plugin/snapshot/snapshot.ts";
import { snapshot } from "../builders.ts";

const messages = (r: { success: boolean; error?: { issues: { message: string }[] } }) =>
  r.error?.issues.map((i) => i.message) ?? [];

describe("SnapshotId", () => {
  it("accepts a date and a counter of two or more digits", () => {
    expect(["2026-11-22-01", "2026-11-22-123"].map((id) => SnapshotId.safeParse(id).success)).toEqual([
      true,
      true,
    ]);
  });

  it("refuses a one-digit counter or a missing date, saying what it expected", () => {
    for (const id of ["2026-11-22-1", "22-01", "2026-11-22-01x"]) {
      expect(messages(SnapshotId.safeParse(id))).toEqual([
        "expected a snapshot id like 2026-11-22-03 (YYYY-MM-DD-NN)",
      ]);
    }
  });
});

describe("Trigger", () => {
  it("lists what can cause a snapshot", () => {
    expect(Trigger.options).toEqual([
      "flush",
      "compaction",
      "reset",
      "manual",
      "tool",
      "autosave",
      "threshold",
    ]);
    expect(Trigger.safeParse("cron").success).toBe(false);
  });
});

describe("CheckpointName", () => {
  it("accepts kebab-case names of 3 to 64 characters", () => {
    expect(
      ["abc", "auth-refactor", "v2-billing-export", "a".repeat(64)].map(
        (n) => CheckpointName.safeParse(n).success,
      ),
    ).toEqual([true, true, true, true]);
  });

  it("refuses other shapes and lengths with the rule it broke", () => {
    const kebab =
      "expected a kebab-case name of lowercase letters, digits and single hyphens, like auth-refactor";
    expect(messages(CheckpointName.safeParse("Auth_Refactor"))).toEqual([kebab]);
    expect(messages(CheckpointName.safeParse("a--b"))).toEqual([kebab]);
    expect(messages(CheckpointName.safeParse("-ab"))).toEqual([kebab]);
    expect(messages(CheckpointName.safeParse("ab"))).toEqual(["expected a name of at least 3 characters"]);
    expect(messages(CheckpointName.safeParse("a".repeat(65)))).toEqual([
      "expected a name of at most 64 characters",
    ]);
  });
});

describe("Snapshot", () => {
  it("accepts a whole snapshot", () => {
    const s = snapshot("2026-11-22-01", { files: [{ path: "a.ts", note: "" }], tombstone: true });
    expect(Snapshot.parse(s)).toEqual(s);
  });

  it("refuses another schema version, a bad id and a missing section", () => {
    const s = snapshot("2026-11-22-01");
    expect(Snapshot.safeParse({ ...s, version: 2 }).success).toBe(false);
    expect(Snapshot.safeParse({ ...s, id: "today" }).success).toBe(false);
    const { next: _, ...withoutNext } = s;
    expect(Snapshot.safeParse(withoutNext).success).toBe(false);
  });
});

describe("emptyContent", () => {
  it("is valid content with every section empty", () => {
    const c = SnapshotContent.parse(emptyContent());
    expect([c.goal, c.code, ...Object.values(c.state)]).toEqual(["", "", "", "", "", ""]);
    expect([c.files, c.decisions, c.names, c.blockers, c.next, c.extra]).toEqual([[], [], [], [], [], []]);
  });

  it("returns a new record each time", () => {
    const a = emptyContent();
    a.next.push("x");
    expect(emptyContent().next).toEqual([]);
  });
});
