import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { localTime, relativeAge, timestampMillis, timeZoneProblem } from "../../plugin/snapshot/time.ts";

const savedZone = process.env.TZ;
afterEach(() => {
  if (savedZone === undefined) delete process.env.TZ;
  else process.env.TZ = savedZone;
});

// Instants from 1990 to 2100, with the seconds that make DST changes and year ends likely.
const instant = fc.date({
  min: new Date("1990-01-01T00:00:00Z"),
  max: new Date("2100-12-31T23:59:59Z"),
  noInvalidDate: true,
});

describe("localTime", () => {
  it("gives the date, clock and offset of a named zone", () => {
    const t = localTime(new Date("2026-03-29T00:59:30Z"), "Europe/Paris");
    expect(t).toEqual({ date: "2026-03-29", clock: "01:59", iso: "2026-03-29T01:59:30+01:00" });
    const after = localTime(new Date("2026-03-29T01:00:00Z"), "Europe/Paris");
    expect(after.iso).toBe("2026-03-29T03:00:00+02:00");
    expect(localTime(new Date("2026-11-23T23:30:00Z"), "Asia/Kolkata").iso).toBe("2026-11-24T05:00:00+05:30");
    expect(localTime(new Date("2026-11-23T02:00:00Z"), "America/St_Johns").iso).toBe(
      "2026-11-22T22:30:00-03:30",
    );
  });

  it.each([
    "UTC",
    "Europe/Paris",
    "America/St_Johns",
    "Asia/Kolkata",
    "Pacific/Chatham",
    "Australia/Lord_Howe",
  ])("in the process's own zone (TZ=%s) agrees with the same zone named", (zone) => {
    process.env.TZ = zone;
    fc.assert(
      fc.property(instant, (now) => {
        expect(localTime(now)).toEqual(localTime(now, zone));
      }),
      { numRuns: 500 },
    );
  });

  it("round-trips: the ISO timestamp names the same instant (to the second)", () => {
    fc.assert(
      fc.property(instant, fc.constantFrom("UTC", "Europe/Paris", "Asia/Kolkata"), (now, zone) => {
        const { iso } = localTime(now, zone);
        expect(timestampMillis(iso)).toBe(Math.floor(now.getTime() / 1000) * 1000);
      }),
      { numRuns: 300 },
    );
  });

  it("throws on an unknown zone, and timeZoneProblem names it", () => {
    expect(() => localTime(new Date(), "Mars/Olympus")).toThrow(RangeError);
    expect(() => localTime(new Date(Number.NaN))).toThrow(RangeError);
    expect(timeZoneProblem("Mars/Olympus")).toContain('"Mars/Olympus"');
    expect(timeZoneProblem("Europe/Paris")).toBeNull();
  });
});

describe("timestampMillis", () => {
  it("reads offsets, Z, and a timestamp without a zone as UTC", () => {
    expect(timestampMillis("2026-11-23T10:00:00+01:00")).toBe(Date.parse("2026-11-23T09:00:00Z"));
    expect(timestampMillis("2026-11-23T10:00:00Z")).toBe(Date.parse("2026-11-23T10:00:00Z"));
    expect(timestampMillis("2026-11-23T10:00:00")).toBe(Date.parse("2026-11-23T10:00:00Z"));
    expect(timestampMillis("not a time")).toBeNaN();
  });
});

const AGE_NOW = new Date("2026-11-22T12:00:00Z");

describe("relativeAge", () => {
  it("rounds to minutes, hours, days and weeks", () => {
    expect(
      [
        "2026-11-22T11:59:30Z",
        "2026-11-22T11:55:00Z",
        "2026-11-22T09:00:00Z",
        "2026-11-20T12:00:00Z",
        "2026-10-25T12:00:00Z",
      ].map((t) => relativeAge(t, AGE_NOW)),
    ).toEqual(["just now", "5m ago", "3h ago", "2d ago", "4w ago"]);
  });

  it("says in for a future time and ? for an unreadable one", () => {
    expect([relativeAge("2026-11-22T12:05:00Z", AGE_NOW), relativeAge("soon", AGE_NOW)]).toEqual([
      "in 5m",
      "?",
    ]);
  });

  it("reads the timestamp's own offset", () => {
    expect(relativeAge("2026-11-22T13:00:00+01:00", AGE_NOW)).toBe("just now");
  });
});
