import { describe, expect, it } from "vitest";
import {
  commandCore,
  commandKey,
  commandLabel,
  isAnswerExit,
  isCheckCommand,
  isTestCommand,
  scriptLine,
  stepKeys,
  testIds,
} from "../../plugin/capture/command.ts";

// Command lines as coding agents issue them in SWE-bench-style runs and users' sessions.
const PY_C = `cd /testbed && python -c "
import django
from django.conf import settings
settings.configure()
from django.db.models import Q
print(Q(x=1) & Q())
"`;
const HEREDOC = [
  "cat > /testbed/reproduce.py << 'EOF'",
  "import sys",
  "from astropy.io import fits",
  `card = fits.Card.fromstring("FOO     = 'bar'")`,
  "EOF",
  "python /testbed/reproduce.py",
].join("\n");

describe("commandCore", () => {
  it.each([
    [
      "cd /testbed && python -m pytest tests/test_card.py -q 2>&1 | tail -20",
      "python -m pytest tests/test_card.py -q",
    ],
    ["source venv/bin/activate && FOO=1 timeout 60 npm test", "npm test"],
    ["cd /repo; git status", "git status"],
    ["npm run build", "npm run build"],
  ])("reads %j as %j", (command, core) => {
    expect(commandCore(command)).toBe(core);
  });
});

describe("isAnswerExit", () => {
  it.each([
    ["grep -rn 'def _parse' astropy/", 1, true],
    ["cd /testbed && grep -q foo setup.cfg", 1, true],
    ["rg ERR_DUPLICATE_KEY src", 1, true],
    ["diff -u a.txt b.txt", 1, true],
    ["find . -name '*.orig'", 1, true],
    ["test -f build/out.js", 1, true],
    ["git diff --exit-code", 1, true],
    // With pipefail, a pipeline exits with grep's code; the plumbing after it does not change what ran.
    ["grep -rn x . | head -5", 1, true],
    ["pytest -q | tail -5", 1, false],
    ["grep -rn x .", 2, false],
    ["python reproduce.py", 1, false],
    ["ls -la /tmp/blocky-logs/", 2, true],
    ["ls missing.txt", 1, true],
    ["npm test", 1, false],
  ])("%j exiting %i is an answer: %s", (command, code, answer) => {
    expect(isAnswerExit(command, code)).toBe(answer);
  });
});

describe("isTestCommand and testIds", () => {
  it("names the tests a test command runs", () => {
    const c = "cd /testbed && python -m pytest tests/test_card.py::test_fromstring -x -q";
    expect(isTestCommand(c)).toBe(true);
    expect(testIds(c)).toEqual(["tests/test_card.py::test_fromstring"]);
    expect(isTestCommand("git commit -m 'fix tests'")).toBe(false);
    expect(isTestCommand("bun test")).toBe(true);
  });
});

describe("isCheckCommand", () => {
  it("takes tests, builds, linters, type checkers and packers as checks of a change", () => {
    for (const c of [
      "cd rock && rockcraft pack",
      "go test ./... 2>&1 | tail -5",
      "golangci-lint run ./pkg/x/...",
      "source .venv/bin/activate && ty check review_tool/",
      "npm run build",
      "tox -e lint",
    ])
      expect(isCheckCommand(c)).toBe(true);
    for (const c of ["git status", "kubectl logs pod-1", "ls -la", "cat Makefile"])
      expect(isCheckCommand(c)).toBe(false);
  });
});

describe("commandKey", () => {
  it("gives a re-run of the same test or script the same key, whatever surrounds it", () => {
    expect(commandKey("cd /testbed && python reproduce.py")).toBe(
      commandKey("python reproduce.py 2>&1 | tail -5"),
    );
    expect(commandKey("cd /testbed && pytest tests/a.py::t -q")).toBe(commandKey("pytest tests/a.py::t -q"));
    expect(commandKey("pytest tests/a.py::t")).not.toBe(commandKey("pytest tests/b.py::t"));
  });

  it("tells two inline scripts apart by their whole text", () => {
    const other = PY_C.replace("settings.configure()", "settings.configure(DEBUG=True)");
    expect(commandKey(PY_C)).not.toBe(commandKey(other));
    // Same first meaningful line, another script: not a re-run.
    expect(commandKey(PY_C)).not.toBe(commandKey(PY_C.replace("print(Q(x=1) & Q())", "print(Q() | Q(x=1))")));
    expect(commandKey(PY_C)).toBe(commandKey(`${PY_C}\n`));
  });
});

describe("stepKeys", () => {
  it("keys each step that decides the exit: the && steps after the last ; or ||, setup left out", () => {
    expect(stepKeys("cd /testbed && python reproduce.py")).toEqual([commandKey("python reproduce.py")]);
    expect(stepKeys("golangci-lint run ./pkg/x/... && go test -v ./pkg/x/... -run TestA")).toEqual([
      commandKey("golangci-lint run ./pkg/x/..."),
      commandKey("go test -v ./pkg/x/... -run TestA"),
    ]);
    expect(
      stepKeys(
        "sudo ctr images rm a:1 2>/dev/null; juju refresh app --path=./app.charm && kubectl delete pod app-0",
      ),
    ).toEqual([commandKey("juju refresh app --path=./app.charm"), commandKey("kubectl delete pod app-0")]);
    expect(stepKeys('make build || echo "no make"')).toEqual([commandKey('echo "no make"')]);
    // A heredoc or inline script keeps the key of the whole command.
    expect(stepKeys(PY_C)).toEqual([commandKey(PY_C)]);
    expect(stepKeys(HEREDOC)).toEqual([commandKey(HEREDOC)]);
  });
});

describe("scriptLine and commandLabel", () => {
  it("keeps what a multi-line command runs: its first line, then its first meaningful script line", () => {
    expect(scriptLine(PY_C)).toBe("settings.configure()");
    expect(commandLabel(PY_C)).toBe('cd /testbed && python -c " … settings.configure()');
    expect(commandLabel(HEREDOC)).toBe(
      `cat > /testbed/reproduce.py << 'EOF' … card = fits.Card.fromstring("FOO = 'bar'")`,
    );
    expect(scriptLine("npm test")).toBeNull();
  });
});
