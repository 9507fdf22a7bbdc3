import { describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { headingMeaning } from "../../plugin/snapshot/sections.ts";

const FILE = "memory/2026-11-22.md";
/** A hand-written block (no checksum) with `body` between its metadata and its end marker. */
const block = (body: string) =>
  [
    "# 2026-11-22",
    "",
    "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
    "<!-- timestamp: 2026-11-22T10:00:00 -->",
    "<!-- snapshot-id: 2026-11-22-01 -->",
    body,
    "<!-- /BIG-MEMORY-SNAPSHOT -->",
    "",
  ].join("\n");

describe("headingMeaning", () => {
  it.each([
    ["[SNAPSHOT] Active Goal", "goal"],
    ["Goal", "goal"],
    ["Objective:", "goal"],
    ["1. Next steps", "next"],
    ["**TODO**", "next"],
    ["Files touched", "files"],
    ["Key Names & Values", "names"],
    ["Open questions", "blockers"],
    ["Status", "state"],
    ["Notes from the call", undefined],
  ])("reads %j as %j", (heading, key) => {
    expect(headingMeaning(heading)).toBe(key);
  });
});

describe("hand-written blocks with headings of another depth", () => {
  it("reads ## Goal / ## Next steps blocks by heading meaning, without a problem", () => {
    const text = block(
      [
        "## Goal",
        "Ship the billing export v2",
        "",
        "## Files",
        "- `src/export.ts` -- the writer",
        "",
        "## Next steps",
        "1. Backfill October",
        "2. Tell finance",
        "",
        "### Details",
        "kept as text of Next steps",
      ].join("\n"),
    );
    const read = parseDailyLog(text, FILE);
    expect(read.diagnostics).toEqual([]);
    const s = read.snapshots[0]?.snapshot;
    expect([s?.goal, s?.files, s?.next]).toEqual([
      "Ship the billing export v2",
      [{ path: "src/export.ts", note: "the writer" }],
      ["Backfill October", "Tell finance\n### Details\nkept as text of Next steps"],
    ]);
  });

  it("reads a fenced code section and keeps unknown headings as extra sections", () => {
    const text = block(
      [
        "## Objective",
        "Fix it now please",
        "## Code",
        "```ts",
        "const a = 1;",
        "```",
        "## Vibes",
        "good",
      ].join("\n"),
    );
    const s = parseDailyLog(text, FILE).snapshots[0]?.snapshot;
    expect([s?.goal, s?.code, s?.extra]).toEqual([
      "Fix it now please",
      "const a = 1;",
      [{ heading: "Vibes", body: "good" }],
    ]);
  });

  it("reports a block whose headings name no section, with the file, line and headings found", () => {
    const read = parseDailyLog(block(["## Musings", "Some thoughts", "## Random", "More"].join("\n")), FILE);
    expect(read.snapshots.map((s) => s.snapshot.id)).toEqual(["2026-11-22-01"]);
    expect(read.diagnostics).toEqual([
      {
        file: FILE,
        line: 3,
        id: "2026-11-22-01",
        message:
          'snapshot 2026-11-22-01: no heading names a section, so the block\'s text is read into none (found "## Musings" (line 6), "## Random" (line 8); expected ### [SNAPSHOT] Active Goal, Current State, Files In Play, Decisions Made, Code Context, Key Names & Values, Blockers & Open Questions, Next Steps, or headings such as ## Goal and ## Next steps)',
      },
    ]);
  });

  it("reports text without any heading, and headings that mean the same section", () => {
    const plain = parseDailyLog(block("Just a paragraph about the task."), FILE).diagnostics[0]?.message;
    expect(plain).toMatch(
      /^snapshot 2026-11-22-01: no heading names a section, .*\(found no headings; expected/,
    );
    const twins = parseDailyLog(block(["## Goal", "A", "## Objective", "B"].join("\n")), FILE);
    expect(twins.snapshots[0]?.snapshot.goal).toBe("A");
    expect(twins.diagnostics.map((d) => d.message)).toEqual([
      'snapshot 2026-11-22-01: headings "## Goal" (line 6), "## Objective" (line 8) all mean Active Goal; the first is used',
    ]);
  });

  it("leaves ### [SNAPSHOT] blocks and empty blocks as they were read", () => {
    const canonicalStyle = parseDailyLog(block("### [SNAPSHOT] Active Goal\nShip it\n### Notes\nx"), FILE);
    expect([canonicalStyle.diagnostics, canonicalStyle.snapshots[0]?.snapshot.goal]).toEqual([[], "Ship it"]);
    expect(parseDailyLog(block(""), FILE).diagnostics).toEqual([]);
  });
});
