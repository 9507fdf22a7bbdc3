import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DRAFT_LIMITS,
  draftHasSubstance,
  draftSnapshot,
  NO_TASK,
  planSteps,
} from "../../plugin/capture/draft.ts";
import { emptyTrail, reduceTrail, type Trail, type TrailFile } from "../../plugin/capture/trail.ts";
import { isScratch } from "../../plugin/capture/trail-files.ts";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { SnapshotContent } from "../../plugin/snapshot/snapshot.ts";
import { ask, at, eventsArb, exec, said, textResult, tool, trailOf } from "./fixtures/events.ts";

const TEST_OUTPUT = [
  " RUN  v5.1.1 /ws",
  " FAIL  test/users.test.ts > createUser > rejects duplicates",
  'Error: duplicate key value violates unique constraint "users_email_key" (ERR_DUPLICATE_KEY)',
  " ❯ src/db/users.ts:42:11",
  " Test Files  1 failed (1)",
].join("\n");

/** A session: an ask, a branch, a read, an edit, a failing `npm test`, and the assistant's plan. */
function scenario(): Trail {
  return trailOf(
    ask(
      "Hi! Fix the duplicate signup bug: users can register twice with the same email (INV-2026-00417). The fix must hold under concurrent signups.",
      0,
    ),
    exec("git checkout -b fix/duplicate-signup", "Switched to a new branch 'fix/duplicate-signup'", 0, 5),
    tool("read", { path: "src/db/users.ts" }, 10, {
      result: textResult("export async function createUser() {}"),
    }),
    tool("edit", { path: "src/db/users.ts", edits: [{ oldText: "a", newText: "b" }] }, 60, {
      result: textResult("Successfully replaced text in src/db/users.ts.", { changed: true }),
    }),
    exec("npm test", TEST_OUTPUT, 1, 120),
    said(
      "The insert path never checks for an existing email. I decided to enforce uniqueness in the database instead of in `createUser` because concurrent signups race.\n\nNext: 1. add a unique index on `users.email` 2. rerun tests",
      150,
    ),
  );
}

