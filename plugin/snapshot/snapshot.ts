import { z } from "zod";
import { SNAPSHOT_VERSION, TRIGGER_NAMES } from "./format.ts";

/** Snapshot id: the local date of the daily log plus a per-day counter of at least two digits. */
export const SnapshotId = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}-\d{2,}$/, "expected a snapshot id like 2026-11-22-03 (YYYY-MM-DD-NN)");
export type SnapshotId = z.infer<typeof SnapshotId>;

/** What caused a snapshot to be written. */
export const Trigger = z.enum(TRIGGER_NAMES);
export type Trigger = z.infer<typeof Trigger>;

/**
 * A checkpoint name: kebab-case, 3-64 characters. Generic and path-like names are refused by
 * `checkNameAdvice` in the naming module; the schema only fixes the shape.
 */
export const CheckpointName = z
  .string()
  .regex(
    /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
    "expected a kebab-case name of lowercase letters, digits and single hyphens, like auth-refactor",
  )
  .min(3, "expected a name of at least 3 characters")
  .max(64, "expected a name of at most 64 characters");

/** Current State: four free-text lines, each kept exactly as written (`"yes -- waiting for access"`). */
export const SnapshotState = z.object({
  phase: z.string(),
  branch: z.string(),
  blocked: z.string(),
  progress: z.string(),
});
export type SnapshotState = z.infer<typeof SnapshotState>;

export const FileInPlay = z.object({ path: z.string(), note: z.string() });
export type FileInPlay = z.infer<typeof FileInPlay>;

export const Decision = z.object({ text: z.string(), rationale: z.string() });
export type Decision = z.infer<typeof Decision>;

export const KeyName = z.object({ label: z.string(), value: z.string() });
export type KeyName = z.infer<typeof KeyName>;

/** A section the schema does not know, kept verbatim so nothing a person wrote is lost. */
export const ExtraSection = z.object({ heading: z.string(), body: z.string() });
export type ExtraSection = z.infer<typeof ExtraSection>;

/**
 * The eight sections of a task snapshot. Strings are as written; an empty section is `""` or `[]`
 * (rendered as `none`).
 */
export const SnapshotContent = z.object({
  goal: z.string(),
  state: SnapshotState,
  files: z.array(FileInPlay),
  decisions: z.array(Decision),
  code: z.string(),
  names: z.array(KeyName),
  blockers: z.array(z.string()),
  next: z.array(z.string()),
  extra: z.array(ExtraSection),
});
export type SnapshotContent = z.infer<typeof SnapshotContent>;

/** Metadata the plugin writes as comments in the block. Absent values are `null`. */
export const SnapshotMeta = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  id: SnapshotId,
  /** ISO 8601; blocks the plugin writes carry an offset (`2026-11-22T14:05:00+01:00`). */
  timestamp: z.string(),
  session: z.string().nullable(),
  agent: z.string().nullable(),
  trigger: Trigger.nullable(),
  name: z.string().nullable(),
  /** The checkpoint this line of work branched from (`resume NAME --as NEW`). */
  parent: z.string().nullable(),
  /** A tombstone hides its `name` from list, recall and restore; the history stays in the log. */
  tombstone: z.boolean(),
});
export type SnapshotMeta = z.infer<typeof SnapshotMeta>;

/** A whole snapshot: metadata plus content. This is what render writes and parse returns. */
export const Snapshot = SnapshotMeta.extend(SnapshotContent.shape);
export type Snapshot = z.infer<typeof Snapshot>;

/** `true` checksum matches, `false` the block was modified after it was written, `null` no checksum. */
export type Verified = boolean | null;

/** A snapshot as found in a daily log: where it is and whether its checksum holds. */
export interface LocatedSnapshot {
  snapshot: Snapshot;
  /** Path relative to the workspace, `memory/2026-11-22.md`. */
  file: string;
  /** 1-based line of the start marker. */
  line: number;
  verified: Verified;
  /** Checksum as written in the block, or null. */
  checksum: string | null;
}

/** A problem found while reading: it names the file and 1-based line. */
export interface Diagnostic {
  file: string;
  line: number;
  message: string;
  /** The snapshot id the problem is about, when one could be read (a torn block's, a duplicate's). */
  id?: string;
}
