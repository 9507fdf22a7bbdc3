import { constants } from "node:fs";
import { access, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import JSON5 from "json5";
import { indexFacts, type LogFacts, logFacts } from "../session/history-check.ts";
import { SessionState } from "../session/session-state.ts";
import {
  errorCode,
  readLedger,
  readRestoreLog,
  readStateFile,
  STATE_DIR_NAME,
} from "../session/state-files.ts";
import { type DoctorFacts, PLUGIN_ID } from "./doctor-checks.ts";
import { journalSummary } from "./journal-view.ts";
import type { OpenClawConfigFile } from "./openclaw-config.ts";
import { type PathEnv, stateDir, userPath } from "./openclaw-paths.ts";

/**
 * `big-memory doctor`, the I/O part: gathers `DoctorFacts` from OpenClaw's config, the plugin's install
 * folder, the workspace's state (`.big-memory/sessions/*.json`, `restore-log.jsonl`), its daily logs and its
 * search index. Reads only: whether a folder big-memory writes to can take a file is asked of the system
 * (`access`, which knows modes, ACLs and read-only mounts), not learned by writing one. Missing folders and
 * files are facts, not errors.
 */

/** What the doctor is asked about: the workspace chosen and the config read. */
export interface DoctorInput {
  host: DoctorFacts["host"];
  config: OpenClawConfigFile;
  agent: string | null;
  workspace: { dir: string; source: string };
  paths: PathEnv;
  now: Date;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Rec) : {});

async function isDir(path: string): Promise<boolean | null> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
}

/** Why one of the folders big-memory writes to cannot take a file, or null when all can. */
async function notWritable(workspace: string): Promise<string | null> {
  for (const dir of [workspace, join(workspace, "memory"), join(workspace, STATE_DIR_NAME)]) {
    const kind = await isDir(dir);
    if (kind === null && dir !== workspace) continue;
    if (kind === false) return `${dir} is a file, not a folder`;
    try {
      await access(dir, constants.W_OK | constants.X_OK);
    } catch (error) {
      return `${dir} is not writable (${errorCode(error) ?? String(error)})`;
    }
  }
  return null;
}

async function manifestId(dir: string): Promise<string | null> {
  try {
    return String(rec(JSON5.parse<unknown>(await readFile(join(dir, "openclaw.plugin.json"), "utf8"))).id);
  } catch {
    return null;
  }
}

/** The built entries `package.json` declares (`openclaw.runtimeExtensions`) that are missing in `dir`. */
async function missingRuntimeEntries(dir: string): Promise<string[]> {
  try {
    const pkg = rec(JSON.parse(await readFile(join(dir, "package.json"), "utf8")));
    const entries = rec(pkg.openclaw).runtimeExtensions;
    const missing: string[] = [];
    for (const e of Array.isArray(entries) ? entries : []) {
      if (typeof e === "string" && (await isDir(join(dir, e))) === null) missing.push(join(dir, e));
    }
    return missing;
  } catch {
    return [];
  }
}

/** Where OpenClaw would load big-memory from: load paths, extension folders, its npm installs. */
async function findInstall(input: DoctorInput): Promise<DoctorFacts["install"]> {
  const plugins = rec(input.config.config.plugins);
  const paths = rec(plugins.load).paths;
  const state = stateDir(input.paths);
  const candidates: string[] = [
    ...(Array.isArray(paths) ? paths : [])
      .filter((p): p is string => typeof p === "string")
      .map((p) => userPath(p, input.paths)),
    join(state, "npm", "projects", PLUGIN_ID, "node_modules", PLUGIN_ID),
  ];
  for (const root of [join(state, "extensions"), join(input.workspace.dir, ".openclaw", "extensions")]) {
    const names = await readdir(root).catch(() => [] as string[]);
    candidates.push(...names.map((n) => join(root, n)));
  }
  for (const dir of candidates) {
    if ((await manifestId(dir)) !== PLUGIN_ID) continue;
    const missing = await missingRuntimeEntries(dir);
    if (missing.length > 0) {
      return {
        dir,
        problem: `${missing.join(", ")} is missing: OpenClaw loads the built entry (package.json openclaw.runtimeExtensions), not the TypeScript`,
      };
    }
    return { dir, problem: null };
  }
  return { dir: null, problem: null };
}

