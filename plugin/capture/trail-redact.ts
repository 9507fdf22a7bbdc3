import { redactDeep, UNCHECKED_MARKER } from "../snapshot/redact.ts";
import { isRecord } from "./text.ts";
import type { TrailEvent } from "./trail.ts";

/** Characters of any one string an event keeps at its head and at its tail. */
const KEEP_CHARS = 20_000;

/**
 * The event with every string redacted before anything of it reaches the trail (which is kept in memory and
 * written to disk). A string longer than twice `KEEP_CHARS` keeps its head and its tail (`KEEP_CHARS` each):
 * no rule reads more, and redaction stays bounded whatever a tool returns.
 */
export function redactEvent(event: TrailEvent, budget?: RedactBudget): TrailEvent {
  const deadline = budget === undefined ? undefined : { at: budget.now() + budget.ms, now: budget.now };
  const done = redactDeep(boundStrings(event, KEEP_CHARS), deadline === undefined ? {} : { deadline });
  return done.unchecked === true ? uncheckedEvent(event) : done.value;
}

/** Failed closed: the event's kind, time and tool are kept; each of its texts is the unchecked marker. */
function uncheckedEvent(event: TrailEvent): TrailEvent {
  const at = event.at;
  if (event.type === "ask") return { type: "ask", text: UNCHECKED_MARKER, at };
  if (event.type === "assistant") return { type: "assistant", texts: [UNCHECKED_MARKER], at };
  if (event.type === "branch") return { type: "branch", branch: UNCHECKED_MARKER, at };
  return { type: "tool", tool: event.tool, params: {}, result: UNCHECKED_MARKER, at };
}

/**
 * A time budget for redacting one event on the hook path: past it, redaction fails closed and every text
 * of the event is replaced by `[REDACTED:unchecked]` (what the trail, and a draft made from it, then show),
 * so that no input blocks a turn and none gets through unjudged. `now` is the caller's clock, in ms.
 */
export interface RedactBudget {
  ms: number;
  now: () => number;
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
