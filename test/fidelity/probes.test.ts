import { describe, expect, it } from "vitest";
import { probe } from "./probes.ts";
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
});
