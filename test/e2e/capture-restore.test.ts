/**
 * big-memory in a real OpenClaw 2026.9.6 (`agent --local` turns against the scripted model): the task of
 * scenario.ts runs to a forced compaction, and the snapshot taken before it comes back, once, in front of the
 * first turn after it. Once with a model that writes its own snapshot during the memory flush, once with a
 * model that answers NO_REPLY (the safety net drafts it), and the OpenClaw-mounted CLI against the bin.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, ListJson, ShowJson, StatusJson } from "./harness/big-memory-json.ts";
import { type FakeModel, lastUserText, startFakeModel } from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { ensureOpenClaw, type OpenClawInstall } from "./harness/openclaw-install.ts";
import { type PluginStage, stageBigMemory } from "./harness/plugin-stage.ts";
import {
  ASKS,
  afterCompaction,
  agentTurn,
  type FlushBehaviour,
  fenceId,
  flushAsk,
  nth,
  restoresOutsideSummary,
  runTaskThroughCompaction,
  TASK,
  taskScript,
  turnRestores,
  userAsk,
} from "./scenario.ts";

const TEST_TIMEOUT_MS = 600_000;
const SESSION = "agent:main:main";
const START_MARKER = "<!-- BIG-MEMORY-SNAPSHOT v1 -->";

let install: OpenClawInstall;
let stage: PluginStage;

beforeAll(async () => {
  [install, stage] = await Promise.all([ensureOpenClaw("2026.9.6"), stageBigMemory()]);
});

afterAll(async () => {
  await stage?.dispose();
});

/** A fresh instance with big-memory (default config) and the task's scripted model. */
async function setUp(flush: FlushBehaviour): Promise<{ model: FakeModel; instance: Instance }> {
  const model = await startFakeModel(taskScript(flush));
  const instance = await createInstance({
    install,
    modelUrl: model.url,
    plugins: [{ dir: stage.dir, id: "big-memory", config: {} }],
  });
  return { model, instance };
}

async function tearDown(parts: { model: FakeModel; instance: Instance }): Promise<void> {
  await parts.instance.dispose();
  await parts.model.close();
}

/** `bin/big-memory.js ARGS --dir WORKSPACE --json` of the staged package, in the instance's environment. */
function bigMemory(instance: Instance, args: readonly string[]) {
  return stage.cli([...args, "--dir", instance.workspaceDir, "--json"], {
    env: instance.env,
    cwd: instance.root,
  });
}

/** Every snapshot start marker in the workspace's daily logs. */
async function blocksInDailyLogs(workspaceDir: string): Promise<string[]> {
  const dir = path.join(workspaceDir, "memory");
  const names = (await readdir(dir)).filter((name) => /^\d{4}-\d{2}-\d{2}\.md$/.test(name));
  const texts = await Promise.all(names.map((name) => readFile(path.join(dir, name), "utf8")));
  return texts.flatMap((text) => text.split("\n").filter((line) => line.trim() === START_MARKER));
}

/** The plugin's state file of a session (`.big-memory/sessions/<slug>-<hash>.json`), parsed. */
async function sessionState(workspaceDir: string, sessionKey: string): Promise<unknown> {
  const dir = path.join(workspaceDir, ".big-memory", "sessions");
  const slug = sessionKey.replace(/[^a-zA-Z0-9_-]+/g, "-").slice(0, 60);
  const names = (await readdir(dir)).filter((name) => name.startsWith(`${slug}-`) && name.endsWith(".json"));
  expect(names, `state files of ${sessionKey} in ${dir}`).toHaveLength(1);
  const state: unknown = JSON.parse(await readFile(path.join(dir, names[0] ?? ""), "utf8"));
  return state;
}

