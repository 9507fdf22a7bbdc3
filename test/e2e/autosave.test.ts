/**
 * Autosave at a context threshold in a real OpenClaw run: when a model call's usage crosses a
 * configured fraction of the context window, big-memory writes one `threshold` snapshot for the
 * crossing from the session trail, and no second one for the same threshold in the same cycle.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, ListJson } from "./harness/big-memory-json.ts";
import { type FakeModel, startFakeModel } from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { ensureOpenClaw } from "./harness/openclaw-install.ts";
import { type PluginStage, stageBigMemory } from "./harness/plugin-stage.ts";
import { ASKS, agentTurn, seedWorkspace, taskScript } from "./scenario.ts";

const TEST_TIMEOUT_MS = 600_000;

describe("autosave at a context threshold (openclaw 2026.9.6)", () => {
  let stage: PluginStage;
  let model: FakeModel;
  let instance: Instance;

  beforeAll(async () => {
    stage = await stageBigMemory();
    model = await startFakeModel(taskScript("no-reply"));
    instance = await createInstance({
      install: await ensureOpenClaw("2026.9.6"),
      modelUrl: model.url,
      // Any real request (OpenClaw's system prompt and tools alone) is over 5% of a 128k window.
      plugins: [{ dir: stage.dir, id: "big-memory", config: { capture: { thresholds: [0.05] } } }],
    });
    await seedWorkspace(instance.workspaceDir);
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await instance?.dispose();
    await model?.close();
    await stage?.dispose();
  });

  it(
    "writes one threshold snapshot when usage crosses the threshold, and not again in the same cycle",
    async () => {
      await agentTurn(instance, ASKS.fix);
      const list = async () =>
        cliJson(
          ListJson,
          await instance.cli(["big-memory", "list", "--json", "--dir", instance.workspaceDir]),
          "openclaw big-memory list",
        ).snapshots;
      const first = await list();
      expect(first.map((s) => [s.trigger, s.session, s.verified])).toEqual([
        ["threshold", "agent:main:main", true],
      ]);
      expect(first[0]?.goal).toContain("ERR_DUPLICATE_KEY");
      await agentTurn(instance, ASKS.test);
      expect((await list()).map((s) => s.id)).toEqual(first.map((s) => s.id));
      const log = await readFile(instance.logFile, "utf8");
      expect(log).toMatch(
        /big-memory: context at \d+% of the window \(threshold 0\.05\): autosaved snapshot \d{4}-\d{2}-\d{2}-01/,
      );
    },
    TEST_TIMEOUT_MS,
  );
});
