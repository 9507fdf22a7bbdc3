/**
 * big-memory with more than one session, and across a session rollover, in a real OpenClaw gateway driven
 * by `chat.send`, on 2026.9.6 and on 2026.9.2 (Node 22):
 * - two active sessions of one agent, each compacting in turn (a 4 kb transcript cap, a forced memory
 *   flush): every flush run goes under an internal session key, yet each flush prompt carries its own
 *   session's draft and names its own session, never the other's, whichever session was active last;
 * - an idle rollover (`session.reset: { mode: "idle", idleMinutes: 1 }`): a `chat.send` to a session idle
 *   for longer ends it with `session_end` reason `idle` (no `before_reset`); big-memory captures at that
 *   hook and restores at the first user turn of the session that follows under the same key.
 * The compaction ledger names each cycle with its path and what covered it.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ClassifiedRequest,
  type FakeModel,
  lastUserText,
  requestText,
  type Script,
  startFakeModel,
  toolResults,
} from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { ledgerCycles, readLedger } from "./harness/ledger.ts";
import { ensureOpenClaw } from "./harness/openclaw-install.ts";
import { type PluginStage, stageBigMemory } from "./harness/plugin-stage.ts";
import { probePlugin, readProbeLog } from "./harness/probe.ts";
import { ASKS, fenceId, seedWorkspace, TASK, taskScript, turnRestores, userAsk } from "./scenario.ts";

const TEST_TIMEOUT_MS = 2_000_000;
/** A loaded machine may take minutes to start a gateway or answer a turn. */
const SLOW = { timeoutMs: 600_000 };

/** The releases these paths are shown on: the one pinned, and the compatibility floor. */
const VERSIONS = ["2026.9.6", "2026.9.2"] as const;

let stage: PluginStage;

beforeAll(async () => {
  stage = await stageBigMemory();
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await stage?.dispose();
});

/** The BIG-MEMORY-SNAPSHOT block of a daily log with the given id, or "" when there is none. */
function snapshotBlock(log: string, id: string): string {
  const at = log.indexOf(`<!-- snapshot-id: ${id} -->`);
  if (at === -1) return "";
  const start = log.lastIndexOf("<!-- BIG-MEMORY-SNAPSHOT", at);
  const end = log.indexOf("<!-- /BIG-MEMORY-SNAPSHOT -->", at);
  return log.slice(start, end === -1 ? undefined : end);
}

/** A second task, in its own words: the billing export's notes, read from a file of its own. */
const BILLING = {
  file: "docs/billing-export.md",
  marker: "BILLING-EXPORT-V2",
  ask: "Summarize docs/billing-export.md for the release notes.",
  next: "Now list what the BILLING-EXPORT-V2 rollout still needs.",
  reply:
    "BILLING-EXPORT-V2 writes one CSV per account in UTC; the rollout needs the backfill job and a flag.",
} as const;

async function seedBilling(workspaceDir: string): Promise<void> {
  await mkdir(path.join(workspaceDir, "docs"), { recursive: true });
  const line = `${BILLING.marker}: exports every invoice line of an account as CSV, in UTC, with the tax rate it was billed at. `;
  await writeFile(path.join(workspaceDir, BILLING.file), `# Billing export\n\n${line.repeat(30)}\n`);
}

/** The task of {@link taskScript}, plus the billing task: read its file, then answer. */
function twoTasks(): Script {
  const task = taskScript("no-reply");
  return (req) => {
    if (req.kind === "turn" && userAsk(req) === BILLING.ask) {
      if (toolResults(req).length === 0)
        return { toolCalls: [{ name: "read", arguments: { path: BILLING.file } }] };
      return { text: BILLING.reply };
    }
    if (req.kind === "turn" && userAsk(req) === BILLING.next) return { text: BILLING.reply };
    return task(req);
  };
}

/** The flush prompt of a flush request: its last user message, where big-memory's context lands. */
const flushPrompt = (req: ClassifiedRequest): string => lastUserText(req);

