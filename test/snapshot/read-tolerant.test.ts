import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checksumOf } from "../../plugin/snapshot/checksum.ts";
import { readStrict } from "../../plugin/snapshot/read-strict.ts";
import {
  checksumRemoved,
  fenceCloses,
  fenceOpen,
  idAfterMarker,
  noEndMarker,
  readBlock,
  readBlockLines,
  readTolerant,
  stripCr,
  versionProblem,
} from "../../plugin/snapshot/read-tolerant.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { emptyContent } from "../../plugin/snapshot/sections.ts";
import { Snapshot } from "../../plugin/snapshot/snapshot.ts";
import { handSnapshot, snapshot } from "../builders.ts";
import { snapshotArb } from "./arbitraries.ts";
import { handStyleArb, handWritten, nastyHandBlockArb, notesArb, tidySnapshotArb } from "./hand-written.ts";

const FILE = "memory/2026-11-20.md";
const skillLog = readFileSync(new URL("./fixtures/skill-format.md", import.meta.url), "utf8");
const START = "<!-- BIG-MEMORY-SNAPSHOT v1 -->";
const END = "<!-- /BIG-MEMORY-SNAPSHOT -->";
/** The metadata line of id 2026-11-20-01, and a goal section. */
const ID = "<!-- snapshot-id: 2026-11-20-01 -->";
const GOAL = ["### [SNAPSHOT] Active Goal", "Ship it"];
const NO_END = `snapshot block has no end marker (expected ${END})`;
/** A hand-written block of `body` lines (metadata and sections) between the markers. */
const block = (...body: string[]) => [START, ...body, END].join("\n");
/** The tolerant reader over a block of `body` lines starting at line 1. */
const read = (...body: string[]) => readTolerant(block(...body), FILE, 1);
/** The block's lines as `parseDailyLog` hands a region over: CR stripped, no trailing empty line. */
const regionLines = (text: string) => {
  const lines = text.split("\n").map(stripCr);
  if (lines.at(-1) === "") lines.pop();
  return lines;
};

