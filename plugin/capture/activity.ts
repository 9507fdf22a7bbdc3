import { commandCore, commandLabel, isCheckCommand } from "./command.ts";
import type { Trail, TrailCommand, TrailFile } from "./trail.ts";

/**
 * The draft's Recent Activity section (capture/draft.ts): what the session did last, the checks it runs and
 * the commands it runs most, from the trail alone.
 */

/** How much the section shows: actions, the checks run (tests, builds), the commands run most often. */
export const ACTIVITY_LIMITS = { activity: 8, checks: 3, habits: 4 } as const;

// The activity's callbacks, made once: a callback made at every call loses its optimised code at every full
// collection (V8 keeps that code only while a function object holds it), and is compiled again and again.
type Habit = Trail["habits"][number];
type Activity = { at: string; text: string; i: number };
const newestFirst = (a: Activity, b: Activity) => (a.at === b.at ? b.i - a.i : a.at < b.at ? 1 : -1);
const commandText = (c: TrailCommand) =>
  `ran \`${commandLabel(c.command)}\`${c.status === "failed" ? ` (${c.exitCode === null ? "failed" : `exit ${c.exitCode}`})` : ""}`;
const commandActivity = (c: TrailCommand, i: number): Activity => ({ at: c.at, text: commandText(c), i });
const mostRun = (a: Habit & { i: number }, b: Habit & { i: number }) => b.runs - a.runs || b.i - a.i;
const habitText = (h: Habit) => `\`${commandLabel(h.command)}\` (${h.runs}x)`;

/** Heading of the draft's extra section that lists the latest actions. */
export const ACTIVITY_HEADING = "Recent Activity";

/**
 * The latest actions, newest first, on one line: commands run (with their exit code when they failed)
 * and files changed or read, at most `ACTIVITY_LIMITS.activity`; then the commands that checked a change, most
 * recent first (`checks: \`go test ./...\`, \`rockcraft pack\``: tests, builds, linters, not among the latest);
 * then the other commands the session ran most (twice or more: `run most: \`git status\` (4x)`); "" when
 * there were none. What was done last is what an agent resuming repeats or builds on (a test re-run, the
 * file it was editing), and the checks and the commands run most are its build, test and status loop.
 */
export function activityOf(trail: Trail): string {
  const items: Activity[] = trail.commands.map(commandActivity);
  // Indexed loops: a for-of in code not yet optimised makes an iterator result per step.
  for (let k = 0; k < trail.files.length; k++) {
    const f = trail.files[k] as TrailFile;
    if (f.lastAction === "mention") continue;
    const text = `${f.lastAction === "read" ? "read" : "changed"} \`${f.path}\``;
    items.push({ at: f.lastSeen, text, i: items.length });
  }
  items.sort(newestFirst);
  const latest = new Set<string>();
  for (let k = 0; k < items.length && latest.size < ACTIVITY_LIMITS.activity; k++)
    latest.add((items[k] as Activity).text);
  const shown = new Set<string>();
  for (let k = 0; k < items.length; k++) {
    const x = items[k] as Activity;
    if (x.i < trail.commands.length && latest.has(x.text))
      shown.add(commandCore((trail.commands[x.i] as TrailCommand).command));
  }
  const checks: string[] = [];
  const often: (Habit & { i: number })[] = [];
  for (let k = 0; k < trail.habits.length; k++) {
    const h = trail.habits[k] as Habit;
    if (shown.has(h.command)) continue;
    if (isCheckCommand(h.command)) checks.unshift(`\`${commandLabel(h.command)}\``);
    else if (h.runs >= 2) often.push({ ...h, i: often.length });
  }
  return [
    ...latest,
    ...(checks.length === 0 ? [] : [`checks: ${checks.slice(0, ACTIVITY_LIMITS.checks).join(", ")}`]),
    ...(often.length === 0
      ? []
      : [`run most: ${often.sort(mostRun).slice(0, ACTIVITY_LIMITS.habits).map(habitText).join(", ")}`]),
  ].join("; ");
}
