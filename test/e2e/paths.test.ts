/**
 * big-memory on the compaction paths a real OpenClaw takes without announcing them in full, on 2026.9.6 and
 * on 2026.9.2 (Node 22; it compacts after the turn that crossed the cap, 2026.9.6 before the next): a
 * compaction that fails (the summarizer answers nothing: `before_compaction` with no after) restores nothing,
 * and a transcript trimmed with `openclaw sessions compact KEY --max-lines N` (no hook at all) is noticed at
 * the next message, captured from the trail and restored. The compaction ledger names each with its path
 * and what covered it.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClassifiedRequest, type FakeModel, startFakeModel } from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { readLedger } from "./harness/ledger.ts";
import { ensureOpenClaw } from "./harness/openclaw-install.ts";
import { type PluginStage, stageBigMemory } from "./harness/plugin-stage.ts";
import { probePlugin, readProbeLog } from "./harness/probe.ts";
import {
  ASKS,
  agentTurn,
  FORCE_COMPACTION,
  fenceId,
  RELAX_COMPACTION,
  restoresOutsideSummary,
  seedWorkspace,
  taskScript,
  turnRestores,
  userAsk,
} from "./scenario.ts";

const TEST_TIMEOUT_MS = 2_000_000;

/** The releases these paths are shown on: the one pinned, and the compatibility floor. */
const VERSIONS = ["2026.9.6", "2026.9.2"] as const;

let stage: PluginStage;

beforeAll(async () => {
  stage = await stageBigMemory();
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await stage?.dispose();
});

/** The requests of a turn whose user ask is `ask`. */
const turnsAsking = (requests: readonly ClassifiedRequest[], ask: string) =>
  requests.filter((req) => req.kind === "turn" && userAsk(req) === ask);

for (const version of VERSIONS) {
  describe(`a compaction that fails (openclaw ${version}, agent --local)`, () => {
    let model: FakeModel;
    let instance: Instance;

    beforeAll(async () => {
      const task = taskScript("no-reply");
      // The summarizer answers nothing: OpenClaw aborts the compaction after its before_compaction.
      model = await startFakeModel((req) => (req.kind === "summarizer" ? { text: "" } : task(req)));
      instance = await createInstance({
        install: await ensureOpenClaw(version),
        modelUrl: model.url,
        plugins: [{ dir: stage.dir, id: "big-memory", config: {} }],
      });
      await seedWorkspace(instance.workspaceDir);
    }, TEST_TIMEOUT_MS);

    afterAll(async () => {
      await instance?.dispose();
      await model?.close();
    });

    it(
      "captures at before_compaction, restores nothing at the next turn, and the ledger says it failed",
      async () => {
        // Generous timeouts: on a loaded machine one turn has taken over four minutes.
        const slow = { timeoutMs: 400_000 };
        await agentTurn(instance, ASKS.fix, slow);
        await agentTurn(instance, ASKS.test, slow);
        await instance.updateConfig(FORCE_COMPACTION);
        const from = model.requests.length;
        // The turn whose compaction fails may itself fail: only what follows matters here.
        const failing = await instance.runAgentTurn(ASKS.proceed, slow);
        const kinds = model.requests.slice(from).map((req) => req.kind);
        console.log(
          `compaction that fails: exit ${failing.code}, ${failing.timedOut ? "timed out, " : ""}${Math.round(failing.durationMs / 1000)} s, model calls ${kinds.join(", ")}`,
        );
        expect(kinds).toContain("summarizer");
        await instance.updateConfig(RELAX_COMPACTION);
        await agentTurn(instance, ASKS.after, slow);

        const after = turnsAsking(model.requests, ASKS.after);
        expect(after.length).toBeGreaterThan(0);
        expect(after.flatMap((req) => turnRestores(req))).toEqual([]);
        expect(model.requests.slice(from).flatMap((req) => restoresOutsideSummary(req))).toEqual([]);

        const lines = await readLedger(instance.workspaceDir);
        const opened = lines.find((l) => l.kind === "cycle");
        expect(opened).toMatchObject({
          session: "agent:main:main",
          outcome: "open",
          flush: true,
          path: "preflight",
        });
        expect(opened?.cover).not.toBe("none");
        expect(lines.filter((l) => l.kind === "outcome").map((l) => l.outcome)).toEqual(["failed"]);
        expect(lines.filter((l) => l.kind === "restore")).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );
  });

  describe(`a transcript trimmed with no hook (openclaw ${version}, sessions compact --max-lines)`, () => {
    const SESSION = "agent:main:e2e-trim";
    let model: FakeModel;
    let instance: Instance;

    beforeAll(async () => {
      model = await startFakeModel(taskScript("no-reply"));
      instance = await createInstance({
        install: await ensureOpenClaw(version),
        modelUrl: model.url,
        plugins: ({ root }) => [
          probePlugin(path.join(root, "probe.jsonl")),
          { dir: stage.dir, id: "big-memory", config: {} },
        ],
      });
      await seedWorkspace(instance.workspaceDir);
      // A loaded machine (other suites running) may take minutes to start a gateway.
      await instance.startGateway({ timeoutMs: 400_000 });
    }, TEST_TIMEOUT_MS);

    afterAll(async () => {
      await instance?.dispose();
      await model?.close();
    });

    const send = async (message: string) => {
      const from = model.requests.length;
      await instance.chatSend(SESSION, message);
      return model.requests.slice(from);
    };

    it(
      "is noticed at the next message, captured from the trail and restored once; the ledger names the trim",
      async () => {
        await send(ASKS.fix);
        await send(ASKS.test);
        const trim = await instance.cli(["sessions", "compact", SESSION, "--max-lines", "2", "--json"]);
        expect(trim.code, `${trim.stdout}${trim.stderr}`).toBe(0);

        const next = await send(ASKS.proceed);
        // What the hooks were handed, for a failure's message: each conversation's length and roles.
        const seen = readProbeLog(path.join(instance.root, "probe.jsonl"))
          .filter((e) => e.hook === "before_prompt_build" || e.hook === "agent_end")
          .map((e) => `${e.hook} ${JSON.stringify(e.event.messages)}`);
        console.log(
          `hooks' conversations:\n${seen.join("\n")}\nrequests: ${model.requests.map((r) => `${r.kind}:${r.messages.length}`).join(" ")}`,
        );
        const restores = next.filter((req) => req.kind === "turn").flatMap((req) => turnRestores(req));
        expect(restores).toHaveLength(1);
        expect(restores[0]).toContain('reason="compaction"');
        const again = await send(ASKS.after);
        expect(again.flatMap((req) => turnRestores(req))).toEqual([]);

        const lines = await readLedger(instance.workspaceDir);
        const cycle = lines.find((l) => l.kind === "cycle" && l.path === "trim");
        console.log(`ledger: ${JSON.stringify(lines)}`);
        expect(cycle).toMatchObject({ outcome: "done", flush: false, cover: "safety-net" });
        expect(lines.find((l) => l.kind === "restore")).toMatchObject({
          cycle: cycle?.cycle,
          session: cycle?.session,
          snapshot: fenceId(restores[0] ?? ""),
        });
      },
      TEST_TIMEOUT_MS,
    );
  });
}
