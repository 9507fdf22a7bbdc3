import { SNAPSHOT_VERSION } from "../snapshot/format.ts";
import { type RedactionCounts, redactDeep } from "../snapshot/redact.ts";
import { renderSnapshot } from "../snapshot/render.ts";
import { emptyContent } from "../snapshot/sections.ts";
import type { Snapshot, SnapshotContent, Trigger } from "../snapshot/snapshot.ts";
import { localTime } from "../snapshot/time.ts";
import { type AppendedSnapshot, appendSnapshotBlock } from "./daily-log.ts";
import { addCounts, type GatedText, gateTextOnce } from "./gate.ts";

/**
 * The write path of snapshots: redact, render canonically, append under the workspace lock. Kept apart
 * from the read path (store/snapshots.ts) so that a process that only saves (`big-memory save`, run by
 * scripts many at a time) loads neither the markdown parser nor the search index.
 */

/** Who and what a saved snapshot is attributed to. Absent values are written as absent. */
export interface SaveMeta {
  session?: string | null;
  agent?: string | null;
  trigger: Trigger;
  name?: string | null;
  parent?: string | null;
  tombstone?: boolean;
}

export interface SaveOptions {
  workspaceDir: string;
  content: SnapshotContent;
  meta: SaveMeta;
  /** The clock; default `new Date()`. */
  now?: Date;
  /** IANA zone naming the daily log and the timestamp's offset; default the process's zone. */
  timeZone?: string;
}

/** Where a saved snapshot landed, the snapshot as written, and what redaction replaced. */
export interface SaveResult extends AppendedSnapshot {
  snapshot: Snapshot;
  redactions: RedactionCounts;
  redacted: number;
}

/**
 * Redacts `content` and appends it as a canonical block to today's daily log (in `timeZone`), under
 * the workspace lock, with the next free id. Secrets never reach the disk: they are replaced by
 * `[REDACTED:<kind>]` before rendering.
 */
export async function saveSnapshot(options: SaveOptions): Promise<SaveResult> {
  const at = localTime(options.now ?? new Date(), options.timeZone);
  // A session's drafts repeat most of their strings from one compaction to the next (its goal, its files,
  // its names): those found clean before are not read again.
  const redacted = redactDeep({ content: options.content, meta: options.meta }, { remember: true });
  const { meta, content } = redacted.value;
  const written: { snapshot?: Snapshot; counts?: RedactionCounts } = {};
  const appended = await appendSnapshotBlock({
    workspaceDir: options.workspaceDir,
    date: at.date,
    session: meta.session ?? null,
    ...(options.now === undefined ? {} : { now: options.now }),
    render: async (id) => {
      const snapshot: Snapshot = {
        version: SNAPSHOT_VERSION,
        id,
        timestamp: at.iso,
        session: meta.session ?? null,
        agent: meta.agent ?? null,
        trigger: meta.trigger,
        name: meta.name ?? null,
        parent: meta.parent ?? null,
        tombstone: meta.tombstone ?? false,
        ...content,
      };
      const clean = await renderClean(snapshot);
      written.snapshot = clean.snapshot;
      written.counts = clean.counts;
      return clean.gated ?? clean.text;
    },
  });
  if (written.snapshot === undefined) throw new Error("big-memory: the renderer was not called");
  const counts = addCounts(redacted.counts, written.counts ?? {});
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  return { ...appended, snapshot: written.snapshot, redactions: counts, redacted: total };
}

/**
 * The canonical block of `snapshot`, such that the persistence gate finds nothing left to redact in it, so
 * its checksum holds as written. Values were redacted one by one; a secret that only shows across values or
 * in their rendered form (a name and a value on one line) is redacted in the rendered text, read back and
 * rendered again. `counts` are those extra redactions. `gated` is the text as the gate gave it back, when
 * that pass found nothing: the append writes it without a second pass.
 */
async function renderClean(
  snapshot: Snapshot,
): Promise<{ snapshot: Snapshot; text: string; counts: RedactionCounts; gated?: GatedText }> {
  let current = snapshot;
  let counts: RedactionCounts = {};
  for (let round = 0; round < 3; round++) {
    const text = renderSnapshot(current);
    const gated = gateTextOnce(text);
    if (gated.total === 0) return { snapshot: current, text, counts, gated: gated.gated };
    counts = addCounts(counts, gated.counts);
    // Rare (a secret across values), so the parser is loaded only then.
    const { parseDailyLog } = await import("../snapshot/parse.ts");
    const reread = parseDailyLog(gated.text, "").snapshots[0]?.snapshot;
    if (reread === undefined) break;
    current = { ...reread, id: snapshot.id, timestamp: snapshot.timestamp };
  }
  // Left to the gate in the append, which redacts the text whatever it costs the checksum.
  return { snapshot: current, text: renderSnapshot(current), counts };
}

/**
 * Deletes a checkpoint name the append-only way: a tombstone block (trigger `manual`, the name,
 * `tombstone: yes`). The log keeps every version; list, recall and restore stop offering the name,
 * `list --all` still shows it, and saving the name again starts it afresh.
 */
export function tombstone(
  options: Omit<SaveOptions, "content" | "meta"> & {
    name: string;
    session?: string | null;
    agent?: string | null;
  },
): Promise<SaveResult> {
  const { name, session, agent, ...rest } = options;
  return saveSnapshot({
    ...rest,
    content: { ...emptyContent(), goal: `Checkpoint ${name} deleted` },
    meta: { trigger: "manual", name, session: session ?? null, agent: agent ?? null, tombstone: true },
  });
}
