import { PluginConfig } from "../config.ts";
import type { LedgerRecord } from "../session/state-files.ts";
import { relativeAge } from "../snapshot/time.ts";
import { ledgerCheck, unobservedChecks } from "./doctor-compactions.ts";
import { type JournalSummary, journalCheck } from "./journal-view.ts";

/**
 * `big-memory doctor`, the pure part: from facts gathered about OpenClaw's config and the workspace
 * (`doctor-facts.ts`), one check per line, each with what was found and, when it is not fine, the fix.
 * A `fail` means capture or restore will not work; a `warn` means they work with less (no model-written
 * snapshots, an index to rebuild, nothing observed yet).
 */

/** The plugin id, as OpenClaw's config names it. */
export const PLUGIN_ID = "big-memory";
const ENTRY = `plugins.entries.${PLUGIN_ID}`;

export type CheckStatus = "ok" | "warn" | "fail";

/** One line of the doctor's report. */
export interface Check {
  name: string;
  status: CheckStatus;
  /** What was found, with the config key, file or folder it was found in. */
  detail: string;
  /** What to do, when the status is not ok. */
  fix: string | null;
}

/** Everything the checks look at; `doctor-facts.ts` gathers it from the disk. */
export interface DoctorFacts {
  now: Date;
  /** Where the doctor runs: standalone, or inside OpenClaw (its CLI or a chat), which proves the plugin loaded. */
  host: "cli" | "openclaw";
  config: { path: string; exists: boolean; problem: string | null; value: Record<string, unknown> };
  agent: string | null;
  workspace: {
    dir: string;
    source: string;
    exists: boolean;
    hasMemory: boolean;
    /** Why a folder big-memory writes to is not writable (the folder and the error code), or null. */
    notWritable: string | null;
  };
  /** Where the plugin's package was found (a load path, an extensions folder, an npm install), or null. */
  install: { dir: string | null; problem: string | null };
  sessions: {
    count: number;
    unreadable: number;
    /** Newest `updatedAt` of any session state (any hook), and of one with a user turn observed. */
    lastActivity: string | null;
    lastTurn: string | null;
    /** Sessions that saw compactions or tool calls but never a user turn (`before_prompt_build`). */
    silent: string[];
  };
  /** The newest capture: a block whose checksum holds, or a claimed flush block (search/tally.ts `isCapture`). */
  lastCapture: { id: string; timestamp: string } | null;
  lastRestore: { id: string; at: string } | null;
  /** The daily logs checked against the journal (journal-view.ts). */
  journal: JournalSummary;
  index: { months: number; unreadable: string[]; missing: string[] };
  logs: { files: number; snapshots: number; problems: number; firstProblem: string | null };
  /** The compaction ledger (`.big-memory/ledger.jsonl`): compactions and resets observed, oldest first. */
  compactions?: { records: LedgerRecord[]; problem: string | null };
}

type Rec = Record<string, unknown>;
export const rec = (v: unknown): Rec =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Rec) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
const set = (key: string, value: string) => `openclaw config set ${key} ${value} --strict-json`;
export const check = (
  name: string,
  status: CheckStatus,
  detail: string,
  fix: string | null = null,
): Check => ({
  name,
  status,
  detail,
  fix: status === "ok" ? null : fix,
});

function configCheck(f: DoctorFacts): Check {
  if (f.config.problem !== null)
    return check(
      "config",
      "fail",
      f.config.problem,
      "fix the file; `openclaw config validate` shows every error",
    );
  if (!f.config.exists)
    return check(
      "config",
      "fail",
      `no OpenClaw config at ${f.config.path}`,
      "run `openclaw onboard`, or point OPENCLAW_CONFIG_PATH (or OPENCLAW_STATE_DIR) at your config",
    );
  return check("config", "ok", f.config.path);
}