async function readSessions(workspace: string): Promise<DoctorFacts["sessions"]> {
  const dir = join(workspace, STATE_DIR_NAME, "sessions");
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith(".json"));
  const facts: DoctorFacts["sessions"] = {
    count: 0,
    unreadable: 0,
    lastActivity: null,
    lastTurn: null,
    silent: [],
  };
  const newer = (a: string | null, b: string) => (a === null || b > a ? b : a);
  for (const name of names) {
    let parsed: ReturnType<typeof SessionState.safeParse> | null = null;
    try {
      // Never a blocking read: a FIFO or device named like a session file counts as unreadable.
      const bytes = await readStateFile(join(dir, name), `${STATE_DIR_NAME}/sessions/${name}`);
      parsed = SessionState.safeParse(JSON.parse(bytes.toString("utf8")));
    } catch {
      parsed = null;
    }
    if (parsed === null || !parsed.success) {
      facts.unreadable++;
      continue;
    }
    const s = parsed.data;
    facts.count++;
    facts.lastActivity = newer(facts.lastActivity, s.updatedAt);
    const lastAsk = s.trail.asks[s.trail.asks.length - 1]?.at ?? (s.trail.turns > 0 ? s.updatedAt : null);
    if (lastAsk !== null) facts.lastTurn = newer(facts.lastTurn, lastAsk);
    if (s.trail.turns === 0 && (s.cycle.n > 0 || s.cycle.compacting || s.trail.toolCalls > 0)) {
      facts.silent.push(s.sessionKey);
    }
  }
  return facts;
}

/** Gathers every fact the checks need (see the module comment). */
export async function gatherFacts(input: DoctorInput): Promise<DoctorFacts> {
  const ws = input.workspace.dir;
  const exists = (await isDir(ws)) === true;
  const memory = exists ? await isDir(join(ws, "memory")) : null;
  const logs: LogFacts =
    memory === true ? await logFacts(ws) : { files: 0, snapshots: 0, lastCapture: null, problems: [] };
  const logMonths = new Set(
    memory === true
      ? (await readdir(join(ws, "memory"))).flatMap((n) => /^(\d{4}-\d{2})-\d{2}\.md$/.exec(n)?.[1] ?? [])
      : [],
  );
  const restores = exists
    ? await readRestoreLog(ws).then(
        (r) => r.entries,
        () => [],
      )
    : [];
  const lastRestore = restores[restores.length - 1];
  const { problems } = logs;
  return {
    now: input.now,
    host: input.host,
    config: {
      path: input.config.path,
      exists: input.config.exists,
      problem: input.config.problem,
      value: input.config.config,
    },
    agent: input.agent,
    workspace: {
      ...input.workspace,
      exists,
      hasMemory: memory === true,
      notWritable: exists ? await notWritable(ws) : null,
    },
    install: await findInstall(input),
    sessions: exists
      ? await readSessions(ws)
      : { count: 0, unreadable: 0, lastActivity: null, lastTurn: null, silent: [] },
    lastCapture: logs.lastCapture,
    lastRestore: lastRestore === undefined ? null : { id: lastRestore.id, at: lastRestore.at },
    journal: exists ? (await journalSummary(ws)).summary : { days: 0, blocks: 0, incidents: [] },
    index: exists ? await indexFacts(ws, logMonths) : { months: 0, unreadable: [], missing: [] },
    logs: {
      files: logs.files,
      snapshots: logs.snapshots,
      problems: problems.length,
      firstProblem: problems[0] ?? null,
    },
    compactions: exists ? await ledgerFacts(ws) : { records: [], problem: null },
  };
}

/** The compaction ledger as the doctor reads it. */
async function ledgerFacts(ws: string): Promise<NonNullable<DoctorFacts["compactions"]>> {
  const ledger = await readLedger(ws);
  return { records: ledger.records, problem: ledger.problem };
}
