import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { NO_SESSION, type TalliedRef, type Tally } from "../session/history.ts";
import {
  LEDGER_FILE,
  type LedgerRecord,
  RESTORE_LOG_FILE,
  type RestoreLogEntry,
  readLedger,
  readRestoreLog,
  readStateFile,
  STATE_DIR_NAME,
} from "../session/state-files.ts";
import { relativeAge } from "../snapshot/time.ts";
import { counted, fields, type Style, table } from "./cli-text.ts";
import { injectedTokens, reasonText, tokensText } from "./restore-words.ts";

/** `[REDACTED:<kind>]` markers in `text`, by kind, and their sum. */
export function countMarkers(text: string): { total: number; kinds: Record<string, number> } {
  const kinds: Record<string, number> = {};
  let total = 0;
  for (const m of text.matchAll(/\[REDACTED:([a-z0-9-]+)\]/g)) {
    const kind = m[1] ?? "";
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    total++;
  }
  return { total, kinds };
}

/** The text of big-memory's own state files (session state, flush marks, restore log), concatenated. */
async function stateText(workspace: string): Promise<string> {
  const dir = join(workspace, STATE_DIR_NAME);
  const sessions = await readdir(join(dir, "sessions")).catch(() => [] as string[]);
  const paths = [
    ...sessions.filter((n) => n.endsWith(".json")).map((n) => join(dir, "sessions", n)),
    join(dir, "flush.json"),
    join(dir, RESTORE_LOG_FILE),
    join(dir, LEDGER_FILE),
  ];
  // Read as regular files only: a FIFO put there by hand must not hang `status`.
  const texts = await Promise.all(
    paths.map((p) =>
      readStateFile(p, p)
        .then((b) => b.toString("utf8"))
        .catch(() => ""),
    ),
  );
  return texts.join("\n");
}

/** What `status` reads from the index: the tally of every snapshot, the problems found, the logs and their redactions. */
export interface StatusSource {
  tally: Tally;
  problems: number;
  files: number;
  bytes: number;
  /** `[REDACTED:<kind>]` markers in the snapshots as read, by kind. */
  redactions: Record<string, number>;
}

const capture = (s: TalliedRef) => ({ id: s.id, timestamp: s.timestamp, trigger: s.trigger });

/**
 * The `status` document: counts per day and per session, storage, last capture and last restore per
 * session, autosaves (threshold snapshots), the tokens restores injected (in all, per session, the last
 * restore's) and problems found. The counts come from the index (see
 * StatusSource), so no log is parsed unless it changed since it was indexed.
 */
export async function statusDoc(workspace: string, source: StatusSource) {
  const log = await readRestoreLog(workspace);
  const { tally } = source;
  const lastRestore = new Map<string, RestoreLogEntry>();
  for (const e of log.entries) lastRestore.set(e.session ?? NO_SESSION, e);
  const keys = [...new Set([...Object.keys(tally.sessions), ...lastRestore.keys()])].sort();
  const tokens = injectedTokens(log.entries);
  // A capture is a block whose checksum holds or a claimed flush block (search/tally.ts `isCapture`).
  const last = tally.lastCapture;
  const total = Object.values(source.redactions).reduce((a, n) => a + n, 0);
  return {
    workspace,
    snapshots: tally.snapshots,
    files: source.files,
    bytes: source.bytes,
    verified: tally.verified,
    unverified: tally.unverified,
    modified: tally.modified,
    autosaves: tally.autosaves,
    restores: log.entries.length,
    problems: source.problems + log.bad + (log.problem === null ? 0 : 1),
    restoreLogProblem: log.problem,
    days: Object.entries(tally.days)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([date, snapshots]) => ({ date, snapshots })),
    sessions: keys.map((session) => {
      const v = tally.sessions[session];
      const r = lastRestore.get(session);
      return {
        session,
        snapshots: v?.snapshots ?? 0,
        autosaves: v?.autosaves ?? 0,
        lastCapture: v === undefined || v.lastCapture === null ? null : capture(v.lastCapture),
        lastRestore:
          r === undefined ? null : { id: r.id, at: r.at, reason: r.reason, tokens: r.tokens ?? null },
        tokens: tokens.sessions[session] ?? 0,
      };
    }),
    lastCapture: last === null ? null : { ...capture(last), session: last.session },
    /** Tokens big-memory put in front of the model (restore log): in all, and the last restore's. */
    tokens: { total: tokens.total, last: tokens.last },
    ...(await compactionsDoc(workspace)),
    /** Values replaced by `[REDACTED:<kind>]`: in the snapshots as read, and in big-memory's state files. */
    redactions: {
      snapshots: { total, kinds: source.redactions },
      state: countMarkers(await stateText(workspace)),
    },
  };
}
export type StatusDoc = Awaited<ReturnType<typeof statusDoc>>;

