import { describe, expect, it } from "vitest";
import type { RealSession, SessionEvent, ToolEvent } from "./session.ts";
import {
  commandKey,
  commandSteps,
  commandTargets,
  distinctiveWords,
  editedFiles,
  firstAction,
  foreseeable,
  identifiersOf,
  isFailure,
  nextAction,
  openFailure,
  taskBody,
  truthAt,
} from "./truth.ts";

const exec = (command: string, exitCode: number, output = ""): ToolEvent => ({
  kind: "tool",
  tool: "exec",
  params: { command },
  output,
  failed: exitCode !== 0,
  exitCode,
});
const edit = (path: string, failed = false): SessionEvent => ({
  kind: "tool",
  tool: "edit",
  params: { path },
  output: "",
  failed,
  exitCode: null,
});
const session = (events: SessionEvent[]): RealSession => ({
  id: "s",
  source: "src",
  format: "pi",
  cwd: "/w",
  events,
});

describe("taskBody", () => {
  it("takes a slash-command template's task section and drops the transcript pointer", () => {
    const template =
      "## Context\n\n- Current git status: modified: 2026-02-10_21-49-42Z-insights.md\n\n## Your task\n\nReview the change.";
    expect(taskBody(template)).toBe("## Your task\n\nReview the change.");
    const plan =
      "Implement the plan: add watchCommand.\n\nIf you need specific details from before exiting plan mode (like exact code snippets), read the full transcript at: /u/.claude/projects/x/7018fed7-d54a.jsonl";
    expect(taskBody(plan)).not.toContain("7018fed7");
    expect(distinctiveWords(taskBody(plan))).not.toContain("7018fed7-d54a.jsonl");
  });
});

describe("distinctiveWords", () => {
  it("keeps identifiers first and drops template and stop words", () => {
    expect(
      distinctiveWords(
        "<pr_description> Consider the following PR description: please fix the issue where QuerySet.union() raises FieldError in django/db/models/query.py",
      ),
    ).toEqual(["queryset.union", "fielderror", "query.py", "raises"]);
  });
});

describe("commandKey", () => {
  it("drops cd, environment assignments, timeout and trailing head or tail pipes", () => {
    expect(
      commandKey("cd /testbed && CI=1 timeout 60 pytest tests/test_x.py::test_y -q 2>&1 | tail -20"),
    ).toBe("pytest tests/test_x.py::test_y -q");
    expect(commandKey('python -c "\nimport x\n"')).toBe('python -c "');
    // Output trimming inside a remote command's quotes is plumbing too.
    expect(commandKey('ssh root@h "ls -la /tmp/logs/ && cat /tmp/logs/*.csv 2>/dev/null | tail -5"')).toBe(
      'ssh root@h "ls -la /tmp/logs/ && cat /tmp/logs/*.csv 2>/dev/null"',
    );
  });
});

describe("commandSteps", () => {
  it("keys the steps that decide the exit: && steps after the last ; or ||, setup and sudo dropped", () => {
    expect(commandSteps("source .venv/bin/activate && ty check review_tool/ 2>&1")).toEqual([
      "ty check review_tool/",
    ]);
    expect(
      commandSteps(
        "sudo ctr images rm a:0.3.8 2>/dev/null; juju refresh app --path=./app.charm && kubectl delete pod app-0",
      ),
    ).toEqual(["juju refresh app --path=./app.charm", "kubectl delete pod app-0"]);
    expect(commandSteps('make build || echo "no make"')).toEqual(['echo "no make"']);
    expect(commandSteps("cd /w")).toEqual(["cd /w"]);
  });
});

describe("commandTargets", () => {
  it("names the files and test ids a command runs", () => {
    expect(commandTargets("npx vitest run test/a.test.ts -t login")).toEqual(["test/a.test.ts"]);
    expect(commandTargets("pytest tests/test_x.py::test_y")).toEqual(["tests/test_x.py::test_y"]);
  });
});

describe("isFailure", () => {
  it("takes exit 1 of grep, find or diff as an answer and other non-zero exits as failures", () => {
    expect(isFailure(exec("grep -rn foo src", 1))).toBe(false);
    expect(isFailure(exec("diff a b", 1))).toBe(false);
    expect(isFailure(exec("grep -rn foo src", 2))).toBe(true);
    expect(isFailure(exec("npm test", 1))).toBe(true);
    expect(isFailure(exec("ls -la pi-skills/", 2))).toBe(false);
  });
});