describe("draftSnapshot", () => {
  it("drafts the goal, files, names, failure and next steps of a debugging session", () => {
    const failure =
      'Error: duplicate key value violates unique constraint "users_email_key" (ERR_DUPLICATE_KEY)';
    expect(draftSnapshot(scenario())).toEqual({
      goal: "Fix the duplicate signup bug: users can register twice with the same email (INV-2026-00417). The fix must hold under concurrent signups.",
      state: {
        phase: "debugging",
        branch: "fix/duplicate-signup",
        blocked: `yes -- \`npm test\` exited 1: ${failure}`,
        progress: "4 tool calls over 1 turn; 1 file changed; 1 failure; last: ran `npm test` (exit 1)",
      },
      files: [{ path: "src/db/users.ts", note: "edited 1x" }],
      decisions: [
        {
          text: "I decided to enforce uniqueness in the database instead of in `createUser`",
          rationale: "concurrent signups race.",
        },
      ],
      code: [
        "$ npm test",
        "FAIL  test/users.test.ts > createUser > rejects duplicates",
        'Error: duplicate key value violates unique constraint "users_email_key" (ERR_DUPLICATE_KEY)',
        "Test Files  1 failed (1)",
        "(exit code 1)",
      ].join("\n"),
      names: [
        { label: "Error", value: "ERR_DUPLICATE_KEY" },
        { label: "Failing test", value: "test/users.test.ts > createUser > rejects duplicates" },
        { label: "Task", value: "INV-2026-00417" },
        { label: "Identifier", value: "users.email" },
        { label: "Identifier", value: "createUser" },
      ],
      blockers: [
        `\`npm test\` failed (failing: test/users.test.ts > createUser > rejects duplicates): ${failure}`,
      ],
      next: [
        "Fix `ERR_DUPLICATE_KEY` in `src/db/users.ts`, then re-run `npm test`",
        "add a unique index on `users.email`",
        "rerun tests",
      ],
      extra: [
        {
          heading: "Recent Activity",
          body: "ran `npm test` (exit 1); changed `src/db/users.ts`; ran `git checkout -b fix/duplicate-signup`",
        },
      ],
    });
  });

  it("adds the checks the session ran and the commands it ran most, not among the latest, to Recent Activity", () => {
    // A charm session's loop: pack and lint again and again, a status check, then one-off inspections.
    const loop = [0, 1, 2].flatMap((i) => [
      exec("cd /home/ubuntu/op && tox -e lint", "ok", 0, 10 * i),
      exec("rockcraft pack", "Packed sungather_0.3.8_amd64.rock", 0, 10 * i + 1),
      exec("juju status", "active", 0, 10 * i + 2),
    ]);
    const inspections = Array.from({ length: 8 }, (_, i) => exec(`kubectl logs pod-${i}`, "...", 0, 100 + i));
    const activity = draftSnapshot(trailOf(ask("Fix the sungather charm's image"), ...loop, ...inspections))
      .extra[0]?.body;
    expect(activity?.split("; ").slice(-2)).toEqual([
      "checks: `rockcraft pack`, `tox -e lint`",
      "run most: `juju status` (3x)",
    ]);
    // Commands shown among the latest actions are not repeated.
    const short = draftSnapshot(trailOf(ask("Fix the sungather charm's image"), ...loop)).extra[0]?.body;
    expect(short).not.toContain("run most");
    expect(short).not.toContain("checks:");
  });

  it("names a test run once, long before the snapshot, among the checks", () => {
    // A session's shape: `go test ./...` ran, then the list command was edited and tried for many calls.
    const tries = Array.from({ length: 14 }, (_, i) =>
      exec(`./specstory list --limit ${i}`, "...", 0, 10 + i),
    );
    const body = draftSnapshot(
      trailOf(
        ask("Render specstory list as a table"),
        exec("go test ./... 2>&1 | tail -5", "ok", 0, 1),
        ...tries,
      ),
    ).extra[0]?.body;
    expect(body).toContain("checks: `go test ./...`");
  });

  it("shows the later requests that say something new, and never Claude Code's interruption mark as a task", () => {
    const t = trailOf(
      ask("[Request interrupted by user for tool use]", 0),
      ask(
        "Explore the COSMIC desktop on this system. Find: 1. the panel and applet architecture 2. any cosmic-applet binaries",
        1,
      ),
      ask("Explore the COSMIC desktop on this system", 2),
      ask("Now write a launcher applet in Rust under applets/launcher/", 3),
      ask("Also add a D-Bus interface for it", 4),
    );
    expect(draftSnapshot(t).goal).toBe(
      "Explore the COSMIC desktop on this system. Find: 1. the panel and applet architecture 2. any cosmic-applet binaries Later requests: Now write a launcher applet in Rust under applets/launcher/; Also add a D-Bus interface for it",
    );
  });

  it("renders into a block that parses back to the same content", () => {
    const content = draftSnapshot(scenario());
    const snapshot = {
      version: 1 as const,
      id: "2026-11-22-01",
      timestamp: "2026-11-22T10:05:00+00:00",
      session: "agent:main:main",
      agent: "main",
      trigger: "compaction" as const,
      name: null,
      parent: null,
      tombstone: false,
      ...content,
    };
    const parsed = parseDailyLog(renderSnapshot(snapshot), "memory/2026-11-22.md");
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.snapshots.map((s) => s.snapshot)).toEqual([snapshot]);
  });

  describe("goal", () => {
    it("adds the latest request when a later substantial ask differs from the first", () => {
      const t = trailOf(
        ask("Port the CLI to commander. Keep flags stable."),
        ask("Also add a --json flag to list"),
      );
      expect(draftSnapshot(t).goal).toBe(
        "Port the CLI to commander. Keep flags stable. Latest request: Also add a --json flag to list",
      );
    });

    it("ignores a latest ask that only says continue", () => {
      const t = trailOf(ask("Port the CLI to commander. Keep flags stable. Then docs."), ask("continue"));
      expect(draftSnapshot(t).goal).toBe("Port the CLI to commander. Keep flags stable. Then docs.");
    });

    it("says no task was stated when no ask stated one", () => {
      expect(draftSnapshot(trailOf(ask("go on"))).goal).toBe(NO_TASK);
    });

    it("falls back to the plan, then to NO_TASK, when no ask was seen", () => {
      expect(draftSnapshot(trailOf(said("Plan: migrate the queue first"))).goal).toBe(
        "migrate the queue first",
      );
      expect(draftSnapshot(emptyTrail()).goal).toBe(NO_TASK);
    });

    it("never takes an amnesia phrase, a slash command or a continue for the task", () => {
      const t = trailOf(
        ask("/big-memory save"),
        ask("Add rate limiting to POST /api/login. Use the token bucket from lib/limits.ts."),
        ask("you forgot what we were doing"),
        ask("Continue: you forgot what we were doing"),
        ask("where were we? please continue"),
        ask("/compact"),
      );
      expect(draftSnapshot(t).goal).toBe(
        "Add rate limiting to POST /api/login. Use the token bucket from lib/limits.ts.",
      );
    });

    it("keeps the task sentences of an ask that also says the agent forgot", () => {
      const t = trailOf(ask("You forgot what we were doing. We were migrating the billing export to v2."));
      expect(draftSnapshot(t).goal).toBe("We were migrating the billing export to v2.");
    });

    it("reads messages OpenClaw queued while the agent was busy as separate asks", () => {
      const queued = [
        "[Queued messages while agent was busy]",
        "",
        "---\nQueued #1 (from Ana)\nPort the settings page to the new form library",
        "",
        "---\nQueued #2 (from Ana)\nthanks!",
      ].join("\n");
      const t = trailOf(ask(queued), ask("continue"));
      expect(t.asks.map((a) => a.text)).toEqual([
        "Port the settings page to the new form library",
        "thanks!",
        "continue",
      ]);
      expect(draftSnapshot(t).goal).toBe("Port the settings page to the new form library");
    });
  });

  describe("state", () => {
    it.each([
      ["debugging", [exec("npm run build", "error TS2322", 2)]],
      [
        "testing",
        [tool("write", { path: "a.ts" }, 0, { result: textResult("ok") }), exec("npx vitest run", "ok", 0)],
      ],
      [
        "implementing",
        [exec("npx vitest run", "ok", 0), tool("edit", { path: "a.ts" }, 1, { result: textResult("ok") })],
      ],
      [
        "planning",
        [tool("read", { path: "a.ts" }, 0, { result: textResult("") }), exec("git commit -m test", "", 0)],
      ],
    ])("infers the phase %s", (phase, events) => {
      expect(draftSnapshot(trailOf(...events)).state.phase).toBe(phase);
    });

    it("prefers opts.branch over the trail's branch and keeps the trail's when it is null", () => {
      const t = trailOf(exec("git switch main", "", 0));
      expect(draftSnapshot(t, { branch: "feat/x" }).state.branch).toBe("feat/x");
      expect(draftSnapshot(t, { branch: null }).state.branch).toBe("main");
      expect(draftSnapshot(emptyTrail()).state.branch).toBe("");
    });

    it("says not blocked once the failing command passes and counts without a last action", () => {
      const t = trailOf(exec("npm test", "Error: x", 1, 0), exec("npm test", "ok", 0, 1));
      expect(draftSnapshot(t).state).toMatchObject({ blocked: "no", phase: "testing" });
      expect(draftSnapshot(trailOf(ask("Review the auth module please"))).state.progress).toBe(
        "0 tool calls over 1 turn; 0 files changed",
      );
    });
  });

  describe("files", () => {
    it("lists changed files before files only read, most recent first, with their history", () => {
      const ok = { result: textResult("ok") };
      const created = { result: textResult("ok", { created: true }) };
      const t = trailOf(
        tool("read", { path: "README.md" }, 1, ok),
        tool("write", { path: "src/new.ts" }, 2, created),
        tool("edit", { path: "src/a.ts" }, 3, ok),
        tool("read", { path: "docs/api.md" }, 4, ok),
        tool("edit", { path: "src/a.ts" }, 5, ok),
        tool("write", { path: "src/b.ts" }, 6, created),
        tool("edit", { path: "src/b.ts" }, 7, ok),
        tool("read", { path: "README.md" }, 8, ok),
        tool("apply_patch", { input: "*** Delete File: old.ts" }, 9, ok),
      );
      expect(draftSnapshot(t).files).toEqual([
        { path: "old.ts", note: "deleted" },
        { path: "src/b.ts", note: "created, edited 1x" },
        { path: "src/a.ts", note: "edited 2x" },
        { path: "src/new.ts", note: "created" },
        { path: "README.md", note: "read 2x" },
        { path: "docs/api.md", note: "read 1x" },
      ]);
    });

    it("shows at most DRAFT_LIMITS.files files", () => {
      const t = trailOf(
        ...Array.from({ length: 30 }, (_, i) =>
          tool("read", { path: `f${i}.ts` }, i, { result: textResult("") }),
        ),
      );
      expect(draftSnapshot(t).files.map((f) => f.path)).toEqual(
        Array.from({ length: DRAFT_LIMITS.files }, (_, i) => `f${29 - i}.ts`),
      );
    });
  });

  describe("decisions", () => {
    it("splits the rationale at because, at a dash or after a long lead-in, and drops a label", () => {
      const t: Trail = {
        ...emptyTrail(),
        decisions: [
          "We chose zod, because it infers types.",
          "Going with SQLite -- one file to back up.",
          "We decided on the storage layout: one log per day.",
          "Decision: we'll use pino instead of winston.",
          "Opted for tabs.",
          "Sixth: we went with vitest instead of jest.",
        ],
      };
      expect(draftSnapshot(t).decisions).toEqual([
        { text: "Going with SQLite", rationale: "one file to back up." },
        { text: "We decided on the storage layout", rationale: "one log per day." },
        { text: "we'll use pino instead of winston.", rationale: "" },
        { text: "Opted for tabs.", rationale: "" },
        { text: "we went with vitest instead of jest.", rationale: "" },
      ]);
    });
  });

  describe("failures", () => {
    it("lists open failures newest first and drops those a later run fixed", () => {
      const t = trailOf(
        exec("npm run lint", "lint error\n  in a.ts", 1, 1),
        exec("npm run build", "", 2, 2),
        exec("npm test", "Error: old", 1, 3),
        exec("npm test", "ok", 0, 4),
        tool("exec", { command: "make deploy" }, 5, { error: "spawn make ENOENT" }),
        exec("ls", "a.ts", 0, 6),
      );
      const draft = draftSnapshot(t);
      expect(draft.blockers).toEqual([
        "`make deploy` failed: spawn make ENOENT",
        "`npm run build` failed (exit 2)",
        "`npm run lint` failed: lint error",
      ]);
      expect(draft.state.blocked).toBe("yes -- `make deploy` failed: spawn make ENOENT");
      expect(draft.code).toBe("$ make deploy\nspawn make ENOENT");
    });

    it("keeps a failure open when other commands succeed after it, until the same command passes", () => {
      const failing = exec(
        "cd /testbed && python reproduce.py",
        'Traceback (most recent call last):\n  File "/testbed/reproduce.py", line 3, in <module>\n  File "/testbed/astropy/io/fits/card.py", line 88, in _parse\nValueError: invalid card image',
        1,
        1,
      );
      const later = [
        exec("ls", "x", 0, 2),
        exec("git status", "On branch main", 0, 3),
        tool("read", { path: "a.py" }, 4, { result: textResult("x") }),
      ];
      const open = draftSnapshot(trailOf(failing, ...later));
      expect(open.blockers).toEqual([
        "`cd /testbed && python reproduce.py` failed: ValueError: invalid card image",
      ]);
      expect(open.next[0]).toBe(
        "Fix `ValueError` in `/testbed/astropy/io/fits/card.py`, then re-run `cd /testbed && python reproduce.py`",
      );
      const healed = draftSnapshot(trailOf(failing, ...later, exec("python reproduce.py", "all good", 0, 5)));
      expect(healed.blockers).toEqual([]);
      expect(healed.state.blocked).toBe("no");
    });

    it("writes no code block when no failure is open and caps it at DRAFT_LIMITS.codeLines lines", () => {
      expect(draftSnapshot(trailOf(exec("npm test", "ok", 0))).code).toBe("");
      const error = Array.from({ length: 40 }, (_, i) => `Error ${i}`).join("\n");
      const code = draftSnapshot(trailOf(exec("x", error, 3))).code;
      expect(code.split("\n").length).toBeLessThanOrEqual(DRAFT_LIMITS.codeLines);
      expect(code.split("\n").at(-1)).toBe("(exit code 3)");
    });
  });

  describe("names", () => {
    it("orders names by kind, newest first within a kind, and skips paths listed as files", () => {
      const t: Trail = {
        ...emptyTrail(),
        files: [
          { path: "src/a.ts", reads: 1, writes: 0, created: false, lastAction: "read", lastSeen: at(0) },
        ],
        names: [
          { value: "src/a.ts", kind: "path" },
          { value: "docs/adr.md", kind: "path" },
          { value: "createUser", kind: "identifier" },
          { value: "ADR-016", kind: "ticket" },
          { value: "NODE_ENV", kind: "env" },
          { value: "GET /health", kind: "endpoint" },
          { value: "ENOENT", kind: "error" },
          { value: "ERR_X", kind: "error" },
        ],
      };
      expect(draftSnapshot(t).names).toEqual([
        { label: "Error", value: "ERR_X" },
        { label: "Error", value: "ENOENT" },
        { label: "Ticket", value: "ADR-016" },
        { label: "Endpoint", value: "GET /health" },
        { label: "Env var", value: "NODE_ENV" },
        { label: "Identifier", value: "createUser" },
        { label: "Path", value: "docs/adr.md" },
      ]);
    });
  });

  describe("next", () => {
    it("never echoes the user's last message: without a plan, it says where the last action left off", () => {
      const t = trailOf(
        ask("Add pagination to GET /users. Use cursors."),
        tool("read", { path: "src/users.ts" }),
        ask("you forgot what we were doing"),
      );
      expect(draftSnapshot(t).next).toEqual(["Check where the last action left off (read src/users.ts)"]);
    });

    it("takes the steps the assistant announced in single sentences, not its courtesy phrases", () => {
      const t = trailOf(
        ask("Add pagination to GET /users. Use cursors."),
        said(
          "The cursor is the last id. I'll add the cursor parameter next. Then I'll update the tests. Let me know if that works.",
        ),
      );
      expect(draftSnapshot(t).next).toEqual(["Add the cursor parameter next", "Update the tests"]);
    });

    it("puts what the latest text says it will do now before a plan stated earlier", () => {
      // A session's shape: a plan early in the turn, then, many calls later, a single announced step.
      const plan = "Next steps:\n1. Revert the task status\n2. Fix all the failing tests";
      const now =
        "Now, let's fix the GitService tests by updating the git.ts file to work with our new sessions subdirectory structure:";
      const t = trailOf(
        ask("Continue working on task 002"),
        said(plan),
        exec("bun test", "ok", 0, 5),
        said(now),
      );
      expect(draftSnapshot(t).next).toEqual([
        "Fix the GitService tests by updating the git.ts file to work with our new sessions subdirectory structure",
        "Revert the task status",
        "Fix all the failing tests",
      ]);
      // The plan of the latest text alone when that text states it.
      expect(
        draftSnapshot(trailOf(ask("Continue working on task 002"), said(`${now}\n\n${plan}`))).next,
      ).toEqual(["Revert the task status", "Fix all the failing tests"]);
    });

    it("leads with the fix when the last command failed and no plan was stated", () => {
      const t = trailOf(ask("Make the build green again please"), exec("npm run build", "error TS2322", 2));
      expect(draftSnapshot(t).next).toEqual(["Fix the failure, then re-run `npm run build`"]);
      expect(draftSnapshot(trailOf(exec("make", "Error", 2))).next).toEqual([
        "Fix the failure, then re-run `make`",
      ]);
    });

    it("asks for the task when nothing was stated, and for a first step when only the goal is known", () => {
      expect(draftSnapshot(emptyTrail()).next).toEqual(["Ask the user what the task is"]);
      expect(draftSnapshot(trailOf(ask("Add pagination to GET /users"))).next).toEqual([
        "Work out the first step toward the goal (no plan was stated)",
      ]);
    });
  });
});

