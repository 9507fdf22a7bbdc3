import { describe, expect, it } from "vitest";
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
