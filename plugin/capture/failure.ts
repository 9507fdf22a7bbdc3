import { stepKeys } from "./command.ts";
import { clip } from "./text.ts";
import type { TrailFailure } from "./trail.ts";

/**
 * What a failed run's output says went wrong, as test runners and interpreters print it: the exception and
 * its message (the last `XError: message` of a Python traceback, a JavaScript `TypeError: ...`, a Rust
 * `error[E0382]: ...`, a Go `panic: ...`), the tests reported failing (`FAILED tests/x.py::test_y`,
 * `--- FAIL: TestX`, `✗ suite > case`), and the frame where it was raised.
 */

export interface FailureFacts {
  /** The exception line: `ValueError: invalid literal for int()`, at most 200 characters; null when none. */
  exception: string | null;
  /** The exception's name alone (`ValueError`, `django.core.exceptions.FieldError`, `E0382`). */
  name: string | null;
  /** Failing test ids, in order, at most 5. */
  tests: string[];
  /** The innermost frame's file (`django/db/models/query.py`) outside installed packages, or null. */
  frameFile: string | null;
  /** Error codes anywhere in the output (`ERR_PACKAGE_PATH_NOT_EXPORTED`, `ENOENT`, `TS2339`), in order, at most 5. */
  codes: string[];
}

/** `ValueError: msg`, `django.core.exceptions.FieldError: msg`, `AssertionError`, `E   KeyError: 'x'`. */
const EXCEPTION_LINE =
  /^(?:E\s+)?(?:Uncaught\s+)?((?:[a-z_][\w]*\.)*(?:[A-Z]\w*)?(?:Error|Exception|Warning|Exit|Interrupt|Failure|Fault)|StopIteration|KeyboardInterrupt)(?:\s*\[[\w-]+\])?(?::\s*(.*))?$/;
/** An error code in a message: `ERR_DUPLICATE_KEY`, `ENOENT`, `E11000`. */
const CODE_IN_MESSAGE =
  /\b(ERR_[A-Z0-9_]+|E[A-Z]{3,}|[A-Z][A-Z0-9]*_(?:ERROR|ERR|FAILED|VIOLATION|CONFLICT|DUPLICATE)[A-Z0-9_]*|E\d{4,5})\b/;
const JS_ERROR_CODE = /^(?:Uncaught\s+)?(\w*Error) \[(ERR_[A-Z_]+)\]:\s*(.*)$/;
const RUST_ERROR = /^error\[(E\d{4})\]:\s*(.*)$/;
const PANIC = /^panic:\s*(.*)$/;
const PYTEST_FAILED = /^(?:FAILED|ERROR)\s+(\S+::\S+|\S+\.py)(?:\s+-\s+(.*))?$/;
const GO_FAIL = /^--- FAIL:\s+(\S+)/;
const JS_FAIL = /^(?:FAIL|✗|×|✕)\s+(\S.*?)(?:\s+\d+ms)?$/;
const PY_FRAME = /^File "([^"]+)", line \d+/;
/** Codes printed by Node (`ERR_X`, `code: 'ERR_X'`), the OS (`ENOENT`), TypeScript (`TS2339`), Rust (`E0382`). */
const CODE =
  /\b(ERR_[A-Z0-9_]{3,}|E(?:NOENT|ACCES|EXIST|PERM|PIPE|NOTDIR|ISDIR|NOTEMPTY|MFILE|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|AI_AGAIN)|TS\d{4,5}|E\d{4})\b/g;
const INSTALLED = /(?:site-packages|dist-packages|node_modules|\/lib\/python\d|<frozen |<string>|<stdin>)/;