describe("planSteps", () => {
  it.each([
    ["Next: 1. add a unique index 2. rerun tests", ["add a unique index", "rerun tests"]],
    [
      "**Next steps:**\n- [ ] write the migration;\n- [x] **rerun** tests.\n\nThanks!",
      ["write the migration", "rerun tests"],
    ],
    ["## Plan\n\n1. a\n\n2. b\nafter", ["a", "b"]],
    ["Next steps:\nI'll add the index, then rerun.\nMore prose.", ["I'll add the index", "rerun"]],
    ["I'll do this:\n1. one\n2. two", ["one", "two"]],
    ["Next: a\n- a\n- b", ["a", "b"]],
    ["Plan:\n```\n1. not a step\n```", []],
  ])("reads %j", (plan, steps) => {
    expect(planSteps(plan, DRAFT_LIMITS.next)).toEqual(steps);
  });

  it("keeps at most max steps of at most stepChars characters", () => {
    const plan = `Next:\n${Array.from({ length: 9 }, (_, i) => `- step ${i} ${"x".repeat(300)}`).join("\n")}`;
    const steps = planSteps(plan, DRAFT_LIMITS.next);
    expect(steps).toHaveLength(DRAFT_LIMITS.next);
    expect(steps.every((s) => s.length === DRAFT_LIMITS.stepChars && s.endsWith("…"))).toBe(true);
  });
});

