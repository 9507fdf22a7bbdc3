/**
 * The memory timeline's data: one JSON document that the page (view-page.ts) carries as its data island
 * and its script draws. Built here from values only (the snapshots as every read hands them over,
 * redacted; the compaction ledger; the restore log), so the file written by `big-memory view` and the
 * Control UI tab show the same thing. Keys are short because a long history holds tens of thousands of
 * them: the page of 10,000 snapshots has to stay under 10 MB.
 */

import type { LedgerRecord, RestoreLogEntry } from "../session/state-files.ts";
import { liveSnapshots } from "../snapshot/lifecycle.ts";
import type { Diagnostic, LocatedSnapshot, Snapshot } from "../snapshot/snapshot.ts";
import { timestampMillis } from "../snapshot/time.ts";
import { forTerminal } from "./terminal.ts";
import { type SnapshotDiff, snapshotDiff } from "./view-diff.ts";

/** Version of the data island; the page refuses another. */
export const VIEW_DATA_VERSION = 1;

/** One snapshot as the page shows it. Every string is as read (redacted), control characters escaped. */
export interface ViewSnapshot {
  /** id */
  i: string;
  /** timestamp as written */
  t: string;
  /** the timestamp in epoch milliseconds (0 when it does not read as a time) */
  m: number;
  /** file and line of the block */
  f: string;
  l: number;
  /** session key, agent, trigger, checkpoint name (null when absent) */
  s: string | null;
  a: string | null;
  g: string | null;
  n: string | null;
  /** checksum: true holds, false modified since written, null none (written by a model or a person) */
  v: boolean | null;
  /** goal, state [phase, branch, blocked, progress], files [path, note], decisions [text, rationale] */
  goal: string;
  st: [string, string, string, string];
  fi: [string, string][];
  de: [string, string][];
  /** code, key names [label, value], blockers, next steps, extra sections [heading, body] */
  co: string;
  na: [string, string][];
  bl: string[];
  nx: string[];
  ex: [string, string][];
  /** problems found reading this block */
  dg?: string[];
  /** what changed since the session's previous snapshot (absent for a session's first) */
  df?: SnapshotDiff;
}

/** One compaction or reset of the ledger. */
export interface ViewCompaction {
  /** cycle start (ISO) and its epoch milliseconds */
  t: string;
  m: number;
  s: string;
  a: string | null;
  /** path, whether the flush ran, cover, the covering snapshot, outcome, note */
  p: string;
  fl: boolean;
  c: string;
  sn: string | null;
  o: string;
  no: string | null;
  /** the restore that followed: when, which snapshot, tokens */
  r: { t: string; sn: string; k: number } | null;
}

/** One restore of the restore log. */
export interface ViewRestore {
  t: string;
  m: number;
  /** snapshot id, session, reason, tokens (0 when the line does not say) */
  sn: string;
  s: string | null;
  why: string;
  k: number;
}

/** Which part of a long history a page holds (the Control UI route pages; the file holds it all). */
export interface ViewPaging {
  /** 1-based page, pages in all, snapshots per page, live snapshots in all */
  page: number;
  pages: number;
  size: number;
  total: number;
  /** links to the previous and next page (query strings), null at either end */
  newer: string | null;
  older: string | null;
}

/** The whole island. */
export interface ViewData {
  v: typeof VIEW_DATA_VERSION;
  workspace: string;
  generated: string;
  snapshots: ViewSnapshot[];
  compactions: ViewCompaction[];
  restores: ViewRestore[];
  /** problems of the workspace as a whole (a ledger that cannot be read, lines skipped) */
  problems: string[];
  paging: ViewPaging | null;
}

/** What the view is built from. */
export interface ViewSource {
  workspace: string;
  generated: Date;
  /** Oldest first, claims laid over (as `list` reads them), tombstones included: only live ones are shown. */
  snapshots: readonly LocatedSnapshot[];
  diagnostics: readonly Diagnostic[];
  ledger: readonly LedgerRecord[];
  restores: readonly RestoreLogEntry[];
  problems: readonly string[];
  paging?: ViewPaging;
}

/** `text` with control and bidirectional characters written as `\u` escapes (terminal.ts): shown, not obeyed. */
export function inert(text: string): string {
  return forTerminal(text, false);
}

const inertOrNull = (text: string | null) => (text === null ? null : inert(text));
const millis = (timestamp: string) => {
  const ms = timestampMillis(timestamp);
  return Number.isNaN(ms) ? 0 : ms;
};

