/**
 * big-memory as users get it: `npm pack` of the project (its prepack builds dist/), installed into a
 * throwaway OpenClaw 2026.9.6 with `openclaw plugins install npm-pack:<tgz>` (no `plugins.load.paths`),
 * enabled with conversation access through `openclaw config set`, then inspected and run through one
 * compaction cycle.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { cliJson, InspectJson, PackJson, SkillsJson, StatusJson } from "./harness/big-memory-json.ts";
import { type FakeModel, lastUserText, startFakeModel } from "./harness/fake-model.ts";
import { createInstance, type Instance, readConfig } from "./harness/instance.ts";
import { ensureOpenClaw, repoRoot } from "./harness/openclaw-install.ts";
import { runToCompletion } from "./harness/processes.ts";
import {
  afterCompaction,
  fenceId,
  flushAsk,
  nth,
  runTaskThroughCompaction,
  TASK,
  taskScript,
  turnRestores,
} from "./scenario.ts";

const TEST_TIMEOUT_MS = 600_000;
const DoctorJson = z.object({
  ok: z.boolean(),
  checks: z.array(z.object({ name: z.string(), status: z.string(), detail: z.string() })),
});
const HOOKS = [
  "after_compaction",
  "after_tool_call",
  "agent_end",
  "before_compaction",
  "before_prompt_build",
  "before_reset",
  "llm_output",
  "session_end",
];

let packDir: string;
let packed: PackJson;
let tarball: string;
let model: FakeModel;
let instance: Instance;

beforeAll(async () => {
  packDir = await mkdtemp(path.join(tmpdir(), "big-memory-pack-"));
  // `npm pack` runs the package's prepare (tsc into dist/) like `npm publish` would.
  const pack = await runToCompletion("npm", ["pack", "--pack-destination", packDir, "--json"], {
    env: process.env,
    cwd: repoRoot,
    children: new Set(),
    timeoutMs: 240_000,
  });
  packed = cliJson(PackJson, pack, "npm pack");
  tarball = path.join(packDir, packed[0]?.filename ?? "(none)");
  const [install, started] = await Promise.all([
    ensureOpenClaw("2026.9.6"),
    startFakeModel(taskScript("write-snapshot")),
  ]);
  model = started;
  instance = await createInstance({ install, modelUrl: model.url });
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await instance?.dispose();
  await model?.close();
  await rm(packDir, { recursive: true, force: true });
});

describe("the npm-packed big-memory installed into OpenClaw 2026.9.6", () => {
  it("npm pack ships the built entry, the manifest, the skill and the CLI, and no tests", () => {
    const paths = packed.flatMap((entry) => entry.files.map((file) => file.path));
    expect(paths).toEqual(
      expect.arrayContaining([
        "package.json",
        "openclaw.plugin.json",
        "dist/index.js",
        "dist/surface/cli-main.js",
        "bin/big-memory.js",
        "skills/big-memory/SKILL.md",
        "references/openclaw-config.md",
      ]),
    );
    expect(paths.filter((p) => p.startsWith("test/") || p.startsWith("node_modules/"))).toEqual([]);
  });

  it(
    "installs with `plugins install npm-pack:` and, with conversation access, registers every hook unblocked",
    async () => {
      const installed = await instance.cli([
        "plugins",
        "install",
        `npm-pack:${tarball}`,
        "--force",
        "--accept-capabilities",
      ]);
      expect(installed.code, `${installed.stdout}${installed.stderr}`).toBe(0);
      expect(installed.stdout).toContain("Installed plugin: big-memory");

      const set = await instance.cli([
        "config",
        "set",
        "plugins.entries.big-memory.hooks.allowConversationAccess",
        "true",
        "--strict-json",
      ]);
      expect(set.code, `${set.stdout}${set.stderr}`).toBe(0);
      expect(await readConfig(instance.configPath)).toMatchObject({
        plugins: { entries: { "big-memory": { enabled: true, hooks: { allowConversationAccess: true } } } },
      });
      expect(await readConfig(instance.configPath)).not.toHaveProperty("plugins.load");
      const validate = await instance.validateConfig();
      expect(validate.code, `${validate.stdout}${validate.stderr}`).toBe(0);

      const inspect = cliJson(
        InspectJson,
        await instance.cli(["plugins", "inspect", "big-memory", "--runtime", "--json"]),
        "plugins inspect",
      );
      expect(inspect.plugin).toMatchObject({
        id: "big-memory",
        status: "loaded",
        origin: "global",
        toolNames: ["big_memory_save", "big_memory_recall"],
        commands: ["big-memory"],
        cliCommands: ["big-memory"],
      });
      expect(inspect.plugin.source).toMatch(/\/node_modules\/big-memory\/dist\/index\.js$/);
      expect(inspect.install).toMatchObject({ artifactKind: "npm-pack", resolvedSpec: "big-memory@0.1.0" });
      expect(inspect.typedHooks.map((hook) => hook.name).toSorted()).toEqual(HOOKS);
      expect(inspect.diagnostics.filter((d) => /blocked/i.test(d.message))).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "`openclaw skills list` shows the big-memory skill, eligible",
    async () => {
      const skills = cliJson(SkillsJson, await instance.cli(["skills", "list", "--json"]), "skills list");
      expect(skills.skills.filter((skill) => skill.name === "big-memory")).toEqual([
        expect.objectContaining({
          eligible: true,
          bundled: false,
          description: expect.stringContaining("snapshot"),
        }),
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "captures the snapshot the model writes in the flush and restores it after the compaction",
    async () => {
      const run = await runTaskThroughCompaction(instance, model);
      const compactionTurn = model.requests.slice(run.compactionTurnFrom);
      expect(compactionTurn.map((req) => req.kind)).toEqual(["flush", "flush", "summarizer", "turn"]);
      const flush = nth(compactionTurn, 0, "the flush request");
      const ask = flushAsk(flush);
      expect(ask, lastUserText(flush).slice(0, 2000)).toBeDefined();

      const firstAfter = nth(afterCompaction(model.requests), 0, "a request after the summarizer");
      const restores = turnRestores(firstAfter);
      expect(restores.map(fenceId)).toEqual([ask?.id]);
      expect(restores[0]).toContain(TASK.flushStep);

      // The installed package's CLI, mounted in OpenClaw, reads what the installed plugin wrote.
      const status = await instance.cli(["big-memory", "status", "--json", "--dir", instance.workspaceDir]);
      expect(cliJson(StatusJson, status, "openclaw big-memory status").sessions).toContainEqual(
        expect.objectContaining({
          session: "agent:main:main",
          lastRestore: expect.objectContaining({ id: ask?.id }),
        }),
      );

      // doctor, from the state the real hooks left: turns observed, the capture and the restore.
      const doctor = await instance.cli(["big-memory", "doctor", "--json"]);
      const report = cliJson(DoctorJson, doctor, "openclaw big-memory doctor");
      expect([doctor.code, report.ok]).toEqual([0, true]);
      const detail = (name: string) => report.checks.find((c) => c.name === name)?.detail;
      expect(detail("hooks seen")).toMatch(/^1 session, last user turn /);
      expect(detail("last capture and restore")).toMatch(new RegExp(`restore ${ask?.id ?? "?"} `));
    },
    TEST_TIMEOUT_MS,
  );
});