describe("openFailure", () => {
  it("returns the last failure not healed by a later success of the same command", () => {
    const s = session([
      exec("npm test", 1, "AssertionError"),
      exec("npm run lint", 1, "lint error"),
      exec("cd /w && npm run lint", 0),
      exec("grep -rn x src", 1),
    ]);
    expect(openFailure(s, 4)).toMatchObject({ params: { command: "npm test" } });
    expect(openFailure(s, 2)).toMatchObject({ params: { command: "npm run lint" } });
  });

  // The shapes of real sessions: a type check that failed alone and passed inside a longer chain; a lint and
  // test chain that failed in its linter, then only the tests re-ran; a package's tests healed by `./...`.
  it("heals a chain when each of its steps passed since, alone or in a chain that exited 0", () => {
    const typecheck = session([
      exec("source .venv/bin/activate && ty check review_tool/ 2>&1", 1, "error[invalid-type-form]"),
      exec("source .venv/bin/activate && ruff format review_tool/ && ty check review_tool/ 2>&1", 0),
    ]);
    expect(openFailure(typecheck, 1)).not.toBeNull();
    expect(openFailure(typecheck, 2)).toBeNull();
    const lint = "golangci-lint run ./pkg/x/... && go test -v ./pkg/x/... -run TestA";
    const chain = session([
      exec(lint, 1, "markdown_tools_test.go:357:1: File is not properly formatted (gofmt)"),
      exec("gofmt -w ./pkg/x/a_test.go && go test -v ./pkg/x/... -run TestA", 0),
      exec("golangci-lint run ./pkg/x/...", 0),
    ]);
    expect(openFailure(chain, 2)).toMatchObject({ params: { command: lint } });
    expect(openFailure(chain, 3)).toBeNull();
  });

  it("heals a failed test run with a passing run of its runner's whole suite, not of another package", () => {
    const s = session([
      exec("go test ./pkg/config/ ./pkg/utils/ 2>&1", 1, "--- FAIL: TestLoadPrecedence"),
      exec("go test ./pkg/spi/ -run TestX", 0),
      exec("go build -o app && go test ./... && golangci-lint run", 0),
    ]);
    expect(openFailure(s, 2)).not.toBeNull();
    expect(openFailure(s, 3)).toBeNull();
  });
});

describe("identifiersOf", () => {
  it("finds exception names, error codes and test names in order", () => {
    expect(
      identifiersOf(
        "FAILED tests/test_auth.py::test_login - AssertionError\nsrc/a.ts(3,1): error TS2339: x\nENOENT",
      ),
    ).toEqual(["test_auth", "test_login", "AssertionError", "TS2339", "ENOENT"]);
  });
});

describe("editedFiles", () => {
  it("lists files edited without failure, most recent first, relative to the session's directory", () => {
    const s = session([edit("/w/src/a.ts"), edit("src/b.ts"), edit("/w/src/c.ts", true), edit("src/a.ts")]);
    expect(editedFiles(s, 4)).toEqual(["src/a.ts", "src/b.ts"]);
  });
});

describe("nextAction", () => {
  it("is the first file or command action at or after the cut", () => {
    const s = session([
      { kind: "user", text: "go" },
      { kind: "assistant", text: "ok" },
      exec("cd /w && npm test", 0),
    ]);
    expect(firstAction(s, 1)).toEqual({ kind: "command", command: "npm test", targets: [] });
  });

  it("counts only an action the session foresaw: its command run before, or its file named before", () => {
    const ran = session([exec("npm test", 1), { kind: "assistant", text: "fixing" }, exec("npm test", 0)]);
    expect(nextAction(ran, 2)).toEqual({ kind: "command", command: "npm test", targets: [] });
    const named = session([{ kind: "user", text: "the bug is in src/parser.ts" }, edit("/w/src/parser.ts")]);
    expect(nextAction(named, 1)).toEqual({ kind: "file", path: "src/parser.ts" });
    // A discovery: nothing before the cut names the listing or the file it finds.
    const fresh = session([{ kind: "user", text: "why is the disk full?" }, exec("du -sh /var/log", 0)]);
    expect(firstAction(fresh, 1)).not.toBeNull();
    expect(nextAction(fresh, 1)).toBeNull();
    expect(foreseeable(fresh, 1, { kind: "file", path: "/var/log/syslog" })).toBe(false);
  });

  it("does not count a name that appears only in the body of a file the session wrote", () => {
    // A session's shape: a converter edited to write CHRONOLOGICAL_TRANSCRIPT.md, then run; the next call
    // reads the file it produced, named before only inside the edit's new text.
    const body: SessionEvent = {
      kind: "tool",
      tool: "edit",
      params: { path: "/w/scripts/convert.py", oldText: "out = 'index.md'", newText: "out = 'CHRONO.md'" },
      output: "",
      failed: false,
      exitCode: null,
    };
    const s = session([body, exec("python scripts/convert.py", 0), exec("head -100 CHRONO.md", 0)]);
    expect(
      foreseeable(s, 2, { kind: "command", command: "head -100 CHRONO.md", targets: ["CHRONO.md"] }),
    ).toBe(false);
    expect(foreseeable(s, 2, { kind: "file", path: "scripts/convert.py" })).toBe(true);
  });

  it("is none when a user message comes before the first action", () => {
    const s = session([
      { kind: "assistant", text: "done" },
      { kind: "user", text: "/plugin" },
      exec("publish.py", 0),
    ]);
    expect(nextAction(s, 0)).toBeNull();
  });
});

describe("truthAt", () => {
  it("has no truth for a probe the session gives nothing to", () => {
    const s = session([
      { kind: "user", text: "/mode" },
      { kind: "assistant", text: "ok" },
    ]);
    expect(truthAt(s, 0.5)).toEqual({
      cut: 1,
      goalWords: null,
      files: null,
      failure: null,
      next: null,
      firstAction: null,
    });
  });
});