function pluginChecks(f: DoctorFacts): Check[] {
  const plugins = rec(f.config.value.plugins);
  const entry = rec(rec(plugins.entries)[PLUGIN_ID]);
  const checks: Check[] = [];
  const allow = list(plugins.allow);
  if (plugins.enabled === false) {
    checks.push(check("plugin enabled", "fail", "plugins.enabled is false", set("plugins.enabled", "true")));
  } else if (list(plugins.deny).includes(PLUGIN_ID)) {
    checks.push(
      check(
        "plugin enabled",
        "fail",
        `plugins.deny lists ${PLUGIN_ID}`,
        `remove ${PLUGIN_ID} from plugins.deny`,
      ),
    );
  } else if (allow.length > 0 && !allow.includes(PLUGIN_ID)) {
    checks.push(
      check(
        "plugin enabled",
        "fail",
        `plugins.allow does not list ${PLUGIN_ID}`,
        `add ${PLUGIN_ID} to plugins.allow`,
      ),
    );
  } else if (entry.enabled !== true) {
    checks.push(
      check(
        "plugin enabled",
        "fail",
        `${ENTRY}.enabled is ${entry.enabled === false ? "false" : "not set"}`,
        `openclaw plugins enable ${PLUGIN_ID} (or ${set(`${ENTRY}.enabled`, "true")})`,
      ),
    );
  } else {
    checks.push(check("plugin enabled", "ok", `${ENTRY}.enabled is true`));
  }
  const parsed = PluginConfig.safeParse(entry.config ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    checks.push(
      check(
        "plugin config",
        "fail",
        `${ENTRY}.config is invalid: ${issues}`,
        "fix those keys (README: Configuration)",
      ),
    );
  } else {
    const c = parsed.data;
    const off = [
      ...(c.enabled ? [] : ["enabled"]),
      ...(c.capture.flushPrompt || c.capture.safetyNet ? [] : ["capture.flushPrompt and capture.safetyNet"]),
      ...(c.restore.afterCompaction ? [] : ["restore.afterCompaction"]),
    ];
    checks.push(
      off.length === 0
        ? check("plugin config", "ok", `${ENTRY}.config: capture and restore on, scope ${c.scope}`)
        : check(
            "plugin config",
            c.enabled && (c.capture.flushPrompt || c.capture.safetyNet) ? "warn" : "fail",
            `${ENTRY}.config turns off ${off.join(", ")}`,
            `set them to true in ${ENTRY}.config (or remove them: true is the default)`,
          ),
    );
  }
  if (f.host === "openclaw") {
    checks.push(check("plugin installed", "ok", "loaded by OpenClaw (this command runs inside it)"));
  } else if (f.install.problem !== null) {
    checks.push(
      check(
        "plugin installed",
        "fail",
        f.install.problem,
        "run `npm install` (it builds dist/) in that folder",
      ),
    );
  } else {
    checks.push(
      f.install.dir === null
        ? check(
            "plugin installed",
            "warn",
            "not found in plugins.load.paths, the extensions folders or OpenClaw's npm installs",
            `install it (README: Install), or confirm with \`openclaw plugins inspect ${PLUGIN_ID} --runtime --json\``,
          )
        : check("plugin installed", "ok", f.install.dir),
    );
  }
  const hooks = rec(entry.hooks);
  checks.push(
    hooks.allowConversationAccess === true
      ? check("conversation access", "ok", `${ENTRY}.hooks.allowConversationAccess is true`)
      : check(
          "conversation access",
          "fail",
          `${ENTRY}.hooks.allowConversationAccess is ${hooks.allowConversationAccess === false ? "false" : "not set"}: OpenClaw drops before_prompt_build and llm_output, so nothing is restored and no turn is observed`,
          set(`${ENTRY}.hooks.allowConversationAccess`, "true"),
        ),
  );
  checks.push(
    hooks.allowPromptInjection === false
      ? check(
          "prompt injection",
          "fail",
          `${ENTRY}.hooks.allowPromptInjection is false: OpenClaw blocks before_prompt_build, so no snapshot is restored and the flush prompt gets no template`,
          set(`${ENTRY}.hooks.allowPromptInjection`, "true"),
        )
      : check("prompt injection", "ok", `${ENTRY}.hooks.allowPromptInjection is not false`),
  );
  return checks;
}

