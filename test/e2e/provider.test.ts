/**
 * A compaction inside the provider's request, on OpenClaw's default OpenAI route (`openai/gpt-5.5` with an
 * API key and no base URL): OpenClaw sends `store: true` and `context_management: [{ type: "compaction" }]`
 * with every Responses request; the scripted Responses API (harness/openai-responses.ts, reached as
 * `https://api.openai.com` through a trusted throwaway CA and a preload resolving the host to 127.0.0.1)
 * answers one turn with a `compaction` output item before the reply, as the API does past the threshold.
 * OpenClaw fires no compaction hook for it; the answer carries a `providerReplay` marker, big-memory captures
 * from the trail at once and restores once at the next turn, and the ledger says path `provider`.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClassifiedRequest } from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { ledgerCycles, readLedger } from "./harness/ledger.ts";
import { type FakeResponses, startFakeResponses } from "./harness/openai-responses.ts";
import { ensureOpenClaw } from "./harness/openclaw-install.ts";
import { type PluginStage, stageBigMemory } from "./harness/plugin-stage.ts";
import { probePlugin, readProbeLog } from "./harness/probe.ts";
import {
  ASKS,
  agentTurn,
  fenceId,
  seedWorkspace,
  TASK,
  taskScript,
  turnRestores,
  userAsk,
} from "./scenario.ts";

const TEST_TIMEOUT_MS = 2_000_000;
const COMPACTION_ID = "cmp_e2e_provider_0001";

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

/** The types (or roles) of a Responses request's input items, in order. */
const inputShape = (req: ClassifiedRequest): string[] =>
  (Array.isArray(req.body.input) ? req.body.input : []).map((item: unknown) => {
    if (typeof item !== "object" || item === null) return typeof item;
    const type = Reflect.get(item, "type");
    const role = Reflect.get(item, "role");
    return typeof type === "string" && type !== "message" ? type : String(role ?? type);
  });

/** The config of the default OpenAI route: the model, and the loopback answer its DNS gets allowed. */
const OPENAI_ROUTE: Record<string, unknown> = {
  // Code Mode (on for gpt-5.5 by its catalog entry) would put the task's tools behind `exec`.
  agents: {
    defaults: { model: { primary: "openai/gpt-5.5" }, models: { "openai/gpt-5.5": { codeMode: false } } },
  },
  // The scripted API answers on 127.0.0.1; OpenClaw's guarded fetch refuses private addresses unless told.
  models: { providers: { openai: { request: { allowPrivateNetwork: true } } } },
};

/** The releases this path is shown on: the one pinned, and the compatibility floor (Node 22). */
const VERSIONS = ["2026.9.6", "2026.9.2"] as const;

for (const version of VERSIONS) {
  describe(`a provider-side compaction on the default OpenAI route (openclaw ${version}, agent --local)`, () => {
    let api: FakeResponses;
    let instance: Instance;

    beforeAll(async () => {
      const task = taskScript("no-reply");
      api = await startFakeResponses((req) => {
        const reply = task(req);
        // The provider compacts inside the request of the third turn: the reply opens with its item.
        if (req.kind === "turn" && userAsk(req) === ASKS.proceed && reply !== undefined)
          return { ...reply, compaction: COMPACTION_ID };
        return reply;
      });
      instance = await createInstance({
        install: await ensureOpenClaw(version),
        modelUrl: "http://127.0.0.1:9/v1",
        env: api.env,
        plugins: ({ root }) => [
          probePlugin(path.join(root, "probe.jsonl")),
          { dir: stage.dir, id: "big-memory", config: {} },
        ],
        config: OPENAI_ROUTE,
      });
      await seedWorkspace(instance.workspaceDir);
    }, TEST_TIMEOUT_MS);

    afterAll(async () => {
      await instance?.dispose();
      await api?.close();
    });

    it(
      "is captured from the trail at the marked answer, restored once at the next turn, and ledgered as provider",
      async () => {
        const slow = { timeoutMs: 400_000 };
        await agentTurn(instance, ASKS.fix, slow);
        await agentTurn(instance, ASKS.test, slow);
        const first = api.requests[0];
        expect(first?.body.store).toBe(true);
        expect(first?.body.context_management).toEqual([
          { type: "compaction", compact_threshold: expect.any(Number) },
        ]);
        expect(first?.toolNames).toEqual(expect.arrayContaining(["read", "edit", "exec"]));

        await agentTurn(instance, ASKS.proceed, slow);
        await agentTurn(instance, ASKS.after, slow);
        await agentTurn(instance, ASKS.left, slow);
        console.log(
          `requests: ${api.requests.map((r) => `${r.kind}[${inputShape(r).join(",")}]`).join(" ")}\nunrouted: ${api.unrouted.join(", ")}`,
        );

        // OpenClaw sends the next turn from the compaction item on, and announces nothing.
        const after = turnsAsking(api.requests, ASKS.after);
        expect(after.length).toBeGreaterThan(0);
        expect(inputShape(after[0] as ClassifiedRequest)[0]).toBe("compaction");
        expect(after.every((req) => inputShape(req).includes("compaction"))).toBe(true);
        const probe = readProbeLog(path.join(instance.root, "probe.jsonl"));
        expect(probe.filter((e) => e.hook === "before_compaction" || e.hook === "after_compaction")).toEqual(
          [],
        );
        expect(api.requests.filter((req) => req.kind !== "turn").map((req) => req.kind)).toEqual([]);

        // Restored once, in the turn after the compacting one, not before and not again.
        expect(turnsAsking(api.requests, ASKS.proceed).flatMap((req) => turnRestores(req))).toEqual([]);
        const restores = after.flatMap((req) => turnRestores(req));
        expect(restores).toHaveLength(1);
        const fence = restores[0] ?? "";
        expect(fence).toContain('reason="compaction"');
        expect(fence).toContain(TASK.errorCode);
        expect(turnsAsking(api.requests, ASKS.left).flatMap((req) => turnRestores(req))).toEqual([]);

        // The snapshot is in the daily log, drafted from the trail (no flush ran).
        const id = fenceId(fence) ?? "";
        const day = id.slice(0, 10);
        const log = await readFile(path.join(instance.workspaceDir, "memory", `${day}.md`), "utf8");
        expect(log).toContain(`<!-- snapshot-id: ${id} -->`);

        const cycles = ledgerCycles(await readLedger(instance.workspaceDir));
        console.log(`ledger cycles: ${JSON.stringify(cycles)}`);
        expect(cycles).toEqual([
          expect.objectContaining({
            session: "agent:main:main",
            path: "provider",
            flush: false,
            cover: "safety-net",
            snapshot: id,
            outcome: "done",
            restored: [id],
          }),
        ]);
      },
      TEST_TIMEOUT_MS,
    );
  });
}
