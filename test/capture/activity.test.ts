import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ACTIVITY_LIMITS, activityOf } from "../../plugin/capture/activity.ts";
import { commandCore, commandLabel, isCheckCommand } from "../../plugin/capture/command.ts";
import { emptyTrail, type Trail, type TrailCommand, type TrailFile } from "../../plugin/capture/trail.ts";

/** Trails of a few instants (ties), scratch and project files, checks and other commands run often. */
const activityTrailArb: fc.Arbitrary<Trail> = (() => {
  const at = fc.constantFrom("2026-11-22T10:00:00Z", "2026-11-22T10:00:01Z", "2026-11-22T10:00:02Z");
  const command = fc.constantFrom(
    "npm test",
    "go test ./...",
    "git status",
    "ls -la",
    "cd app && make",
    "rg foo",
  );
  const file: fc.Arbitrary<TrailFile> = fc.record({
    path: fc.constantFrom("src/a.ts", "src/b.py", "debug.js", "/tmp/x.txt", "README.md", "lib/c/d.go"),
    reads: fc.nat(3),
    writes: fc.nat(3),
    created: fc.boolean(),
    lastAction: fc.constantFrom("read", "create", "write", "edit", "delete", "move", "mention"),
    lastSeen: at,
  });
  const cmd: fc.Arbitrary<TrailCommand> = fc.record({
    command,
    status: fc.constantFrom("ok", "failed", "running", "unknown"),
    exitCode: fc.option(fc.integer({ min: 0, max: 3 })),
    error: fc.constant(""),
    at,
  });
  return fc
    .record({
      files: fc.array(file, { maxLength: 14 }),
      commands: fc.array(cmd, { maxLength: 12 }),
      habits: fc.uniqueArray(fc.record({ command, runs: fc.nat(5) }), {
        selector: (h) => h.command,
        maxLength: 6,
      }),
    })
    .map((parts) => ({ ...emptyTrail(), ...parts }));
})();

/** The section as first written, callbacks and all: the reference the loops must answer as. */
function activityReference(trail: Trail): string {
  const commands = trail.commands.map((c) => ({
    at: c.at,
    text: `ran \`${commandLabel(c.command)}\`${c.status === "failed" ? ` (${c.exitCode === null ? "failed" : `exit ${c.exitCode}`})` : ""}`,
    core: commandCore(c.command),
  }));
  const files = trail.files
    .filter((f) => f.lastAction !== "mention")
    .map((f) => ({ at: f.lastSeen, text: `${f.lastAction === "read" ? "read" : "changed"} \`${f.path}\`` }));
  const items = [...commands, ...files]
    .map((x, i) => ({ ...x, i }))
    .sort((a, b) => (a.at === b.at ? b.i - a.i : a.at < b.at ? 1 : -1))
    .map((x) => x.text);
  const latest = [...new Set(items)].slice(0, ACTIVITY_LIMITS.activity);
  const shown = new Set(commands.filter((c) => latest.includes(c.text)).map((c) => c.core));
  const habits = trail.habits.filter((h) => !shown.has(h.command));
  const checks = habits
    .filter((h) => isCheckCommand(h.command))
    .reverse()
    .slice(0, ACTIVITY_LIMITS.checks)
    .map((h) => `\`${commandLabel(h.command)}\``);
  const often = habits
    .map((h, i) => ({ ...h, i }))
    .filter((h) => h.runs >= 2 && !isCheckCommand(h.command))
    .sort((a, b) => b.runs - a.runs || b.i - a.i)
    .slice(0, ACTIVITY_LIMITS.habits)
    .map((h) => `\`${commandLabel(h.command)}\` (${h.runs}x)`);
  return [
    ...latest,
    ...(checks.length === 0 ? [] : [`checks: ${checks.join(", ")}`]),
    ...(often.length === 0 ? [] : [`run most: ${often.join(", ")}`]),
  ].join("; ");
}

describe("activityOf", () => {
  it("lists the latest actions newest first, then the checks, then the commands run most", () => {
    const trail: Trail = {
      ...emptyTrail(),
      files: [
        {
          path: "src/a.ts",
          reads: 0,
          writes: 2,
          created: false,
          lastAction: "edit",
          lastSeen: "2026-11-22T10:00:01Z",
        },
        {
          path: "notes.md",
          reads: 0,
          writes: 0,
          created: false,
          lastAction: "mention",
          lastSeen: "2026-11-22T10:00:03Z",
        },
      ],
      commands: [
        { command: "npm test", status: "failed", exitCode: 1, error: "", at: "2026-11-22T10:00:02Z" },
      ],
      habits: [
        { command: "go test ./...", runs: 1 },
        { command: "git status", runs: 3 },
        { command: "npm test", runs: 2 },
      ],
    };
    expect(activityOf(trail)).toBe(
      "ran `npm test` (exit 1); changed `src/a.ts`; checks: `go test ./...`; run most: `git status` (3x)",
    );
  });

  it("is empty when the session did nothing", () => {
    expect(activityOf(emptyTrail())).toBe("");
  });

  it("answers as the section written with callbacks over random trails (ties, repeats, scratch files)", () => {
    fc.assert(
      fc.property(activityTrailArb, (trail) => {
        expect(activityOf(trail)).toBe(activityReference(trail));
      }),
      { numRuns: 3000 },
    );
  });
});
