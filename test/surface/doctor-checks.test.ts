import { describe, expect, it } from "vitest";
import {
  byteSize,
  type Check,
  type DoctorFacts,
  doctorChecks,
  doctorOk,
  modelCheck,
} from "../../plugin/surface/doctor-checks.ts";

const NOW = new Date("2026-11-22T12:00:00Z");
const ENTRY = { enabled: true, hooks: { allowConversationAccess: true }, config: {} };

/** Facts of a healthy install, with `patch` applied to the config and the rest. */
function facts(
  patch: { plugins?: Record<string, unknown>; agents?: Record<string, unknown> } = {},
  rest: Partial<DoctorFacts> = {},
): DoctorFacts {
  return {
    now: NOW,
    host: "cli",
    config: {
      path: "/h/.openclaw/openclaw.json",
      exists: true,
      problem: null,
      value: {
        plugins: { entries: { "big-memory": ENTRY }, ...patch.plugins },
        agents: patch.agents ?? MODEL,
      },
    },
    agent: "main",
    workspace: {
      dir: "/w",
      source: "agents.defaults.workspace",
      exists: true,
      hasMemory: true,
      notWritable: null,
    },
    install: { dir: "/h/.openclaw/npm/projects/big-memory/node_modules/big-memory", problem: null },
    sessions: {
      count: 1,
      unreadable: 0,
      lastActivity: "2026-11-22T11:00:00Z",
      lastTurn: "2026-11-22T11:00:00Z",
      silent: [],
    },
    lastCapture: { id: "2026-11-22-01", timestamp: "2026-11-22T10:00:00Z" },
    lastRestore: { id: "2026-11-22-01", at: "2026-11-22T10:30:00Z" },
    index: { months: 1, unreadable: [], missing: [] },
    logs: { files: 1, snapshots: 1, problems: 0, firstProblem: null },
    journal: { days: 1, blocks: 1, incidents: [] },
    ...rest,
  };
}
/** A default model, as `openclaw onboard` sets one. */
const MODEL = { defaults: { model: { primary: "openai/gpt-5.4" } } };
const named = (checks: Check[], name: string) => checks.find((c) => c.name === name);
const statuses = (checks: Check[]) => Object.fromEntries(checks.map((c) => [c.name, c.status]));

describe("modelCheck", () => {
  it("names the agent's own model, else the default one, else warns that no turn runs without one", () => {
    const own = { list: [{ id: "main", model: "anthropic/claude-opus-4-6" }], ...MODEL };
    expect(modelCheck(facts({ agents: own }))).toMatchObject({
      status: "ok",
      detail: "anthropic/claude-opus-4-6 (agents.list, agent main)",
    });
    expect(modelCheck(facts({ agents: { defaults: { model: "openai/gpt-5.4" } } })).detail).toBe(
      "openai/gpt-5.4 (agents.defaults.model)",
    );
    expect(modelCheck(facts({ agents: { defaults: { model: { primary: " " } } } }))).toEqual({
      name: "model",
      status: "warn",
      detail:
        "no model is configured (agents.defaults.model is not set): no turn runs, so big-memory has nothing to capture or restore yet",
      fix: `run \`openclaw onboard\`, or \`openclaw config set agents.defaults.model.primary '"provider/model"' --strict-json\``,
    });
  });
});