function flushCheck(f: DoctorFacts): Check {
  const compaction = rec(rec(rec(f.config.value.agents).defaults).compaction);
  const flush = rec(compaction.memoryFlush);
  const slot = rec(rec(f.config.value.plugins).slots).memory;
  const soft = typeof flush.softThresholdTokens === "number" ? flush.softThresholdTokens : 4000;
  const force = typeof flush.forceFlushTranscriptBytes === "string" ? flush.forceFlushTranscriptBytes : "2mb";
  const thresholds = `runs ${soft} tokens before compaction, or when the transcript reaches ${force}`;
  if (flush.enabled === false) {
    return check(
      "memory flush",
      "warn",
      "agents.defaults.compaction.memoryFlush.enabled is false: the model writes no snapshot before compaction; the safety net still drafts one",
      set("agents.defaults.compaction.memoryFlush.enabled", "true"),
    );
  }
  if (slot === "none") {
    return check(
      "memory flush",
      "warn",
      "plugins.slots.memory is none: no memory plugin runs the pre-compaction flush; the safety net still drafts a snapshot",
      `${set("plugins.slots.memory", '"memory-core"')}`,
    );
  }
  return check("memory flush", "ok", `on (${thresholds})`);
}

/** The model ref a config's `model` value names (`"provider/model"` or `{ primary }`), or null. */
function modelRef(value: unknown): string | null {
  if (typeof value === "string") return value.trim() === "" ? null : value;
  const primary = rec(value).primary;
  return typeof primary === "string" && primary.trim() !== "" ? primary : null;
}

/**
 * Whether the agent has a model: its own (`agents.list[].model`) or the default one
 * (`agents.defaults.model`). Without one no turn runs, so nothing is captured or restored.
 */
export function modelCheck(f: DoctorFacts): Check {
  const agents = rec(f.config.value.agents);
  const own = list(agents.list).find((a) => rec(a).id === (f.agent ?? "main"));
  const ownModel = modelRef(rec(own).model);
  if (ownModel !== null) return check("model", "ok", `${ownModel} (agents.list, agent ${f.agent ?? "main"})`);
  const fallback = modelRef(rec(agents.defaults).model);
  if (fallback !== null) return check("model", "ok", `${fallback} (agents.defaults.model)`);
  return check(
    "model",
    "warn",
    "no model is configured (agents.defaults.model is not set): no turn runs, so big-memory has nothing to capture or restore yet",
    "run `openclaw onboard`, or `openclaw config set agents.defaults.model.primary '\"provider/model\"' --strict-json`",
  );
}

/** Below this many bytes a transcript threshold compacts every few turns: a try-out setting. */
export const TRY_OUT_BYTES = 64 * 1024;
const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A byte size as OpenClaw's config takes it (a number, or a string such as `"4kb"` or `"20mb"`), or null. */
export function byteSize(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value !== "string") return null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (match?.[1] === undefined) return null;
  return Number(match[1]) * (UNITS[(match[2] ?? "b").toLowerCase()] ?? 1);
}

function compactionCheck(f: DoctorFacts): Check {
  const compaction = rec(rec(rec(f.config.value.agents).defaults).compaction);
  const keys = {
    "agents.defaults.compaction.maxActiveTranscriptBytes": compaction.maxActiveTranscriptBytes,
    "agents.defaults.compaction.memoryFlush.forceFlushTranscriptBytes": rec(compaction.memoryFlush)
      .forceFlushTranscriptBytes,
  };
  const small = Object.entries(keys).filter(([, v]) => {
    const bytes = byteSize(v);
    return bytes !== null && bytes > 0 && bytes < TRY_OUT_BYTES;
  });
  if (small.length > 0) {
    return check(
      "compaction",
      "warn",
      `${small.map(([k, v]) => `${k} is ${JSON.stringify(v)}`).join(", ")}: OpenClaw compacts every few turns (a try-out setting)`,
      small.map(([k]) => `openclaw config unset ${k}`).join(" && "),
    );
  }
  const at = compaction.maxActiveTranscriptBytes;
  return check(
    "compaction",
    "ok",
    byteSize(at) === null || byteSize(at) === 0
      ? "when the model's context fills (OpenClaw's default)"
      : `when the context fills, or before a turn once the transcript reaches ${JSON.stringify(at)}`,
  );
}

