import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { errorCode, errorMessage } from "./fs-durable.ts";
import { appendPrivateJsonLineUnsynced, STATE_DIR_NAME } from "./gate.ts";

/**
 * The compaction ledger, `.big-memory/ledger.jsonl`: what big-memory observed of every compaction and reset
 * (when, which session, the path it took, whether the flush ran, what covered it, whether it happened, and
 * the restore that followed). One JSON line per fact, folded by cycle on read, so a fact learnt later (the
 * after_compaction, the restore delivered at the next turn) is one more line, never a rewrite. Written
 * through the persistence gate (redacted, 0600) without an fsync of its own, beside the session update the
 * cycle makes anyway; past {@link LEDGER_ROTATE_BYTES} it moves to `ledger.jsonl.1` (one older file kept).
 * This module is the format's one owner (references/LEDGER.md).
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
export const LedgerPath = z.enum([
  "preflight",
  "overflow",
  "manual",
  "runtime",
  "engine",
  "reset",
  "rollover",
  "trim",
  "provider",
]);
export type LedgerPath = z.infer<typeof LedgerPath>;

/** What covered the cycle: the model's flush block, a snapshot already written, a safety-net draft, nothing. */
export const LedgerCover = z.enum(["flush", "existing", "safety-net", "none"]);
export type LedgerCover = z.infer<typeof LedgerCover>;

/** Whether it happened: `open` (a before with no after yet), `done`, `failed` (failed, skipped or no-op). */
export const LedgerOutcome = z.enum(["open", "done", "failed"]);
export type LedgerOutcome = z.infer<typeof LedgerOutcome>;

const base = {
  v: z.literal(LEDGER_VERSION),
  /** The cycle: the instant its first hook arrived (ISO 8601); with `session`, the record's key. */
  cycle: z.string(),
  session: z.string(),
  /** When this fact was observed, ISO 8601. */
  at: z.string(),
};

/** One line of the ledger. */
export const LedgerLine = z.discriminatedUnion("kind", [
  z.object({
    ...base,
    kind: z.literal("cycle"),
    agent: z.string().nullable(),
    path: LedgerPath,
    flush: z.boolean(),
    cover: LedgerCover,
    snapshot: z.string().nullable(),
    file: z.string().nullable(),
    outcome: LedgerOutcome,
  }),
  z.object({ ...base, kind: z.literal("outcome"), outcome: LedgerOutcome, note: z.string().optional() }),
  z.object({ ...base, kind: z.literal("restore"), snapshot: z.string(), tokens: z.number().int().min(0) }),
]);
export type LedgerLine = z.infer<typeof LedgerLine>;

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
    await appendPrivateJsonLineUnsynced(
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
}

/** Folds ledger lines (oldest first) into records, oldest first; facts about an unknown cycle are dropped. */
export function foldLedger(lines: readonly LedgerLine[]): LedgerRecord[] {
  const records = new Map<string, LedgerRecord>();
  const key = (l: LedgerLine) => `${l.session}\u0000${l.cycle}`;
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
      return { records: [], bad, problem: `${rel} ${why} (compactions are not listed)` };
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
      const parsed = LedgerLine.safeParse(value);
      if (parsed.success) lines.push(parsed.data);
      else bad++;
    }
  }
  return { records: foldLedger(lines), bad, problem: null };
}
