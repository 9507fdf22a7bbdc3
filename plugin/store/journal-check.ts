/**
 * Reading the journal (journal.ts) against the daily logs: which blocks a log lost, whether it was cut, and
 * putting lost blocks back. A log is checked by its records: consecutive records that find it shorter than
 * the previous one left it, or with another inode, or an append that found journaled blocks missing, prove
 * it was cut or replaced; a log whose size and inode are those of its last record, with no such proof, is
 * not read at all. Otherwise its block ids (and those of its archive, `memory/.big-memory-archive/`) are
 * compared with the journal's. Only big-memory's own blocks are ever put back: people's text in a log was
 * never held, and is named as lost, never restored.
 */
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { errorCode, errorMessage } from "./fs-durable.ts";
import {
  journalDays,
  journalRecordOf,
  journalRelative,
  LOG_ID,
  readJournalDay,
  recordBaseline,
} from "./journal.ts";
import type { JournalRecord } from "./journal-schema.ts";

/** A block the journal holds that its log no longer does. */
export interface LostBlock {
  id: string;
  /** Where its start marker was (1-based), as recorded. */
  line: number | null;
  session: string | null;
  /** When it was written or claimed. */
  at: string;
  kind: "append" | "claim";
  /** Its text, redacted; null when the day's journal was full (`clipped`). */
  block: string | null;
}

/** A daily log that lost blocks big-memory wrote or claimed there, or was cut. */
export interface JournalIncident {
  file: string;
  date: string;
  lost: LostBlock[];
  /** The log's size as the journal saw it and as it is now (`to` null: the log is gone); null when not cut. */
  shrank: { from: number; to: number | null } | null;
  /** The file and its last record: one incident until a new record (an append, a repair) follows. */
  key: string;
}

/** What {@link checkJournal} found. */
export interface JournalCheck {
  /** Day files read. */
  days: number;
  /** Blocks the journal holds (by id, per log). */
  blocks: number;
  incidents: JournalIncident[];
  /** Records that could not be read, logs that could not be. */
  problems: Diagnostic[];
}

/** A record and its 1-based line in its day file. */
type Numbered = { record: JournalRecord; line: number };

/** The records of a day's journal; lines that are not records are problems naming their line. */
export async function readJournal(
  workspaceDir: string,
  date: string,
): Promise<{ records: Numbered[]; problems: Diagnostic[] }> {
  const text = await readJournalDay(workspaceDir, date);
  const records: Numbered[] = [];
  const problems: Diagnostic[] = [];
  if (text === "") return { records, problems };
  const file = journalRelative(date);
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problems.push({ file, line: i + 1, message: "not JSON (a torn write?); skipped" });
      return;
    }
    const record = journalRecordOf(value);
    if (typeof record !== "string") records.push({ record, line: i + 1 });
    else
      problems.push({ file, line: i + 1, message: `not a journal record of version 1 (${record}); skipped` });
  });
  return { records, problems };
}

/**
 * Checks the daily logs the journal knows of (or those of `dates`) against it. Never throws for one bad log
 * or record: each is a problem and the others are checked.
 */
export async function checkJournal(
  workspaceDir: string,
  options: { dates?: readonly string[] } = {},
): Promise<JournalCheck> {
  const dates = options.dates ?? (await journalDays(workspaceDir)).map((d) => d.date);
  const out: JournalCheck = { days: 0, blocks: 0, incidents: [], problems: [] };
  for (const date of dates) {
    const read = await readJournal(workspaceDir, date);
    if (read.records.length === 0 && read.problems.length === 0) continue;
    out.days++;
    out.problems.push(...read.problems);
    const byFile = new Map<string, Numbered[]>();
    for (const n of read.records) byFile.set(n.record.file, [...(byFile.get(n.record.file) ?? []), n]);
    for (const [file, records] of byFile) {
      try {
        const checked = await checkLog(workspaceDir, date, file, records);
        out.blocks += checked.blocks;
        if (checked.incident !== null) out.incidents.push(checked.incident);
      } catch (error) {
        out.problems.push({
          file,
          line: 0,
          message: `cannot be checked against the journal: ${errorMessage(error)}`,
        });
      }
    }
  }
  return out;
}