describe("readTolerant", () => {
  it("reads the blocks of a log in the skill's older format, numbering lines from firstLine", () => {
    const { blocks, diagnostics } = readTolerant(skillLog, FILE, 101);
    expect(diagnostics).toEqual([]);
    expect(blocks.map((b) => [b.snapshot.id, b.line, b.verified, b.checksum])).toEqual([
      ["2026-11-20-01", 109, null, null],
      ["2026-11-20-02", 168, null, null],
    ]);
    expect(blocks[1]?.snapshot).toEqual({
      ...handSnapshot("2026-11-20-02"),
      timestamp: "2026-11-20T17:40:00",
      goal: "Fix the duplicate-session bug before the release\n(blocking the 2.4 release)",
      state: { phase: "debugging", branch: "", blocked: "yes -- waiting for database access", progress: "" },
      next: ["Ship the migration", "Tell the team"],
      extra: [{ heading: "Notes from the call", body: "Product wants SSO next quarter." }],
    });
  });

  it("reads a CRLF log the same as the LF one", () => {
    const lf = readTolerant(skillLog, FILE, 1);
    expect(readTolerant(skillLog.replace(/\n/g, "\r\n"), FILE, 1)).toEqual(lf);
  });

  it("takes markers and headings inside fenced code as code, in the notes and in the block", () => {
    const example = ["```markdown", START, "<!-- snapshot-id: 2026-11-20-99 -->", END, "```"].join("\n");
    const text = block(
      ID,
      "### [SNAPSHOT] Code Context",
      "~~~",
      END,
      "### [SNAPSHOT] Next Steps",
      "~~~",
      "### [SNAPSHOT] Next Steps",
      "- ship",
    );
    const { blocks, diagnostics } = readTolerant(`${example}\n\n${text}\n`, FILE, 1);
    expect(diagnostics).toEqual([]);
    expect(blocks.map((b) => [b.snapshot.id, b.line, b.snapshot.code, b.snapshot.next])).toEqual([
      ["2026-11-20-01", 7, `${END}\n### [SNAPSHOT] Next Steps`, ["ship"]],
    ]);
  });

  it("fills missing sections and metadata with their empty values, the timestamp from the id's date", () => {
    const { blocks } = read("<!-- snapshot-id: 2026-11-20-07 -->", ...GOAL);
    expect(blocks.map((b) => b.snapshot)).toEqual([
      {
        ...handSnapshot("2026-11-20-07"),
        ...emptyContent(),
        timestamp: "2026-11-20T00:00:00",
        goal: "Ship it",
      },
    ]);
  });

  it("ends a section at the next level-3 heading, keeping an unknown one as an extra section", () => {
    const { blocks } = read(
      ID,
      ...GOAL,
      "### Open threads ###",
      "ask ops about the quota",
      "### [SNAPSHOT] Next Steps",
      "1. deploy",
    );
    expect(blocks.map((b) => [b.snapshot.goal, b.snapshot.extra, b.snapshot.next])).toEqual([
      ["Ship it", [{ heading: "Open threads", body: "ask ops about the quota" }], ["deploy"]],
    ]);
  });

  it("keeps the first of a repeated metadata line and ignores comments after the first section", () => {
    const { blocks } = read(
      ID,
      "<!-- snapshot-id: 2026-11-20-02 -->",
      ...GOAL,
      "<!-- session: agent:main:late -->",
    );
    expect(blocks.map((b) => [b.snapshot.id, b.snapshot.session])).toEqual([["2026-11-20-01", null]]);
  });

  it("reports a torn block, with the id its metadata gives, when the next start marker comes first", () => {
    const torn = [START, ID, "### [SNAPSHOT] Active Goal", "lost"];
    const text = `${torn.join("\n")}\n${block("<!-- snapshot-id: 2026-11-20-02 -->")}\n`;
    const { blocks, diagnostics } = readTolerant(text, FILE, 3);
    expect(blocks.map((b) => [b.snapshot.id, b.line])).toEqual([["2026-11-20-02", 7]]);
    expect(diagnostics).toEqual([{ file: FILE, line: 3, id: "2026-11-20-01", message: NO_END }]);
  });

  it("reports a block torn at the end of the text", () => {
    expect(readTolerant(`# notes\n${START}\n### [SNAPSHOT] Active Goal\nx\n`, FILE, 1)).toEqual({
      blocks: [],
      diagnostics: [{ file: FILE, line: 2, message: NO_END }],
    });
  });

  it("skips a block of an unknown version, and an end marker without a block, with one diagnostic", () => {
    const v2 = block(ID).replace("v1", "v2");
    expect(readTolerant(v2, FILE, 1)).toEqual({
      blocks: [],
      diagnostics: [{ file: FILE, line: 1, message: "unknown snapshot version v2 (expected v1)" }],
    });
  });

  it("reports a block without a valid snapshot-id, or with an invalid value, and reads nothing of it", () => {
    expect(read("### [SNAPSHOT] Active Goal", "x").diagnostics).toEqual([
      {
        file: FILE,
        line: 1,
        message: "snapshot block has no snapshot-id (expected <!-- snapshot-id: YYYY-MM-DD-NN -->)",
      },
    ]);
    expect(read("<!-- snapshot-id: 2026-11-2-01 -->").diagnostics).toEqual([
      {
        file: FILE,
        line: 1,
        message: 'snapshot block has an invalid snapshot-id "2026-11-2-01" (expected YYYY-MM-DD-NN)',
      },
    ]);
  });

  it("reads a block whose trigger is unknown as one of no trigger, saying so, and a known one in any case", () => {
    const lunch = read(ID, "<!-- trigger: lunch -->", ...GOAL);
    expect(lunch.blocks.map((b) => [b.snapshot.id, b.snapshot.trigger, b.snapshot.goal])).toEqual([
      ["2026-11-20-01", null, "Ship it"],
    ]);
    expect(lunch.diagnostics).toEqual([
      {
        file: FILE,
        line: 1,
        id: "2026-11-20-01",
        message: `snapshot 2026-11-20-01: trigger "lunch" is not one of flush, compaction, reset, manual, tool, autosave, threshold; read as none`,
      },
    ]);
    const flush = read(ID, "<!-- trigger: Flush -->", ...GOAL);
    expect([flush.blocks[0]?.snapshot.trigger, flush.diagnostics]).toEqual(["flush", []]);
  });

  it("takes an empty metadata line as absent, and a timestamp that is no time as the id's date, saying so", () => {
    const r = read(ID, "<!-- timestamp:  -->", "<!-- session: -->", "<!-- agent:   -->", ...GOAL);
    expect(r.blocks[0]?.snapshot).toMatchObject({
      timestamp: "2026-11-20T00:00:00",
      session: null,
      agent: null,
    });
    expect(r.diagnostics).toEqual([]);
    const late = read(ID, "<!-- timestamp: yesterday evening -->", ...GOAL);
    expect(late.blocks[0]?.snapshot.timestamp).toBe("2026-11-20T00:00:00");
    expect(late.diagnostics.map((d) => d.message)).toEqual([
      'snapshot 2026-11-20-01: timestamp "yesterday evening" is not a date and time; the id\'s date 2026-11-20 is used',
    ]);
  });

  it("verifies a canonical block's checksum, and flags one edited after writing", () => {
    const s = snapshot("2026-11-20-01", { goal: "ship it" });
    const text = renderSnapshot(s);
    expect(readTolerant(text, FILE, 1).blocks).toEqual([
      { snapshot: s, line: 5, verified: true, checksum: checksumOf(s) },
    ]);
    const edited = readTolerant(text.replace("ship it", "ship it today"), FILE, 1).blocks[0];
    expect([edited?.snapshot.goal, edited?.verified]).toEqual(["ship it today", false]);
  });

  it("agrees with the strict reader on every canonical block the renderer writes", () => {
    fc.assert(
      fc.property(snapshotArb, (s) => {
        const text = renderSnapshot(s);
        const strict = readStrict(text, text.indexOf(START));
        expect(readTolerant(text, FILE, 1).blocks).toEqual([
          { snapshot: strict?.snapshot, line: 5, verified: true, checksum: strict?.checksum },
        ]);
      }),
      { numRuns: 60 },
    );
  });
});

