import { readFile } from "node:fs/promises";
import { parseDailyLog } from "../snapshot/parse.ts";
import { type RedactionCounts, redactDeep } from "../snapshot/redact.ts";
import { renderSnapshot } from "../snapshot/render.ts";
import {
  type Diagnostic,
  emptyContent,
  type LocatedSnapshot,
  SNAPSHOT_VERSION,
  type Snapshot,
  type SnapshotContent,
  type Trigger,
} from "../snapshot/snapshot.ts";
import { localTime, timestampMillis } from "../snapshot/time.ts";
import { type AppendedSnapshot, appendSnapshotBlock, listDailyLogs } from "./daily-log.ts";
import { errorCode } from "./fs-durable.ts";
import { addCounts, gateText } from "./gate.ts";

/** Who and what a saved snapshot is attributed to. Absent values are written as absent. */
export interface SaveMeta {
  session?: string | null;
  agent?: string | null;
  trigger: Trigger;
  name?: string | null;
  parent?: string | null;
  tombstone?: boolean;
}

export interface SaveOptions {
  workspaceDir: string;
  content: SnapshotContent;
  meta: SaveMeta;
  /** The clock; default `new Date()`. */
  now?: Date;
  /** IANA zone naming the daily log and the timestamp's offset; default the process's zone. */
  timeZone?: string;
}

/** Where a saved snapshot landed, the snapshot as written, and what redaction replaced. */
export interface SaveResult extends AppendedSnapshot {
  snapshot: Snapshot;
  redactions: RedactionCounts;
  redacted: number;
}

/**
 * Redacts `content` and appends it as a canonical block to today's daily log (in `timeZone`), under
 * the workspace lock, with the next free id. Secrets never reach the disk: they are replaced by
 * `[REDACTED:<kind>]` before rendering.
 */
export async function saveSnapshot(options: SaveOptions): Promise<SaveResult> {
  const at = localTime(options.now ?? new Date(), options.timeZone);
  const redacted = redactDeep({ content: options.content, meta: options.meta });
  const { meta, content } = redacted.value;
  const written: { snapshot?: Snapshot; counts?: RedactionCounts } = {};
  const appended = await appendSnapshotBlock({
    workspaceDir: options.workspaceDir,
    date: at.date,
    render: (id) => {
      const snapshot: Snapshot = {
        version: SNAPSHOT_VERSION,
        id,
        timestamp: at.iso,
        session: meta.session ?? null,
        agent: meta.agent ?? null,
        trigger: meta.trigger,
        name: meta.name ?? null,
        parent: meta.parent ?? null,
        tombstone: meta.tombstone ?? false,
        ...content,
      };
      const clean = renderClean(snapshot);
      written.snapshot = clean.snapshot;
      written.counts = clean.counts;
      return clean.text;
    },
  });
  if (written.snapshot === undefined) throw new Error("big-memory: the renderer was not called");
  const counts = addCounts(redacted.counts, written.counts ?? {});
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  return { ...appended, snapshot: written.snapshot, redactions: counts, redacted: total };
}

/**
 * The canonical block of `snapshot`, such that the persistence gate finds nothing left to redact in it, so
 * its checksum holds as written. Values were redacted one by one; a secret that only shows across values or
 * in their rendered form (a name and a value on one line) is redacted in the rendered text, read back and
 * rendered again. `counts` are those extra redactions.
 */
function renderClean(snapshot: Snapshot): { snapshot: Snapshot; text: string; counts: RedactionCounts } {
  let current = snapshot;
  let counts: RedactionCounts = {};
  for (let round = 0; round < 3; round++) {
    const text = renderSnapshot(current);
    const gated = gateText(text);
    if (gated.total === 0) return { snapshot: current, text, counts };
    counts = addCounts(counts, gated.counts);
    const reread = parseDailyLog(gated.text, "").snapshots[0]?.snapshot;
    if (reread === undefined) break;
    current = { ...reread, id: snapshot.id, timestamp: snapshot.timestamp };
  }
  // Left to the gate in the append, which redacts the text whatever it costs the checksum.
  return { snapshot: current, text: renderSnapshot(current), counts };
}

/** Every snapshot of a workspace and every problem found reading it. */
export interface WorkspaceSnapshots {
  /** Oldest first (by timestamp, then id). */
  snapshots: LocatedSnapshot[];
  diagnostics: Diagnostic[];
  /** Bytes of daily logs read. */
  bytes: number;
  /** Daily logs read. */
  files: number;
}

/** Orders snapshots by time, then id: the order in which they were taken. */
export function olderFirst(a: LocatedSnapshot, b: LocatedSnapshot): number {
  const ta = timestampMillis(a.snapshot.timestamp);
  const tb = timestampMillis(b.snapshot.timestamp);
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return a.snapshot.id < b.snapshot.id ? -1 : a.snapshot.id > b.snapshot.id ? 1 : 0;
}

/**
 * Reads and parses every daily log of a workspace. An id found in two files is reported where it
 * repeats (with the other location), and both blocks are kept: ids are unique per workspace as read,
 * so `file:line` tells them apart. A log that vanishes while reading is skipped.
 */
export async function readAllSnapshots(workspaceDir: string): Promise<WorkspaceSnapshots> {
  const logs = await listDailyLogs(workspaceDir);
  const texts = await Promise.all(
    logs.map(async (log) => {
      try {
        return { log, text: await readFile(log.path, "utf8") };
      } catch (error) {
        if (errorCode(error) === "ENOENT") return null;
        throw error;
      }
    }),
  );
  const seen = new Map<string, LocatedSnapshot>();
  const snapshots: LocatedSnapshot[] = [];
  const diagnostics: Diagnostic[] = [];
  let bytes = 0;
  let files = 0;
  for (const entry of texts) {
    if (entry === null) continue;
    files++;
    bytes += Buffer.byteLength(entry.text);
    const parsed = parseDailyLog(entry.text, entry.log.file);
    diagnostics.push(...parsed.diagnostics);
    for (const s of parsed.snapshots) {
      const first = seen.get(s.snapshot.id);
      if (first === undefined) seen.set(s.snapshot.id, s);
      else if (first.file !== s.file) diagnostics.push(duplicateId(s, first));
      snapshots.push(s);
    }
  }
  snapshots.sort(olderFirst);
  return { snapshots, diagnostics, bytes, files };
}

/** The diagnostic of a block whose id another block (`first`, in another log) already has. */
export function duplicateId(s: LocatedSnapshot, first: LocatedSnapshot): Diagnostic {
  return {
    file: s.file,
    line: s.line,
    id: s.snapshot.id,
    message: `duplicate snapshot id ${s.snapshot.id} (also at ${first.file}:${first.line}); both blocks are kept, address this one as ${s.file}:${s.line}`,
  };
}

/**
 * Deletes a checkpoint name the append-only way: a tombstone block (trigger `manual`, the name,
 * `tombstone: yes`). The log keeps every version; list, recall and restore stop offering the name,
 * `list --all` still shows it, and saving the name again starts it afresh.
 */
export function tombstone(
  options: Omit<SaveOptions, "content" | "meta"> & {
    name: string;
    session?: string | null;
    agent?: string | null;
  },
): Promise<SaveResult> {
  const { name, session, agent, ...rest } = options;
  return saveSnapshot({
    ...rest,
    content: { ...emptyContent(), goal: `Checkpoint ${name} deleted` },
    meta: { trigger: "manual", name, session: session ?? null, agent: agent ?? null, tombstone: true },
  });
}
