/**
 * A daily log replaced by a model's `write` in an ordinary turn, through a real OpenClaw gateway (`chat.send`),
 * on 2026.9.6 and on 2026.9.2 (Node 22): during the flush OpenClaw makes `write` append-only, but in an ordinary turn it replaces the
 * file, the user's notes and big-memory's snapshot with it. big-memory notices (one warning in the gateway
 * log), says so in `status`, "you forgot" still restores the snapshot (from the journal), and `big-memory
 * repair` appends it again, never the user's notes.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ClassifiedRequest,
  type FakeModel,
  hasToolResult,
  lastUserText,
  startFakeModel,
  toolResults,
} from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { ensureOpenClaw } from "./harness/openclaw-install.ts";
import { type PluginStage, stageBigMemory } from "./harness/plugin-stage.ts";
import { ASKS, fenceId, seedWorkspace, TASK, taskScript, turnRestores } from "./scenario.ts";

// Four to six gateway turns per test: a loaded 2-core machine takes a minute per turn.
const TEST_TIMEOUT_MS = 600_000;
const SESSION = "agent:main:e2e-journal";
const CHECKPOINT = "auth-dup-fix";
const WIPE = "Tidy today's notes into one summary";
const USER_NOTES = "# Notes\n\n- call the bank about the SEPA mandate\n- dentist at 16:00\n\n";
const MODEL_TEXT = "# Today\n\nSummary: worked on the OAuth callback.\n";

/** The releases this path is shown on: the one pinned, and the compatibility floor. */
const VERSIONS = ["2026.9.6", "2026.9.2"] as const;

let stage: PluginStage;

beforeAll(async () => {
  stage = await stageBigMemory();
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await stage?.dispose();
});

