import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { journalRecordOf } from "../../plugin/store/journal.ts";
import { JournalRecord } from "../../plugin/store/journal-schema.ts";

/** A record as version 1 writes it (kept as a fixture: a later version must still read it or refuse it by name). */
const V1 = {
  v: 1,
  at: "2026-11-25T09:00:00.000Z",
  kind: "append",
  file: "memory/2026-11-25.md",
  ino: "1234567",
  base: 0,
  size: 812,
  id: "2026-11-25-01",
  line: 5,
  session: "agent:main:main",
  block: "<!-- BIG-MEMORY-SNAPSHOT v1 -->\n...\n<!-- /BIG-MEMORY-SNAPSHOT -->\n",
};

describe("JournalRecord", () => {
  it("reads a version 1 record", () => {
    expect(JournalRecord.parse(V1)).toEqual(V1);
  });

  it("refuses another version, a file that is not a daily log, and fields it does not know", () => {
    const problems = (value: unknown) =>
      JournalRecord.safeParse(value).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(problems({ ...V1, v: 2 })).toEqual(["v: Invalid input: expected 1"]);
    expect(problems({ ...V1, file: "../outside.md" })).toEqual(["file: expected memory/YYYY-MM-DD.md"]);
    expect(problems({ ...V1, extra: true })).toEqual([': Unrecognized key: "extra"']);
  });
});

describe("journalRecordOf (the reader's hand check) against the schema", () => {
  const field = fc.constantFrom(
    ["v", fc.constantFrom(1, 2, "1")],
    ["kind", fc.constantFrom("append", "claim", "baseline", "write")],
    ["at", fc.constantFrom("2026-11-25T09:00:00.000Z", "")],
    ["file", fc.constantFrom("memory/2026-11-25.md", "memory/notes.md", "../x.md")],
    ["ino", fc.constantFrom("12", "-1", 12)],
    ["base", fc.constantFrom(0, 5, -1, 1.5, "5")],
    ["size", fc.constantFrom(0, 812, -3)],
    ["id", fc.constantFrom("2026-11-25-01", "2026-11-25-1", undefined)],
    ["line", fc.constantFrom(1, 0, undefined)],
    ["session", fc.constantFrom("agent:main:main", null, 3, undefined)],
    ["block", fc.constantFrom("text", 1, undefined)],
    ["clipped", fc.constantFrom(true, false, undefined)],
    ["gap", fc.constantFrom(true, "yes", undefined)],
    ["reason", fc.constantFrom("repair", "rewrite", "other", undefined)],
    ["gone", fc.constantFrom(["2026-11-25-01"], [1], undefined)],
    ["extra", fc.constantFrom(1)],
  );
  it("accepts exactly what the zod schema accepts", () => {
    fc.assert(
      fc.property(
        fc.array(field.chain(([k, v]) => (v as fc.Arbitrary<unknown>).map((x) => [k as string, x] as const))),
        (changes) => {
          const value: Record<string, unknown> = { ...V1 };
          for (const [k, v] of changes) {
            if (v === undefined) delete value[k];
            else value[k] = v;
          }
          const hand = journalRecordOf(value);
          expect(typeof hand !== "string").toBe(JournalRecord.safeParse(value).success);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("names the field and what was expected", () => {
    expect(journalRecordOf({ ...V1, size: -1 })).toBe("size: expected a byte count");
    expect(journalRecordOf({ ...V1, extra: 1 })).toBe("extra: not a field of a record");
    expect(journalRecordOf([])).toBe("expected a JSON object");
  });
});
