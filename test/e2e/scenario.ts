/**
 * The scripted task the e2e tests and the demo run through a real OpenClaw: a developer asks the agent to fix
 * ERR_DUPLICATE_KEY on a second login; the fake model reads and edits `src/auth/oauth-callback.ts`, runs a
 * failing test script through `exec`, states a plan ("Next: 1. ... 2. ..."), and answers the pre-compaction
 * memory flush either with NO_REPLY or by appending its own BIG-MEMORY-SNAPSHOT block with `write`.
 * Also the readers the tests share: the flush prompt's snapshot id, and the restore fence in a request.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  type ClassifiedRequest,
  lastUserText,
  messageText,
  type Reply,
  type Script,
  summarizerReply,
  toolResults,
} from "./harness/fake-model.ts";
import type { AgentTurnOptions, Instance, RunResult } from "./harness/instance.ts";

/** The facts of the task, as the tests look for them. */
export const TASK = {
  file: "src/auth/oauth-callback.ts",
  testScript: "scripts/test-oauth.mjs",
  errorCode: "ERR_DUPLICATE_KEY",
  migration: "migrations/0042_unique_session.sql",
  /** The first next step the assistant states in its plan (turn 2). */
  planStep: "Add a unique index on user_sessions(user_id, device_id) in migrations/0042_unique_session.sql",
  /** The first next step of the block the model writes during the flush (differs from the plan's wording). */
  flushStep: "Write migrations/0042_unique_session.sql: CREATE UNIQUE INDEX user_sessions_user_device",
} as const;

/** What the user types, turn by turn. */
export const ASKS = {
  fix: `Users get ${TASK.errorCode} on their second login. Fix the session insert in ${TASK.file}.`,
  test: "Run the oauth tests.",
  proceed: "Go ahead with step 1.",
  after: "Is the migration file named right?",
  left: "What is left to do?",
  amnesia: "you forgot what we were doing",
} as const;

/** The plan the assistant states after the failing test run. */
export const PLAN_TEXT = [
  `The oauth test still fails with ${TASK.errorCode} from user_sessions: two token refreshes race before the upsert sees the row.`,
  "Next:",
  `1. ${TASK.planStep}`,
  `2. Rerun node ${TASK.testScript}`,
].join("\n");

const CALLBACK_SOURCE = `import { db } from "../db.ts";

/** Handles the OAuth provider's redirect: exchanges the code and opens a session for the device. */
export async function oauthCallback(code: string, deviceId: string): Promise<string> {
  const user = await db.exchangeCode(code);
  // ${"Every login inserts a fresh session row; a second login of the same device collides on the key. ".repeat(6)}
  await db.query("INSERT INTO user_sessions (user_id, device_id, token) VALUES ($1, $2, $3)", [
    user.id,
    deviceId,
    user.token,
  ]);
  return user.token;
}
`;

const TEST_SCRIPT = `// Simulates the oauth integration test: the second login of a device collides on user_sessions.
console.log("oauth callback > first login ... ok");
console.error("oauth callback > second login ... FAILED");
console.error("${TASK.errorCode}: duplicate key value violates unique constraint \\"user_sessions_pkey\\" (user_id=42, device_id=web-1)");
process.exit(1);
`;

/** Writes the task's files into a workspace: the OAuth callback source and the failing test script. */
export async function seedWorkspace(workspaceDir: string): Promise<void> {
  await mkdir(path.join(workspaceDir, "src", "auth"), { recursive: true });
  await mkdir(path.join(workspaceDir, "scripts"), { recursive: true });
  await writeFile(path.join(workspaceDir, TASK.file), CALLBACK_SOURCE);
  await writeFile(path.join(workspaceDir, TASK.testScript), TEST_SCRIPT);
}

/** How the scripted model answers the pre-compaction memory flush. */
export type FlushBehaviour = "no-reply" | "write-snapshot";

/** The flush prompt's facts: the snapshot id, timestamp and daily log big-memory asks for. */
export interface FlushAsk {
  id: string;
  timestamp: string;
  file: string;
}

/** Reads the snapshot id, timestamp and file that big-memory's flush prompt asks for; undefined when absent. */
export function flushAsk(req: Pick<ClassifiedRequest, "messages">): FlushAsk | undefined {
  const text = lastUserText(req);
  const id = /<!-- snapshot-id: (\d{4}-\d{2}-\d{2}-\d{2,}) -->/.exec(text)?.[1];
  const timestamp = /<!-- timestamp: (\S+) -->/.exec(text)?.[1];
  const file = /APPEND one task snapshot to `(memory\/\d{4}-\d{2}-\d{2}\.md)`/.exec(text)?.[1];
  if (id === undefined || timestamp === undefined || file === undefined) return undefined;
  return { id, timestamp, file };
}