describe("doctorChecks", () => {
  it("passes every check of a healthy install, one line each", () => {
    const checks = doctorChecks(facts());
    expect(statuses(checks)).toEqual({
      config: "ok",
      model: "ok",
      "plugin enabled": "ok",
      "plugin config": "ok",
      "plugin installed": "ok",
      "conversation access": "ok",
      "prompt injection": "ok",
      "memory flush": "ok",
      compaction: "ok",
      workspace: "ok",
      "hooks seen": "ok",
      "last capture and restore": "ok",
      index: "ok",
      "daily logs": "ok",
      compactions: "ok",
      "daily logs vs journal": "ok",
    });
    expect(doctorOk(checks)).toBe(true);
    expect(named(checks, "memory flush")?.detail).toBe(
      "on (runs 4000 tokens before compaction, or when the transcript reaches 2mb)",
    );
    expect(named(checks, "last capture and restore")?.detail).toBe(
      "capture 2026-11-22-01 2h ago; restore 2026-11-22-01 2h ago",
    );
    expect(named(checks, "compaction")?.detail).toBe("when the model's context fills (OpenClaw's default)");
    expect(named(checks, "daily logs")?.detail).toBe("1 snapshot in 1 daily log, no problems");
  });

  it("fails without conversation access, naming the dropped hooks and the command that fixes it", () => {
    const checks = doctorChecks(
      facts({ plugins: { entries: { "big-memory": { enabled: true, config: {} } } } }),
    );
    expect(named(checks, "conversation access")).toEqual({
      name: "conversation access",
      status: "fail",
      detail:
        "plugins.entries.big-memory.hooks.allowConversationAccess is not set: OpenClaw drops before_prompt_build and llm_output, so nothing is restored and no turn is observed",
      fix: "openclaw config set plugins.entries.big-memory.hooks.allowConversationAccess true --strict-json",
    });
    expect(doctorOk(checks)).toBe(false);
  });

  it("fails when an operator set allowPromptInjection: false", () => {
    const entry = { ...ENTRY, hooks: { allowConversationAccess: true, allowPromptInjection: false } };
    const check = named(
      doctorChecks(facts({ plugins: { entries: { "big-memory": entry } } })),
      "prompt injection",
    );
    expect([check?.status, check?.fix]).toEqual([
      "fail",
      "openclaw config set plugins.entries.big-memory.hooks.allowPromptInjection true --strict-json",
    ]);
  });

  it("fails when the plugin is disabled, denied or left out of the allowlist", () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { entries: { "big-memory": { ...ENTRY, enabled: false } } },
        "plugins.entries.big-memory.enabled is false",
      ],
      [{ deny: ["big-memory"] }, "plugins.deny lists big-memory"],
      [{ allow: ["other"] }, "plugins.allow does not list big-memory"],
      [{ enabled: false }, "plugins.enabled is false"],
    ];
    for (const [plugins, detail] of cases) {
      expect(named(doctorChecks(facts({ plugins })), "plugin enabled")).toMatchObject({
        status: "fail",
        detail,
      });
    }
  });

  it("fails on an invalid plugin config and when capture is off entirely; warns when only restore is off", () => {
    const withConfig = (config: unknown) =>
      named(
        doctorChecks(facts({ plugins: { entries: { "big-memory": { ...ENTRY, config } } } })),
        "plugin config",
      );
    expect(withConfig({ scope: "everyone" })?.status).toBe("fail");
    expect(withConfig({ scope: "everyone" })?.detail).toMatch(
      /^plugins\.entries\.big-memory\.config is invalid: scope: /,
    );
    expect(withConfig({ capture: { flushPrompt: false, safetyNet: false } })).toMatchObject({
      status: "fail",
      detail: "plugins.entries.big-memory.config turns off capture.flushPrompt and capture.safetyNet",
    });
    expect(withConfig({ restore: { afterCompaction: false } })?.status).toBe("warn");
  });

  it("warns when the memory flush is off or no memory plugin runs it", () => {
    const off = named(
      doctorChecks(facts({ agents: { defaults: { compaction: { memoryFlush: { enabled: false } } } } })),
      "memory flush",
    );
    expect([off?.status, off?.fix]).toEqual([
      "warn",
      "openclaw config set agents.defaults.compaction.memoryFlush.enabled true --strict-json",
    ]);
    expect(
      named(doctorChecks(facts({ plugins: { slots: { memory: "none" } } })), "memory flush")?.status,
    ).toBe("warn");
    const custom = {
      defaults: {
        compaction: { memoryFlush: { softThresholdTokens: 9000, forceFlushTranscriptBytes: "1mb" } },
      },
    };
    expect(named(doctorChecks(facts({ agents: custom })), "memory flush")?.detail).toBe(
      "on (runs 9000 tokens before compaction, or when the transcript reaches 1mb)",
    );
  });

  it("warns when a try-out compaction threshold is left in the config, with the commands that remove it", () => {
    const tryOut = {
      defaults: {
        compaction: { maxActiveTranscriptBytes: "4kb", memoryFlush: { forceFlushTranscriptBytes: "2kb" } },
      },
    };
    const checks = doctorChecks(facts({ agents: tryOut }));
    expect(named(checks, "compaction")).toEqual({
      name: "compaction",
      status: "warn",
      detail:
        'agents.defaults.compaction.maxActiveTranscriptBytes is "4kb", agents.defaults.compaction.memoryFlush.forceFlushTranscriptBytes is "2kb": OpenClaw compacts every few turns (a try-out setting)',
      fix: "openclaw config unset agents.defaults.compaction.maxActiveTranscriptBytes && openclaw config unset agents.defaults.compaction.memoryFlush.forceFlushTranscriptBytes",
    });
    expect(doctorOk(checks)).toBe(true);
    const large = { defaults: { compaction: { maxActiveTranscriptBytes: "20mb" } } };
    expect(named(doctorChecks(facts({ agents: large })), "compaction")).toMatchObject({
      status: "ok",
      detail: 'when the context fills, or before a turn once the transcript reaches "20mb"',
    });
  });

  it("fails on a workspace big-memory cannot write, naming the folder and the error", () => {
    const ws = {
      dir: "/w",
      source: "--dir",
      exists: true,
      hasMemory: true,
      notWritable: "/w/memory is not writable (EROFS)",
    };
    expect(named(doctorChecks(facts({}, { workspace: ws })), "workspace")).toMatchObject({
      status: "fail",
      detail: "/w (--dir): /w/memory is not writable (EROFS)",
    });
    const missing = { ...ws, exists: false, notWritable: null };
    expect(named(doctorChecks(facts({}, { workspace: missing })), "workspace")?.status).toBe("warn");
  });

  it("fails when sessions saw compactions but never a user turn: the hook is being dropped", () => {
    const sessions = {
      count: 1,
      unreadable: 0,
      lastActivity: NOW.toISOString(),
      lastTurn: null,
      silent: ["agent:main:main"],
    };
    expect(named(doctorChecks(facts({}, { sessions })), "hooks seen")).toEqual({
      name: "hooks seen",
      status: "fail",
      detail:
        "1 session (agent:main:main) saw compactions or tool calls but never a user turn: before_prompt_build is being dropped",
      fix: "openclaw config set plugins.entries.big-memory.hooks.allowConversationAccess true --strict-json",
    });
  });

  it("warns, without failing, when nothing was observed yet, the index lags or a log has problems", () => {
    const checks = doctorChecks(
      facts(
        {},
        {
          sessions: { count: 0, unreadable: 0, lastActivity: null, lastTurn: null, silent: [] },
          lastCapture: null,
          lastRestore: null,
          index: { months: 1, unreadable: ["2026-10"], missing: ["2026-11"] },
          logs: {
            files: 2,
            snapshots: 3,
            problems: 1,
            firstProblem: "memory/2026-11-22.md:14: snapshot block has no end marker",
          },
        },
      ),
    );
    expect(statuses(checks)).toMatchObject({ "hooks seen": "warn", index: "warn", "daily logs": "warn" });
    expect(named(checks, "index")?.detail).toBe("unreadable: 2026-10; not indexed yet: 2026-11");
    expect(named(checks, "daily logs")?.detail).toBe(
      "1 problem in 2 daily logs (first: memory/2026-11-22.md:14: snapshot block has no end marker)",
    );
    expect(named(checks, "last capture and restore")?.detail).toBe("capture none yet; restore none yet");
    expect(doctorOk(checks)).toBe(true);
  });

  it("fails when the config is missing or unreadable, and when the installed package lacks its build", () => {
    const absent = { path: "/h/.openclaw/openclaw.json", exists: false, problem: null, value: {} };
    expect(named(doctorChecks(facts({}, { config: absent })), "config")).toMatchObject({
      status: "fail",
      detail: "no OpenClaw config at /h/.openclaw/openclaw.json",
    });
    const install = { dir: "/src/big-memory", problem: "/src/big-memory/dist/index.js is missing" };
    expect(named(doctorChecks(facts({}, { install })), "plugin installed")).toMatchObject({
      status: "fail",
      fix: "run `npm install` (it builds dist/) in that folder",
    });
    expect(
      named(
        doctorChecks(facts({}, { host: "openclaw", install: { dir: null, problem: null } })),
        "plugin installed",
      )?.status,
    ).toBe("ok");
  });
});

describe("byteSize", () => {
  it("reads numbers and sizes with a unit as OpenClaw's config writes them, in bytes", () => {
    expect([
      byteSize(512),
      byteSize("4kb"),
      byteSize("20MB"),
      byteSize(" 1.5 kb "),
      byteSize("2048"),
    ]).toEqual([512, 4096, 20 * 1024 ** 2, 1536, 2048]);
  });

  it("returns null for what is not a size", () => {
    expect([byteSize("big"), byteSize("4 tb"), byteSize(-1), byteSize(undefined), byteSize(true)]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});
