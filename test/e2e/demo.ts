/**
 * `npm run demo`: big-memory's whole loop in a real OpenClaw, printed step by step for a person.
 *
 * Starts OpenClaw 2026.9.6 (the project's `node_modules/openclaw`, on the project's Node 24) as a throwaway
 * instance with big-memory (a staged build of this checkout) and a scripted model on 127.0.0.1: no API key,
 * no network. Runs a short coding task (4 turns; tool calls: read, edit, a failing test through exec), forces
 * a compaction on the third turn, and prints:
 *   1. the task turns (what the user asked, the tool calls, the replies);
 *   2. the snapshot prompt big-memory put into OpenClaw's pre-compaction memory flush (abridged);
 *   3. the snapshot block written to `memory/YYYY-MM-DD.md`;
 *   4. that compaction happened: a timeline from OpenClaw's debug log, the model calls and big-memory's state;
 *   5. what the model received in the first request after compaction (the restore, abridged), and that the
 *      next turn did not receive it again;
 *   6. the output of `big-memory status`.
 * Exits 0 when the loop closed (a snapshot was written, and restored into the first turn after compaction),
 * 1 when it did not, 2 on a usage or setup error. Removes its processes and temp directories, also on Ctrl-C.
 * Takes 1-3 minutes.
 *
 * Options:
 *   --safety-net  the scripted model answers NO_REPLY to the flush, so big-memory drafts the snapshot itself.
 *   --real        use YOUR OpenClaw config and model provider instead of the scripted model. THIS COSTS TOKENS:
 *                 about 12 model calls of roughly 40k input tokens each (OpenClaw's system prompt and tools).
 *                 Your config (`$OPENCLAW_CONFIG_PATH`, else `$OPENCLAW_STATE_DIR/openclaw.json`, else
 *                 `~/.openclaw/openclaw.json`) is read, never written: the demo runs OpenClaw with an overlay
 *                 config that `$include`s yours and adds a throwaway workspace, the staged plugin and a forced
 *                 compaction. Your HOME and state dir are used (for your credentials); the turns run on a new
 *                 session key `agent:main:big-memory-demo-<time>`, so your main session is not touched. What
 *                 the model does is up to the model: the demo reports what happened. The restore is read back
 *                 from OpenClaw's trajectory export of that session.
 *
 * Runs outside vitest; like the tests it strips VITEST*, NODE_ENV=test and OPENCLAW_* from the children's
 * environment (OpenClaw goes silent under a test runner). The `--real` plumbing is harness/user-instance.ts.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import {
  type ClassifiedRequest,
  defaultReply,
  type FakeModel,
  lastUserText,
  type Reply,
  startFakeModel,
  toolResults,
} from "./harness/fake-model.ts";
import { createInstance, type Instance, type RunResult } from "./harness/instance.ts";
import { ensureOpenClaw, type OpenClawInstall } from "./harness/openclaw-install.ts";
import { type PluginStage, stageBigMemory } from "./harness/plugin-stage.ts";
import { runToCompletion } from "./harness/processes.ts";
import { createUserInstance } from "./harness/user-instance.ts";
import {
  ASKS,
  afterCompaction,
  agentTurn,
  FORCE_COMPACTION,
  fenceId,
  RELAX_COMPACTION,
  restoreFences,
  SUMMARY_PREFIX,
  seedWorkspace,
  TASK,
  type TaskInstance,
  taskScript,
} from "./scenario.ts";

const USAGE = "usage: npm run demo [-- --safety-net] [-- --real]";
const SNAPSHOT_ID = /<!-- snapshot-id: (\d{4}-\d{2}-\d{2}-\d{2,}) -->/g;

/** Something the demo must stop or remove when it ends. */
type Cleanup = () => Promise<void>;

/** One model call as the scripted model saw and answered it. */
interface Call {
  req: ClassifiedRequest;
  reply: Reply;
  at: Date;
}

