import { clip, oneLine } from "./text.ts";

/**
 * Shell commands as a draft names them: the part of a command line that does the work (the `cd`, the
 * environment and the output plumbing around it removed), the identity that tells a re-run of the same
 * command or test apart from another command, whether an exit code is an answer rather than a failure,
 * and a one-line label that keeps what a multi-line command runs.
 */

/** Segments that only prepare the shell: `cd dir`, `source venv/bin/activate`, `export X=1`, `set -e`. */
const SETUP = /^(?:cd|pushd|popd|source|\.|export|set|unset|conda activate|nvm use)\b/;
/** Words before the program: `env`, `sudo`, `timeout 30`, `time`, `nice`, `X=1`. */
const PREFIX =
  /^(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|env|sudo|time|nice|nohup|stdbuf(?:\s+-\S+)*|timeout(?:\s+-\S+)*\s+\d+[smh]?)\s+)+/;
/** Output plumbing at the end: `2>&1`, `| tail -n 40`, `| head -50`, `| grep -v x`, `> out.txt`. */
const PLUMBING = /(?:\s+\d?>&\d|\s+\|\s*(?:tail|head|less|more|cat|tee|sort|uniq|wc|cut)\b[^|]*)+\s*$/;

/**
 * Programs whose exit code 1 is an answer, not a failure: no match (`grep`, `rg`, `ag`, `ack`, `git grep`,
 * `pgrep`), files differ (`diff`, `cmp`, `git diff --exit-code`), a false test (`test`, `[`, `[[`), not found
 * (`which`, `command -v`, `type`); and exit 1 or 2 of `ls` (the path is not there).
 */
const ANSWER_PROGRAMS =
  /^(?:grep|egrep|fgrep|zgrep|rg|ag|ack|pgrep|diff|colordiff|cmp|test|\[|\[\[|which|type|command\s+-v|git\s+(?:grep|diff)|find)\b/;

/**
 * Splits a command line at `&&`, `||` and `;` outside quotes, with the operator before each part ("" for
 * the first); heredoc bodies and `-c` scripts stay whole.
 */
function chain(line: string): { op: string; part: string }[] {
  const parts: { op: string; part: string }[] = [];
  let quote: string | null = null;
  let start = 0;
  let op = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== null) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === ";" || ((c === "&" || c === "|") && line[i + 1] === c)) {
      parts.push({ op, part: line.slice(start, i).trim() });
      op = c === ";" ? ";" : `${c}${c}`;
      if (c !== ";") i++;
      start = i + 1;
    }
  }
  parts.push({ op, part: line.slice(start).trim() });
  return parts.filter((p) => p.part !== "");
}

const segments = (line: string): string[] => chain(line).map((p) => p.part);

