import { z } from "zod";
import { LEDGER_COVERS, LEDGER_OUTCOMES, LEDGER_PATHS, LEDGER_VERSION } from "./ledger.ts";

/**
 * The compaction ledger's line format as a zod schema: the one declaration its types come from
 * (store/ledger.ts takes them as types only, so `status` does not load zod), the reference the
 * hand-written reader is tested against, and what references/LEDGER.md documents.
 */

/** How a compaction or reset came about (see {@link LEDGER_PATHS}). */
export const LedgerPath = z.enum(LEDGER_PATHS);
export type LedgerPath = z.infer<typeof LedgerPath>;

/** What covered the cycle: the model's flush block, a snapshot already written, a safety-net draft, nothing. */
export const LedgerCover = z.enum(LEDGER_COVERS);
export type LedgerCover = z.infer<typeof LedgerCover>;

/** Whether it happened: `open` (a before with no after yet), `done`, `failed` (failed, skipped or no-op). */
export const LedgerOutcome = z.enum(LEDGER_OUTCOMES);
export type LedgerOutcome = z.infer<typeof LedgerOutcome>;

const base = {
  v: z.literal(LEDGER_VERSION),
  /** The cycle: the instant its first hook arrived (ISO 8601); with `session`, the record's key. */
  cycle: z.string(),
  session: z.string(),
  /** When this fact was observed, ISO 8601. */
  at: z.string(),
};

/** One line of the ledger: a cycle opened or closed, its outcome learnt later, or its restore delivered. */
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
    /** The provider's compaction markers the cycle handled (path `provider`), so that a process that never
     * learnt them (killed before the session's state was written) takes the cycle up instead of a twin. */
    marks: z.array(z.string()).max(20).optional(),
  }),
  z.object({ ...base, kind: z.literal("outcome"), outcome: LedgerOutcome, note: z.string().optional() }),
  z.object({ ...base, kind: z.literal("restore"), snapshot: z.string(), tokens: z.number().int().min(0) }),
]);
export type LedgerLine = z.infer<typeof LedgerLine>;