/** The BIG-MEMORY-SNAPSHOT block a compliant model appends during the flush, in the prompt's format. */
export function modelSnapshotBlock(ask: FlushAsk): string {
  const clock = /T(\d{2}:\d{2})/.exec(ask.timestamp)?.[1] ?? "00:00";
  return [
    "",
    "---",
    "",
    `## Task Snapshot -- ${clock}`,
    "",
    "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
    `<!-- timestamp: ${ask.timestamp} -->`,
    `<!-- snapshot-id: ${ask.id} -->`,
    "",
    "### [SNAPSHOT] Active Goal",
    `Stop ${TASK.errorCode} on a user's second login (OAuth callback session insert).`,
    "",
    "### [SNAPSHOT] Current State",
    "- Phase: debugging",
    "- Branch: n/a",
    "- Blocked: no",
    "- Progress: insert replaced by an upsert; the oauth test still fails",
    "",
    "### [SNAPSHOT] Files In Play",
    `- \`${TASK.file}\` -- insert replaced by an upsert on (user_id, device_id)`,
    `- \`${TASK.migration}\` -- to be written: the unique index`,
    "",
    "### [SNAPSHOT] Decisions Made",
    "1. One session row per device -- a second login must reuse it",
    "",
    "### [SNAPSHOT] Code Context",
    "none",
    "",
    "### [SNAPSHOT] Key Names & Values",
    `- error: \`${TASK.errorCode}\``,
    `- test: \`node ${TASK.testScript}\``,
    "",
    "### [SNAPSHOT] Blockers & Open Questions",
    "- Two token refreshes race before the upsert sees the row",
    "",
    "### [SNAPSHOT] Next Steps",
    `1. ${TASK.flushStep}`,
    `2. Rerun node ${TASK.testScript}`,
    "",
    "<!-- /BIG-MEMORY-SNAPSHOT -->",
    "",
  ].join("\n");
}

/**
 * What the user typed this turn: the last paragraph of the current user message, without OpenClaw's
 * `[Sun 2026-11-22 03:52 UTC] ` prefix and `Runtime: ...` suffix, and without any context a plugin prepended
 * (a restore quotes earlier asks, so matching anywhere in the message would replay an earlier turn).
 */
export function userAsk(req: Pick<ClassifiedRequest, "messages">): string {
  const text = lastUserText(req).replace(/\n+Runtime: [^\n]*\s*$/, "");
  const last = text.split("\n\n").findLast((paragraph) => paragraph.trim() !== "") ?? "";
  return last.replace(/^\s*\[[^\]\n]*\d{2}:\d{2}[^\]\n]*\]\s*/, "").trim();
}

/** The reply to a turn of the task, by the user's ask and the tool results of this turn so far. */
function taskTurn(req: ClassifiedRequest): Reply | undefined {
  const ask = userAsk(req);
  const step = toolResults(req).length;
  if (ask === ASKS.fix) {
    if (step === 0) return { toolCalls: [{ name: "read", arguments: { path: TASK.file } }] };
    if (step === 1) {
      const edit = {
        path: TASK.file,
        oldText: "INSERT INTO user_sessions (user_id, device_id, token) VALUES ($1, $2, $3)",
        newText:
          "INSERT INTO user_sessions (user_id, device_id, token) VALUES ($1, $2, $3) ON CONFLICT (user_id, device_id) DO UPDATE SET token = EXCLUDED.token",
      };
      return { toolCalls: [{ name: "edit", arguments: edit }] };
    }
    return {
      text: `I replaced the plain insert in ${TASK.file} with an upsert on (user_id, device_id). Decision: keep one session row per device.`,
    };
  }
  if (ask === ASKS.test) {
    if (step === 0)
      return { toolCalls: [{ name: "exec", arguments: { command: `node ${TASK.testScript}` } }] };
    return { text: PLAN_TEXT };
  }
  if (ask === ASKS.proceed) return { text: `Writing ${TASK.migration} next.` };
  if (ask === ASKS.after) return { text: `Yes: ${TASK.migration} follows the numbering.` };
  if (ask === ASKS.left) return { text: `Write ${TASK.migration}, then rerun node ${TASK.testScript}.` };
  return undefined;
}

/**
 * The scripted model of the task: the summarizer gets a heading-complete summary; the flush gets NO_REPLY,
 * or (`write-snapshot`) a `write` appending {@link modelSnapshotBlock} with the id the flush prompt asks
 * for, then NO_REPLY; task turns follow {@link ASKS}; anything else gets the harness default.
 */
export function taskScript(flush: FlushBehaviour): Script {
  return (req) => {
    if (req.kind === "summarizer") return summarizerReply(req);
    if (req.kind === "flush") {
      const ask = flushAsk(req);
      if (flush === "no-reply" || ask === undefined || toolResults(req).length > 0)
        return { text: "NO_REPLY" };
      return {
        toolCalls: [{ name: "write", arguments: { path: ask.file, content: modelSnapshotBlock(ask) } }],
      };
    }
    return taskTurn(req);
  };
}

/**
 * big-memory's restore fence: `<big-memory-snapshot-NONCE id="..." ...>` ... `</big-memory-snapshot-NONCE>`,
 * the nonce being 16 hex digits drawn for each render and the same in both tags.
 */
const FENCE = /<big-memory-snapshot-([0-9a-f]{16})\b[^>]*>[\s\S]*?<\/big-memory-snapshot-\1>/g;

