import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { PluginConfig } from "./config.ts";
import type { SnapshotFilter } from "./search/shard.ts";
import { SnapshotIndex } from "./search/snapshot-index.ts";
import { liveSnapshots, newestOfName } from "./snapshot/lifecycle.ts";
import { parseDailyLog } from "./snapshot/parse.ts";
import type { LocatedSnapshot, SnapshotContent } from "./snapshot/snapshot.ts";
import { errorCode } from "./store/fs-durable.ts";
import {
  FlushMarks,
  initialFlushMarks,
  initialSessionState,
  SessionState,
  sessionStatePath,
} from "./store/session-state.ts";
import { readAllSnapshots, type SaveMeta, type SaveResult, saveSnapshot } from "./store/snapshots.ts";
import { JsonState, type StateLogger } from "./store/state.ts";

/** What a Workspace needs from outside: config, logger and clock are injected. */
export interface WorkspaceDeps {
  config: PluginConfig;
  logger: StateLogger;
  now: () => Date;
}

/** One line of `.big-memory/restore-log.jsonl`. */
export interface RestoreLogEntry {
  at: string;
  id: string;
  session: string | null;
  reason: string;
  tokens?: number;
}

/**
 * The state of one workspace directory: its daily logs (the source of truth), the per-session
 * state files and the restore log under `.big-memory/`. Constructing one does no I/O; everything
 * is opened lazily on first use.
 */
export class Workspace {
  readonly dir: string;
  readonly stateDir: string;
  private readonly deps: WorkspaceDeps;
  private readonly sessions = new Map<string, JsonState<SessionState>>();
  private flushState: JsonState<FlushMarks> | null = null;

  constructor(dir: string, deps: WorkspaceDeps) {
    this.dir = resolve(dir);
    this.stateDir = join(this.dir, ".big-memory");
    this.deps = deps;
  }

  /** The state file of a session. */
  session(sessionKey: string, agentId: string | null): JsonState<SessionState> {
    let state = this.sessions.get(sessionKey);
    if (state === undefined) {
      state = new JsonState(
        sessionStatePath(this.stateDir, sessionKey),
        SessionState,
        () => initialSessionState(sessionKey, agentId),
        this.deps.logger,
      );
      this.sessions.set(sessionKey, state);
    }
    return state;
  }

  /** Marks left by pre-compaction flush runs. */
  flushMarks(): JsonState<FlushMarks> {
    this.flushState ??= new JsonState(
      join(this.stateDir, "flush.json"),
      FlushMarks,
      initialFlushMarks,
      this.deps.logger,
    );
    return this.flushState;
  }

  /** Redacts and appends a snapshot to today's log. */
  save(content: SnapshotContent, meta: SaveMeta): Promise<SaveResult> {
    return saveSnapshot({
      workspaceDir: this.dir,
      content,
      meta,
      now: this.deps.now(),
      ...(this.deps.config.timeZone === undefined ? {} : { timeZone: this.deps.config.timeZone }),
    });
  }

  /** The text of a workspace-relative daily log, "" when it does not exist. */
  async readLog(file: string): Promise<string> {
    try {
      return await readFile(join(this.dir, file), "utf8");
    } catch (error) {
      if (errorCode(error) === "ENOENT") return "";
      throw error;
    }
  }

  /**
   * Snapshots appended to `file` at or after byte `offset` (what a flush run wrote), read without
   * scanning the rest of the log.
   */
  async snapshotsSince(file: string, offset: number): Promise<LocatedSnapshot[]> {
    let buffer: Buffer;
    try {
      buffer = await readFile(join(this.dir, file));
    } catch (error) {
      if (errorCode(error) === "ENOENT") return [];
      throw error;
    }
    const head = buffer.subarray(0, Math.min(offset, buffer.length)).toString("utf8");
    const firstLine = head.split("\n").length;
    const tail = buffer.subarray(Math.min(offset, buffer.length)).toString("utf8");
    return parseDailyLog(tail, file).snapshots.map((s) => ({ ...s, line: s.line + firstLine - 1 }));
  }

  /** One snapshot by id from one daily log, or null. Reads that file only. */
  async snapshotIn(file: string, id: string): Promise<LocatedSnapshot | null> {
    try {
      const text = await readFile(join(this.dir, file), "utf8");
      return parseDailyLog(text, file).snapshots.find((s) => s.snapshot.id === id) ?? null;
    } catch (error) {
      if (errorCode(error) === "ENOENT") return null;
      throw error;
    }
  }

  /** Every valid snapshot of the workspace, oldest first. */
  async all(): Promise<LocatedSnapshot[]> {
    return (await readAllSnapshots(this.dir)).snapshots;
  }

  /** A snapshot by id, or null. */
  async byId(id: string): Promise<LocatedSnapshot | null> {
    return (await this.all()).find((s) => s.snapshot.id === id) ?? null;
  }

  /** The newest live snapshot carrying a checkpoint name, or null (none, or deleted). */
  async byName(name: string): Promise<LocatedSnapshot | null> {
    return newestOfName(await this.all(), name) ?? null;
  }

  /** The newest live snapshot that `visible` accepts. */
  async latestVisible(visible: (s: LocatedSnapshot) => boolean): Promise<LocatedSnapshot | null> {
    const live = liveSnapshots(await this.all());
    for (let i = live.length - 1; i >= 0; i--) {
      const s = live[i];
      if (s !== undefined && visible(s)) return s;
    }
    return null;
  }

  /** Best matches for `query` among the workspace's snapshots, best first, with the matching line. */
  async searchSnapshots(
    query: string,
    opts: { limit: number; filter: SnapshotFilter },
  ): Promise<{ located: LocatedSnapshot; score: number; snippet: string }[]> {
    const all = await this.all();
    const index = new SnapshotIndex();
    const byFile = new Map<string, LocatedSnapshot[]>();
    for (const s of all) byFile.set(s.file, [...(byFile.get(s.file) ?? []), s]);
    for (const [file, list] of byFile) index.replaceFile(file, list);
    const byId = new Map(all.map((s) => [s.snapshot.id, s]));
    return index.search(query, opts).flatMap((h) => {
      const located = byId.get(h.id);
      return located === undefined ? [] : [{ located, score: h.score, snippet: h.snippet }];
    });
  }

  /** Appends one line to `.big-memory/restore-log.jsonl`. */
  async logRestore(entry: RestoreLogEntry): Promise<void> {
    await mkdir(this.stateDir, { recursive: true });
    await appendFile(join(this.stateDir, "restore-log.jsonl"), `${JSON.stringify(entry)}\n`);
  }

  /** Releases what the workspace holds open. */
  async close(): Promise<void> {
    this.sessions.clear();
  }
}

/** One Workspace per directory, created on first use. */
export class Workspaces {
  private readonly open = new Map<string, Workspace>();
  private readonly deps: WorkspaceDeps;

  constructor(deps: WorkspaceDeps) {
    this.deps = deps;
  }

  get(dir: string): Workspace {
    const key = resolve(dir);
    let ws = this.open.get(key);
    if (ws === undefined) {
      ws = new Workspace(key, this.deps);
      this.open.set(key, ws);
    }
    return ws;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.values()].map((w) => w.close()));
    this.open.clear();
  }
}
