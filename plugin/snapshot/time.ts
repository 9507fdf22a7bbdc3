/** Local calendar parts of an instant, in a time zone (default: the process's own). */
export interface LocalTime {
  /** `YYYY-MM-DD`: names the daily log. */
  date: string;
  /** `HH:MM`. */
  clock: string;
  /** ISO 8601 with the zone's offset: `2026-11-22T14:05:00+01:00`. */
  iso: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

type Parts = Record<"year" | "month" | "day" | "hour" | "minute" | "second", string>;

function zoneParts(now: Date, timeZone: string): Parts {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(now)) parts[p.type] = p.value;
  return parts as Parts;
}

/** The same parts in the process's zone from Date's own getters: no formatter to build (a short CLI run). */
function processZoneParts(now: Date): Parts {
  const two = (n: number) => String(n).padStart(2, "0");
  return {
    year: String(now.getFullYear()).padStart(4, "0"),
    month: two(now.getMonth() + 1),
    day: two(now.getDate()),
    hour: two(now.getHours()),
    minute: two(now.getMinutes()),
    second: two(now.getSeconds()),
  };
}

/**
 * Splits an instant into the local date, clock and ISO timestamp of `timeZone` (an IANA name such
 * as `Europe/Paris`; undefined means the process's zone). Throws a RangeError naming the zone when
 * it is unknown, and one for an invalid date.
 */
export function localTime(now: Date, timeZone?: string): LocalTime {
  if (Number.isNaN(now.getTime())) throw new RangeError("big-memory: invalid date (no local time to give)");
  const parts = timeZone === undefined ? processZoneParts(now) : zoneParts(now, timeZone);
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  const clock = `${parts.hour}:${parts.minute}`;
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  const offsetMin = Math.round((wall - Math.floor(now.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMin < 0 ? "-" : "+";
  const abs = Math.abs(offsetMin);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return { date, clock, iso: `${date}T${clock}:${parts.second}${offset}` };
}

/** Checks an IANA time zone name; returns an error message or null. */
export function timeZoneProblem(timeZone: string): string | null {
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return null;
  } catch {
    return `unknown time zone "${timeZone}" (expected an IANA name such as Europe/Paris or UTC)`;
  }
}

/**
 * Milliseconds since the epoch of a snapshot timestamp. Timestamps written by hand may have no
 * offset; they are read as UTC, which orders snapshots of one day correctly. NaN when unreadable.
 */
export function timestampMillis(timestamp: string): number {
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/.test(timestamp);
  return Date.parse(hasZone ? timestamp : `${timestamp}Z`);
}

/** `just now`, `5m ago`, `3h ago`, `2d ago`, `7w ago`, or `in 5m` for future times. */
export function relativeAge(timestamp: string, now: Date): string {
  const t = timestampMillis(timestamp);
  if (Number.isNaN(t)) return "?";
  const seconds = Math.round((now.getTime() - t) / 1000);
  const abs = Math.abs(seconds);
  const unit =
    abs < 45
      ? null
      : abs < 3600
        ? `${Math.round(abs / 60)}m`
        : abs < 86_400
          ? `${Math.round(abs / 3600)}h`
          : abs < 14 * 86_400
            ? `${Math.round(abs / 86_400)}d`
            : `${Math.round(abs / (7 * 86_400))}w`;
  if (unit === null) return "just now";
  return seconds >= 0 ? `${unit} ago` : `in ${unit}`;
}
