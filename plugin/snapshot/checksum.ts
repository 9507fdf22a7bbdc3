import { hash } from "node:crypto";
import type { Snapshot } from "./snapshot.ts";

/** One value, length-prefixed so no two different snapshots share a canonical form; `~` is absent. */
function field(value: string | number | boolean | null): string {
  if (value === null) return "~";
  const text = typeof value === "string" ? value : String(value);
  return `${text.length}:${text}`;
}

/** A list of values as one canonical text. */
function list(items: readonly string[]): string {
  let out = `[${items.length}`;
  for (let i = 0; i < items.length; i++) out += field(items[i] as string);
  return out;
}

/** A list of objects as the list of their fields `a` and `b`: indexed, no array per item, no callback per call. */
function pairs<K extends string>(items: readonly Readonly<Record<K, string>>[], a: K, b: K): string {
  let out = `[${items.length}`;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Readonly<Record<K, string>>;
    out += field(item[a]) + field(item[b]);
  }
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
    pairs(s.files, "path", "note") +
    pairs(s.decisions, "text", "rationale") +
    field(s.code) +
    pairs(s.names, "label", "value") +
    list(s.blockers) +
    list(s.next) +
    pairs(s.extra, "heading", "body")
  );
}

/** `sha256:<64 hex>` over `canonicalForm(s)`. */
export function checksumOf(s: Snapshot): string {
  return `sha256:${hash("sha256", canonicalForm(s))}`;
}
