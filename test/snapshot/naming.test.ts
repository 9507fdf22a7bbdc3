import { describe, expect, it } from "vitest";
import { nameProblem, suggestName } from "../../plugin/snapshot/naming.ts";

describe("nameProblem", () => {
  it("accepts kebab-case names of 3 to 64 characters", () => {
    expect(["abc", "auth-refactor", "oauth-dup-fix-2", "a".repeat(64)].map((n) => nameProblem(n))).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });

  it("refuses generic names with a suggestion drawn from the goal", () => {
    expect(nameProblem("checkpoint", "Fix the OAuth callback race")).toBe(
      'checkpoint name "checkpoint" is too generic to find again (try a name that says what the task is, like fix-the-oauth-callback-race)',
    );
    for (const generic of ["task", "work", "save", "untitled", "backup", "temp", "test", "Checkpoint"]) {
      expect(nameProblem(generic)).toMatch(/is too generic to find again/);
    }
  });

  it("refuses path-like names: names never become file paths", () => {
    for (const path of ["../etc/passwd", "a/b", "a\\b", ".hidden", "x..y"]) {
      expect(nameProblem(path)).toMatch(/looks like a path; names never become files/);
    }
  });

  it("says what is wrong with a malformed name", () => {
    expect(nameProblem("ab")).toBe(
      'checkpoint name "ab" is not valid: expected a name of at least 3 characters (try a name that says what the task is, like billing-export-fix)',
    );
    expect(nameProblem("Auth_Refactor")).toMatch(
      /^checkpoint name "Auth_Refactor" is not valid: expected a kebab-case name/,
    );
    expect(nameProblem("a".repeat(65))).toMatch(/expected a name of at most 64 characters/);
    expect(nameProblem("double--dash")).toMatch(/expected a kebab-case name/);
  });
});

describe("suggestName", () => {
  it("folds accents and punctuation into at most six words", () => {
    expect(suggestName("Réparer l'export CSV de facturation (INV-2026-00417) avant vendredi")).toBe(
      "reparer-l-export-csv-de-facturation",
    );
  });

  it("refuses a name holding a secret without quoting it, and suggests no name made from it", () => {
    const token = `ghp_${"Qd5v".repeat(9)}`;
    expect(nameProblem(token)).toBe(
      'checkpoint name "[REDACTED:github-token]" holds what looks like a secret; a name is shown in lists and replies (try a name that says what the task is, like billing-export-fix)',
    );
    expect(nameProblem(token, "Rotate the deploy key")).toMatch(/like rotate-the-deploy-key\)$/);
  });

  it("quotes a rejected name cleaned and cut, never verbatim", () => {
    const problem = nameProblem(`Bad\u202Ename\n${"x".repeat(200)}`) ?? "";
    expect(problem).not.toContain("\u202E");
    expect(problem).not.toContain("\n");
    expect(problem).toMatch(/^checkpoint name "Bad name x{38}…" is not valid/);
  });
});
