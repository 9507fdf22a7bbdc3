import { createHash } from "node:crypto";
import type { Snapshot } from "./snapshot.ts";

/** Appends one value, length-prefixed so no two different snapshots share a canonical form. */
function field(parts: string[], value: string | number | boolean | null): void {
  const text = value === null ? "" : String(value);
  parts.push(value === null ? "~" : `${text.length}:`, text);
}

function list(parts: string[], items: readonly (readonly string[])[]): void {
  parts.push(`[${items.length}`);
  for (const item of items) for (const v of item) field(parts, v);
}

/**
 * The canonical form a checksum covers: every metadata and content field in a fixed order, each
 * length-prefixed (`~` for an absent value). Rendering details (escapes, list markers, white space)
 * are not covered, so a block that reads back to the same values verifies.
 */
export function canonicalForm(s: Snapshot): string {
  const parts: string[] = [];
  for (const v of [s.version, s.id, s.timestamp, s.session, s.agent, s.trigger, s.name, s.parent, s.tombstone, s.goal])
    field(parts, v);
  for (const v of [s.state.phase, s.state.branch, s.state.blocked, s.state.progress]) field(parts, v);
  list(parts, s.files.map((f) => [f.path, f.note]));
  list(parts, s.decisions.map((d) => [d.text, d.rationale]));
  field(parts, s.code);
  list(parts, s.names.map((n) => [n.label, n.value]));
  list(parts, s.blockers.map((b) => [b]));
  list(parts, s.next.map((n) => [n]));
  list(parts, s.extra.map((e) => [e.heading, e.body]));
  return parts.join("");
}

/** `sha256:<64 hex>` over `canonicalForm(s)`. */
export function checksumOf(s: Snapshot): string {
  return `sha256:${createHash("sha256").update(canonicalForm(s)).digest("hex")}`;
}
