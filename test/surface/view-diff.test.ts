import { describe, expect, it } from "vitest";
import { failuresOf, snapshotDiff } from "../../plugin/surface/view-diff.ts";
import { snapshot } from "../builders.ts";

const before = snapshot("2026-11-24-01", {
  goal: "Fix ERR_DUPLICATE_KEY",
  state: { phase: "debugging", branch: "b", blocked: "no", progress: "" },
  files: [
    { path: "src/a.ts", note: "" },
    { path: "src/gone.ts", note: "" },
  ],
  decisions: [
    { text: "Keep the old API", rationale: "" },
    { text: "Use a unique index", rationale: "" },
  ],
  blockers: ["`npm test` failed: ERR_OLD"],
  next: ["Write the migration", "Re-run the e2e"],
});

describe("snapshotDiff", () => {
  it("tells a changed goal, files added and gone, new and resolved failures, decisions, next steps done", () => {
    const after = snapshot("2026-11-25-01", {
      goal: "Ship the migration",
      state: { phase: "testing", branch: "b", blocked: "yes -- the migration lock", progress: "" },
      files: [
        { path: "src/a.ts", note: "changed note" },
        { path: "migrations/1.sql", note: "" },
      ],
      decisions: [
        { text: "use a  UNIQUE index", rationale: "case and spaces do not count" },
        { text: "Add a retry", rationale: "" },
      ],
      blockers: ["`npm test` failed: ERR_MIGRATION_LOCK"],
      next: ["Re-run the e2e", "Deploy"],
    });
    expect(snapshotDiff(before, after)).toEqual({
      from: "2026-11-24-01",
      goal: "Fix ERR_DUPLICATE_KEY",
      filesAdded: ["migrations/1.sql"],
      filesGone: ["src/gone.ts"],
      failuresNew: ["`npm test` failed: ERR_MIGRATION_LOCK", "yes -- the migration lock"],
      failuresResolved: ["`npm test` failed: ERR_OLD"],
      decisionsAdded: ["Add a retry"],
      decisionsDropped: ["Keep the old API"],
      nextDone: ["Write the migration"],
      nextNew: ["Deploy"],
    });
  });

  it("is null when nothing the timeline shows changed (notes, case and spacing aside)", () => {
    const same = snapshot("2026-11-25-01", {
      ...before,
      id: "2026-11-25-01",
      goal: "  fix err_duplicate_key ",
      files: before.files.map((f) => ({ ...f, note: "another note" })),
    });
    expect(snapshotDiff(before, same)).toBeNull();
  });

  it("escapes control and bidirectional characters of what it reports", () => {
    const after = snapshot("2026-11-25-01", {
      ...before,
      id: "2026-11-25-01",
      next: ["Deploy\u202e now\u0007"],
    });
    expect(snapshotDiff(before, after)?.nextNew).toEqual(["Deploy\\u202e now\\u0007"]);
  });
});

describe("failuresOf", () => {
  it("lists the blockers and a Current State that says it is blocked", () => {
    expect(failuresOf(snapshot("2026-11-25-01", { blockers: ["x"] }))).toEqual(["x"]);
    const blocked = snapshot("2026-11-25-01", {
      state: { phase: "", branch: "", blocked: "Yes: waiting for access", progress: "" },
    });
    expect(failuresOf(blocked)).toEqual(["Yes: waiting for access"]);
    const free = snapshot("2026-11-25-01", { state: { phase: "", branch: "", blocked: "no", progress: "" } });
    expect(failuresOf(free)).toEqual([]);
  });
});