/** The flush prompt's own text without the transcript: what big-memory drafted, and the session it names. */
const namedSession = (prompt: string): string | undefined => /<!-- session: ([^ ]+) -->/.exec(prompt)?.[1];

for (const version of VERSIONS) {
  describe(`two active sessions of one agent (openclaw ${version} gateway)`, () => {
    const A = "agent:main:e2e-auth";
    const B = "agent:main:e2e-billing";
    let model: FakeModel;
    let instance: Instance;

    beforeAll(async () => {
      model = await startFakeModel(twoTasks());
      instance = await createInstance({
        install: await ensureOpenClaw(version),
        modelUrl: model.url,
        plugins: [{ dir: stage.dir, id: "big-memory", config: {} }],
        compaction: { maxActiveTranscriptBytes: "4kb", forceFlushTranscriptBytes: "2kb" },
      });
      await seedWorkspace(instance.workspaceDir);
      await seedBilling(instance.workspaceDir);
      await instance.startGateway({ timeoutMs: 400_000 });
    }, TEST_TIMEOUT_MS);

    afterAll(async () => {
      await instance?.dispose();
      await model?.close();
    });

    it(
      "gives each session's flush its own draft, whichever session was active last",
      async () => {
        // Interleaved: each session's next turn comes while the other one was the last active.
        await instance.chatSend(A, ASKS.fix, SLOW);
        await instance.chatSend(B, BILLING.ask, SLOW);
        await instance.chatSend(A, ASKS.test, SLOW);
        await instance.chatSend(B, BILLING.next, SLOW);
        await instance.chatSend(A, ASKS.proceed, SLOW);
        await instance.chatSend(B, BILLING.next, SLOW);
        console.log(`requests: ${model.requests.map((r) => r.kind).join(" ")}`);

        const flushes = model.requestsOf("flush").filter((req) => toolResults(req).length === 0);
        // Whose conversation each flush runs on: the transcript it carries (before its own prompt).
        const owner = (req: ClassifiedRequest): string => {
          const transcript = requestText(req).replace(flushPrompt(req), "");
          const auth = transcript.includes(TASK.errorCode);
          const billing = transcript.includes(BILLING.marker);
          return auth && !billing ? A : billing && !auth ? B : "both or neither";
        };
        const seen = flushes.map((req) => ({ owner: owner(req), named: namedSession(flushPrompt(req)) }));
        console.log(`flushes: ${JSON.stringify(seen)}`);
        expect(new Set(seen.map((s) => s.owner))).toEqual(new Set([A, B]));
        for (const req of flushes) {
          const prompt = flushPrompt(req);
          const mine = owner(req);
          expect(namedSession(prompt)).toBe(mine);
          // The draft is of the flush's own session: its task's facts, none of the other's.
          if (mine === A) {
            expect(prompt).toContain(TASK.errorCode);
            expect(prompt).toContain(TASK.file);
            expect(prompt).not.toContain(BILLING.file);
          } else {
            expect(prompt).toContain(BILLING.file);
            expect(prompt).not.toContain(TASK.errorCode);
            expect(prompt).not.toContain(TASK.file);
          }
        }

        const cycles = ledgerCycles(await readLedger(instance.workspaceDir));
        console.log(`ledger cycles: ${JSON.stringify(cycles)}`);
        // Which compaction completed depends on timing (the gateway's post-turn flush and compaction may do
        // nothing, a later preflight then compacts): whatever the order, every cycle of a session is covered
        // by that session's own snapshot, and only a compaction that happened restores, with its own.
        const day = String(cycles[0]?.snapshot).slice(0, 10);
        const log = await readFile(path.join(instance.workspaceDir, "memory", `${day}.md`), "utf8");
        for (const [session, own, other] of [
          [A, TASK.file, BILLING.file],
          [B, BILLING.file, TASK.file],
        ] as const) {
          const mine = cycles.filter((c) => c.session === session);
          expect(mine).toContainEqual(
            expect.objectContaining({ path: "preflight", flush: true, cover: "safety-net" }),
          );
          for (const cycle of mine) {
            const block = snapshotBlock(log, String(cycle.snapshot));
            expect(block).toContain(`<!-- session: ${session} -->`);
            expect(block).toContain(own);
            expect(block).not.toContain(other);
            // A restore still pending when the test ends (no later turn of the session) is not in the ledger.
            if (cycle.outcome !== "done") expect(cycle.restored).toEqual([]);
            else expect([[], [cycle.snapshot]]).toContainEqual(cycle.restored);
          }
          expect(mine.some((c) => c.outcome === "done" && c.restored.length === 1)).toBe(true);
        }
      },
      TEST_TIMEOUT_MS,
    );
  });

  describe(`an idle rollover (openclaw ${version} gateway, session.reset idle)`, () => {
    const KEY = "agent:main:e2e-idle";
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
        config: { session: { reset: { mode: "idle", idleMinutes: 1 } } },
      });
      await seedWorkspace(instance.workspaceDir);
      await instance.startGateway({ timeoutMs: 400_000 });
    }, TEST_TIMEOUT_MS);

    afterAll(async () => {
      await instance?.dispose();
      await model?.close();
    });

    it(
      "captures at session_end (idle) and restores at the first turn of the next session of the key",
      async () => {
        await instance.chatSend(KEY, ASKS.fix, SLOW);
        // Idle past `idleMinutes`: the next message rolls the session over.
        await sleep(65_000);
        const from = model.requests.length;
        await instance.chatSend(KEY, ASKS.left, SLOW);
        const next = model.requests.slice(from).filter((req) => req.kind === "turn");
        await instance.chatSend(KEY, ASKS.after, SLOW);
        const later = model.requests.slice(from).filter((req) => req.kind === "turn" && !next.includes(req));

        const probe = readProbeLog(path.join(instance.root, "probe.jsonl"));
        const ends = probe.filter((e) => e.hook === "session_end").map((e) => e.event.reason);
        console.log(
          `session_end reasons: ${JSON.stringify(ends)}; hooks: ${probe.map((e) => e.hook).join(" ")}`,
        );
        // What a failure needs to be read: the session hooks as sent, big-memory's log lines, the ledger.
        for (const e of probe.filter((e) => /^session_|before_prompt_build/.test(e.hook)))
          console.log(
            `${e.at} ${e.hook} ${JSON.stringify(e.event).slice(0, 300)} ctx ${JSON.stringify(e.ctx)}`,
          );
        const said = instance
          .gatewayOutput()
          .split("\n")
          .filter((l) => l.includes("big-memory"));
        console.log(`big-memory said:\n${said.join("\n")}`);
        console.log(`ledger: ${JSON.stringify(await readLedger(instance.workspaceDir))}`);
        expect(ends).toContain("idle");
        expect(probe.filter((e) => e.hook === "before_reset")).toEqual([]);

        const restores = next.flatMap((req) => turnRestores(req));
        expect(restores).toHaveLength(1);
        const fence = restores[0] ?? "";
        expect(fence).toContain('reason="reset"');
        expect(fence).toContain(TASK.errorCode);
        // On a loaded machine the last turn may itself come after a minute idle and roll over again: it may
        // then restore the snapshot of that second session, never the first one again.
        const again = later.flatMap((req) => turnRestores(req));
        expect(again.map((f) => fenceId(f))).not.toContain(fenceId(fence));

        const cycles = ledgerCycles(await readLedger(instance.workspaceDir));
        console.log(`ledger cycles: ${JSON.stringify(cycles)}`);
        const rollovers = cycles.filter((c) => c.path === "rollover");
        // One rollover cycle per idle session end, each covered by the trail and restored once.
        expect(rollovers).toHaveLength(ends.filter((r) => r === "idle").length);
        for (const cycle of rollovers)
          expect(cycle).toMatchObject({ session: KEY, flush: false, cover: "safety-net", outcome: "done" });
        expect(rollovers[0]).toMatchObject({ snapshot: fenceId(fence), restored: [fenceId(fence)] });
        expect(rollovers.flatMap((c) => c.restored)).toEqual([fence, ...again].map((f) => fenceId(f)));
      },
      TEST_TIMEOUT_MS,
    );
  });
}