describe("capture before compaction and restore after it (openclaw 2026.9.6, agent --local)", () => {
  it(
    "model writes the snapshot during the flush: that one block is claimed and restored exactly once",
    async () => {
      const parts = await setUp("write-snapshot");
      const { model, instance } = parts;
      try {
        const run = await runTaskThroughCompaction(instance, model);
        const compactionTurn = model.requests.slice(run.compactionTurnFrom);
        expect(compactionTurn.map((req) => req.kind)).toEqual(["flush", "flush", "summarizer", "turn"]);

        // The flush request carries big-memory's prompt (before OpenClaw's), with the id and the draft.
        const flush = nth(compactionTurn, 0, "the flush request");
        const flushText = lastUserText(flush);
        const ask = flushAsk(flush);
        expect(ask, flushText.slice(0, 2000)).toBeDefined();
        const id = ask?.id ?? "";
        expect(flushText).toMatch(/^## big-memory: task snapshot before compaction\n/);
        expect(flushText.indexOf("Pre-compaction memory flush")).toBeGreaterThan(flushText.indexOf(id));
        const draft = flushText.slice(flushText.indexOf("What big-memory observed in this session"));
        expect(draft).toContain(TASK.file);
        expect(draft).toContain(TASK.errorCode);

        // The first turn request after compaction carries the restore of that block, in the user's message.
        const firstAfter = nth(afterCompaction(model.requests), 0, "a request after the summarizer");
        expect(firstAfter.kind).toBe("turn");
        expect(userAsk(firstAfter)).toBe(ASKS.proceed);
        const restores = turnRestores(firstAfter);
        expect(restores.map(fenceId)).toEqual([id]);
        expect(restores[0]).toContain(`1. ${TASK.flushStep}`);
        expect(restores[0]).toContain('reason="compaction"');
        expect(restoresOutsideSummary(firstAfter)).toHaveLength(1);

        // The turn after that gets no restore, neither in its message nor anywhere in its history.
        const next = model.requests.length;
        await agentTurn(instance, ASKS.after);
        const later = model.requests.slice(next);
        expect(later.map((req) => req.kind)).toEqual(["turn"]);
        expect(later.flatMap((req) => restoresOutsideSummary(req))).toEqual([]);

        // The plugin attributed the model's block to the real session and logged one restore of it.
        expect(await sessionState(instance.workspaceDir, SESSION)).toMatchObject({
          snapshots: expect.arrayContaining([expect.objectContaining({ id, trigger: "flush" })]),
          pendingRestore: null,
          lastRestore: { id, reason: "compaction" },
        });
        const status = cliJson(StatusJson, await bigMemory(instance, ["status"]), "big-memory status");
        expect(status.restores).toBe(1);
        // The model's block is shown under the real session (its own lines, or the plugin's claim).
        expect(status.sessions).toContainEqual(
          expect.objectContaining({
            session: SESSION,
            snapshots: 1,
            lastCapture: expect.objectContaining({ id }),
            lastRestore: expect.objectContaining({ id, reason: "compaction" }),
          }),
        );

        // Exactly that one block in the daily logs: no safety-net (or any other) snapshot beside it.
        const list = cliJson(ListJson, await bigMemory(instance, ["list"]), "big-memory list");
        expect(list.snapshots.map((s) => [s.id, s.session, s.trigger])).toEqual([[id, SESSION, "flush"]]);
        expect(await blocksInDailyLogs(instance.workspaceDir)).toHaveLength(1);
      } finally {
        await tearDown(parts);
      }
    },
    TEST_TIMEOUT_MS,
  );

  describe("model answers NO_REPLY in the flush", () => {
    let parts: { model: FakeModel; instance: Instance };
    let compactionTurnFrom = 0;

    beforeAll(async () => {
      parts = await setUp("no-reply");
      ({ compactionTurnFrom } = await runTaskThroughCompaction(parts.instance, parts.model));
    }, TEST_TIMEOUT_MS);

    afterAll(async () => {
      await tearDown(parts);
    });

    it(
      "the safety net writes a verified compaction snapshot with the file and the error, restored after compaction",
      async () => {
        const { model, instance } = parts;
        const compactionTurn = model.requests.slice(compactionTurnFrom);
        expect(compactionTurn.map((req) => req.kind)).toEqual(["flush", "summarizer", "turn"]);

        const list = cliJson(ListJson, await bigMemory(instance, ["list"]), "big-memory list");
        const compaction = list.snapshots.filter((s) => s.trigger === "compaction");
        expect(compaction).toEqual([
          expect.objectContaining({ session: SESSION, agent: "main", verified: true }),
        ]);
        const id = compaction[0]?.id ?? "(no compaction snapshot)";

        const show = cliJson(ShowJson, await bigMemory(instance, ["show", id]), `big-memory show ${id}`);
        expect(show.snapshot?.files.map((f) => f.path)).toContain(TASK.file);
        expect(show.snapshot?.names.map((n) => n.value)).toContain(TASK.errorCode);

        const firstAfter = nth(afterCompaction(model.requests), 0, "a request after the summarizer");
        expect(userAsk(firstAfter)).toBe(ASKS.proceed);
        const restores = turnRestores(firstAfter);
        expect(restores.map(fenceId)).toEqual([id]);
        expect(restores[0]).toContain(TASK.file);
        expect(restores[0]).toContain(TASK.errorCode);
        expect(restores[0]).toContain('verified="yes"');
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "`openclaw big-memory list --json` (the CLI mounted in OpenClaw) returns the same snapshots as the bin",
      async () => {
        const { instance } = parts;
        const reference = cliJson(ListJson, await bigMemory(instance, ["list"]), "big-memory list");
        expect(reference.snapshots.length).toBeGreaterThan(0);

        const mounted = await instance.cli(["big-memory", "list", "--json", "--dir", instance.workspaceDir]);
        expect(cliJson(ListJson, mounted, "openclaw big-memory list --dir")).toEqual(reference);

        // Without --dir, inside OpenClaw the workspace is the configured one (agents.defaults.workspace).
        const configured = await instance.cli(["big-memory", "list", "--json"]);
        expect(cliJson(ListJson, configured, "openclaw big-memory list")).toEqual(reference);
      },
      TEST_TIMEOUT_MS,
    );
  });
});
