import { describe, expect, it } from "vitest";
import { failureFacts, failureKey, updateFailing } from "../../plugin/capture/failure.ts";
import type { TrailFailure } from "../../plugin/capture/trail.ts";

// Outputs as Python, pytest, Node and rustc print them.
const TRACEBACK = [
  "Traceback (most recent call last):",
  '  File "/testbed/reproduce.py", line 4, in <module>',
  "    card = fits.Card.fromstring(s)",
  '  File "/testbed/astropy/io/fits/card.py", line 560, in fromstring',
  "    card._image = _pad(image)",
  '  File "/usr/lib/python3.9/site-packages/numpy/core/x.py", line 3, in f',
  "ValueError: The header string must be ASCII-only",
].join("\n");
const PYTEST = [
  "============================= test session starts ==============================",
  "tests/test_card.py F                                                       [100%]",
  "=================================== FAILURES ===================================",
  "_______________________________ test_fromstring ________________________________",
  "    def test_fromstring():",
  '>       assert Card.fromstring(b"FOO").keyword == "FOO"',
  "E       AssertionError: assert 'BAR' == 'FOO'",
  "=========================== short test summary info ============================",
  "FAILED tests/test_card.py::test_fromstring - AssertionError: assert 'BAR' == 'FOO'",
  "============================== 1 failed in 0.12s ===============================",
].join("\n");
const NODE = [
  "node:internal/modules/cjs/loader:1228",
  "  throw err;",
  "  ^",
  "",
  "Error: Cannot find module './dist/index.js'",
  "Require stack:",
  "- /app/bin/cli.js {",
  "  code: 'MODULE_NOT_FOUND'",
  "}",
].join("\n");

describe("failureFacts", () => {
  it("reads the raised exception and the innermost project frame of a Python traceback", () => {
    expect(failureFacts(TRACEBACK)).toEqual({
      exception: "ValueError: The header string must be ASCII-only",
      name: "ValueError",
      tests: [],
      frameFile: "/testbed/astropy/io/fits/card.py",
      codes: [],
    });
  });

  it("reads pytest's failing test and its assertion", () => {
    const facts = failureFacts(PYTEST);
    expect(facts.tests).toEqual(["tests/test_card.py::test_fromstring"]);
    expect(facts.name).toBe("AssertionError");
    expect(facts.exception).toBe("AssertionError: assert 'BAR' == 'FOO'");
  });

  it("names a bare Error by the code its message carries, else by the error", () => {
    expect(failureFacts("Error: duplicate key value (ERR_DUPLICATE_KEY)").name).toBe("ERR_DUPLICATE_KEY");
    expect(failureFacts(NODE).exception).toBe("Error: Cannot find module './dist/index.js'");
    expect(failureFacts(NODE).name).toBeNull();
    const exported = `${NODE}\nError [ERR_PACKAGE_PATH_NOT_EXPORTED]: No "exports" main defined\nError: Cannot find module 'x'`;
    expect(failureFacts(exported).name).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED");
    expect(failureFacts(exported).codes).toEqual(["ERR_PACKAGE_PATH_NOT_EXPORTED"]);
    expect(failureFacts("error[E0382]: borrow of moved value: `v`").name).toBe("E0382");
    expect(failureFacts("all good").exception).toBeNull();
  });
});

const failure = (command: string, key: string): TrailFailure => ({
  command,
  key,
  exitCode: 1,
  error: "",
  exception: null,
  name: null,
  tests: [],
  codes: [],
  frameFile: null,
  at: "2026-11-22T10:00:00.000Z",
});

describe("updateFailing", () => {
  it("heals a failure only when the same command or test passes", () => {
    const open = [failure("python reproduce.py", "script:reproduce.py")];
    expect(updateFailing(open, "ls -la", null, 5)).toEqual(open);
    expect(updateFailing(open, "cd /testbed && python reproduce.py", null, 5)).toEqual([]);
  });

  it("heals a failed test when its file or the whole suite passes", () => {
    const open = [failure("pytest tests/a.py::t", "test:pytest:tests/a.py::t")];
    expect(updateFailing(open, "pytest tests/b.py", null, 5)).toEqual(open);
    expect(updateFailing(open, "pytest tests/a.py", null, 5)).toEqual([]);
    expect(updateFailing(open, "pytest", null, 5)).toEqual([]);
  });

  // A session's shapes: `ty check` failed alone, then passed inside a longer chain; a lint and test chain
  // failed (the exit code does not say in which step), then only the tests re-ran.
  it("heals a chain's failure when each of its steps has passed since, alone or in a chain that exited 0", () => {
    const ty = "source .venv/bin/activate && ty check review_tool/ 2>&1";
    const typecheck = [failure(ty, failureKey(ty))];
    expect(
      updateFailing(
        typecheck,
        "source .venv/bin/activate && ruff check review_tool/ --fix && ty check review_tool/",
        null,
        5,
      ),
    ).toEqual([]);
    const lint = "golangci-lint run ./pkg/x/... && go test -v ./pkg/x/... -run TestA";
    const open = [failure(lint, failureKey(lint))];
    const testsOnly = updateFailing(
      open,
      "gofmt -w ./pkg/x/a_test.go && go test -v ./pkg/x/... -run TestA",
      null,
      5,
    );
    expect(testsOnly.map((f) => f.command)).toEqual([lint]);
    expect(updateFailing(testsOnly, "golangci-lint run ./pkg/x/...", null, 5)).toEqual([]);
    // `dig` timed out inside a chain; the chain's other steps passed later, then `dig` alone.
    const dig = 'dig a.com @10.0.0.1 +short && sleep 2 && ssh root@10.0.0.1 "ls /tmp/logs/ | tail -5"';
    const dns = updateFailing(
      [failure(dig, failureKey(dig))],
      'ssh root@10.0.0.1 "ls /tmp/logs/ | head -5"',
      null,
      5,
    );
    expect(updateFailing(dns, "sleep 2", null, 5).map((f) => f.command)).toEqual([dig]);
    expect(
      updateFailing(updateFailing(dns, "sleep 2", null, 5), "dig a.com @10.0.0.1 +short", null, 5),
    ).toEqual([]);
  });

  it("replaces an older failure of the same command and keeps at most `max`", () => {
    const a = failure("npm test", "test:npm test:");
    const again = { ...a, error: "new" };
    expect(updateFailing([a], "npm test", again, 5)).toEqual([again]);
    const many = ["a", "b", "c"].map((c) => failure(c, `cmd:${c}`));
    expect(updateFailing(many, "d", failure("d", "cmd:d"), 3).map((f) => f.command)).toEqual(["b", "c", "d"]);
  });
});