/** The instance the demo drives, and how to read what the model was sent. */
interface DemoRun {
  instance: TaskInstance & Pick<Instance, "root" | "env">;
  /** The model calls recorded by the scripted model (none with --real). */
  calls: Call[];
  sessionKey: string;
  logFile: string;
  /** The text of the first user turn after compaction, as the model received it; undefined when unknown. */
  firstTurnAfterCompaction(): Promise<string | undefined>;
  /** The texts of the user turns after that one. */
  laterTurns(): Promise<string[]>;
}

const out = (text = ""): void => {
  process.stdout.write(`${text}\n`);
};

function heading(step: string): void {
  out();
  out(`━━━ ${step} ${"━".repeat(Math.max(3, 76 - step.length))}`);
  out();
}

/** `text` cut to `lines` lines of at most `width` characters, with a note of what was left out. */
function abridge(text: string, lines: number, width = 110): string {
  const all = text.split("\n");
  const kept = all
    .slice(0, lines)
    .map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line));
  if (all.length > lines) kept.push(`[… ${all.length - lines} more lines]`);
  return kept.join("\n");
}

function indent(text: string, prefix = "    "): string {
  return text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n");
}

const clock = (date: Date): string => date.toISOString().slice(11, 23);

/** A reply in one or a few lines: the text, or each tool call with its arguments (long values by size). */
function describeReply(reply: Reply): string {
  if ("text" in reply) return labelled("assistant: ", reply.text);
  return reply.toolCalls
    .map((call) => {
      const args = Object.entries(call.arguments).map(([key, value]) => {
        const text = typeof value === "string" ? value : JSON.stringify(value);
        return `${key}=${text.length > 80 || text.includes("\n") ? `<${text.length} chars>` : JSON.stringify(value)}`;
      });
      return `tool call: ${call.name} ${args.join(" ")}`;
    })
    .join("\n");
}

/** The reply texts of an `agent --json` run (`payloads[].text`), else the start of its output. */
function replyText(result: RunResult): string {
  const payloads: unknown =
    typeof result.json === "object" && result.json !== null
      ? Reflect.get(result.json, "payloads")
      : undefined;
  const texts = (Array.isArray(payloads) ? payloads : [])
    .map((p: unknown) => (typeof p === "object" && p !== null ? Reflect.get(p, "text") : undefined))
    .filter((t): t is string => typeof t === "string");
  return texts.length > 0 ? texts.join("\n") : result.stdout.slice(0, 300);
}

/** `label` then `text`, its later lines aligned under its first. */
function labelled(label: string, text: string): string {
  return `${label}${text.replace(/\n/g, `\n${" ".repeat(label.length)}`)}`;
}

/** Starts the scripted model and a harness instance of OpenClaw 2026.9.6 with the staged plugin. */
async function fakeRun(
  install: OpenClawInstall,
  stage: PluginStage,
  safetyNet: boolean,
  cleanups: Cleanup[],
): Promise<DemoRun> {
  const calls: Call[] = [];
  const script = taskScript(safetyNet ? "no-reply" : "write-snapshot");
  const model: FakeModel = await startFakeModel((req) => {
    const reply = script(req) ?? defaultReply(req);
    calls.push({ req, reply, at: new Date() });
    return reply;
  });
  cleanups.push(() => model.close());
  const instance = await createInstance({
    install,
    modelUrl: model.url,
    plugins: [{ dir: stage.dir, id: "big-memory", config: {} }],
    config: { logging: { level: "debug" } },
  });
  cleanups.push(() => instance.dispose());
  const turnsAfter = () => afterCompaction(model.requests).filter((req) => req.kind === "turn");
  return {
    instance,
    calls,
    sessionKey: "agent:main:main",
    logFile: instance.logFile,
    firstTurnAfterCompaction: async () => {
      const first = turnsAfter()[0];
      return first === undefined ? undefined : lastUserText(first);
    },
    laterTurns: async () => {
      const turns = turnsAfter();
      const firstTurn = turns[0];
      // The model calls of the first turn share its user message; later turns start with a new one.
      return turns
        .map((req) => lastUserText(req))
        .filter((text) => text !== (firstTurn && lastUserText(firstTurn)));
    },
  };
}