describe("readBlock", () => {
  it("gives the strict reader's result for a canonical block's region, checksum verified", () => {
    fc.assert(
      fc.property(snapshotArb, (s) => {
        const text = renderSnapshot(s);
        const lines = regionLines(text.slice(text.indexOf(START)));
        expect(readBlock(lines, FILE, 5)).toEqual({
          block: { snapshot: s, line: 5, verified: true, checksum: checksumOf(s) },
          diagnostics: [],
        });
      }),
      { numRuns: 100 },
    );
  });

  it("returns only snapshots that snapshot.ts's schema accepts as they are, without running the schema", () => {
    const triggers = fc.constantFrom("manual", "flush", "lunch", "", "Compaction");
    fc.assert(
      fc.property(nastyHandBlockArb, triggers, (text, trigger) => {
        const withTrigger = text.replace(/(<!-- snapshot-id: [^\n]*-->)/, `$1\n<!-- trigger: ${trigger} -->`);
        const read = readTolerant(withTrigger, FILE, 1);
        for (const b of read.blocks) expect(Snapshot.parse(b.snapshot)).toEqual(b.snapshot);
        // A trigger the reader reads as none, saying so, is one the schema refuses in any case.
        const unknown = read.diagnostics.some((d) =>
          d.message.includes(`trigger "${trigger}" is not one of`),
        );
        if (unknown) expect(Snapshot.shape.trigger.safeParse(trigger.toLowerCase()).success).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it("reads a region whose markdown needs context through remark", () => {
    const lines = regionLines(block(ID, "### [SNAPSHOT] Active Goal", "<details>", "Ship it", "</details>"));
    expect(readBlockLines(lines, FILE, (l) => l + 1)).toBeNull();
    expect(readBlock(lines, FILE, 1).block?.snapshot.goal).toBe("<details>\nShip it\n</details>");
  });

  it("reads a block the same whatever notes surround it: only its region is read", () => {
    fc.assert(
      fc.property(notesArb, tidySnapshotArb, handStyleArb, notesArb, (before, s, style, after) => {
        const own = handWritten(s, style);
        const head = `${before}\n\n`;
        const firstLine = head.split("\n").length;
        const inLog = readTolerant(`${head}${own}\n${after}\n`, FILE, 1);
        const alone = readBlock(regionLines(own), FILE, firstLine);
        expect(alone.diagnostics).toEqual([]);
        expect(inLog.blocks).toEqual([alone.block]);
        expect(alone.block?.snapshot).toEqual(readTolerant(own, FILE, 1).blocks[0]?.snapshot);
      }),
      { numRuns: 60 },
    );
  });

  it("reports the region's own problems at the file line given", () => {
    const lines = regionLines(block(ID).replace("v1", "v7"));
    expect(readBlock(lines, FILE, 40)).toEqual({
      block: null,
      diagnostics: [{ file: FILE, line: 40, message: "unknown snapshot version v7 (expected v1)" }],
    });
  });
});

describe("readBlockLines", () => {
  it("reads a hand-written block with CRLF, * lists, bold labels, tilde fences, sections reversed, without remark", () => {
    const s = handSnapshot("2026-11-20-03", { code: "a\n  b", next: ["one", "two"] });
    const order = [7, 6, 5, 4, 3, 2, 1, 0];
    const style = {
      bullet: "*",
      fence: "~~~",
      bold: true,
      blankAfterHeading: true,
      crlf: true,
      order,
    } as const;
    const text = handWritten(s, style);
    expect(readBlockLines(regionLines(text), FILE, (l) => l + 10)).toEqual({
      block: { snapshot: s, line: 10, verified: null, checksum: null },
      diagnostics: [],
    });
  });

  it("leaves a fence that never closes inside the region to remark", () => {
    const lines = regionLines(block(ID, "### [SNAPSHOT] Code Context", "```", "x"));
    expect(readBlockLines(lines, FILE, (l) => l + 1)).toBeNull();
  });
});

describe("fenceOpen", () => {
  it("opens on three or more backticks or tildes after at most three spaces", () => {
    expect(
      ["```", "````ts", "   ~~~", "~~~ js `x`", "    ```", "``", "```a`b", "-```"].map(fenceOpen),
    ).toEqual([
      { char: 96, length: 3, indent: 0 },
      { char: 96, length: 4, indent: 0 },
      { char: 126, length: 3, indent: 3 },
      { char: 126, length: 3, indent: 0 },
      null,
      null,
      null,
      null,
    ]);
  });
});

describe("fenceCloses", () => {
  it("closes on at least as many of the same character, then only white space", () => {
    const fence = { char: 96, length: 4, indent: 0 };
    expect(
      ["````", "  `````  \r", "   ````\t", "```", "~~~~", "```` x", "    ````"].map((l) =>
        fenceCloses(l, fence),
      ),
    ).toEqual([true, true, true, false, false, false, false]);
  });
});

describe("checksumRemoved", () => {
  it("is true only when metadata only big-memory writes is left without its checksum", () => {
    const cases: [string, [string, string][]][] = [
      ["compaction", [["trigger", "compaction"]]],
      ["tombstone", [["tombstone", "yes"]]],
      ["flush", [["trigger", "flush"]]],
      ["hand-written", [["snapshot-id", "2026-11-20-01"]]],
      [
        "checksummed",
        [
          ["trigger", "manual"],
          ["checksum", "sha256:00"],
        ],
      ],
    ];
    expect(cases.map(([name, meta]) => [name, checksumRemoved(new Map(meta))])).toEqual([
      ["compaction", true],
      ["tombstone", true],
      ["flush", false],
      ["hand-written", false],
      ["checksummed", false],
    ]);
  });
});

describe("versionProblem", () => {
  it("is null for this reader's version and names any other version or a malformed marker", () => {
    expect(versionProblem(`  ${START}  `, FILE, 3)).toBeNull();
    expect(versionProblem("<!-- BIG-MEMORY-SNAPSHOT v12 -->", FILE, 3)).toEqual({
      file: FILE,
      line: 3,
      message: "unknown snapshot version v12 (expected v1)",
    });
    expect(versionProblem("<!-- BIG-MEMORY-SNAPSHOT -->", FILE, 3)?.message).toBe(
      'unknown snapshot version in "<!-- BIG-MEMORY-SNAPSHOT -->" (expected v1)',
    );
  });
});

describe("noEndMarker", () => {
  it("names the missing end marker, with the id only when one is known", () => {
    expect(noEndMarker(FILE, 9, undefined)).toEqual({ file: FILE, line: 9, message: NO_END });
    expect(noEndMarker(FILE, 9, "2026-11-20-01")).toEqual({
      file: FILE,
      line: 9,
      id: "2026-11-20-01",
      message: NO_END,
    });
  });
});

describe("idAfterMarker", () => {
  it("finds a valid snapshot-id among the metadata lines after the marker, across blank lines", () => {
    expect(idAfterMarker([START, "<!-- timestamp: now -->", "", "<!-- snapshot-id: 2026-11-20-04 -->"])).toBe(
      "2026-11-20-04",
    );
  });

  it("gives nothing once a line other than metadata comes, or for an invalid id", () => {
    expect(idAfterMarker([START, "text", "<!-- snapshot-id: 2026-11-20-04 -->"])).toBeUndefined();
    expect(idAfterMarker([START, "<!-- snapshot-id: today -->"])).toBeUndefined();
  });
});

describe("stripCr", () => {
  it("removes one trailing carriage return and nothing else", () => {
    expect(["a\r", "a\r\r", "\ra", "a"].map(stripCr)).toEqual(["a", "a\r", "\ra", "a"]);
  });
});