function workspaceCheck(f: DoctorFacts): Check {
  const w = f.workspace;
  const where = `${w.dir} (${w.source})`;
  if (!w.exists)
    return check(
      "workspace",
      "warn",
      `${where} does not exist yet`,
      "OpenClaw creates it on the first turn; if that is the wrong folder, set the agent's workspace or agents.defaults.workspace",
    );
  if (w.notWritable !== null)
    return check(
      "workspace",
      "fail",
      `${where}: ${w.notWritable}`,
      "make it writable (owner and mode, or a read-write mount); big-memory writes memory/ and .big-memory/ there",
    );
  return check("workspace", "ok", `${where}, writable${w.hasMemory ? "" : ", no memory/ yet"}`);
}

function activityChecks(f: DoctorFacts): Check[] {
  const s = f.sessions;
  const checks: Check[] = [];
  if (s.silent.length > 0) {
    checks.push(
      check(
        "hooks seen",
        "fail",
        `${s.silent.length} session${s.silent.length === 1 ? "" : "s"} (${s.silent.slice(0, 3).join(", ")}) saw compactions or tool calls but never a user turn: before_prompt_build is being dropped`,
        set(`${ENTRY}.hooks.allowConversationAccess`, "true"),
      ),
    );
  } else if (s.lastActivity === null) {
    checks.push(
      check(
        "hooks seen",
        "warn",
        `no session observed in ${f.workspace.dir} yet`,
        "have a conversation with the agent, then run doctor again",
      ),
    );
  } else {
    const turn =
      s.lastTurn === null ? "no user turn yet" : `last user turn ${relativeAge(s.lastTurn, f.now)}`;
    // A session file that is not JSON, or not a regular file (a FIFO, a device), is left out: say how many.
    const unreadable =
      s.unreadable > 0
        ? `; ${s.unreadable} session file${s.unreadable === 1 ? "" : "s"} not read (corrupt, or not a regular file)`
        : "";
    checks.push(
      check("hooks seen", "ok", `${s.count} session${s.count === 1 ? "" : "s"}, ${turn}${unreadable}`),
    );
  }
  const capture =
    f.lastCapture === null
      ? "none yet"
      : `${f.lastCapture.id} ${relativeAge(f.lastCapture.timestamp, f.now)}`;
  const restore =
    f.lastRestore === null ? "none yet" : `${f.lastRestore.id} ${relativeAge(f.lastRestore.at, f.now)}`;
  checks.push(check("last capture and restore", "ok", `capture ${capture}; restore ${restore}`));
  return checks;
}

function storageChecks(f: DoctorFacts): Check[] {
  const i = f.index;
  const bad = [...i.unreadable, ...i.missing];
  const index =
    bad.length === 0
      ? check("index", "ok", `${i.months} month${i.months === 1 ? "" : "s"} indexed`)
      : check(
          "index",
          "warn",
          `${i.unreadable.length > 0 ? `unreadable: ${i.unreadable.join(", ")}` : ""}${i.unreadable.length > 0 && i.missing.length > 0 ? "; " : ""}${i.missing.length > 0 ? `not indexed yet: ${i.missing.join(", ")}` : ""}`,
          "nothing is lost (the index is rebuilt from the logs); `big-memory reindex` rebuilds it now",
        );
  const l = f.logs;
  const logs =
    l.problems === 0
      ? check(
          "daily logs",
          "ok",
          `${count(l.snapshots, "snapshot")} in ${count(l.files, "daily log")}, no problems`,
        )
      : check(
          "daily logs",
          "warn",
          `${count(l.problems, "problem")} in ${count(l.files, "daily log")}${l.firstProblem === null ? "" : ` (first: ${l.firstProblem})`}`,
          "`big-memory verify` lists them with file and line",
        );
  return [index, logs];
}

/** Every check, in the order they are printed. */
export function doctorChecks(f: DoctorFacts): Check[] {
  return [
    configCheck(f),
    ...(f.config.exists && f.config.problem === null ? [modelCheck(f)] : []),
    ...pluginChecks(f),
    flushCheck(f),
    compactionCheck(f),
    workspaceCheck(f),
    ...activityChecks(f),
    ...storageChecks(f),
    ledgerCheck(f),
    ...unobservedChecks(f),
    journalCheck(f.journal),
  ];
}

/** True when capture and restore will work: no check failed. */
export function doctorOk(checks: readonly Check[]): boolean {
  return checks.every((c) => c.status !== "fail");
}