async function checkLog(
  workspaceDir: string,
  date: string,
  file: string,
  records: readonly Numbered[],
): Promise<{ blocks: number; incident: JournalIncident | null }> {
  const expected = expectedBlocks(records);
  const last = records[records.length - 1] as Numbered;
  let from = 0;
  for (let i = records.length - 1; i >= 0; i--)
    if (records[i]?.record.kind === "baseline") {
      from = i;
      break;
    }
  let broken = false;
  let shrank: JournalIncident["shrank"] = null;
  for (let i = from + 1; i < records.length; i++) {
    const prev = (records[i - 1] as Numbered).record;
    const r = (records[i] as Numbered).record;
    if (r.base < prev.size && shrank === null) shrank = { from: prev.size, to: r.base };
    if (r.base < prev.size || r.ino !== prev.ino || r.gap === true) broken = true;
  }
  const now = await logState(join(workspaceDir, file));
  const key = `${file}#${last.line}`;
  if (!broken && now !== null && now.ino === last.record.ino && now.size === last.record.size)
    return { blocks: expected.size, incident: null };
  const present = new Set<string>();
  const texts = await Promise.all([
    now === null ? "" : readOrEmpty(join(workspaceDir, file)),
    readOrEmpty(join(workspaceDir, "memory", ".big-memory-archive", `${date}.md`)),
  ]);
  for (const text of texts) for (const m of text.matchAll(LOG_ID)) present.add(m[1] as string);
  const lost = [...expected.values()].filter((b) => !present.has(b.id));
  if (now !== null && now.size < last.record.size && shrank === null)
    shrank = { from: last.record.size, to: now.size };
  if (now === null && lost.length > 0) shrank ??= { from: last.record.size, to: null };
  const incident = lost.length > 0 || shrank !== null ? { file, date, lost, shrank, key } : null;
  return { blocks: expected.size, incident };
}

/** The blocks a log should hold: the newest record of each id, less those a repair gave up (`gone`). */
function expectedBlocks(records: readonly Numbered[]): Map<string, LostBlock> {
  const out = new Map<string, LostBlock>();
  for (const { record: r } of records) {
    if (r.kind === "baseline") for (const id of r.gone ?? []) out.delete(id);
    else if (r.id !== undefined)
      out.set(r.id, {
        id: r.id,
        line: r.line ?? null,
        session: r.session ?? null,
        at: r.at,
        kind: r.kind,
        block: r.block ?? null,
      });
  }
  return out;
}

/** A log's inode and size, or null when it is gone. A link or anything but a file is refused. */
async function logState(path: string): Promise<{ ino: string; size: number } | null> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(path, { bigint: true });
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
  if (!info.isFile()) throw new Error("it is not a regular file (a link, a folder or a device)");
  return { ino: info.ino.toString(), size: Number(info.size) };
}

