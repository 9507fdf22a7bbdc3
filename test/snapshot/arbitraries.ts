import fc from "fast-check";
import { SECTIONS } from "../../plugin/snapshot/format.ts";
import { type Snapshot, Trigger } from "../../plugin/snapshot/snapshot.ts";

/** Pieces that stress the format: markers, comment delimiters, fences, headings, escapes, CRLF. */
const NASTY = [
  "<!--",
  "-->",
  "<!-- /BIG-MEMORY-SNAPSHOT -->",
  "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
  "### [SNAPSHOT] Next Steps",
  "```",
  "~~~",
  "``",
  "`",
  " -- ",
  "--",
  ": ",
  ":",
  "\\",
  "\\n",
  "\\@",
  "\r\n",
  "\n",
  "\r",
  "\t",
  " ",
  "none",
  "None",
  "#",
  "<pre>",
  "- ",
  "1. ",
  "* * *",
  "---",
  "😀",
  "数据库迁移",
  "É",
  "\u00a0",
  "\u2028",
  "[SNAPSHOT] ",
  ...Object.values(SECTIONS),
];

/** Any string, biased towards what breaks markdown and the block format. */
export const nastyString = (maxLength = 6): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...NASTY),
        fc.string({ unit: "grapheme", maxLength: 8 }),
        fc.string({ maxLength: 5 }),
      ),
      {
        maxLength,
      },
    )
    .map((parts) => parts.join(""));

const date = fc
  .record({
    y: fc.integer({ min: 2020, max: 2030 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 28 }),
  })
  .map(({ y, m, d }) => `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`);

/** Arbitrary valid snapshots. */
export const snapshotArb: fc.Arbitrary<Snapshot> = fc
  .record({
    date,
    n: fc.integer({ min: 1, max: 300 }),
    time: fc.constantFrom("T14:05:00+01:00", "T00:00:00Z", "T23:59:59-08:00", "T09:30:00"),
    session: fc.option(nastyString(3), { nil: null }),
    agent: fc.option(nastyString(2), { nil: null }),
    trigger: fc.option(fc.constantFrom(...Trigger.options), { nil: null }),
    name: fc.option(fc.constantFrom("auth-refactor", "billing-v2", "abc"), { nil: null }),
    parent: fc.option(fc.constantFrom("auth-refactor", "x-y-z"), { nil: null }),
    tombstone: fc.boolean(),
    goal: nastyString(),
    state: fc.record({
      phase: nastyString(3),
      branch: nastyString(3),
      blocked: nastyString(3),
      progress: nastyString(3),
    }),
    files: fc.array(fc.record({ path: nastyString(3), note: nastyString(3) }), { maxLength: 3 }),
    decisions: fc.array(fc.record({ text: nastyString(3), rationale: nastyString(3) }), { maxLength: 3 }),
    code: nastyString(10),
    names: fc.array(fc.record({ label: nastyString(3), value: nastyString(3) }), { maxLength: 3 }),
    blockers: fc.array(nastyString(3), { maxLength: 3 }),
    next: fc.array(nastyString(3), { maxLength: 3 }),
    extra: fc.array(fc.record({ heading: nastyString(2), body: nastyString(4) }), { maxLength: 2 }),
  })
  .map(({ date, n, time, ...rest }) => ({
    version: 1 as const,
    id: `${date}-${String(n).padStart(2, "0")}`,
    timestamp: `${date}${time}`,
    ...rest,
  }));