/** A snapshot as the page carries it; `previous` is the session's snapshot before it, if any. */
export function viewSnapshot(
  located: LocatedSnapshot,
  previous: Snapshot | undefined,
  diagnostics: readonly string[],
): ViewSnapshot {
  const s = located.snapshot;
  const out: ViewSnapshot = {
    i: inert(s.id),
    t: inert(s.timestamp),
    m: millis(s.timestamp),
    f: inert(located.file),
    l: located.line,
    s: inertOrNull(s.session),
    a: inertOrNull(s.agent),
    g: inertOrNull(s.trigger),
    n: inertOrNull(s.name),
    v: located.verified,
    goal: inert(s.goal),
    st: [inert(s.state.phase), inert(s.state.branch), inert(s.state.blocked), inert(s.state.progress)],
    fi: s.files.map((f) => [inert(f.path), inert(f.note)]),
    de: s.decisions.map((d) => [inert(d.text), inert(d.rationale)]),
    co: inert(s.code),
    na: s.names.map((n) => [inert(n.label), inert(n.value)]),
    bl: s.blockers.map(inert),
    nx: s.next.map(inert),
    ex: s.extra.map((e) => [inert(e.heading), inert(e.body)]),
  };
  if (diagnostics.length > 0) out.dg = diagnostics.map(inert);
  if (previous !== undefined) {
    const diff = snapshotDiff(previous, s);
    if (diff !== null) out.df = diff;
  }
  return out;
}

/**
 * The page's data: the live snapshots (what `list` lists), oldest first, each with its problems and its
 * diff against the previous live snapshot of its session; every compaction and reset of the ledger; every
 * restore. Strings are escaped by {@link inert}, never by HTML rules: the page inserts them as text.
 */
export function buildViewData(source: ViewSource): ViewData {
  const shown = liveSnapshots(source.snapshots);
  const problemsOf = new Map<string, string[]>();
  const workspaceProblems = [...source.problems];
  const located = new Set(shown.map((s) => `${s.file}:${s.line}`));
  for (const d of source.diagnostics) {
    const key = `${d.file}:${d.line}`;
    if (located.has(key)) problemsOf.set(key, [...(problemsOf.get(key) ?? []), d.message]);
    else workspaceProblems.push(d.line > 0 ? `${d.file}:${d.line}: ${d.message}` : `${d.file}: ${d.message}`);
  }
  const previous = new Map<string, Snapshot>();
  const snapshots = shown.map((s) => {
    const lane = s.snapshot.session ?? "";
    const view = viewSnapshot(s, previous.get(lane), problemsOf.get(`${s.file}:${s.line}`) ?? []);
    previous.set(lane, s.snapshot);
    return view;
  });
  return {
    v: VIEW_DATA_VERSION,
    workspace: inert(source.workspace),
    generated: source.generated.toISOString(),
    snapshots,
    compactions: source.ledger.map(viewCompaction),
    restores: source.restores.map(viewRestore),
    problems: workspaceProblems.map(inert),
    paging: source.paging ?? null,
  };
}

function viewCompaction(r: LedgerRecord): ViewCompaction {
  return {
    t: inert(r.cycle),
    m: millis(r.cycle),
    s: inert(r.session),
    a: inertOrNull(r.agent),
    p: r.path,
    fl: r.flush,
    c: r.cover,
    sn: inertOrNull(r.snapshot),
    o: r.outcome,
    no: inertOrNull(r.note),
    r:
      r.restore === null
        ? null
        : {
            t: inert(r.restore.at),
            sn: inert(r.restore.snapshot),
            k: Math.max(0, Math.round(r.restore.tokens)),
          },
  };
}

function viewRestore(e: RestoreLogEntry): ViewRestore {
  return {
    t: inert(e.at),
    m: millis(e.at),
    sn: inert(e.id),
    s: inertOrNull(e.session),
    why: inert(e.reason),
    k: Math.max(0, Math.round(e.tokens ?? 0)),
  };
}

/**
 * The data island's text: JSON in which `<`, `>`, `&` and the line separators are `\u` escapes, so that
 * no snapshot text can close the `<script type="application/json">` element that holds it (`</script>`),
 * open a comment, or read as markup; `JSON.parse` gives back the same values.
 */
export function islandText(data: ViewData): string {
  return JSON.stringify(data).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