/**
 * The `--real` run: OpenClaw on the user's config (harness/user-instance.ts); what the model received is read
 * back from the session's trajectory export.
 */
async function realRun(install: OpenClawInstall, stage: PluginStage, cleanups: Cleanup[]): Promise<DemoRun> {
  const user = await createUserInstance({ install, plugins: [{ dir: stage.dir, id: "big-memory" }] });
  cleanups.push(() => user.dispose());
  const asks: string[] = Object.values(ASKS);
  const prompts = () => user.exportedStrings((text) => asks.some((ask) => text.includes(ask)));
  return {
    instance: user.instance,
    calls: [],
    sessionKey: user.sessionKey,
    logFile: user.logFile,
    firstTurnAfterCompaction: async () => (await prompts()).find((text) => restoreFences(text).length > 0),
    laterTurns: async () => {
      const all = await prompts();
      const first = all.findIndex((text) => restoreFences(text).length > 0);
      return first === -1 ? [] : all.slice(first + 1);
    },
  };
}

/** The snapshot block with `id` in a daily log: from its `## Task Snapshot` heading to the end marker. */
function blockOf(log: string, id: string): string | undefined {
  const lines = log.split("\n");
  const idLine = lines.findIndex((line) => line.trim() === `<!-- snapshot-id: ${id} -->`);
  if (idLine === -1) return undefined;
  let start = idLine;
  while (start > 0 && !(lines[start] ?? "").startsWith("## Task Snapshot")) start--;
  let end = idLine;
  while (end < lines.length - 1 && (lines[end] ?? "").trim() !== "<!-- /BIG-MEMORY-SNAPSHOT -->") end++;
  return lines.slice(start, end + 1).join("\n");
}