async function readOrEmpty(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "";
    throw error;
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * What an incident means, for the gateway log, `status` and `doctor`: `memory/2026-11-25.md lost 2 snapshots
 * big-memory wrote there (2026-11-25-01, 2026-11-25-02) and was cut from 5120 to 210 bytes: something replaced
 * it (a model's write tool, an editor). Their copies are in big-memory's journal: run big-memory repair to
 * append them again. Text others wrote there is not kept by big-memory.`
 */
export function incidentMessage(incident: JournalIncident): string {
  const { file, lost, shrank } = incident;
  const ids = lost.map((b) => b.id).join(", ");
  const what = [
    ...(lost.length === 0 ? [] : [`lost ${plural(lost.length, "snapshot")} big-memory wrote there (${ids})`]),
    ...(shrank === null
      ? []
      : [shrank.to === null ? "is gone" : `was cut from ${shrank.from} to ${shrank.to} bytes`]),
  ].join(" and ");
  const kept = lost.filter((b) => b.block !== null).length;
  const fix =
    lost.length === 0
      ? "run big-memory repair to accept the log as it is now"
      : kept === lost.length
        ? "their copies are in big-memory's journal: run big-memory repair to append them again"
        : `${kept} of them are in big-memory's journal: run big-memory repair to append them again`;
  return `${file} ${what}: something replaced or cut it (a model's write tool, an editor). ${fix[0]?.toUpperCase()}${fix.slice(1)}. Text others wrote there is not kept by big-memory.`;
}

/** A lost block as a snapshot read from its journal copy, where its log had it; null without a copy. */
export async function lostSnapshot(file: string, lost: LostBlock): Promise<LocatedSnapshot | null> {
  if (lost.block === null) return null;
  // The parser loads only here: `status`, which checks the journal, parses nothing.
  const { parseDailyLog } = await import("../snapshot/parse.ts");
  const found = parseDailyLog(lost.block, file).snapshots[0];
  return found === undefined ? null : { ...found, line: lost.line ?? found.line };
}

/**
 * A snapshot the journal holds whose log lost it: by id (only its date's journal is read), or the newest of
 * a checkpoint name (not a tombstone). Null when no log lost one.
 */
export async function findLost(
  workspaceDir: string,
  want: { id: string } | { name: string },
): Promise<LocatedSnapshot | null> {
  const date = "id" in want ? /^(\d{4}-\d{2}-\d{2})-\d+$/.exec(want.id)?.[1] : undefined;
  if ("id" in want && date === undefined) return null;
  const check = await checkJournal(workspaceDir, date === undefined ? {} : { dates: [date] });
  const found: LocatedSnapshot[] = [];
  for (const i of check.incidents)
    for (const b of i.lost) {
      const s = await lostSnapshot(i.file, b);
      if (s !== null) found.push(s);
    }
  if ("id" in want) return found.find((s) => s.snapshot.id === want.id) ?? null;
  const named = found
    .filter((s) => s.snapshot.name === want.name)
    .sort((a, b) => (a.snapshot.timestamp < b.snapshot.timestamp ? 1 : -1));
  const newest = named[0];
  return newest === undefined || newest.snapshot.tombstone ? null : newest;
}

/** What {@link repairJournal} did (or, dry, would do) for one log. */
export interface RepairedLog {
  file: string;
  /** Ids appended again (or to append), in id order. */
  appended: string[];
  /** Ids lost with no copy kept (the day's journal was full): no longer expected once repaired. */
  unrecoverable: string[];
  shrank: JournalIncident["shrank"];
}

/** The result of a repair. */
export interface RepairReport {
  dryRun: boolean;
  logs: RepairedLog[];
  problems: Diagnostic[];
}

/**
 * Appends every lost block the journal holds back to its daily log, under its own id and as it was written
 * (locked and durable like every append), then records the log as it now stands as the new baseline (so a
 * cut it had is no longer reported). With `dryRun`, says what it would do and writes nothing.
 */
export async function repairJournal(
  workspaceDir: string,
  options: { dryRun: boolean; now: Date },
): Promise<RepairReport> {
  const check = await checkJournal(workspaceDir);
  const report: RepairReport = { dryRun: options.dryRun, logs: [], problems: [...check.problems] };
  for (const incident of check.incidents) {
    const lost = [...incident.lost].sort((a, b) => compareIds(a.id, b.id));
    const kept = lost.filter((b) => b.block !== null);
    const repaired: RepairedLog = {
      file: incident.file,
      appended: kept.map((b) => b.id),
      unrecoverable: lost.filter((b) => b.block === null).map((b) => b.id),
      shrank: incident.shrank,
    };
    report.logs.push(repaired);
    if (options.dryRun) continue;
    const { appendSnapshotBlock } = await import("./daily-log.ts");
    try {
      for (const block of kept) {
        await appendSnapshotBlock({
          workspaceDir,
          date: incident.date,
          keepId: block.id,
          session: block.session,
          now: options.now,
          render: () => block.block as string,
        });
      }
      await recordBaseline(workspaceDir, incident.file, "repair", options.now, repaired.unrecoverable);
    } catch (error) {
      report.problems.push({ file: incident.file, line: 0, message: `not repaired: ${errorMessage(error)}` });
    }
  }
  return report;
}

function compareIds(a: string, b: string): number {
  const n = (id: string) => BigInt(id.slice(id.lastIndexOf("-") + 1));
  return n(a) < n(b) ? -1 : n(a) > n(b) ? 1 : 0;
}

/**
 * Checks the logs of `dates` (all the journal knows when absent) and warns once through `warn` for each
 * incident not in `warned` (which it fills): the gateway's one line per incident.
 */
export async function warnIncidents(
  workspaceDir: string,
  warned: Set<string>,
  warn: (message: string) => void,
  dates?: readonly string[],
): Promise<void> {
  const check = await checkJournal(workspaceDir, dates === undefined ? {} : { dates });
  for (const incident of check.incidents) {
    if (warned.has(incident.key)) continue;
    warned.add(incident.key);
    warn(`big-memory: ${incidentMessage(incident)}`);
  }
}
