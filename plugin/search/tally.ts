/**
 * What `status` counts of a set of snapshot refs (per day, per session, verified or not, autosaves, the
 * last capture overall and per session), as a small record that adds up: a month's tally is saved in its
 * shard's header when the index writes it, so `status` on a long history adds up one record per month
 * instead of decoding every ref. A tally is always computed from refs by {@link tallyOf}, here and nowhere
 * else, and {@link mergeTallies} gives the tally of the union: the same figures as `tallyOf` over all refs.
 */
import type { Entry } from "./document.ts";
import { newerFirst } from "./shard.ts";

/** A ref as a tally remembers it: enough to order it against others (shard.ts `newerFirst`) and to name it. */
export interface TalliedRef {
  id: string;
  timestamp: string;
  /** `timestamp` in epoch ms; null when unparseable (saved as JSON, where NaN has no form). */
  time: number | null;
  file: string;
  line: number;
  session: string | null;
  trigger: string | null;
}

export interface SessionTally {
  snapshots: number;
  autosaves: number;
  last: TalliedRef;
  /** The newest capture: a block whose checksum holds, or a claimed flush block (see {@link isCapture}). */
  lastCapture: TalliedRef | null;
}

export interface Tally {
  snapshots: number;
  verified: number;
  unverified: number;
  modified: number;
  /** Snapshots written at a context threshold. */
  autosaves: number;
  /** Snapshots per day, by the date the log's name starts with (the log's path when it has none). */
  days: Record<string, number>;
  /** By session key; `(none)` for snapshots of no known session. */
  sessions: Record<string, SessionTally>;
  /** The newest ref. */
  last: TalliedRef | null;
  /** The newest capture (see {@link isCapture}). */
  lastCapture: TalliedRef | null;
  /** Blocks that say who wrote them (a trigger) but are no capture: a wrong or missing checksum, unclaimed. */
  unverifiedCaptures: number;
  /** The newest of those, at most {@link SUSPECTS_KEPT}, newest first: each is a diagnostic of `status`. */
  suspects: TalliedRef[];
}

/** How many unverified captures a tally names. */
export const SUSPECTS_KEPT = 10;

/**
 * Whether a block counts as a capture: its checksum holds, or it is a flush block claimed for its session
 * (search/claims.ts). A block with a trigger and a wrong checksum (hand-forged, or edited) does not.
 */
export function isCapture(e: { verified: boolean | null; claimed?: boolean }): boolean {
  return e.verified === true || e.claimed === true;
}

/** The key of snapshots of no known session. */
export const NO_SESSION = "(none)";

const DAY = /(\d{4}-\d{2}-\d{2})[^/]*\.md$/;

type Counted = Pick<Entry, "id" | "timestamp" | "file" | "line" | "session" | "verified" | "claimed"> & {
  trigger: string | null;
};

function remembered(e: Counted): TalliedRef {
  const { id, timestamp, file, line, session, trigger } = e;
  // As document.ts gives an entry its time.
  const time = Date.parse(timestamp);
  return { id, timestamp, time: Number.isNaN(time) ? null : time, file, line, session, trigger };
}

/** Whether `a` is newer than `b` in the index's order (time, then file, then line). */
function newer(a: TalliedRef, b: TalliedRef): boolean {
  const placed = (r: TalliedRef) => ({ time: r.time ?? Number.NaN, file: r.file, line: r.line });
  return newerFirst(placed(a), placed(b)) < 0;
}

/** An empty tally. */
export function emptyTally(): Tally {
  return {
    snapshots: 0,
    verified: 0,
    unverified: 0,
    modified: 0,
    autosaves: 0,
    days: {},
    sessions: {},
    last: null,
    lastCapture: null,
    unverifiedCaptures: 0,
    suspects: [],
  };
}

/** `refs` newest first, at most {@link SUSPECTS_KEPT}. */
function newestKept(refs: TalliedRef[]): TalliedRef[] {
  return refs.sort((a, b) => (newer(a, b) ? -1 : newer(b, a) ? 1 : 0)).slice(0, SUSPECTS_KEPT);
}

const newerOf = (a: TalliedRef | null, b: TalliedRef | null): TalliedRef | null =>
  a === null ? b : b === null ? a : newer(b, a) ? b : a;

