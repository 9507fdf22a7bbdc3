import { describe, expect, it } from "vitest";
import { contentFromInput, formatIssues, SnapshotInput } from "../../plugin/snapshot/input.ts";
import { emptyContent } from "../../plugin/snapshot/sections.ts";

describe("contentFromInput", () => {
  it("fills every section a caller leaves out with its empty value", () => {
    expect(
      contentFromInput({ goal: "ship", state: { phase: "testing" }, files: [{ path: "a.ts" }] }),
    ).toEqual({
      ok: true,
      content: {
        ...emptyContent(),
        goal: "ship",
        state: { phase: "testing", branch: "", blocked: "", progress: "" },
        files: [{ path: "a.ts", note: "" }],
      },
    });
  });

  it("keeps a name without label and a decision without rationale as empty strings", () => {
    const r = contentFromInput({ names: [{ value: "ERR_X" }], decisions: [{ text: "retry" }] });
    expect(r).toEqual({
      ok: true,
      content: {
        ...emptyContent(),
        names: [{ label: "", value: "ERR_X" }],
        decisions: [{ text: "retry", rationale: "" }],
      },
    });
  });

  it("accepts and ignores the reference fields of show --json output", () => {
    const shown = {
      id: "2026-11-22-01",
      timestamp: "2026-11-22T10:00:00+00:00",
      file: "memory/2026-11-22.md",
      line: 5,
      session: "agent:main:main",
      agent: "main",
      trigger: "manual",
      name: "auth-fix",
      verified: true,
      score: 3.2,
      version: 1,
      parent: null,
      tombstone: false,
      goal: "ship",
    };
    expect(contentFromInput(shown)).toEqual({ ok: true, content: { ...emptyContent(), goal: "ship" } });
  });

  it("refuses an empty snapshot, also when every section is present but empty", () => {
    const error = "the snapshot is empty (expected at least a goal, a next step or another section)";
    expect(contentFromInput({})).toEqual({ ok: false, error });
    expect(contentFromInput({ goal: "", state: { phase: "" }, next: [], code: "" })).toEqual({
      ok: false,
      error,
    });
  });

  it("counts any one non-empty section as content", () => {
    expect(contentFromInput({ code: "x" }).ok).toBe(true);
    expect(contentFromInput({ state: { progress: "half" } }).ok).toBe(true);
    expect(contentFromInput({ extra: [{ heading: "Notes", body: "" }] }).ok).toBe(true);
  });

  it("names a misspelt key and lists the keys it expected", () => {
    expect(contentFromInput({ goal: "x", nextSteps: ["a"] })).toEqual({
      ok: false,
      error:
        'unknown key "nextSteps" (expected goal, state, files, decisions, code, names, blockers, next, extra)',
    });
  });

  it("names an unknown key inside a nested object by its path", () => {
    expect(contentFromInput({ state: { phase: "x", stage: "y", step: 1 } })).toEqual({
      ok: false,
      error: 'state: unknown keys "stage", "step" (expected phase, branch, blocked, progress)',
    });
  });

  it("lists the keys of the object the unknown key is in, in a list item too", () => {
    const error = (input: unknown) => {
      const result = contentFromInput(input);
      return result.ok ? "" : result.error;
    };
    expect(error({ files: [{ path: "a.ts" }, { path: "b.ts", notes: "x" }] })).toBe(
      'files[1]: unknown key "notes" (expected path, note)',
    );
    expect(error({ decisions: [{ text: "x", why: "y" }] })).toBe(
      'decisions[0]: unknown key "why" (expected text, rationale)',
    );
    expect(error({ names: [{ name: "Table", value: "t" }] })).toBe(
      'names[0]: unknown key "name" (expected label, value)',
    );
    expect(error({ extra: [{ heading: "H", title: "T", body: "b" }] })).toBe(
      'extra[0]: unknown key "title" (expected heading, body)',
    );
  });

  it("refuses a value of the wrong type, naming where it is, expected and received", () => {
    expect(contentFromInput({ goal: "x", files: [{ path: 3 }] })).toEqual({
      ok: false,
      error: "files[0].path: expected string, received number",
    });
    expect(contentFromInput("just text")).toEqual({ ok: false, error: "expected object, received string" });
  });

  it("refuses a value over its length limit and a list over 200 items", () => {
    expect(contentFromInput({ goal: "x".repeat(4001) })).toEqual({
      ok: false,
      error: "goal: expected at most 4000 characters",
    });
    expect(contentFromInput({ next: Array.from({ length: 201 }, () => "x") })).toEqual({
      ok: false,
      error: "next: expected at most 200 items",
    });
    expect(contentFromInput({ goal: "x".repeat(4000) }).ok).toBe(true);
  });
});

describe("formatIssues", () => {
  it("writes every issue on its own line", () => {
    const parsed = SnapshotInput.safeParse({ goal: 1, blockers: [2] });
    expect(parsed.success).toBe(false);
    expect(parsed.error && formatIssues(parsed.error)).toBe(
      "goal: expected string, received number\nblockers[0]: expected string, received number",
    );
  });
});
