import { clip, contentText, isRecord } from "./text.ts";

/**
 * Tool results as the session trail reads them: status, exit code and output of a result of any shape, and a
 * short excerpt of a failure's output.
 */

/** What a tool call came to, read from its result and error. */
export interface ToolOutcome {
  /** `unknown` when there is neither a result nor an error. */
  status: "ok" | "failed" | "running" | "unknown";
  exitCode: number | null;
  /** The text the model saw (content text, else `details.aggregated`, else stdout/stderr), error first. */
  output: string;
  /** `details.created === true`, as OpenClaw's `write` tool reports a new file. */
  created: boolean;
}

const FAILED_STATUS =
  /^(?:error|failed|failure|timeout|timed_out|blocked|denied|aborted|cancell?ed|killed|invalid)$/;
/** OpenClaw's exec suffix `(Command exited with code 1)`, also `(exit code 1)`, at the very end of the text. */
const EXIT_IN_TEXT = /\((?:Command exited with code|exit code) (-?\d{1,3})\)\s*$/;
/** Characters of tool output kept for excerpts: errors sit at the end of long outputs. */
const OUTPUT_TAIL = 20_000;

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function exitCodeOf(value: unknown): number | null {
  // `+ 0` turns -0 into 0 so the value survives a JSON round trip unchanged.
  return typeof value === "number" && Number.isSafeInteger(value) ? value + 0 : null;
}

/**
 * Reads a tool result of any shape: OpenClaw's `{ content: [{ type: "text", text }], details: { status,
 * exitCode, aggregated, created, ... } }` (a non-zero exit is `status: "completed"` with `exitCode`, and
 * the text ends `(Command exited with code N)`), a plain `{ exitCode, stdout, stderr }`, a bash
 * `{ output, exitCode, cancelled }`, or a string. A non-empty `error` always means failed.
 */
export function readToolOutcome(result: unknown, error?: string): ToolOutcome {
  const rec = isRecord(result) ? result : {};
  const details = isRecord(rec.details) ? rec.details : {};
  const fromContent = contentText(rec.content);
  const body =
    typeof result === "string"
      ? result
      : fromContent ||
        str(details.aggregated) ||
        [str(rec.stdout), str(rec.stderr)].filter((s) => s !== "").join("\n") ||
        str(rec.output);
  const errorText = error?.trim() ?? "";
  const output = [errorText, body.slice(-OUTPUT_TAIL)].filter((s) => s !== "").join("\n");
  let exitCode = exitCodeOf(details.exitCode) ?? exitCodeOf(rec.exitCode) ?? exitCodeOf(rec.exit_code);
  const suffix = EXIT_IN_TEXT.exec(output.slice(-200));
  if (exitCode === null && suffix !== null) exitCode = exitCodeOf(Number(suffix[1]));
  const status = str(details.status).toLowerCase() || str(rec.status).toLowerCase();
  const created = details.created === true;
  const failed =
    errorText !== "" ||
    details.ok === false ||
    details.success === false ||
    rec.isError === true ||
    rec.cancelled === true ||
    details.timedOut === true ||
    (typeof details.error === "string" && details.error !== "") ||
    FAILED_STATUS.test(status) ||
    (exitCode !== null && exitCode !== 0);
  if (failed) return { status: "failed", exitCode, output, created };
  if (status === "running") return { status: "running", exitCode, output, created };
  if (result === undefined || result === null) return { status: "unknown", exitCode, output, created };
  return { status: "ok", exitCode, output, created };
}

const ERROR_LINE =
  /error|fail|exception|cannot|can't|unable|not found|no such|denied|refused|invalid|expected|assert|panic|fatal|traceback|✗|×|\bERR_|\bE(?:NOENT|ACCES|EXIST|PERM|CONNREFUSED|ADDRINUSE)\b/i;
const EXIT_LINE = /^\((?:Command exited with code|exit code) -?\d+\)$/;

/**
 * A short excerpt of a failure's output: its lines that read as errors (from the first on), else its last
 * three lines; whole lines while they fit in `max` characters, the exit-code suffix dropped.
 */
export function errorExcerpt(output: string, max: number): string {
  const lines = output
    .slice(-OUTPUT_TAIL)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !EXIT_LINE.test(line));
  const hits = lines.filter((line) => ERROR_LINE.test(line));
  let excerpt = "";
  for (const line of new Set(hits.length > 0 ? hits : lines.slice(-3))) {
    const longer = excerpt === "" ? line : `${excerpt}\n${line}`;
    if (longer.length > max) return excerpt === "" ? clip(line, max) : excerpt;
    excerpt = longer;
  }
  return excerpt;
}
