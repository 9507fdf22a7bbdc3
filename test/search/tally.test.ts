import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkedTally, emptyTally, mergeTallies, NO_SESSION, tallyOf } from "../../plugin/search/tally.ts";

/** A ref as the tally reads it, in a few logs, sessions and times (some unreadable, some equal). */
const refArb = fc.record({
  id: fc.constantFrom("2026-11-20-01", "2026-11-20-02", "2026-11-21-01"),
  timestamp: fc.constantFrom(
    "2026-11-20T09:00:00Z",
    "2026-11-20T10:00:00+01:00",
    "2026-11-21T08:00:00Z",
    "soon",
  ),
  file: fc.constantFrom(
    "memory/2026-11-20.md",
    "memory/2026-11-20-0431.md",
    "memory/2026-11-21.md",
    "memory/notes.md",
  ),
  line: fc.integer({ min: 1, max: 400 }),
  session: fc.constantFrom(null, "agent:main:main", "agent:main:telegram:direct:7"),
  trigger: fc.constantFrom(null, "threshold", "compaction", "flush"),
  verified: fc.constantFrom(true, false, null),
});
// Distinct places, as refs of one workspace are.
const refsArb = fc.uniqueArray(refArb, { selector: (r) => `${r.file}:${r.line}`, maxLength: 40 });

describe("tallyOf", () => {
  it("counts per day of the log's name, per session, by verification and autosaves, and keeps the newest", () => {
    const t = tallyOf([
      {
        id: "a",
        timestamp: "2026-11-20T09:00:00Z",
        file: "memory/2026-11-20.md",
        line: 1,
        session: null,
        trigger: "threshold",
        verified: true,
      },
      {
        id: "b",
        timestamp: "2026-11-20T11:00:00Z",
        file: "memory/2026-11-20-0431.md",
        line: 1,
        session: "s",
        trigger: null,
        verified: null,
      },
      {
        id: "c",
        timestamp: "2026-11-20T10:00:00Z",
        file: "memory/notes.md",
        line: 5,
        session: "s",
        trigger: "threshold",
        verified: false,
      },
    ]);
    expect(t).toMatchObject({
      snapshots: 3,
      verified: 1,
      unverified: 1,
      modified: 1,
      autosaves: 2,
      days: { "2026-11-20": 2, "memory/notes.md": 1 },
      sessions: {
        [NO_SESSION]: { snapshots: 1, autosaves: 1 },
        s: { snapshots: 2, autosaves: 1, last: { id: "b" } },
      },
      last: { id: "b", time: Date.parse("2026-11-20T11:00:00Z") },
    });
  });

  it("takes a ref of unreadable time as the oldest, and saves its time as null", () => {
    const t = tallyOf([
      {
        id: "old",
        timestamp: "soon",
        file: "memory/2026-11-21.md",
        line: 9,
        session: null,
        trigger: null,
        verified: null,
      },
      {
        id: "new",
        timestamp: "2026-11-20T09:00:00Z",
        file: "memory/2026-11-20.md",
        line: 1,
        session: null,
        trigger: null,
        verified: null,
      },
    ]);
    expect(t.last?.id).toBe("new");
    expect(
      tallyOf([
        { id: "x", timestamp: "soon", file: "f.md", line: 1, session: null, trigger: null, verified: null },
      ]).last?.time,
    ).toBeNull();
  });

  it("is the empty tally for no refs", () => {
    expect(tallyOf([])).toEqual(emptyTally());
  });
});

describe("mergeTallies", () => {
  it("adds up to the tally of all the refs, however they are split, also through JSON", () => {
    fc.assert(
      fc.property(refsArb, fc.array(fc.nat(3)), (refs, cuts) => {
        const parts: (typeof refs)[] = [[], [], [], []];
        refs.forEach((r, i) => {
          parts[(cuts[i] ?? i) % 4]?.push(r);
        });
        const saved = parts.map((p) => checkedTally(JSON.parse(JSON.stringify(tallyOf(p)))));
        expect(saved.every((t) => t !== null)).toBe(true);
        const merged = mergeTallies(saved.filter((t) => t !== null));
        const whole = tallyOf(refs);
        expect({ ...merged, days: sortedKeys(merged.days), sessions: sortedKeys(merged.sessions) }).toEqual({
          ...whole,
          days: sortedKeys(whole.days),
          sessions: sortedKeys(whole.sessions),
        });
      }),
    );
  });
});

function sortedKeys<T>(record: Record<string, T>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1));
}

describe("checkedTally", () => {
  const good = tallyOf([
    {
      id: "a",
      timestamp: "2026-11-20T09:00:00Z",
      file: "memory/2026-11-20.md",
      line: 1,
      session: "s",
      trigger: null,
      verified: true,
    },
  ]);

  it("takes a saved tally as it is", () => {
    expect(checkedTally(JSON.parse(JSON.stringify(good)))).toEqual(good);
  });

  it.each([
    ["nothing", undefined],
    ["an array", []],
    ["a negative count", { ...good, snapshots: -1 }],
    ["a fractional day count", { ...good, days: { "2026-11-20": 0.5 } }],
    ["a session without its last ref", { ...good, sessions: { s: { snapshots: 1, autosaves: 0 } } }],
    ["a last ref at line 0", { ...good, last: { ...good.last, line: 0 } }],
    ["a last ref with a numeric session", { ...good, last: { ...good.last, session: 7 } }],
  ])("refuses %s", (_what, value) => {
    expect(checkedTally(value)).toBeNull();
  });
});

describe("tallyOf, captures", () => {
  const ref = (
    id: string,
    line: number,
    verified: boolean | null,
    trigger: string | null,
    claimed?: boolean,
  ) => ({
    id,
    timestamp: `2026-11-22T${String(line).padStart(2, "0")}:00:00Z`,
    file: "memory/2026-11-22.md",
    line,
    session: "agent:main:main",
    trigger,
    verified,
    ...(claimed === undefined ? {} : { claimed }),
  });

  it("takes the last capture from a valid checksum or a claim, and names the rest that carry a trigger", () => {
    const t = tallyOf([
      ref("2026-11-22-01", 1, true, "compaction"),
      ref("2026-11-22-02", 2, null, "flush", true),
      ref("2026-11-22-03", 3, false, "compaction"),
      ref("2026-11-22-04", 4, null, null),
    ]);
    expect([t.last?.id, t.lastCapture?.id, t.sessions["agent:main:main"]?.lastCapture?.id]).toEqual([
      "2026-11-22-04",
      "2026-11-22-02",
      "2026-11-22-02",
    ]);
    expect([t.unverifiedCaptures, t.suspects.map((s) => s.id)]).toEqual([1, ["2026-11-22-03"]]);
  });

  it("refuses a saved tally without the capture fields (saved before they were counted)", () => {
    const {
      lastCapture: _l,
      unverifiedCaptures: _u,
      suspects: _s,
      ...old
    } = tallyOf([ref("a", 1, true, null)]);
    expect(checkedTally(JSON.parse(JSON.stringify(old)))).toBeNull();
    expect(checkedTally(JSON.parse(JSON.stringify(tallyOf([ref("a", 1, true, null)]))))).not.toBeNull();
  });
});
