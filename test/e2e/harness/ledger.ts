/**
 * The compaction ledger (`<workspace>/.big-memory/ledger.jsonl`, references/LEDGER.md) as the e2e tests read
 * it: its lines as written, and its cycles folded the way `status` shows them (a cycle line, the outcome
 * learnt later, the restore delivered).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";

export type LedgerLine = Record<string, unknown>;

/** One compaction or reset as the ledger tells it once its lines are folded. */
export interface LedgerCycle {
  session: string;
  cycle: string;
  path: unknown;
  flush: unknown;
  cover: unknown;
  snapshot: unknown;
  /** The last outcome learnt (`done`, `failed`), else the cycle line's own (`open` until its after came). */
  outcome: unknown;
  /** The snapshots restored for this cycle, in delivery order. */
  restored: unknown[];
}

/** The ledger's lines, parsed; a missing ledger has none. */
export async function readLedger(workspaceDir: string): Promise<LedgerLine[]> {
  const file = path.join(workspaceDir, ".big-memory", "ledger.jsonl");
  const text = await readFile(file, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as LedgerLine);
}

/** The cycles of the ledger, in the order they opened, with their outcome and restores folded in. */
export function ledgerCycles(lines: readonly LedgerLine[]): LedgerCycle[] {
  const same = (a: LedgerLine, c: LedgerLine) => a.session === c.session && a.cycle === c.cycle;
  return lines
    .filter((line) => line.kind === "cycle")
    .map((c) => {
      const outcomes = lines.filter((l) => l.kind === "outcome" && same(l, c));
      return {
        session: String(c.session),
        cycle: String(c.cycle),
        path: c.path,
        flush: c.flush,
        cover: c.cover,
        snapshot: c.snapshot,
        outcome: outcomes.at(-1)?.outcome ?? c.outcome,
        restored: lines.filter((l) => l.kind === "restore" && same(l, c)).map((l) => l.snapshot),
      };
    });
}