function redactionLine(r: StatusDoc["redactions"]): string {
  const part = (c: { total: number; kinds: Record<string, number> }, where: string) =>
    `${c.total} value${c.total === 1 ? "" : "s"} in ${where}${
      c.total === 0
        ? ""
        : ` (${Object.entries(c.kinds)
            .map(([k, n]) => `${k} ${n}`)
            .join(", ")})`
    }`;
  return `${part(r.snapshots, "snapshots")}, ${part(r.state, "session state")}`;
}

/** Who wrote the snapshots, in words (cli-text.ts verifiedLabel says the same of one). */
function writersLine(doc: StatusDoc): string {
  const parts = [
    `big-memory ${doc.verified}`,
    `the model or a person ${doc.unverified} (no checksum)`,
    ...(doc.modified === 0 ? [] : [`changed after big-memory wrote them ${doc.modified}`]),
  ];
  return parts.join(", ");
}

/** The restores line: how many, and the tokens they put in front of the model. */
function restoresLine(doc: StatusDoc): string {
  return doc.restores === 0 ? "none yet" : `${doc.restores}, ${tokensText(doc.tokens.total)} injected in all`;
}

/** The last restore: which snapshot, why, its tokens, when. */
function lastRestoreLine(doc: StatusDoc, now: Date): string {
  const last = doc.tokens.last;
  return last === null
    ? "none"
    : `${last.id} ${reasonText(last.reason)}, ${tokensText(last.tokens)}, ${relativeAge(last.at, now)}`;
}

/**
 * The `status` document for people: aligned `label  value` lines (then `extra`'s, such as the journal's),
 * the sessions and the last compactions as tables fitted to `columns` (whole when undefined).
 */
export function statusText(
  doc: StatusDoc,
  now: Date,
  style: Style,
  columns?: number,
  extra: readonly (readonly [string, string])[] = [],
): string {
  const last = doc.lastCapture;
  return [
    ...fields(
      [
        ["workspace", doc.workspace],
        [
          "snapshots",
          `${doc.snapshots} in ${counted(doc.files, "daily log")} (${(doc.bytes / 1024).toFixed(1)} KiB)`,
        ],
        ["written by", writersLine(doc)],
        ["autosaves", `${doc.autosaves} (saved when the context filled past a threshold)`],
        ["restores", restoresLine(doc)],
        ["last restore", lastRestoreLine(doc, now)],
        ["problems", doc.problems === 0 ? "none" : `${counted(doc.problems, "problem")} (listed below)`],
        ["redacted", redactionLine(doc.redactions)],
        [
          "last capture",
          last === null ? "none" : `${last.id} ${relativeAge(last.timestamp, now)} (${last.trigger ?? "-"})`,
        ],
        ...extra,
        ["compactions", compactionsLine(doc.compactions.length)],
      ],
      style,
      columns,
    ),
    ...(doc.restoreLogProblem === null ? [] : [style.yellow(`big-memory: ${doc.restoreLogProblem}`)]),
    ...compactionLines(doc, now, style, columns),
    ...(doc.sessions.length === 0
      ? []
      : [
          "",
          table(
            [
              ["SESSION", "SNAPSHOTS", "AUTOSAVES", "TOKENS", "LAST CAPTURE", "LAST RESTORE"].map(style.bold),
              ...doc.sessions.map((s) => [
                s.session,
                String(s.snapshots),
                String(s.autosaves),
                s.tokens.toLocaleString("en-US"),
                s.lastCapture === null
                  ? "-"
                  : `${s.lastCapture.id} ${relativeAge(s.lastCapture.timestamp, now)}`,
                s.lastRestore === null
                  ? "-"
                  : `${s.lastRestore.id} ${relativeAge(s.lastRestore.at, now)} ${reasonText(s.lastRestore.reason)}`,
              ]),
            ],
            // Narrow: the session to 20 columns, the restore to its id and age, the session to 12.
            { columns, shrink: SESSIONS_SHRINK, drop: [2, 1] },
          ),
        ]),
  ].join("\n");
}

