import { hash } from "node:crypto";
import type { Snapshot } from "./snapshot.ts";

/** One value, length-prefixed so no two different snapshots share a canonical form; `~` is absent. */
function field(value: string | number | boolean | null): string {
  if (value === null) return "~";
  const text = typeof value === "string" ? value : String(value);
  return `${text.length}:${text}`;
}

function list(items: readonly (readonly string[])[]): string {
  let out = `[${items.length}`;
  for (const item of items) for (const v of item) out += field(v);
  return out;
}

/**
 * The canonical form a checksum covers: every metadata and content field in a fixed order, each
 * length-prefixed (`~` for an absent value). Rendering details (escapes, list markers, white space)
 * are not covered, so a block that reads back to the same values verifies.
 */
export function canonicalForm(s: Snapshot): string {
  return (
    field(s.version) +
    field(s.id) +
    field(s.timestamp) +
    field(s.session) +
    field(s.agent) +
    field(s.trigger) +
    field(s.name) +
    field(s.parent) +
    field(s.tombstone) +
    field(s.goal) +
    field(s.state.phase) +
    field(s.state.branch) +
    field(s.state.blocked) +
    field(s.state.progress) +
    list(s.files.map((f) => [f.path, f.note])) +
    list(s.decisions.map((d) => [d.text, d.rationale])) +
    field(s.code) +
    list(s.names.map((n) => [n.label, n.value])) +
    list(s.blockers.map((b) => [b])) +
    list(s.next.map((n) => [n])) +
    list(s.extra.map((e) => [e.heading, e.body]))
  );
}

/** `sha256:<64 hex>` over `canonicalForm(s)`. */
export function checksumOf(s: Snapshot): string {
  return `sha256:${hash("sha256", canonicalForm(s))}`;
}
