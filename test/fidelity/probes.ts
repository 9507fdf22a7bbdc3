import { basename } from "node:path";
import type { ActionTruth, Truth } from "./truth.ts";

/**
 * What a restore names of a session's truth (truth.ts): case-insensitive substring checks on the restore
 * text; a file is named by its base name (so a workspace-relative or absolute spelling both count).
 *
 * - goal: at least 3 of the goal words (all of them when there are fewer);
 * - files: every one of the (up to 3) most recently edited files;
 * - failure: at least one identifier of the open failure's output;
 * - command: the failing command (its first 40 characters as truth.ts keys it, `2>&1` dropped on both
 *   sides) or one of the files or test ids it names;
 * - next: the file of the next action, or its command as for `command`.
 *
 * `null` when the truth has nothing for the probe (not counted).
 */

export const PROBES = ["goal", "files", "failure", "command", "next"] as const;
export type Probe = (typeof PROBES)[number];
export type ProbeResult = "named" | "missed" | null;

/** Labels for tables and reports. */
export const PROBE_LABELS: Record<Probe, string> = {
  goal: "goal (3 of its distinctive words)",
  files: "files edited so far (3 latest)",
  failure: "identifiers of the open failure",
  command: "the failing command or test",
  next: "the next action (file or command)",
};

function names(text: string, needle: string): boolean {
  return needle !== "" && text.includes(needle.toLowerCase());
}

/**
 * A command is named by its first 40 characters as truth.ts keys it, in the restore read the same way
 * (`2>&1` dropped: the key drops it, so a restore quoting the command as run still names it).
 */
function namesCommand(text: string, command: string, targets: string[]): boolean {
  const plain = text.replace(/\s*2>&1/g, "");
  return (
    names(plain, command.slice(0, 40)) || targets.some((t) => names(text, t) || names(text, basename(t)))
  );
}

function namesAction(text: string, action: ActionTruth): boolean {
  return action.kind === "file"
    ? names(text, basename(action.path))
    : namesCommand(text, action.command, action.targets);
}

const verdict = (ok: boolean): ProbeResult => (ok ? "named" : "missed");

/** Each probe's verdict for `restore` against `truth`. */
export function probe(restore: string, truth: Truth): Record<Probe, ProbeResult> {
  const text = restore.toLowerCase();
  const words = truth.goalWords;
  const failure = truth.failure;
  return {
    goal:
      words === null
        ? null
        : verdict(words.filter((w) => names(text, w)).length >= Math.min(3, words.length)),
    files: truth.files === null ? null : verdict(truth.files.every((f) => names(text, basename(f)))),
    failure:
      failure === null || failure.identifiers.length === 0
        ? null
        : verdict(failure.identifiers.some((id) => names(text, id))),
    command: failure === null ? null : verdict(namesCommand(text, failure.command, failure.targets)),
    next: truth.next === null ? null : verdict(namesAction(text, truth.next)),
  };
}

/** The body of a restore section (`## Next steps`), up to the next heading or the fence's end; "" when absent. */
export function restoreSection(restore: string, heading: string): string {
  const start = restore.indexOf(`\n## ${heading}`);
  if (start < 0) return "";
  const ends = [
    restore.indexOf("\n## ", start + 4),
    restore.indexOf("\n</big-memory-snapshot", start),
  ].filter((i) => i > 0);
  return restore.slice(start, ends.length === 0 ? undefined : Math.min(...ends));
}

/** Search and compare commands (as truth.ts counts their exit 1 as an answer) shown as blockers. */
const SEARCH_BLOCKER =
  /`(?:grep|egrep|rg|ag|find|diff|cmp|test|ls|which)\b[^`]*`[^\n]*(?:exit(?:ed)? (?:code )?[12]\b|failed)/;

/**
 * What the restore's sections (the headings the plugin renders today: `## Next steps`, `## Blockers`) say
 * beside the probes: the next action named in Next steps itself, the first action after the cut named
 * anywhere whether the session foresaw it or not (the strict figure), a search or listing exit shown as a
 * blocker, and an open failure with no Blockers section at all. `null` where the truth has nothing to check.
 */
export function diagnose(
  restore: string,
  truth: Truth,
): {
  nextInNextSteps: ProbeResult;
  firstAction: ProbeResult;
  searchBlocker: boolean;
  failureWithoutBlockers: boolean | null;
} {
  const next = restoreSection(restore, "Next steps").toLowerCase();
  const blockers = restoreSection(restore, "Blockers");
  const first = truth.firstAction ?? null;
  return {
    nextInNextSteps: truth.next === null ? null : verdict(namesAction(next, truth.next)),
    firstAction: first === null ? null : verdict(namesAction(restore.toLowerCase(), first)),
    searchBlocker: SEARCH_BLOCKER.test(blockers),
    failureWithoutBlockers: truth.failure === null ? null : blockers === "",
  };
}