describe("draftHasSubstance", () => {
  it("is false until an ask or a tool call was observed", () => {
    expect(draftHasSubstance(emptyTrail())).toBe(false);
    expect(draftHasSubstance(trailOf(said("Plan: x"), { type: "branch", branch: "main", at: at(0) }))).toBe(
      false,
    );
    expect(draftHasSubstance(trailOf(ask("ok")))).toBe(true);
    expect(draftHasSubstance(trailOf(tool("web_search", { query: "x" })))).toBe(true);
  });
});

describe("draftSnapshot properties", () => {
  const trailArb = eventsArb.map((events) => events.reduce((t, e) => reduceTrail(t, e), emptyTrail()));

  it("drafts valid, deterministic, single-line content within DRAFT_LIMITS from any trail", () => {
    fc.assert(
      fc.property(trailArb, (trail) => {
        const draft = draftSnapshot(trail);
        expect(SnapshotContent.parse(draft)).toEqual(draft);
        expect(draftSnapshot(trail)).toEqual(draft);
        expect(draftSnapshot(JSON.parse(JSON.stringify(trail)))).toEqual(draft);
        expect(draft.goal).not.toBe("");
        expect(draft.next.length).toBeGreaterThan(0);
        expect(draft.next.length).toBeLessThanOrEqual(DRAFT_LIMITS.next);
        expect(draft.files.length).toBeLessThanOrEqual(DRAFT_LIMITS.files);
        expect(draft.names.length).toBeLessThanOrEqual(DRAFT_LIMITS.names);
        expect(draft.blockers.length).toBeLessThanOrEqual(DRAFT_LIMITS.blockers);
        expect(draft.decisions.length).toBeLessThanOrEqual(DRAFT_LIMITS.decisions);
        expect(draft.code.split("\n").length).toBeLessThanOrEqual(DRAFT_LIMITS.codeLines);
        const inline = [
          draft.goal,
          ...Object.values(draft.state),
          ...draft.files.flatMap((f) => [f.path, f.note]),
          ...draft.decisions.flatMap((d) => [d.text, d.rationale]),
          ...draft.names.flatMap((n) => [n.label, n.value]),
          ...draft.blockers,
          ...draft.next,
        ];
        expect(inline.filter((value) => /[\r\n]/.test(value))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("lists files in the order the filters first written gave, over random file lists", () => {
    const file: fc.Arbitrary<TrailFile> = fc.record({
      path: fc.constantFrom(
        "src/a.ts",
        "src/b.py",
        "debug.js",
        "/tmp/x.txt",
        "README.md",
        "lib/c/d.go",
        "e.ts",
      ),
      reads: fc.nat(2),
      writes: fc.nat(2),
      created: fc.boolean(),
      lastAction: fc.constantFrom("read", "create", "write", "edit", "delete", "move", "mention"),
      lastSeen: fc.constant("2026-11-22T10:00:00Z"),
    });
    // The reference: filters over the newest-first list, as the draft first chose its files.
    const reference = (files: readonly TrailFile[]): string[] => {
      const newest = [...files].reverse();
      const changed = newest.filter((f) => f.writes > 0);
      return [
        ...changed.filter((f) => !isScratch(f)),
        ...changed.filter(isScratch),
        ...newest.filter((f) => f.writes === 0 && f.reads > 0),
        ...newest.filter((f) => f.lastAction === "mention"),
      ]
        .slice(0, DRAFT_LIMITS.files)
        .map((f) => f.path);
    };
    fc.assert(
      fc.property(fc.array(file, { maxLength: 24 }), (files) => {
        const trail: Trail = { ...emptyTrail(), files, toolCalls: 1 };
        expect(draftSnapshot(trail).files.map((f) => f.path)).toEqual(reference(files));
      }),
      { numRuns: 2000 },
    );
  });
});
