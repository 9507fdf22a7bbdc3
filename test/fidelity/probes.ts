import { basename } from "node:path";
import type { ActionTruth, Truth } from "./truth.ts";

/**
 * What a restore names of a session's truth (truth.ts): case-insensitive substring checks on the restore
 * text; a file is named by its base name (so a workspace-relative or absolute spelling both count).
 *
 * - goal: at least 3 of the goal words (all of them when there are fewer);
 * - files: every one of the (up to 3) most recently edited files;
 * - failure: at least one identifier of the open failure's output;
 * - command: the failing command (its first 40 characters) or one of the files or test ids it names;
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

function namesCommand(text: string, command: string, targets: string[]): boolean {
  return names(text, command.slice(0, 40)) || targets.some((t) => names(text, t) || names(text, basename(t)));
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