/** How the sessions table gives way on a narrow terminal (see cli-text.ts `Fit`). */
const SESSIONS_SHRINK = [
  [0, 20],
  [5, 22],
  [4, 22],
  [0, 12],
  [4, 14],
  [5, 14],
] as const;

/** How the compactions table gives way on a narrow terminal. */
const COMPACTIONS_SHRINK = [
  [6, 24],
  [1, 16],
  [5, 10],
  [1, 12],
  [6, 13],
] as const;

/** How many compactions `status` shows for people (`--json` has them all). */
export const STATUS_COMPACTIONS = 10;

/**
 * The compaction ledger's part of the `status` document: every compaction and reset observed, oldest
 * first, and the problem reading the ledger (null when none).
 */
export async function compactionsDoc(
  workspace: string,
): Promise<{ compactions: LedgerRecord[]; ledgerProblem: string | null; ledgerBad: number }> {
  const ledger = await readLedger(workspace);
  return { compactions: ledger.records, ledgerProblem: ledger.problem, ledgerBad: ledger.bad };
}

/** One compaction for people: when, session, path, whether it happened, the flush, the cover, the restore. */
export function compactionRow(c: LedgerRecord, now: Date): string[] {
  const happened = c.outcome === "failed" ? "failed" : c.outcome === "open" ? "not finished" : "done";
  return [
    relativeAge(c.cycle, now),
    c.session,
    c.path,
    happened,
    c.flush ? "ran" : "-",
    c.snapshot === null ? c.cover : `${c.cover} ${c.snapshot}`,
    c.restore === null
      ? "-"
      : `${c.restore.snapshot} ${tokensText(c.restore.tokens)} (${relativeAge(c.restore.at, now)})`,
  ];
}

/** The `compactions` line of `status`: how many, and how many of them the table below shows. */
function compactionsLine(n: number): string {
  if (n === 0) return "none observed yet";
  const shown = Math.min(n, STATUS_COMPACTIONS);
  return `${n}; ${shown === n ? "all" : `the last ${shown}`} in the table below${shown === n ? "" : " (status --json lists all)"}`;
}

/** The last {@link STATUS_COMPACTIONS} compactions and resets, newest first, as `status` prints them. */
export function compactionLines(
  doc: { compactions: LedgerRecord[]; ledgerProblem: string | null },
  now: Date,
  style: Style,
  columns?: number,
): string[] {
  const shown = doc.compactions.slice(-STATUS_COMPACTIONS).reverse();
  return [
    ...(doc.ledgerProblem === null ? [] : [style.yellow(`big-memory: ${doc.ledgerProblem}`)]),
    ...(shown.length === 0
      ? []
      : [
          "",
          table(
            [
              ["WHEN", "SESSION", "PATH", "HAPPENED", "FLUSH", "COVERED BY", "RESTORED"].map(style.bold),
              ...shown.map((c) => compactionRow(c, now)),
            ],
            // Narrow: the flush and the path left out first, then the restore, the session and the cover cut.
            { columns, shrink: COMPACTIONS_SHRINK, drop: [4, 2] },
          ),
        ]),
  ];
}
