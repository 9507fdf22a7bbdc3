import { createHash } from "node:crypto";
import type { Snapshot } from "./snapshot.ts";

/**
 * The canonical form a checksum covers: every metadata and content field in a fixed order, as
 * JSON. Rendering details (escapes, list markers, white space) are not covered, so a block that
 * reads back to the same values verifies.
 */
export function canonicalForm(s: Snapshot): string {
  return JSON.stringify([
    s.version,
    s.id,
    s.timestamp,
    s.session,
    s.agent,
    s.trigger,
    s.name,
    s.parent,
    s.tombstone,
    s.goal,
    [s.state.phase, s.state.branch, s.state.blocked, s.state.progress],
    s.files.map((f) => [f.path, f.note]),
    s.decisions.map((d) => [d.text, d.rationale]),
    s.code,
    s.names.map((n) => [n.label, n.value]),
    s.blockers,
    s.next,
    s.extra.map((e) => [e.heading, e.body]),
  ]);
}

/** `sha256:<64 hex>` over `canonicalForm(s)`. */
export function checksumOf(s: Snapshot): string {
  return `sha256:${createHash("sha256").update(canonicalForm(s)).digest("hex")}`;
}