/** Every restore fence in a text, in order. */
export function restoreFences(text: string): string[] {
  return [...text.matchAll(FENCE)].map((match) => match[0]);
}

/** The `id` attribute of a restore fence. */
export function fenceId(fence: string): string | undefined {
  return /^<big-memory-snapshot-[0-9a-f]{16}\b[^>]*\bid="([^"]+)"/.exec(fence)?.[1];
}

/** OpenClaw's compaction summary message starts with this. */
export const SUMMARY_PREFIX = "The conversation history before this point was compacted";

/**
 * The restore fences the plugin put in front of this request's user turn: those in the current user message
 * (where `prependContext` lands), not in the compaction summary nor in earlier messages kept verbatim.
 */
export function turnRestores(req: Pick<ClassifiedRequest, "messages">): string[] {
  return restoreFences(lastUserText(req));
}

/** Restore fences anywhere in the request except the compaction summary (which may quote earlier turns). */
export function restoresOutsideSummary(req: Pick<ClassifiedRequest, "messages">): string[] {
  return req.messages
    .map((message) => messageText(message))
    .filter((text) => !text.trimStart().startsWith(SUMMARY_PREFIX))
    .flatMap((text) => restoreFences(text));
}

/** The item at `index`; throws (failing the test) naming `what` when the list is shorter. */
export function nth<T>(list: readonly T[], index: number, what: string): T {
  const item = list[index];
  if (item === undefined) throw new Error(`expected ${what} at index ${index}, found ${list.length} item(s)`);
  return item;
}

/** The requests that came after the last summarizer call, or none when there was no compaction. */
export function afterCompaction(requests: readonly ClassifiedRequest[]): ClassifiedRequest[] {
  const last = requests.findLastIndex((req) => req.kind === "summarizer");
  return last === -1 ? [] : requests.slice(last + 1);
}

/**
 * Config patch that makes the next `agent --local` turn compact: a 4 kb transcript cap and a forced memory
 * flush from 2 kb (the harness's `compaction` option, applied to a running instance). 2026.9.6 checks the cap
 * before the turn (flush, summarizer, then the turn); 2026.9.2 after it (the turn, then flush and summarizer).
 */
export const FORCE_COMPACTION: Record<string, unknown> = {
  agents: {
    defaults: {
      compaction: { maxActiveTranscriptBytes: "4kb", memoryFlush: { forceFlushTranscriptBytes: "2kb" } },
    },
  },
};

/** Config patch that lifts {@link FORCE_COMPACTION} again (a 64 mb cap, the default 2 mb flush). */
export const RELAX_COMPACTION: Record<string, unknown> = {
  agents: {
    defaults: {
      compaction: { maxActiveTranscriptBytes: "64mb", memoryFlush: { forceFlushTranscriptBytes: "2mb" } },
    },
  },
};

/** What the task needs of an OpenClaw instance (the harness's, or the demo's `--real` one). */
export type TaskInstance = Pick<Instance, "workspaceDir" | "runAgentTurn" | "updateConfig">;

/** One `agent --local` turn that must succeed; throws with OpenClaw's output when it does not. */
export async function agentTurn(
  instance: Pick<Instance, "runAgentTurn">,
  ask: string,
  options?: AgentTurnOptions,
): Promise<RunResult> {
  const turn = await instance.runAgentTurn(ask, options);
  if (turn.code !== 0 || turn.timedOut) {
    const status = turn.timedOut ? "timed out" : `exited ${turn.code ?? turn.signal}`;
    throw new Error(`agent turn "${ask}" ${status}: ${turn.stdout.slice(-1500)}${turn.stderr.slice(-3000)}`);
  }
  return turn;
}

/** What {@link runTaskThroughCompaction} ran. */
export interface TaskRun {
  /** The two working turns and the turn that compacted, in order. */
  turns: RunResult[];
  /** Index in `model.requests` of the first request of the compacting turn. */
  compactionTurnFrom: number;
}

/**
 * Seeds the workspace and runs the task: the fix turn (read, edit), the test turn (a failing `exec`, the
 * plan), then forces compaction and runs "Go ahead with step 1.", whose process flushes, compacts and
 * answers; then lifts the forcing so later turns do not compact again. Throws when that turn did not compact.
 */
export async function runTaskThroughCompaction(
  instance: TaskInstance,
  model: { requests: readonly ClassifiedRequest[] },
): Promise<TaskRun> {
  await seedWorkspace(instance.workspaceDir);
  const turns = [await agentTurn(instance, ASKS.fix), await agentTurn(instance, ASKS.test)];
  await instance.updateConfig(FORCE_COMPACTION);
  const compactionTurnFrom = model.requests.length;
  turns.push(await agentTurn(instance, ASKS.proceed));
  await instance.updateConfig(RELAX_COMPACTION);
  const kinds = model.requests.slice(compactionTurnFrom).map((req) => req.kind);
  if (!kinds.includes("summarizer")) {
    throw new Error(`expected "${ASKS.proceed}" to compact; its model calls were: ${kinds.join(", ")}`);
  }
  return { turns, compactionTurnFrom };
}
