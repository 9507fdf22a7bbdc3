import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { errorCode, errorMessage } from "./fs-durable.ts";
import { STATE_DIR_NAME } from "./gate.ts";
import { appendPrivateJsonLineUnsynced } from "./gate-sync.ts";
import type { LedgerCover, LedgerLine, LedgerOutcome, LedgerPath } from "./ledger-schema.ts";

export type { LedgerCover, LedgerLine, LedgerOutcome, LedgerPath };

/**
 * The compaction ledger, `.big-memory/ledger.jsonl`: what big-memory observed of every compaction and reset
 * (when, which session, the path it took, whether the flush ran, what covered it, whether it happened, and
 * the restore that followed). One JSON line per fact, folded by cycle on read, so a fact learnt later (the
 * after_compaction, the restore delivered at the next turn) is one more line, never a rewrite. Written
 * through the persistence gate (redacted, 0600) without an fsync of its own, beside the session update the
 * cycle makes anyway; past {@link LEDGER_ROTATE_BYTES} it moves to `ledger.jsonl.1` (one older file kept).
 * The format is declared once, as a zod schema (store/ledger-schema.ts, references/LEDGER.md); this module
 * takes its types only and checks lines by hand ({@link ledgerLineOf}, tested against the schema), because
 * `status` reads the ledger and loading a schema library would cost it more than reading the file.
 */

/** The ledger's file name inside the state folder. */
export const LEDGER_FILE = "ledger.jsonl";
/** Version of the lines written. */
export const LEDGER_VERSION = 1;
/** Size past which the ledger rotates (one older file kept): at most about twice this on disk. */
export const LEDGER_ROTATE_BYTES = 256 * 1024;

/**
 * How a compaction or reset came about: `preflight` (before a turn, the flush ran), `overflow` (inside a
 * turn), `manual` (`/compact`, the `sessions.compact` RPC, or a preflight without flush: OpenClaw's hooks do
 * not tell them apart), `runtime` (the runtime's own auto-compaction), `engine` (a context engine that owns
 * compaction), `reset` (`sessions.reset`, `/new`, `/reset`), `rollover` (a daily or idle session rollover),
 * `trim` (a transcript that shrank with no hook: `sessions compact --max-lines`), `provider` (the provider
 * compacted inside its request).
 */
export const LEDGER_PATHS = [
  "preflight",
  "overflow",
  "manual",
  "runtime",
  "engine",
  "reset",
  "rollover",
  "trim",
  "provider",
] as const;
/** What covered a cycle. */
export const LEDGER_COVERS = ["flush", "existing", "safety-net", "none"] as const;
/** Whether it happened. */
export const LEDGER_OUTCOMES = ["open", "done", "failed"] as const;

/** What a line carries before the version is stamped on it. */
export type LedgerFact = LedgerLine extends infer L ? (L extends LedgerLine ? Omit<L, "v"> : never) : never;

/** One compaction or reset, every fact about it folded together. */
export interface LedgerRecord {
  cycle: string;
  session: string;
  agent: string | null;
  path: LedgerPath;
  flush: boolean;
  cover: LedgerCover;
  snapshot: string | null;
  file: string | null;
  outcome: LedgerOutcome;
  note: string | null;
  restore: { at: string; snapshot: string; tokens: number } | null;
}

/** Appends facts to the ledger of the state folder `stateDir` (see the module's doc for durability). */
export async function appendLedger(stateDir: string, facts: readonly LedgerFact[]): Promise<void> {
  for (const fact of facts) {
    appendPrivateJsonLineUnsynced(
      join(stateDir, LEDGER_FILE),
      { v: LEDGER_VERSION, ...fact },
      { rotateAt: LEDGER_ROTATE_BYTES },
    );
  }
}

/** What reading the ledger found. */
export interface LedgerRead {
  /** Oldest first. */
  records: LedgerRecord[];
  /** Lines that are not JSON or not a ledger line (a torn last line, a later version): counted, not fatal. */
  bad: number;
  /** A ledger that cannot be read, naming it and what to do; null when it was read (or is absent). */
  problem: string | null;
  /** The provider's compaction markers each cycle handled, by {@link cycleKey} (see `cycle-adopt.ts`). */
  marks: ReadonlyMap<string, readonly string[]>;
}

/** The key of a cycle's record: its session and its instant (a session's cycles never share an instant). */
export function cycleKey(session: string, cycle: string): string {
  return `${session}\u0000${cycle}`;
}

