import { redactDeep } from "../snapshot/redact.ts";
import { isRecord } from "./text.ts";
import type { TrailEvent } from "./trail.ts";

/** Characters of any one string an event keeps at its head and at its tail. */
const KEEP_CHARS = 20_000;

/**
 * The event with every string redacted before anything of it reaches the trail (which is kept in memory and
 * written to disk). A string longer than twice `KEEP_CHARS` keeps its head and its tail (`KEEP_CHARS` each):
 * no rule reads more, and redaction stays bounded whatever a tool returns.
 */
export function redactEvent(event: TrailEvent): TrailEvent {
  return redactDeep(boundStrings(event, KEEP_CHARS)).value;
}

function boundStrings<T>(value: T, keep: number): T {
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") {
      return node.length <= 2 * keep ? node : `${node.slice(0, keep)}\n…\n${node.slice(-keep)}`;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (!isRecord(node)) return node;
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]));
  };
  // `walk` keeps the shape of strings, arrays and records, so the result is still a T.
  return walk(value) as T;
}
