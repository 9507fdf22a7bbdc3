/**
 * The compatibility floor: big-memory on OpenClaw 2026.9.2 (the last release on Node 22) runs the NO_REPLY
 * safety-net cycle (capture before compaction, restore once after it), and the configuration block the
 * package documents (references/openclaw-config.md) validates on both 2026.9.6 and 2026.9.2.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, ListJson } from "./harness/big-memory-json.ts";
import { type FakeModel, startFakeModel } from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { ensureOpenClaw } from "./harness/openclaw-install.ts";
import { type PluginStage, stageBigMemory } from "./harness/plugin-stage.ts";
import {
  ASKS,
  afterCompaction,
  agentTurn,
  fenceId,
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

let stage: PluginStage;

beforeAll(async () => {
  stage = await stageBigMemory();
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await stage?.dispose();
});

describe("big-memory on openclaw 2026.9.2 (Node 22)", () => {
  let model: FakeModel;
  let instance: Instance;

  beforeAll(async () => {
    const install = await ensureOpenClaw("2026.9.2");
    expect(install.nodeBin).toContain(path.join(".cache", "node", "22"));
    model = await startFakeModel(taskScript("no-reply"));
    instance = await createInstance({
      install,
      modelUrl: model.url,
      plugins: [{ dir: stage.dir, id: "big-memory", config: {} }],
    });
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await instance?.dispose();
    await model?.close();
  });

  it(
    "the safety net captures before compaction; the first turn after it is restored, the next one is not",
    async () => {
      const run = await runTaskThroughCompaction(instance, model);
      // 2026.9.2 compacts after the turn that crossed the cap, so the next turn is the first one after it.
      const compactionTurn = model.requests.slice(run.compactionTurnFrom);
      expect(compactionTurn.map((req) => req.kind)).toEqual(["turn", "flush", "summarizer"]);
      await agentTurn(instance, ASKS.after);
      await agentTurn(instance, ASKS.left);

      const listed = await instance.cli(["big-memory", "list", "--json", "--dir", instance.workspaceDir]);
      const compaction = cliJson(ListJson, listed, "openclaw big-memory list").snapshots.filter(
        (s) => s.trigger === "compaction",
      );
      expect(compaction).toEqual([expect.objectContaining({ session: SESSION, verified: true })]);
      const id = compaction[0]?.id ?? "(no compaction snapshot)";

      const after = afterCompaction(model.requests);
      const firstAfter = nth(after, 0, "a request after the summarizer");
      expect(userAsk(firstAfter)).toBe(ASKS.after);
      const restores = turnRestores(firstAfter);
      expect(restores.map(fenceId)).toEqual([id]);
      expect(restores[0]).toContain(TASK.file);
      expect(restores[0]).toContain(TASK.errorCode);
      expect(restoresOutsideSummary(firstAfter)).toHaveLength(1);

      const later = after.slice(1);
      expect(later.map((req) => userAsk(req))).toEqual([ASKS.left]);
      expect(later.flatMap((req) => restoresOutsideSummary(req))).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

/** The ```json5 block of references/openclaw-config.md, as written. */
async function documentedConfig(): Promise<string> {
  const file = path.join(stage.dir, "references", "openclaw-config.md");
  const block = /```json5\n([\s\S]*?)```/.exec(await readFile(file, "utf8"))?.[1];
  if (block === undefined) throw new Error(`${file}: expected a \`\`\`json5 block`);
  return block;
}

/**
 * Makes the instance's config `{ $include: ["./base.json", "./big-memory.json5"] }`: its generated config
 * (model, workspace, the staged plugin) deep-merged by OpenClaw itself with the documented block, comments
 * and all.
 */
async function includeDocumentedConfig(instance: Instance, block: string): Promise<void> {
  await writeFile(path.join(instance.root, "base.json"), `${JSON.stringify(instance.config, null, 2)}\n`);
  await writeFile(path.join(instance.root, "big-memory.json5"), block);
  await writeFile(
    instance.configPath,
    `${JSON.stringify({ $include: ["./base.json", "./big-memory.json5"] })}\n`,
  );
}

describe.each(["2026.9.6", "2026.9.2"])("the documented config block on openclaw %s", (version) => {
  let instance: Instance;

  beforeAll(async () => {
    const install = await ensureOpenClaw(version);
    instance = await createInstance({
      install,
      modelUrl: "http://127.0.0.1:9/v1",
      plugins: [{ dir: stage.dir, id: "big-memory", config: {} }],
    });
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await instance?.dispose();
  });

  it(
    "`openclaw config validate` accepts it merged into a minimal config, and rejects the old flush prompt key",
    async () => {
      const block = await documentedConfig();
      await includeDocumentedConfig(instance, block);
      const valid = await instance.cli(["config", "validate", "--json"]);
      expect(valid.code, `${valid.stdout}${valid.stderr}`).toBe(0);
      expect(valid.json).toMatchObject({ valid: true });

      const merged = await instance.cli(["config", "get", "plugins.entries.big-memory", "--json"]);
      expect(merged.json).toMatchObject({
        enabled: true,
        hooks: { allowConversationAccess: true },
        config: { scope: "session", restore: { tokenBudget: 1500 }, capture: { thresholds: [0.7] } },
      });

      // The key the original skill recommended is rejected, so the check above does reach memoryFlush.
      const stale = block.replace("memoryFlush: {", 'memoryFlush: { prompt: "Write a snapshot.",');
      expect(stale).not.toBe(block);
      await includeDocumentedConfig(instance, stale);
      const invalid = await instance.cli(["config", "validate", "--json"]);
      expect(invalid.code).not.toBe(0);
      expect(`${invalid.stdout}${invalid.stderr}`).toMatch(/prompt/);
    },
    TEST_TIMEOUT_MS,
  );
});