/** Folds ledger lines (oldest first) into records, oldest first; facts about an unknown cycle are dropped. */
export function foldLedger(lines: readonly LedgerLine[]): LedgerRecord[] {
  const records = new Map<string, LedgerRecord>();
  const key = (l: LedgerLine) => cycleKey(l.session, l.cycle);
  for (const line of lines) {
    const known = records.get(key(line));
    if (line.kind === "cycle") {
      records.set(key(line), {
        cycle: line.cycle,
        session: line.session,
        agent: line.agent,
        path: line.path,
        flush: line.flush,
        cover: line.cover,
        snapshot: line.snapshot,
        file: line.file,
        outcome: known?.outcome === "failed" || known?.outcome === "done" ? known.outcome : line.outcome,
        note: known?.note ?? null,
        restore: known?.restore ?? null,
      });
    } else if (known !== undefined && line.kind === "outcome") {
      known.outcome = line.outcome;
      known.note = line.note ?? known.note;
    } else if (known !== undefined && line.kind === "restore") {
      known.restore = { at: line.at, snapshot: line.snapshot, tokens: line.tokens };
    }
  }
  return [...records.values()].sort((a, b) => a.cycle.localeCompare(b.cycle));
}

/** Reads the ledger of `workspace` (its rotated file first); an absent ledger is an empty one. */
export async function readLedger(workspace: string): Promise<LedgerRead> {
  const lines: LedgerLine[] = [];
  let bad = 0;
  for (const name of [`${LEDGER_FILE}.1`, LEDGER_FILE]) {
    const rel = `${STATE_DIR_NAME}/${name}`;
    let text = "";
    try {
      text = await readFile(join(workspace, rel), "utf8");
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT") continue;
      const why =
        code === "EISDIR"
          ? "is a folder, not a file: move it away"
          : `cannot be read (${errorMessage(error)})`;
      return { records: [], bad, problem: `${rel} ${why} (compactions are not listed)`, marks: new Map() };
    }
    for (const raw of text.split("\n")) {
      if (raw.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        bad++;
        continue;
      }
      const line = ledgerLineOf(value);
      if (line === null) bad++;
      else lines.push(line);
    }
  }
  const marks = new Map<string, readonly string[]>();
  for (const l of lines)
    if (l.kind === "cycle" && l.marks !== undefined) marks.set(cycleKey(l.session, l.cycle), l.marks);
  return { records: foldLedger(lines), bad, problem: null, marks };
}

const isString = (v: unknown): v is string => typeof v === "string";
const isOneOf = <T extends string>(list: readonly T[], v: unknown): v is T =>
  typeof v === "string" && (list as readonly string[]).includes(v);

/**
 * The ledger line a parsed value holds, with only the line's fields, or null when it is not one (a field
 * missing or of the wrong type, an unknown kind, path or version). Accepts exactly what the schema in
 * store/ledger-schema.ts accepts.
 */
export function ledgerLineOf(value: unknown): LedgerLine | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const r = value as Record<string, unknown>;
  if (r.v !== LEDGER_VERSION || !isString(r.cycle) || !isString(r.session) || !isString(r.at)) return null;
  const base = { v: LEDGER_VERSION, cycle: r.cycle, session: r.session, at: r.at } as const;
  switch (r.kind) {
    case "cycle":
      if (
        (r.agent !== null && !isString(r.agent)) ||
        !isOneOf(LEDGER_PATHS, r.path) ||
        typeof r.flush !== "boolean" ||
        !isOneOf(LEDGER_COVERS, r.cover) ||
        (r.snapshot !== null && !isString(r.snapshot)) ||
        (r.file !== null && !isString(r.file)) ||
        !isOneOf(LEDGER_OUTCOMES, r.outcome) ||
        (r.marks !== undefined &&
          !(Array.isArray(r.marks) && r.marks.length <= 20 && r.marks.every(isString)))
      )
        return null;
      return {
        ...base,
        kind: "cycle",
        agent: r.agent,
        path: r.path,
        flush: r.flush,
        cover: r.cover,
        snapshot: r.snapshot,
        file: r.file,
        outcome: r.outcome,
        ...(r.marks === undefined ? {} : { marks: r.marks as string[] }),
      };
    case "outcome":
      if (!isOneOf(LEDGER_OUTCOMES, r.outcome) || (r.note !== undefined && !isString(r.note))) return null;
      return {
        ...base,
        kind: "outcome",
        outcome: r.outcome,
        ...(r.note === undefined ? {} : { note: r.note }),
      };
    case "restore":
      if (
        !isString(r.snapshot) ||
        typeof r.tokens !== "number" ||
        !Number.isSafeInteger(r.tokens) ||
        r.tokens < 0
      )
        return null;
      return { ...base, kind: "restore", snapshot: r.snapshot, tokens: r.tokens };
    default:
      return null;
  }
}