/** OpenClaw debug-log lines about compaction, the flush and hook context, with their times. */
async function logTimeline(logFile: string): Promise<{ at: Date; what: string }[]> {
  if (!existsSync(logFile)) return [];
  const rows: { at: Date; what: string }[] = [];
  for (const line of (await readFile(logFile, "utf8")).split("\n")) {
    if (line.trim() === "") continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof record !== "object" || record === null) continue;
    const time: unknown = Reflect.get(record, "time");
    const parts = ["0", "1", "2"].map((key) => Reflect.get(record, key)).filter((v) => typeof v === "string");
    const message = parts.join(" ");
    const interesting =
      /\[compaction-diag\] (start|end)/.test(message) ||
      /hooks: prepended context/.test(message) ||
      /byte-triggered compaction/.test(message) ||
      /big-memory: /.test(message);
    if (!interesting || typeof time !== "string" || /can't verify where this plugin/.test(message)) continue;
    const what = message
      .replace(/^\{"subsystem":"[^"]*"\}\s*/, "")
      .replace(/ (runId|diagId|sessionKey)=\S+/g, "")
      .slice(0, 130);
    rows.push({ at: new Date(time), what });
  }
  return rows;
}

/** The big-memory state file of a session, parsed; undefined when absent. */
async function sessionState(
  workspaceDir: string,
  sessionKey: string,
): Promise<Record<string, unknown> | undefined> {
  const dir = path.join(workspaceDir, ".big-memory", "sessions");
  if (!existsSync(dir)) return undefined;
  const slug = sessionKey.replace(/[^a-zA-Z0-9_-]+/g, "-").slice(0, 60);
  const name = (await readdir(dir)).find((n) => n.startsWith(`${slug}-`) && n.endsWith(".json"));
  if (name === undefined) return undefined;
  const state: unknown = JSON.parse(await readFile(path.join(dir, name), "utf8"));
  return typeof state === "object" && state !== null ? Object.fromEntries(Object.entries(state)) : undefined;
}

/** Step 1: runs the four turns (compaction forced for the third) and prints each ask, call and reply. */
async function runTask(run: DemoRun, real: boolean): Promise<void> {
  const { instance, calls } = run;
  heading("1. The task");
  await seedWorkspace(instance.workspaceDir);
  out(`Seeded ${TASK.file} and ${TASK.testScript} (a test that fails with ${TASK.errorCode}).`);
  const turn = async (ask: string, note = ""): Promise<void> => {
    out();
    out(`> user: ${ask}${note}`);
    const from = calls.length;
    const result = await agentTurn(instance, ask, { sessionKey: run.sessionKey });
    let shown = 0;
    for (const call of calls.slice(from)) {
      if (call.req.kind !== "turn") {
        const what = call.req.kind === "flush" ? "pre-compaction memory flush" : "compaction summarizer";
        const first = describeReply(call.reply).split("\n")[0] ?? "";
        out(indent(`(model call: OpenClaw's ${what}; ${first.slice(0, 70)})`));
        continue;
      }
      const results = toolResults(call.req);
      for (const text of results.slice(shown))
        out(indent(labelled("tool result: ", abridge(text.trim(), 3, 90))));
      shown = results.length;
      out(indent(describeReply(call.reply)));
    }
    if (real) out(indent(labelled("assistant: ", abridge(replyText(result), 6))));
    out(indent(`(${(result.durationMs / 1000).toFixed(1)} s, a new OpenClaw process)`));
  };
  await turn(ASKS.fix);
  await turn(ASKS.test);
  await instance.updateConfig(FORCE_COMPACTION);
  await turn(ASKS.proceed, "   [compaction forced: 4 kb transcript cap, flush from 2 kb]");
  await instance.updateConfig(RELAX_COMPACTION);
  await turn(ASKS.after);
}

/** Step 2: the prompt big-memory prepended to the flush run, abridged, and the model's answer. */
function printFlushPrompt(calls: readonly Call[], real: boolean): void {
  heading("2. The snapshot prompt big-memory added to the memory flush (abridged)");
  const flush = calls.find((call) => call.req.kind === "flush");
  if (flush === undefined) {
    out(
      real
        ? "(not shown with --real: the flush run is not part of the session's prompts)"
        : "No memory flush ran.",
    );
    return;
  }
  const prompt = lastUserText(flush.req);
  const observed = prompt.indexOf("What big-memory observed");
  out(indent(abridge(prompt, 14)));
  if (observed !== -1) {
    out(indent("[…]"));
    out(indent(abridge(prompt.slice(observed, prompt.indexOf("After writing the snapshot")).trim(), 16)));
  }
  out(
    indent('[… then OpenClaw\'s own instructions: "Pre-compaction memory flush. Store durable memories …"]'),
  );
  out();
  out(`The model answered: ${describeReply(flush.reply)}`);
}

/** Step 3: the daily logs' snapshot ids, and the block restored (else the newest) as it is on disk. */
async function printSnapshot(
  workspaceDir: string,
  restoredId: string | undefined,
): Promise<{ file: string; block: string } | undefined> {
  heading("3. The snapshot written");
  const memoryDir = path.join(workspaceDir, "memory");
  const logs = existsSync(memoryDir)
    ? (await readdir(memoryDir)).filter((n) => /^\d{4}-\d{2}-\d{2}\.md$/.test(n))
    : [];
  let written: { file: string; block: string } | undefined;
  for (const name of logs) {
    const text = await readFile(path.join(memoryDir, name), "utf8");
    const ids = [...text.matchAll(SNAPSHOT_ID)].map((m) => m[1]);
    out(`memory/${name}: ${ids.length} snapshot block(s): ${ids.join(", ")}`);
    const id = restoredId ?? ids.at(-1);
    const block = id === undefined ? undefined : blockOf(text, id);
    if (block !== undefined && (written === undefined || id === restoredId))
      written = { file: `memory/${name}`, block };
  }
  if (written === undefined) out("No snapshot block was written.");
  else {
    out();
    out(`${written.file}:`);
    out(indent(abridge(written.block, 60)));
  }
  return written;
}

/** A string field of a JSON object, "" when absent. */
function field(value: unknown, key: string): string {
  const v: unknown = typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined;
  return v === undefined ? "" : String(v);
}

/** What big-memory's session state and restore log say happened, with times, labelled by hook. */
async function pluginTimeline(run: DemoRun, state: unknown): Promise<{ at: Date; what: string }[]> {
  const rows: { at: Date; what: string }[] = [];
  const restoreLog = path.join(run.instance.workspaceDir, ".big-memory", "restore-log.jsonl");
  const lines = existsSync(restoreLog) ? (await readFile(restoreLog, "utf8")).split("\n") : [];
  for (const line of lines.filter((l) => l.trim() !== "")) {
    const entry: unknown = JSON.parse(line);
    rows.push({
      at: new Date(field(entry, "at")),
      what: `before_prompt_build (trigger=user): big-memory restored ${field(entry, "id")} (${field(entry, "reason")}, ${field(entry, "tokens")} tokens)`,
    });
  }
  const how: Record<string, string> = {
    flush: "before_compaction: big-memory claimed the block the flush wrote,",
    compaction: "before_compaction: big-memory's safety net drafted",
    reset: "before_reset: big-memory's safety net drafted",
    threshold: "llm_output: big-memory autosaved (context threshold)",
  };
  const snapshots: unknown =
    typeof state === "object" && state !== null ? Reflect.get(state, "snapshots") : [];
  for (const s of Array.isArray(snapshots) ? snapshots : []) {
    const trigger = field(s, "trigger");
    rows.push({
      at: new Date(field(s, "at")),
      what: `${how[trigger] ?? `big-memory recorded (${trigger})`} snapshot ${field(s, "id")} for ${run.sessionKey}`,
    });
  }
  return rows;
}

/** Step 4: the timeline of the compacting turn from the model calls, OpenClaw's debug log and big-memory. */
async function printCompaction(run: DemoRun): Promise<void> {
  heading("4. Compaction happened");
  const state = await sessionState(run.instance.workspaceDir, run.sessionKey);
  const timeline = [
    ...run.calls
      .filter((c) => c.req.kind !== "turn")
      .map((c) => ({
        at: c.at,
        what:
          c.req.kind === "flush"
            ? "model call: the memory flush run (its before_prompt_build, trigger=memory, carried big-memory's prompt)"
            : "model call: the compaction summarizer (OpenClaw compacts between before_ and after_compaction)",
      })),
    ...(await logTimeline(run.logFile)).map((row) => ({ ...row, what: `OpenClaw log: ${row.what}` })),
    ...(await pluginTimeline(run, state)),
  ].sort((a, b) => a.at.getTime() - b.at.getTime());
  out("Timeline (model calls, OpenClaw's debug log, big-memory's session state and restore log):");
  out();
  for (const row of timeline) out(`  ${clock(row.at)}  ${row.what}`);
  out();
  out(
    `big-memory session state: compactions seen = ${field(state?.cycle, "n") || "?"}, pending restore = ${JSON.stringify(state?.pendingRestore ?? null)}`,
  );
  out("Hook order in one compacting `agent --local` process (test/e2e/harness.test.ts verifies it):");
  out("before_prompt_build (trigger memory, the flush run) → before_compaction → summarizer call →");
  out("after_compaction → before_prompt_build (trigger user) → agent_end.");
}

/** Step 5: the restore the first turn after compaction received, and what the later turns received. */
async function printRestore(run: DemoRun): Promise<{ restoredId: string | undefined; again: number }> {
  heading("5. What the model received first after compaction (abridged)");
  const firstAfter = await run.firstTurnAfterCompaction();
  const fence = firstAfter === undefined ? undefined : restoreFences(firstAfter)[0];
  if (firstAfter === undefined || fence === undefined)
    out("No user turn after the compaction carried a restore.");
  else {
    out(indent(abridge(firstAfter.slice(firstAfter.indexOf(fence)), 40)));
    out();
    out(`(OpenClaw's compaction summary is a separate message, "${SUMMARY_PREFIX} …";`);
    out("the restore is put in front of the user's own words, for this one request only.)");
  }
  const later = await run.laterTurns();
  const again = later.flatMap((text) => restoreFences(text)).length;
  out();
  out(
    `The ${later.length} later request(s) received ${again === 0 ? "no restore: it is injected exactly once." : `${again} restore(s) again.`}`,
  );
  return { restoredId: fence === undefined ? undefined : fenceId(fence), again };
}

/** Step 6: `big-memory status` of the workspace, as a person reads it. */
async function printStatus(stage: PluginStage, instance: DemoRun["instance"]): Promise<void> {
  heading("6. big-memory status");
  const status = await stage.cli(["status", "--dir", instance.workspaceDir], {
    env: instance.env,
    cwd: instance.root,
  });
  out(indent(status.stdout.trim() || status.stderr.trim()));
}

/** The demo; resolves the exit code (0 loop closed, 1 not closed, 2 usage or setup error, 130 interrupted). */
async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((arg) => arg !== "--real" && arg !== "--safety-net");
  if (unknown.length > 0) {
    process.stderr.write(`demo: unknown option ${unknown.join(" ")}\n${USAGE}\n`);
    return 2;
  }
  const real = argv.includes("--real");
  const safetyNet = argv.includes("--safety-net");
  const started = Date.now();
  const cleanups: Cleanup[] = [];
  const cleanUp = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  let stopping = false;
  const interrupted = (): void => {
    stopping = true;
    process.stderr.write("\ndemo: interrupted, stopping OpenClaw and removing temp directories\n");
    void cleanUp().then(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    out("big-memory demo: a coding task runs through a context compaction in a real OpenClaw,");
    out("and the task snapshot taken before it comes back after it.");
    if (real) {
      out();
      out("--real: this uses YOUR OpenClaw config and model provider and COSTS TOKENS");
      out("(about 12 model calls of roughly 40k input tokens each). Ctrl-C now to stop.");
    }
    const [install, stage] = await Promise.all([ensureOpenClaw("2026.9.6"), stageBigMemory()]);
    cleanups.push(() => stage.dispose());
    const node = await runToCompletion(install.nodeBin, ["--version"], {
      env: process.env,
      cwd: stage.dir,
      children: new Set(),
      timeoutMs: 30_000,
    });
    out();
    out(
      `OpenClaw ${install.version} on Node ${node.stdout.trim()}; big-memory staged and built in ${stage.buildMs} ms`,
    );
    const run = real
      ? await realRun(install, stage, cleanups)
      : await fakeRun(install, stage, safetyNet, cleanups);
    const flushAnswer = safetyNet ? "NO_REPLY" : "writes a snapshot";
    out(`model: ${real ? "your configured model" : `scripted on 127.0.0.1 (flush answer: ${flushAnswer})`}`);
    out(`workspace: ${run.instance.workspaceDir}`);

    await runTask(run, real);
    printFlushPrompt(run.calls, real);
    const firstAfter = await run.firstTurnAfterCompaction();
    const fence = firstAfter === undefined ? undefined : restoreFences(firstAfter)[0];
    const written = await printSnapshot(
      run.instance.workspaceDir,
      fence === undefined ? undefined : fenceId(fence),
    );
    await printCompaction(run);
    const { restoredId, again } = await printRestore(run);
    await printStatus(stage, run.instance);

    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    const problem =
      written === undefined
        ? "no snapshot was written"
        : restoredId === undefined
          ? "no restore reached the model after compaction"
          : !written.block.includes(`<!-- snapshot-id: ${restoredId} -->`)
            ? `the restore (${restoredId}) is not the snapshot written`
            : again > 0
              ? "the restore was injected more than once"
              : undefined;
    out();
    out(
      problem === undefined
        ? `✔ The loop closed: snapshot ${restoredId} was written before compaction and restored once after it (${seconds} s).`
        : `✘ The loop did not close: ${problem} (${seconds} s).`,
    );
    return problem === undefined ? 0 : 1;
  } catch (error) {
    if (!stopping) process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
    return stopping ? 130 : 2;
  } finally {
    await cleanUp();
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
  }
}

process.exitCode = await main(process.argv.slice(2));
