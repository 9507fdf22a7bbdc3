import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commandLabel } from "../../plugin/capture/command.ts";
import { emptyTrail, reduceTrail, TRAIL_LIMITS, Trail } from "../../plugin/capture/trail.ts";
import { ask, at, eventsArb, exec, said, textResult, tool, trailOf } from "./fixtures/events.ts";
import trailV1 from "./fixtures/trail-v1.json" with { type: "json" };

const L = TRAIL_LIMITS;

describe("emptyTrail", () => {
  it("returns a version 1 trail that observed nothing and passes the schema", () => {
    const t = emptyTrail();
    expect(Trail.parse(t)).toEqual(t);
    expect(t).toMatchObject({ version: 1, firstAsk: null, asks: [], files: [], turns: 0, updatedAt: null });
  });
});

describe("Trail", () => {
  it("loads a version 1 trail persisted by an earlier build and keeps reducing it", () => {
    const t = Trail.parse(trailV1);
    expect(t.branch).toBe("fix/duplicate-signup");
    expect(t.commands.map((c) => [c.command, c.status, c.exitCode])).toEqual([
      ["git checkout -b fix/duplicate-signup", "ok", 0],
      ["npm test", "failed", 1],
    ]);
    expect(t.plan).toBe("Next: 1. add the index 2. rerun tests");
    expect(reduceTrail(t, exec("npm test", "ok", 0, 200)).commands.at(-1)?.status).toBe("ok");
  });

  it("refuses an unknown version and a trail beyond its limits", () => {
    expect(Trail.safeParse({ ...trailV1, version: 2 }).success).toBe(false);
    const asks = Array.from({ length: L.asks + 1 }, () => ({ text: "x", at: "t" }));
    expect(Trail.safeParse({ ...trailV1, asks }).error?.issues.map((i) => i.path.join("."))).toEqual([
      "asks",
    ]);
  });
});