for (const version of VERSIONS) {
  describe(`a daily log replaced by a model's write (openclaw ${version} gateway)`, () => {
    let model: FakeModel;
    let instance: Instance;
    /** The daily log the checkpoint went to, `memory/YYYY-MM-DD.md`, once saved. */
    let log = "";

    const task = taskScript("no-reply");
    /** The task's script, plus one ordinary turn whose model replaces the daily log with `write`. */
    function script(req: ClassifiedRequest) {
      if (req.kind === "turn" && lastUserText(req).includes(WIPE)) {
        if (hasToolResult(req)) return { text: "I rewrote today's notes as one summary." };
        return { toolCalls: [{ name: "write", arguments: { path: log, content: MODEL_TEXT } }] };
      }
      return task(req);
    }

    beforeAll(async () => {
      model = await startFakeModel(script);
      instance = await createInstance({
        install: await ensureOpenClaw(version),
        modelUrl: model.url,
        plugins: [{ dir: stage.dir, id: "big-memory", config: {} }],
      });
      await seedWorkspace(instance.workspaceDir);
      // Ready in 16 s on a quiet machine; minutes under the load of parallel test suites.
      await instance.startGateway({ timeoutMs: 400_000 });
    }, TEST_TIMEOUT_MS);

    afterAll(async () => {
      await instance?.dispose();
      await model?.close();
    });

    async function send(message: string): Promise<{ reply: string; requests: ClassifiedRequest[] }> {
      const from = model.requests.length;
      const exchange = await instance.chatSend(SESSION, message);
      return { reply: exchange.replyText, requests: model.requests.slice(from) };
    }

    /** The staged `big-memory` CLI on the instance's workspace. */
    function bigMemory(args: string[]) {
      return stage.cli([...args, "--dir", instance.workspaceDir], { env: instance.env, cwd: instance.root });
    }

    /** What the gateway logged so far: its log file and its output. */
    async function gatewayLog(): Promise<string> {
      const file = await readFile(instance.logFile, "utf8").catch(() => "");
      return `${file}\n${instance.gatewayOutput()}`;
    }

    /**
     * Why a turn made other model calls than expected: each call's kind, last user text and tool results, the
     * ledger's cycles and the gateway's lines about compaction, timeouts and retries.
     */
    async function unexpected(requests: ClassifiedRequest[]): Promise<string> {
      const calls = requests.map(
        (r) =>
          `${r.kind} #${r.index}: ${JSON.stringify(lastUserText(r).slice(0, 120))}, tool results ${JSON.stringify(toolResults(r).map((t) => t.slice(0, 120)))}`,
      );
      const status = await bigMemory(["status", "--json"]);
      const ledger = (() => {
        try {
          return JSON.stringify((JSON.parse(status.stdout) as { compactions?: unknown }).compactions ?? null);
        } catch {
          return `status --json printed no JSON: ${status.stdout.slice(0, 400)} ${status.stderr.slice(0, 400)}`;
        }
      })();
      const lines = (await gatewayLog())
        .split("\n")
        .filter((l) =>
          /compact|timeout|timed out|retry|overflow|failover|big-memory|terminal message|empty response|final answer|reasoning-only|incomplete turn/i.test(
            l,
          ),
        )
        .slice(-40);
      return [`unexpected model calls:`, ...calls, `compactions: ${ledger}`, `gateway log:`, ...lines].join(
        "\n",
      );
    }

    let savedId = "";

    it(
      "saves a checkpoint below the user's notes in the day's log, and opens the index",
      async () => {
        await send(ASKS.fix);
        const save = await send(`/big-memory save ${CHECKPOINT}`);
        const match =
          /^Saved snapshot (\d{4}-\d{2}-\d{2}-\d{2,}) "[^"]+" to (memory\/\d{4}-\d{2}-\d{2}\.md):\d+/.exec(
            save.reply,
          );
        expect(match, save.reply).not.toBeNull();
        savedId = match?.[1] ?? "";
        log = match?.[2] ?? "";
        // The user's own notes sit above the snapshot in the day's log.
        const logPath = path.join(instance.workspaceDir, log);
        await writeFile(logPath, USER_NOTES + (await readFile(logPath, "utf8")));
        // The index (and its watcher) is open from here on.
        expect((await send("/big-memory list")).reply).toContain(savedId);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "is noticed and warned of once in the gateway log, and status names the lost snapshot",
      async () => {
        const logPath = path.join(instance.workspaceDir, log);
        const wipe = await send(WIPE);
        const kinds = wipe.requests.map((r) => r.kind);
        // Two model calls: the write, then the reply. Anything else is shown with what explains it.
        if (kinds.join() !== "turn,turn") expect.fail(await unexpected(wipe.requests));
        expect(await readFile(logPath, "utf8")).toBe(MODEL_TEXT);

        const warning = `big-memory: ${log} lost 1 snapshot big-memory wrote there (${savedId})`;
        let logged = await gatewayLog();
        for (const started = Date.now(); !logged.includes(warning) && Date.now() - started < 30_000; ) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          logged = await gatewayLog();
        }
        expect(logged).toContain(warning);

        const status = await bigMemory(["status", "--json"]);
        const doc = JSON.parse(status.stdout) as {
          problems: number;
          journal: { incidents: { file: string; lost: string[] }[] };
        };
        expect(doc.journal.incidents).toEqual([expect.objectContaining({ file: log, lost: [savedId] })]);
        expect(doc.problems).toBeGreaterThanOrEqual(1);
        // Seen again (status above, the next turn): still one warning for the one incident, one line of the log file
        // (the gateway's output repeats what the file holds).
        await send("/big-memory status");
        const lines = (await readFile(instance.logFile, "utf8"))
          .split("\n")
          .filter((l) => l.includes(warning));
        expect(lines).toHaveLength(1);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      '"you forgot" restores the snapshot from the journal, and repair appends it again without the user\'s notes',
      async () => {
        const forgot = await send(ASKS.amnesia);
        const restores = forgot.requests.filter((r) => r.kind === "turn").flatMap((r) => turnRestores(r));
        expect(restores.map(fenceId)).toEqual([savedId]);
        expect(restores[0]).toContain(TASK.errorCode);

        const repair = await bigMemory(["repair"]);
        expect([repair.code, repair.stdout]).toEqual([
          0,
          expect.stringMatching(
            new RegExp(
              `^${log}: appended 1 snapshot \\(${savedId}\\); the log was cut from \\d+ to \\d+ bytes`,
            ),
          ),
        ]);
        const text = await readFile(path.join(instance.workspaceDir, log), "utf8");
        expect(text.startsWith(MODEL_TEXT)).toBe(true);
        expect(text).toContain(`<!-- snapshot-id: ${savedId} -->`);
        expect(text).not.toContain("SEPA mandate");
        expect((await bigMemory(["verify"])).code).toBe(0);
        const status = JSON.parse((await bigMemory(["status", "--json"])).stdout) as {
          journal: { incidents: unknown[] };
        };
        expect(status.journal.incidents).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );
  });
}
