/**
 * The schema of the journal's records (journal.ts), apart so that the save path, which only writes
 * records, does not load zod. One record is one JSON line of `.big-memory/journal/<date>.jsonl`.
 */
import { z } from "zod";

/** Version of the records written; a record of another version is refused by name, never half-read. */
export const JOURNAL_VERSION = 1;

/** What a record is about: a block written, a block claimed, or the log as it stands accepted. */
export const JournalKind = z.enum(["append", "claim", "baseline"]);
export type JournalKind = z.infer<typeof JournalKind>;

/** Why a baseline was recorded: `rewrite` (archive, scrub), `repair` (after re-appending lost blocks). */
export const BaselineReason = z.enum(["rewrite", "repair"]);
export type BaselineReason = z.infer<typeof BaselineReason>;

/** A non-negative whole number of bytes. */
const Bytes = z.number().int().nonnegative();

/**
 * One record. `base` is the log's size when the operation began (the byte offset of an append), `size`
 * its size after, `ino` the log's inode (decimal, as the file system gives it): consecutive records of a
 * log whose `base` is below the previous `size`, or whose `ino` differs, prove the log was cut or
 * replaced in between. `block` is the block's text as written (an append) or as read (a claim),
 * redacted; absent when the day's journal was full (`clipped`). `gap` marks an append that found blocks
 * of the journal missing from the log (so the log is read at the next check); `gone`, on a `repair`
 * baseline, the ids that could not be put back (no text kept) and are no longer expected. `max` is the
 * day's highest id seen so far and `count` the ids of the day its log held after the operation: the next
 * append reads only the last record for them.
 */
export const JournalRecord = z.strictObject({
  v: z.literal(JOURNAL_VERSION),
  kind: JournalKind,
  at: z.string().min(1),
  file: z.string().regex(/^memory\/\d{4}-\d{2}-\d{2}\.md$/, "expected memory/YYYY-MM-DD.md"),
  ino: z.string().regex(/^\d+$/, "expected a decimal inode number"),
  base: Bytes,
  size: Bytes,
  id: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}-\d{2,}$/, "expected a snapshot id YYYY-MM-DD-NN")
    .optional(),
  line: z.number().int().positive().optional(),
  session: z.string().nullable().optional(),
  block: z.string().optional(),
  clipped: z.literal(true).optional(),
  gap: z.literal(true).optional(),
  reason: BaselineReason.optional(),
  gone: z.array(z.string()).optional(),
  max: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}-\d{2,}$/, "expected a snapshot id")
    .optional(),
  count: Bytes.optional(),
});
export type JournalRecord = z.infer<typeof JournalRecord>;
