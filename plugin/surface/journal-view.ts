/**
 * What `status`, `doctor` and the chat say about the journal (store/journal.ts) and about captures that are
 * not verified (search/tally.ts `isCapture`): a daily log that lost blocks big-memory wrote there, or was cut,
 * is a problem with its fix (`big-memory repair`); a block that says who wrote it (a trigger) without a
 * checksum that holds, and that no claim gives to a session, is a diagnostic, never a capture.
 */

import type { Tally } from "../session/history.ts";
import { checkJournal, errorMessage, incidentMessage } from "../session/state-files.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { counted, type Style } from "./cli-text.ts";
import type { Check } from "./doctor-checks.ts";

/** The journal as `status --json` shows it. */
export interface JournalSummary {
  /** Day files of the journal, and blocks it holds. */
  days: number;
  blocks: number;
  incidents: {
    file: string;
    lost: string[];
    /** Of `lost`, those whose copy the journal does not hold (the day's journal was full). */
    unrecoverable: string[];
    shrank: { from: number; to: number | null } | null;
    message: string;
  }[];
}

/** Checks the journal; its incidents and unreadable records come back as diagnostics too. */
export async function journalSummary(
  workspaceDir: string,
): Promise<{ summary: JournalSummary; diagnostics: Diagnostic[] }> {
  try {
    const check = await checkJournal(workspaceDir);
    const incidents = check.incidents.map((i) => ({
      file: i.file,
      lost: i.lost.map((b) => b.id),
      unrecoverable: i.lost.filter((b) => b.block === null).map((b) => b.id),
      shrank: i.shrank,
      message: incidentMessage(i),
    }));
    return {
      summary: { days: check.days, blocks: check.blocks, incidents },
      diagnostics: [
        ...incidents.map((i) => ({ file: i.file, line: 0, message: i.message })),
        ...check.problems,
      ],
    };
  } catch (error) {
    const message = `the daily logs could not be checked against the journal: ${errorMessage(error)}`;
    return { summary: { days: 0, blocks: 0, incidents: [] }, diagnostics: [{ file: "", line: 0, message }] };
  }
}

/** The unverified captures a tally names, as diagnostics (newest first; the count may be higher). */
export function unverifiedCaptures(tally: Tally): Diagnostic[] {
  return tally.suspects.map((s) => ({
    file: s.file,
    line: s.line,
    id: s.id,
    message: `snapshot ${s.id} says trigger ${s.trigger ?? "-"}, but its checksum is missing or does not match and no claim gives it to a session: not counted as a capture (big-memory verify)`,
  }));
}

/**
 * The `status` fields for people (`label`, `value`): the journal, and the blocks that are no capture
 * when there are any (the value of a journal that lost blocks goes on over the lines under it).
 */
export function journalStatusFields(summary: JournalSummary, tally: Tally, style: Style): [string, string][] {
  const journal =
    summary.incidents.length === 0
      ? `${counted(summary.blocks, "block")} kept for ${counted(summary.days, "day")}; every daily log holds them`
      : [
          `${counted(summary.incidents.length, "daily log")} lost what big-memory wrote there:`,
          ...summary.incidents.map((i) => style.yellow(`  ${i.message}`)),
        ].join("\n");
  const suspects: [string, string][] =
    tally.unverifiedCaptures === 0
      ? []
      : [
          [
            "not captures",
            style.yellow(
              `${counted(tally.unverifiedCaptures, "block")} with a trigger but no valid checksum and no claim (not counted; big-memory verify lists them)`,
            ),
          ],
        ];
  return [["journal", journal], ...suspects];
}

/** The doctor's journal check: warn (with the fix) when a daily log lost blocks or was cut. */
export function journalCheck(summary: JournalSummary): Check {
  if (summary.incidents.length === 0)
    return {
      name: "daily logs vs journal",
      status: "ok",
      detail: `${counted(summary.blocks, "block")} kept in .big-memory/journal/ for ${counted(summary.days, "day")}; every daily log holds them`,
      fix: null,
    };
  return {
    name: "daily logs vs journal",
    status: "warn",
    detail: summary.incidents.map((i) => i.message).join(" "),
    fix: "big-memory repair (or /big-memory repair) appends the lost snapshots again; `--dry-run` shows what it would do",
  };
}

/** A snapshot id as written in its block: `2026-11-25-03`. */
const SNAPSHOT_ID = /^\d{4}-\d{2}-\d{2}-\d{2,}$/;

/**
 * For `show ID|NAME` and `recall --name NAME` that found nothing in the logs: the snapshot from the journal
 * when its log lost it (claims laid over), with the warning that says so; null otherwise. A name any log
 * still holds a version of (its newest a tombstone: deleted) is not looked for.
 */
export async function lostFromJournal(
  workspaceDir: string,
  what: string,
  session?: string,
): Promise<{ found: LocatedSnapshot; warning: string } | null> {
  const { lostSnapshot } = await import("../session/history.ts");
  const found = await lostSnapshot(workspaceDir, SNAPSHOT_ID.test(what) ? { id: what } : { name: what });
  if (found === null) return null;
  if (session !== undefined && found.snapshot.session !== session) return null;
  return {
    found,
    warning: `${found.file} no longer holds snapshot ${found.snapshot.id}: shown from big-memory's journal (big-memory repair appends it again)`,
  };
}