/** The facts of a failure's output; read from its last 20,000 characters. */
export function failureFacts(output: string): FailureFacts {
  const lines = output
    .slice(-20_000)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  let exception: string | null = null;
  let name: string | null = null;
  const tests: string[] = [];
  let frameFile: string | null = null;
  for (const line of lines) {
    const frame = PY_FRAME.exec(line);
    if (frame?.[1] !== undefined && !INSTALLED.test(frame[1])) frameFile = frame[1];
    const failed = PYTEST_FAILED.exec(line) ?? GO_FAIL.exec(line);
    if (failed?.[1] !== undefined) {
      if (!tests.includes(failed[1])) tests.push(failed[1]);
      const msg = failed[2];
      if (msg !== undefined && exception === null) {
        const inner = EXCEPTION_LINE.exec(msg);
        if (inner !== null) {
          exception = clip(msg, 200);
          name = inner[1] ?? null;
        }
      }
      continue;
    }
    const js = JS_FAIL.exec(line);
    if (js?.[1] !== undefined && /[/>:]|\.test\.|\.spec\./.test(js[1]) && !tests.includes(js[1]))
      tests.push(js[1]);
    const code = JS_ERROR_CODE.exec(line);
    if (code !== null) {
      exception = clip(line, 200);
      name = code[2] ?? null;
      continue;
    }
    const rust = RUST_ERROR.exec(line);
    if (rust !== null) {
      exception = clip(line, 200);
      name = rust[1] ?? null;
      continue;
    }
    const panic = PANIC.exec(line);
    if (panic !== null) {
      exception = clip(line, 200);
      name = "panic";
      continue;
    }
    const ex = EXCEPTION_LINE.exec(line);
    if (ex !== null && (ex[2] !== undefined || ex[1] !== "Error")) {
      // The last exception line wins: a traceback ends with the one that was raised.
      exception = clip(line.replace(/^E\s+/, "").replace(/^Uncaught\s+/, ""), 200);
      // A bare `Error: ...` is named by the code its message carries, when it carries one.
      const code = ex[1] === "Error" ? CODE_IN_MESSAGE.exec(ex[2] ?? "")?.[1] : undefined;
      name = code ?? ex[1] ?? null;
    }
  }
  const codes = [...new Set([...output.slice(-20_000).matchAll(CODE)].map((m) => m[1] ?? ""))].slice(0, 5);
  // A bare `Error: ...` with no code in its message is named by the first code of the output, if any.
  if (name === "Error") name = codes[0] ?? null;
  return { exception, name, tests: tests.slice(0, 5), frameFile, codes };
}

/** A failure's key (see `stepKeys`): the keys of the steps that must pass again, one a line. */
export const failureKey = (command: string): string => stepKeys(command).join("\n");

/**
 * The failures after a run of `command`: a failure of it replaces its older one; a pass heals each step it
 * ran (`stepKeys`) in the failures open, and a failure is healed when none of its steps is left. A passing
 * test run also heals a failed test step of the same file, and a run of the whole suite any test step.
 */
export function updateFailing(
  failing: readonly TrailFailure[],
  command: string,
  failure: TrailFailure | null,
  max: number,
): TrailFailure[] {
  if (failure !== null) return [...failing.filter((f) => f.key !== failure.key), failure].slice(-max);
  const passed = stepKeys(command);
  const passedTests = passed
    .filter((k) => k.startsWith("test:"))
    .map((k) =>
      k
        .split(":")
        .slice(2)
        .join(":")
        .split(" ")
        .filter((id) => id !== ""),
    );
  const heals = (step: string): boolean => {
    if (passed.includes(step)) return true;
    if (!step.startsWith("test:")) return false;
    // A passing run of a whole suite, or of the file holding the failed test, heals it.
    const ids = step.split(":").slice(2).join(":");
    return passedTests.some((tests) => tests.length === 0 || tests.some((id) => ids.includes(id)));
  };
  const out: TrailFailure[] = [];
  for (const f of failing) {
    const steps = f.key.split("\n");
    const left = steps.filter((s) => !heals(s));
    if (left.length === steps.length) out.push(f);
    else if (left.length > 0) out.push({ ...f, key: left.join("\n") });
  }
  return out;
}
