import { describe, expect, it } from "vitest";
import { diagnose, probe } from "./probes.ts";
import type { Truth } from "./truth.ts";

const TRUTH: Truth = {
  cut: 10,
  goalWords: ["queryset.union", "fielderror", "query.py", "raises"],
  files: ["django/db/models/query.py", "tests/test_union.py"],
  failure: {
    command: "pytest tests/test_union.py::test_x",
    targets: ["tests/test_union.py::test_x"],
    identifiers: ["FieldError"],
  },
  next: { kind: "file", path: "django/db/models/sql/compiler.py" },
  firstAction: { kind: "file", path: "django/db/models/sql/compiler.py" },
};

describe("probe", () => {
  it("names what the restore mentions, case-insensitively, files by base name", () => {
    const restore =
      "## Goal\nFix QuerySet.union() raising FieldError in query.py\n## Files\n- `/ws/django/db/models/query.py`\n- `tests/test_union.py`\n## Blockers\n- `tests/test_union.py::test_x` failed\n## Next\n1. Read compiler.py";
    expect(probe(restore, TRUTH)).toEqual({
      goal: "named",
      files: "named",
      failure: "named",
      command: "named",
      next: "named",
    });
  });

  it("misses what the restore leaves out and has no verdict without truth", () => {
    expect(probe("## Goal\nFix union", { ...TRUTH, failure: null })).toEqual({
      goal: "missed",
      files: "missed",
      failure: null,
      command: null,
      next: "missed",
    });
  });

  it("reads the restore's commands as the truth keys them (`2>&1` dropped)", () => {
    const truth: Truth = {
      ...TRUTH,
      failure: { command: 'pip install sloth | tail -3 && python3 -c "', targets: [], identifiers: [] },
    };
    const restore = '## Blockers\n- `pip install sloth 2>&1 | tail -3 && python3 -c " … print(s)` failed';
    expect(probe(restore, truth).command).toBe("named");
    expect(probe("## Blockers\n- `pip install other` failed", truth).command).toBe("missed");
  });
});

describe("diagnose", () => {
  it("finds the next action in Next steps, a grep exit among the blockers, and an open failure with no blockers", () => {
    const restore =
      "x\n## Blockers\n- `grep -n foo src/a.ts` failed (exit 1)\n## Next steps\n1. Read compiler.py\n</big-memory-snapshot-1>";
    expect(diagnose(restore, TRUTH)).toEqual({
      nextInNextSteps: "named",
      firstAction: "named",
      searchBlocker: true,
      failureWithoutBlockers: false,
    });
    expect(diagnose("x\n## Files in play\n- compiler.py", TRUTH)).toEqual({
      nextInNextSteps: "missed",
      firstAction: "named",
      searchBlocker: false,
      failureWithoutBlockers: true,
    });
  });
});
