/** Markers and headings of the `BIG-MEMORY-SNAPSHOT` block, shared by the renderer and the readers. */

export const START_MARKER_PREFIX = "<!-- BIG-MEMORY-SNAPSHOT";

/** The schema version written in the start marker: `<!-- BIG-MEMORY-SNAPSHOT v1 -->`. */
export const SNAPSHOT_VERSION = 1;

/** What can cause a snapshot to be written (the `trigger` line); snapshot.ts's `Trigger` schema is made of it. */
export const TRIGGER_NAMES = [
  "flush",
  "compaction",
  "reset",
  "manual",
  "tool",
  "autosave",
  "threshold",
] as const;
export type TriggerName = (typeof TRIGGER_NAMES)[number];

const TRIGGER_SET: ReadonlySet<string> = new Set(TRIGGER_NAMES);

/**
 * Whether `value` is a trigger name. The readers check a block's trigger line with this rather than
 * with snapshot.ts's zod enum, so that reading a snapshot does not load zod (about 55 ms of a CLI
 * process's start); the enum is made of the same names.
 */
export function isTrigger(value: string): value is TriggerName {
  return TRIGGER_SET.has(value);
}
export const END_MARKER = "<!-- /BIG-MEMORY-SNAPSHOT -->";
export const SECTION_PREFIX = "### [SNAPSHOT] ";

/** The start marker line for a schema version. */
export function startMarker(version: number): string {
  return `${START_MARKER_PREFIX} v${version} -->`;
}

/** The eight known sections, in the order they are written. */
export const SECTIONS = {
  goal: "Active Goal",
  state: "Current State",
  files: "Files In Play",
  decisions: "Decisions Made",
  code: "Code Context",
  names: "Key Names & Values",
  blockers: "Blockers & Open Questions",
  next: "Next Steps",
} as const;
export type SectionKey = keyof typeof SECTIONS;

/** Headings, lower-cased, to their section key. Also accepts a few spellings people use. */
export const SECTION_BY_HEADING: ReadonlyMap<string, SectionKey> = new Map<string, SectionKey>([
  ...Object.entries(SECTIONS).map(([key, heading]) => [heading.toLowerCase(), key as SectionKey] as const),
  ["goal", "goal"],
  ["current goal", "goal"],
  ["state", "state"],
  ["files", "files"],
  ["decisions", "decisions"],
  ["code", "code"],
  ["key names and values", "names"],
  ["key names", "names"],
  ["blockers", "blockers"],
  ["blockers and open questions", "blockers"],
  ["open questions", "blockers"],
  ["next", "next"],
]);

/** Labels of the Current State lines. */
export const STATE_LABELS = {
  phase: "Phase",
  branch: "Branch",
  blocked: "Blocked",
  progress: "Progress",
} as const;

/** Metadata comment keys, in the order the renderer writes them. */
export const META_KEYS = [
  "timestamp",
  "snapshot-id",
  "session",
  "agent",
  "trigger",
  "name",
  "parent",
  "tombstone",
  "checksum",
] as const;
export type MetaKey = (typeof META_KEYS)[number];

/** Normalises heading text for lookup: trimmed, lower-cased, inner white space folded. */
export function headingKey(raw: string): string {
  return raw.trim().toLowerCase().replace(/\s+/g, " ");
}

/** The known section a heading names, after one optional `[SNAPSHOT]` prefix. */
export function sectionOf(rawHeading: string): SectionKey | undefined {
  return (
    SECTION_BY_EXACT_HEADING.get(rawHeading) ??
    SECTION_BY_HEADING.get(rawHeading.toLowerCase()) ??
    SECTION_BY_HEADING.get(headingKey(rawHeading))
  );
}

/** The headings the renderer writes, as written: a canonical block's sections need no lower-casing. */
const SECTION_BY_EXACT_HEADING: ReadonlyMap<string, SectionKey> = new Map(
  Object.entries(SECTIONS).map(([key, heading]) => [heading, key as SectionKey] as const),
);