/** The first line of a command with its heredoc or quoted script folded in (everything up to the first newline outside quotes). */
function headOf(command: string): { head: string; body: string } {
  const t = command.trim();
  const heredoc = /<<-?\s*(['"]?)(\w+)\1/.exec(t.split("\n")[0] ?? "");
  if (heredoc !== null) {
    const nl = t.indexOf("\n");
    return { head: nl < 0 ? t : t.slice(0, nl), body: nl < 0 ? "" : t.slice(nl + 1) };
  }
  return { head: t, body: "" };
}

/**
 * The segment of a command line that does the work: the last segment that is not shell setup, without
 * the words before its program and the output plumbing after it. `cd /testbed && python -m pytest x -q
 * 2>&1 | tail -20` gives `python -m pytest x -q`.
 */
export function commandCore(command: string): string {
  const { head } = headOf(command);
  const parts = segments(head);
  const work = parts.filter((p) => !SETUP.test(p));
  const last = work.at(-1) ?? parts.at(-1) ?? head;
  return last.replace(PREFIX, "").replace(PLUMBING, "").trim();
}

/** Whether exit `code` of `command` is an answer (no match, files differ, false) rather than a failure. */
export function isAnswerExit(command: string, code: number | null): boolean {
  if (code !== 1 && code !== 2) return false;
  const core = commandCore(command);
  // A pipeline's exit code is its last program's.
  const pipeline = core.split(/\s\|\s/);
  const program = (pipeline.at(-1) ?? core).trim().replace(PREFIX, "");
  // `ls` of a path that is not there (1, or 2 from GNU ls) answers "does it exist".
  if (/^ls\b/.test(program)) return true;
  return code === 1 && ANSWER_PROGRAMS.test(program);
}

const TEST_RUNNER =
  /\b(?:pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|ava|tap|rspec|phpunit|ctest|playwright|cargo\s+test|go\s+test|npm\s+(?:run\s+)?test|npm\s+t|yarn\s+test|pnpm\s+test|bun\s+test|deno\s+test|mvn\s+test|gradle\s+test|runtests\.py|manage\.py\s+test|bin\/test|make\s+test)\b/;
/** A test id: `tests/x.py::Test::test_y`, `path/to/x.test.ts`, `tests.test_x.TestY.test_z`. */
const TEST_ID =
  /(?:^|\s)((?:[\w.-]+\/)*[\w.-]+\.(?:py|[cm]?[jt]sx?|rb|go|rs|php)(?:::[\w[\]\-.]+)*|[a-z_][\w]*(?:\.[A-Za-z_]\w*){2,})(?=\s|$)/g;
const SCRIPT =
  /^(?:python[\d.]*|node|deno|bun|ruby|bash|sh|zsh|perl|php|tsx|ts-node)\s+(?:-\S+\s+)*([^\s-][^\s]*)/;

/** Build, lint, type-check and packaging commands: with the test runners, the loop that checks a change. */
const CHECK =
  /^(?:make|cmake\s+--build|ninja|tsc|eslint|biome|prettier\s+--check|ruff|black\s+--check|mypy|pyright|ty\s+check|flake8|pylint|golangci-lint|go\s+(?:build|vet)|cargo\s+(?:build|check|clippy)|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:build|lint|typecheck|check)\b|npx\s+(?:tsc|eslint|biome)|(?:rock|charm|snap)craft\s+pack|docker\s+(?:build|compose\s+build)|gradle|mvn|dotnet\s+build|tox|nox|uv\s+build|python[\d.]*\s+-m\s+build)\b/;

/** Whether a command checks a change: runs tests, or builds, lints, type-checks or packs the project. */
export function isCheckCommand(command: string): boolean {
  return isTestCommand(command) || CHECK.test(commandCore(command));
}

/** Whether a command runs tests. */
export function isTestCommand(command: string): boolean {
  const core = commandCore(command);
  return !/^git\b/.test(core) && TEST_RUNNER.test(core);
}

/** The tests a test command names (`tests/x.py::test_y`, `x.test.ts`), in order. */
export function testIds(command: string): string[] {
  const core = commandCore(command);
  if (!isTestCommand(command)) return [];
  return [...core.matchAll(TEST_ID)].map((m) => m[1] ?? "").filter((id) => id !== "");
}

/**
 * What makes two runs "the same command": for a test command, its runner and the tests it names; for a
 * script, the interpreter and the script (`python reproduce.py`); for an inline script (`python -c`, a
 * heredoc), its first line and its whole text (hashed); else the working segment with white space folded. Used to tell when a failure was re-run and passed.
 */
export function commandKey(command: string): string {
  const core = commandCore(command);
  if (isTestCommand(command)) {
    const ids = testIds(command);
    const runner = TEST_RUNNER.exec(core)?.[0] ?? "test";
    return `test:${runner.replace(/\s+/g, " ")}:${ids.join(" ")}`;
  }
  const script = SCRIPT.exec(core);
  if (script?.[1] !== undefined && !/^-/.test(script[1]) && !/^["']/.test(script[1])) {
    return `script:${script[1]}`;
  }
  const first = oneLine(core.split("\n")[0] ?? "");
  // An inline script is the same command only when its whole text is the same.
  return core.includes("\n") ? `cmd:${first}#${fnv1a(core.replace(/\s+/g, " "))}` : `cmd:${first}`;
}

/**
 * What identifies a failed run until it is healed: the keys (`commandKey`) of the steps that decide the
 * command's exit status, one a line: the `&&` steps after the last `;` or `||`, shell setup left out. The
 * exit code does not say which step failed, so each must pass again; a chain that exits 0 passed each of
 * its steps. A command of one such step has its own key (`commandKey(command)`).
 */
export function stepKeys(command: string): string[] {
  const { head } = headOf(command);
  const parts = chain(head);
  const last = parts.findLastIndex((p) => p.op === ";" || p.op === "||");
  const work = parts.slice(Math.max(0, last)).filter((p) => !SETUP.test(p.part));
  if (work.length <= 1) return [commandKey(command)];
  return [...new Set(work.map((p) => commandKey(p.part)))];
}

/** FNV-1a of a text, 8 hex digits: a short identity for a long script. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** Lines of an inline script that say nothing about what it does: blanks, imports, comments, shebangs. */
const DULL_LINE =
  /^(?:$|#|\/\/|import\s|from\s+\S+\s+import\s|require\(|const \w+ = require\(|set -|cd\s|EOF$|['"]+$)/;

/**
 * The first meaningful line of a command's inline script (`python -c "..."`, `node -e '...'`, a heredoc
 * body), or null when the command has none.
 */
export function scriptLine(command: string): string | null {
  const t = command.trim();
  if (!t.includes("\n")) return null;
  const lines = t.split("\n").slice(1);
  for (const raw of lines) {
    const line = raw.trim();
    if (!DULL_LINE.test(line)) return clip(line, 80);
  }
  return null;
}

/**
 * A command as shown in prose, on one line and at most 120 characters: a single-line command as it is; a
 * multi-line one as its first line, then the first meaningful line of the script it runs
 * (`cd /testbed && python -c " … print(Foo().bar())`).
 */
export function commandLabel(command: string): string {
  const t = command.trim();
  const first = oneLine(t.split("\n")[0] ?? "");
  if (!t.includes("\n")) return clip(first, 120);
  const inline = scriptLine(t);
  return clip(inline === null ? `${first} …` : `${first} … ${oneLine(inline)}`, 120);
}
