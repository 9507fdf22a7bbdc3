import { describe, expect, it } from "vitest";
import { errorExcerpt, readToolOutcome } from "../../plugin/capture/tool-outcome.ts";
import { execResult, textResult } from "./fixtures/events.ts";

describe("readToolOutcome", () => {
  it.each([
    ["an exec success", execResult("ok", 0), undefined, { status: "ok", exitCode: 0 }],
    ["an exec non-zero exit", execResult("boom", 3), undefined, { status: "failed", exitCode: 3 }],
    [
      "an exec timeout",
      textResult("Command timed out.", { status: "failed", exitCode: null, timedOut: true }),
      undefined,
      { status: "failed", exitCode: null },
    ],
    [
      "a backgrounded exec",
      textResult("", { status: "running", sessionId: "s" }),
      undefined,
      { status: "running" },
    ],
    [
      "a plain exit code",
      { exitCode: 2, stdout: "", stderr: "nope" },
      undefined,
      { status: "failed", output: "nope" },
    ],
    [
      "a bash result",
      { output: "x", exitCode: 0, cancelled: false },
      undefined,
      { status: "ok", output: "x" },
    ],
    ["a string", "hello", undefined, { status: "ok", output: "hello" }],
    ["an error", undefined, "  boom  ", { status: "failed", output: "boom" }],
    ["nothing", undefined, undefined, { status: "unknown", output: "" }],
    ["an ok:false detail", textResult("x", { ok: false }), undefined, { status: "failed" }],
    [
      "a created file",
      textResult("x", { changed: true, created: true }),
      undefined,
      { status: "ok", created: true },
    ],
  ])("reads %s", (_, result, error, expected) => {
    expect(readToolOutcome(result, error)).toMatchObject(expected);
  });

  it("does not take an exit code from text in the middle of an output", () => {
    expect(readToolOutcome(textResult("the script ends with (exit code 1)\nthen more"))).toMatchObject({
      status: "ok",
      exitCode: null,
    });
  });

  it("turns an exit code of -0 into 0", () => {
    expect(Object.is(readToolOutcome({ exitCode: -0 }).exitCode, 0)).toBe(true);
  });
});

describe("errorExcerpt", () => {
  it("keeps the error lines from the first on while they fit", () => {
    const output =
      "ok 1\nok 2\nError: first\nat x\nAssertionError: expected 1\n\n(Command exited with code 1)";
    expect(errorExcerpt(output, 300)).toBe("Error: first\nAssertionError: expected 1");
    expect(errorExcerpt(output, 15)).toBe("Error: first");
    expect(errorExcerpt(output, 5)).toBe("Erro…");
  });

  it("falls back to the last three lines when no line reads as an error", () => {
    expect(errorExcerpt("a\nb\nc\nd\n(Command exited with code 1)", 300)).toBe("b\nc\nd");
  });
});