describe("reduceTrail", () => {
  it("redacts every event before anything of it reaches the trail", () => {
    const token = `ghp_${"Tr4l".repeat(9)}`;
    const secret = "mN8/qR3+sT".repeat(4);
    const t = trailOf(
      ask(`Deploy with GITHUB_TOKEN=${token} please, the release is blocked`, 0),
      exec(`export AWS_SECRET_ACCESS_KEY=${secret} && ./deploy.sh`, `denied for ${token}`, 1, 1),
      said(`Pushed with ${token}. Next:\n1. Rotate ${token}`, 2),
    );
    const json = JSON.stringify(t);
    expect(json).not.toContain(token);
    expect(json).not.toContain(secret);
    expect(t.asks[0]?.text).toBe(
      "Deploy with GITHUB_TOKEN=[REDACTED:github-token] please, the release is blocked",
    );
    expect(t.commands[0]?.command).toBe("export AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret] && ./deploy.sh");
  });

  it("redacts a secret at the end of a tool output far longer than what it scans", () => {
    const token = `ghp_${"Lo9g".repeat(9)}`;
    const output = `${"ok\n".repeat(40_000)}fatal: auth failed for ${token}`;
    const t = trailOf(exec("git push", output, 128, 0));
    expect(JSON.stringify(t)).not.toContain(token);
    expect(t.commands[0]?.error).toContain("[REDACTED:github-token]");
  });

  describe("asks", () => {
    it("keeps the first substantial ask apart and every ask in order when several arrive", () => {
      const t = trailOf(ask("hi", 0), ask("Migrate the billing export to the v2 API", 1), ask("continue", 2));
      expect(t.firstAsk).toBe("Migrate the billing export to the v2 API");
      expect(t.asks).toEqual([
        { text: "hi", at: at(0) },
        { text: "Migrate the billing export to the v2 API", at: at(1) },
        { text: "continue", at: at(2) },
      ]);
      expect(t.turns).toBe(3);
      expect(t.updatedAt).toBe(at(2));
    });

    it("counts one turn when the same ask is reported twice in a row", () => {
      const t = trailOf(
        ask("Add rate limiting to the login endpoint", 0),
        ask("Add rate limiting to the login endpoint", 1),
      );
      expect(t.asks).toHaveLength(1);
      expect(t.turns).toBe(1);
      expect(t.updatedAt).toBe(at(1));
    });

    it("ignores OpenClaw runtime context, compaction summaries and memory-flush prompts", () => {
      const t = trailOf(
        ask(
          "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nActive exec sessions: none\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>",
        ),
        ask("The conversation history before this point was compacted into the following summary: ..."),
        ask("Pre-compaction memory flush. Store durable memories now."),
        ask("   "),
      );
      expect(t).toEqual(emptyTrail());
    });

    it("keeps the user's words without channel envelopes and untrusted metadata", () => {
      const text =
        'Sender (untrusted metadata):\n```json\n{"name":"Ana"}\n```\n[WhatsApp +1555 Mon 2026-01-05 16:26:34 PST] Fix the login bug on Safari';
      expect(trailOf(ask(text)).asks).toEqual([{ text: "Fix the login bug on Safari", at: at(0) }]);
    });

    it("keeps the newest asks but never drops firstAsk when more than the limit arrive", () => {
      const texts = Array.from(
        { length: L.asks + 3 },
        (_, i) => `Please rename the billing module ${i} today`,
      );
      const t = trailOf(...texts.map((text, i) => ask(text, i)));
      expect(t.asks.map((a) => a.text)).toEqual(texts.slice(-L.asks));
      expect(t.firstAsk).toBe("Please rename the billing module 0 today");
      expect(t.turns).toBe(L.asks + 3);
    });

    it("cuts an ask longer than askChars with an ellipsis", () => {
      const t = trailOf(ask(`Refactor the parser ${"x".repeat(2000)}`));
      expect(t.asks[0]?.text).toHaveLength(L.askChars);
      expect(t.asks[0]?.text.endsWith("…")).toBe(true);
      expect(t.firstAsk).toBe(t.asks[0]?.text);
    });
  });

  describe("files", () => {
    it("counts reads and edits per file, least recently used first", () => {
      const t = trailOf(
        tool("read", { path: "src/a.ts" }, 1, { result: textResult("a") }),
        tool("read", { file_path: "src/b.ts" }, 2, { result: textResult("b") }),
        tool("edit", { path: "./src/a.ts", edits: [] }, 3, { result: textResult("ok", { changed: true }) }),
      );
      expect(t.files).toEqual([
        { path: "src/b.ts", reads: 1, writes: 0, created: false, lastAction: "read", lastSeen: at(2) },
        { path: "src/a.ts", reads: 1, writes: 1, created: false, lastAction: "edit", lastSeen: at(3) },
      ]);
      expect(t.last).toEqual({ kind: "write", text: "edited src/a.ts" });
      expect(t.toolCalls).toBe(3);
    });

    it("marks a file created when the write tool reports created", () => {
      const created = textResult("Wrote 3 lines", { changed: true, created: true, diff: "", patch: "" });
      const t = trailOf(tool("write", { path: "src/new.ts", content: "x" }, 1, { result: created }));
      expect(t.files).toEqual([
        { path: "src/new.ts", reads: 0, writes: 1, created: true, lastAction: "create", lastSeen: at(1) },
      ]);
      expect(t.last).toEqual({ kind: "write", text: "created src/new.ts" });
    });

    it("reads every file of an apply_patch input", () => {
      const input = [
        "*** Begin Patch",
        "*** Add File: docs/new.md",
        "+hello",
        "*** Update File: src/app.ts",
        "@@",
        "-a",
        "+b",
        "*** Update File: src/old-name.ts",
        "*** Move to: src/new-name.ts",
        "*** Delete File: obsolete.txt",
        "*** End Patch",
      ].join("\n");
      const t = trailOf(tool("apply_patch", { input }, 1, { result: textResult("Done") }));
      expect(t.files.map((f) => [f.path, f.lastAction])).toEqual([
        ["docs/new.md", "create"],
        ["src/app.ts", "edit"],
        ["src/old-name.ts", "delete"],
        ["src/new-name.ts", "move"],
        ["obsolete.txt", "delete"],
      ]);
      expect(t.last).toEqual({ kind: "write", text: "deleted obsolete.txt (+4 more)" });
    });

    it("ignores daily logs under memory/ and counts the plugin's own tools as calls only", () => {
      const t = trailOf(
        tool("write", { path: "memory/2026-11-22.md", content: "x" }, 1, { result: textResult("ok") }),
        tool("read", { path: "/home/u/.openclaw/workspace/memory/2026-11-21.md" }, 2, {
          result: textResult(""),
        }),
        tool("big_memory_save", { path: "src/a.ts" }, 3, { result: textResult("saved") }),
        tool("big_memory_recall", {}, 4, { error: "nothing found" }),
      );
      expect(t.files).toEqual([]);
      expect(t.toolCalls).toBe(4);
      expect(t.failures).toBe(0);
      expect(t.last).toEqual({ kind: "tool", text: "used read" });
    });

    it("keeps absolute paths under workspaceDir relative to it", () => {
      const event = tool("read", { path: "/ws/project/src/a.ts" }, 1, { result: textResult("a") });
      const t = reduceTrail(emptyTrail(), event, { workspaceDir: "/ws/project/" });
      expect(t.files.map((f) => f.path)).toEqual(["src/a.ts"]);
    });

    it("evicts the least recently used file when more than the limit are touched", () => {
      const reads = Array.from({ length: L.files + 5 }, (_, i) =>
        tool("read", { path: `src/f${i}.ts` }, i, { result: textResult("") }),
      );
      const t = trailOf(
        tool("read", { path: "src/keep.ts" }, 0, { result: textResult("") }),
        ...reads.slice(0, 10),
        tool("read", { path: "src/keep.ts" }, 11, { result: textResult("") }),
        ...reads.slice(10),
      );
      expect(t.files).toHaveLength(L.files);
      expect(t.files.map((f) => f.path)).toContain("src/keep.ts");
      expect(t.files.map((f) => f.path)).not.toContain("src/f0.ts");
      expect(t.files.at(-1)?.path).toBe(`src/f${L.files + 4}.ts`);
    });

    it("records no file and describes the failure when a file tool fails", () => {
      const t = trailOf(
        tool("edit", { path: "src/a.ts", edits: [] }, 1, {
          error: "Could not find the exact text in src/a.ts",
        }),
      );
      expect(t.files).toEqual([]);
      expect(t.failures).toBe(1);
      expect(t.commands).toEqual([]);
      expect(t.last).toEqual({
        kind: "tool",
        text: "edit src/a.ts failed: Could not find the exact text in src/a.ts",
      });
    });
  });

  describe("commands", () => {
    it("records a non-zero exit as a failure with the error lines of its output", () => {
      const output =
        " RUN  v5\n FAIL  test/users.test.ts > rejects duplicates\nError: duplicate key (ERR_DUPLICATE_KEY)\n ❯ src/db.ts:42:11";
      const t = trailOf(exec("npm test", output, 1, 5));
      expect(t.commands).toEqual([
        {
          command: "npm test",
          status: "failed",
          exitCode: 1,
          error: "FAIL  test/users.test.ts > rejects duplicates\nError: duplicate key (ERR_DUPLICATE_KEY)",
          at: at(5),
        },
      ]);
      expect(t.failures).toBe(1);
      expect(t.last).toEqual({ kind: "command", text: "ran `npm test` (exit 1)" });
      expect(t.names).toEqual([
        { value: "ERR_DUPLICATE_KEY", kind: "error" },
        { value: "test/users.test.ts > rejects duplicates", kind: "identifier" },
      ]);
      expect(t.failing).toEqual([
        {
          command: "npm test",
          key: "test:npm test:",
          exitCode: 1,
          error: "FAIL  test/users.test.ts > rejects duplicates\nError: duplicate key (ERR_DUPLICATE_KEY)",
          exception: "Error: duplicate key (ERR_DUPLICATE_KEY)",
          name: "ERR_DUPLICATE_KEY",
          tests: ["test/users.test.ts > rejects duplicates"],
          codes: ["ERR_DUPLICATE_KEY"],
          frameFile: null,
          at: at(5),
        },
      ]);
    });

    it("records a command that succeeded with no error excerpt", () => {
      const t = trailOf(exec("npm run build", "built in 2s", 0, 1));
      expect(t.commands).toEqual([
        { command: "npm run build", status: "ok", exitCode: 0, error: "", at: at(1) },
      ]);
      expect(t.last).toEqual({ kind: "command", text: "ran `npm run build`" });
    });

    it("records a tool error as a failure without an exit code", () => {
      const t = trailOf(
        tool("bash", { command: "make deploy" }, 1, { error: "exec denied: approval required" }),
      );
      expect(t.commands).toEqual([
        {
          command: "make deploy",
          status: "failed",
          exitCode: null,
          error: "exec denied: approval required",
          at: at(1),
        },
      ]);
      expect(t.last).toEqual({ kind: "command", text: "ran `make deploy` (failed)" });
    });

    it("reads the exit code from OpenClaw's text suffix when the result has no details", () => {
      const result = textResult("boom\n\n(Command exited with code 2)");
      const t = trailOf(tool("exec", { command: "./check.sh" }, 1, { result }));
      expect(t.commands[0]).toMatchObject({ status: "failed", exitCode: 2, error: "boom" });
    });

    it("records a backgrounded command as running and a command without result as unknown", () => {
      const running = textResult("Command still running (session s1).", {
        status: "running",
        sessionId: "s1",
      });
      const t = trailOf(
        tool("exec", { command: "npm run dev" }, 1, { result: running }),
        tool("exec", { command: ["ls", "-la"] }, 2),
      );
      expect(t.commands.map((c) => [c.command, c.status])).toEqual([
        ["npm run dev", "running"],
        ["ls -la", "unknown"],
      ]);
      expect(t.failures).toBe(0);
    });

    it("keeps the newest commands when more than the limit run", () => {
      const t = trailOf(...Array.from({ length: L.commands + 4 }, (_, i) => exec(`echo ${i}`, `${i}`, 0, i)));
      expect(t.commands.map((c) => c.command)).toEqual(
        Array.from({ length: L.commands }, (_, i) => `echo ${i + 4}`),
      );
    });
  });

  describe("branch", () => {
    it("sets the branch from a git command, its output, prose and a branch event", () => {
      expect(trailOf(exec("git checkout -b fix/dup-users", "", 0)).branch).toBe("fix/dup-users");
      expect(trailOf(exec("git status", "On branch feature/login\nnothing to commit", 0)).branch).toBe(
        "feature/login",
      );
      expect(trailOf(said("I'm on branch feat/oauth-refresh now.")).branch).toBe("feat/oauth-refresh");
      expect(trailOf(ask("We work on the `hotfix` branch, fix the crash")).branch).toBe("hotfix");
      expect(
        trailOf(exec("git switch main", "", 0), { type: "branch", branch: "  release/2.0 ", at: at(1) })
          .branch,
      ).toBe("release/2.0");
    });

    it("keeps the branch when a checkout fails", () => {
      const t = trailOf(
        exec("git switch main", "", 0),
        exec("git checkout -b main", "fatal: already exists", 128),
      );
      expect(t.branch).toBe("main");
    });
  });

  describe("assistant texts", () => {
    it("keeps the latest plan, decisions and names, and the last text", () => {
      const t = trailOf(
        said("Plan: 1. read the schema 2. add the index", 1),
        said(
          "We'll use a partial index instead of a constraint because of soft deletes. Reading `schema.sql` now.",
          2,
        ),
      );
      expect(t.plan).toBe("Plan: 1. read the schema 2. add the index");
      expect(t.decisions).toEqual([
        "We'll use a partial index instead of a constraint because of soft deletes.",
      ]);
      expect(t.names).toEqual([{ value: "schema.sql", kind: "path" }]);
      expect(t.assistantLast).toBe(
        "We'll use a partial index instead of a constraint because of soft deletes. Reading `schema.sql` now.",
      );
    });

    it("moves a name seen again to the end and keeps at most the limit", () => {
      const codes = Array.from({ length: L.names + 5 }, (_, i) => `ERR_CODE_${i}`);
      const chunks = [codes.slice(0, 15), codes.slice(15, 30), codes.slice(30)];
      const t = trailOf(...chunks.map((c, i) => said(c.join(" "), i)), said("again ERR_CODE_10", 9));
      expect(t.names).toHaveLength(L.names);
      expect(t.names.at(-1)).toEqual({ value: "ERR_CODE_10", kind: "error" });
      expect(t.names[0]).toEqual({ value: "ERR_CODE_5", kind: "error" });
    });

    it("takes at most namesPerText names from one text", () => {
      const text = Array.from({ length: 40 }, (_, i) => `ERR_X_${i}`).join(" ");
      expect(trailOf(said(text)).names).toHaveLength(L.namesPerText);
    });
  });

  describe("properties", () => {
    it("stays within TRAIL_LIMITS, never throws and round-trips through JSON for any event sequence", () => {
      fc.assert(
        fc.property(eventsArb, (events) => {
          const t = events.reduce(
            (trail, event) => reduceTrail(trail, event, { workspaceDir: "/ws" }),
            emptyTrail(),
          );
          expect(Trail.parse(t)).toEqual(t);
          expect(Trail.parse(JSON.parse(JSON.stringify(t)))).toEqual(t);
          expect(t.asks.length).toBeLessThanOrEqual(L.asks);
          expect(t.files.length).toBeLessThanOrEqual(L.files);
          expect(t.commands.length).toBeLessThanOrEqual(L.commands);
          expect(t.names.length).toBeLessThanOrEqual(L.names);
          expect(t.decisions.length).toBeLessThanOrEqual(L.decisions);
          expect(t.plan.length).toBeLessThanOrEqual(L.planChars);
          expect(t.toolCalls).toBe(events.filter((e) => e.type === "tool").length);
        }),
        { numRuns: 300 },
      );
    });

    it("does not change the trail it is given", () => {
      fc.assert(
        fc.property(eventsArb, eventsArb, (before, after) => {
          const t = before.reduce((trail, event) => reduceTrail(trail, event), emptyTrail());
          const copy = structuredClone(t);
          for (const event of after) reduceTrail(t, event);
          expect(t).toEqual(copy);
        }),
        { numRuns: 100 },
      );
    });
  });
});