/** The tally of `refs`, in any order. */
export function tallyOf(refs: Iterable<Counted>): Tally {
  const t = emptyTally();
  let file = "";
  let day = "";
  for (const e of refs) {
    if (e.file !== file) {
      file = e.file;
      day = DAY.exec(file)?.[1] ?? file;
    }
    t.snapshots++;
    t.days[day] = (t.days[day] ?? 0) + 1;
    const autosave = e.trigger === "threshold" ? 1 : 0;
    t.autosaves += autosave;
    if (e.verified === true) t.verified++;
    else if (e.verified === null) t.unverified++;
    else t.modified++;
    const ref = remembered(e);
    const capture = isCapture(e) ? ref : null;
    if (capture === null && e.trigger !== null) {
      t.unverifiedCaptures++;
      t.suspects.push(ref);
    }
    const key = e.session ?? NO_SESSION;
    const session = t.sessions[key];
    if (session === undefined)
      t.sessions[key] = { snapshots: 1, autosaves: autosave, last: ref, lastCapture: capture };
    else {
      session.snapshots++;
      session.autosaves += autosave;
      if (newer(ref, session.last)) session.last = ref;
      session.lastCapture = newerOf(session.lastCapture, capture);
    }
    if (t.last === null || newer(ref, t.last)) t.last = ref;
    t.lastCapture = newerOf(t.lastCapture, capture);
  }
  t.suspects = newestKept(t.suspects);
  return t;
}

/** The tally of the union of the refs the `tallies` were made of (disjoint sets). */
export function mergeTallies(tallies: Iterable<Tally>): Tally {
  const t = emptyTally();
  for (const part of tallies) {
    t.snapshots += part.snapshots;
    t.verified += part.verified;
    t.unverified += part.unverified;
    t.modified += part.modified;
    t.autosaves += part.autosaves;
    for (const [day, n] of Object.entries(part.days)) t.days[day] = (t.days[day] ?? 0) + n;
    for (const [key, s] of Object.entries(part.sessions)) {
      const mine = t.sessions[key];
      if (mine === undefined) t.sessions[key] = { ...s };
      else {
        mine.snapshots += s.snapshots;
        mine.autosaves += s.autosaves;
        if (newer(s.last, mine.last)) mine.last = s.last;
        mine.lastCapture = newerOf(mine.lastCapture, s.lastCapture);
      }
    }
    if (part.last !== null && (t.last === null || newer(part.last, t.last))) t.last = part.last;
    t.lastCapture = newerOf(t.lastCapture, part.lastCapture);
    t.unverifiedCaptures += part.unverifiedCaptures;
    t.suspects.push(...part.suspects);
  }
  t.suspects = newestKept(t.suspects);
  return t;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isTextOrNull = (v: unknown) => v === null || typeof v === "string";

function isRef(v: unknown): v is TalliedRef {
  return (
    isObject(v) &&
    typeof v.id === "string" &&
    typeof v.timestamp === "string" &&
    (v.time === null || typeof v.time === "number") &&
    typeof v.file === "string" &&
    typeof v.line === "number" &&
    Number.isInteger(v.line) &&
    v.line > 0 &&
    isTextOrNull(v.session) &&
    isTextOrNull(v.trigger)
  );
}

/** A tally read from a saved header, checked; null when it is not one (the caller counts the refs instead). */
export function checkedTally(v: unknown): Tally | null {
  if (!isObject(v)) return null;
  const counts = ["snapshots", "verified", "unverified", "modified", "autosaves"] as const;
  if (!counts.every((k) => isCount(v[k]))) return null;
  if (!isObject(v.days) || !Object.values(v.days).every(isCount)) return null;
  if (!(v.last === null || isRef(v.last))) return null;
  // A header saved before captures were counted apart has none of these: its month is counted from its refs.
  if (!(v.lastCapture === null || isRef(v.lastCapture)) || !isCount(v.unverifiedCaptures)) return null;
  if (!Array.isArray(v.suspects) || !v.suspects.every(isRef)) return null;
  if (!isObject(v.sessions)) return null;
  for (const s of Object.values(v.sessions)) {
    if (!isObject(s) || !isCount(s.snapshots) || !isCount(s.autosaves) || !isRef(s.last)) return null;
    if (!(s.lastCapture === null || isRef(s.lastCapture))) return null;
  }
  return v as unknown as Tally;
}