describe("commandLabel", () => {
  it("shows the first line of a multi-line command", () => {
    expect(commandLabel("cat <<EOF > a\nimport os\n\nEOF")).toBe("cat <<EOF > a …");
    expect(commandLabel("cat <<EOF > a\nx\nEOF")).toBe("cat <<EOF > a … x");
    expect(
      commandLabel(
        'cd /testbed && python -c "\nfrom astropy.io import fits\ncard = fits.Card.fromstring(x)\n"',
      ),
    ).toBe('cd /testbed && python -c " … card = fits.Card.fromstring(x)');
    expect(commandLabel("npm test")).toBe("npm test");
  });
});

describe("reduceTrail queued asks", () => {
  const batch =
    "[Queued messages while agent was busy]\n\n---\nQueued #1\nyou forgot what we were doing\n\n---\nQueued #2\nRename getUser to fetchUser everywhere";

  it("keeps each queued message as its own ask, in one turn, and the first task as firstAsk", () => {
    const t = trailOf(ask(batch));
    expect([t.asks.map((a) => a.text), t.turns, t.firstAsk]).toEqual([
      ["you forgot what we were doing", "Rename getUser to fetchUser everywhere"],
      1,
      "Rename getUser to fetchUser everywhere",
    ]);
  });

  it("counts the same batch reported twice once", () => {
    const t = trailOf(ask(batch), ask(batch, 1));
    expect([t.asks.length, t.turns]).toEqual([2, 1]);
  });
});
