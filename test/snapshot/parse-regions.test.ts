import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { readBlockLines, readTolerant, stripCr } from "../../plugin/snapshot/read-tolerant.ts";
import { redactDeep } from "../../plugin/snapshot/redact.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { handSnapshot as snap } from "../builders.ts";
import { handStyleArb, handWritten, nastyHandBlockArb, notesArb, tidySnapshotArb } from "./hand-written.ts";

const FILE = "memory/2026-11-20.md";

const STYLE = {
  bullet: "-",
  fence: "```",
  bold: false,
  blankAfterHeading: false,
  crlf: false,
  order: [0, 1, 2, 3, 4, 5, 6, 7],
} as const;

/** The reference: remark over the whole text, redacted like parseDailyLog. */
function reference(text: string) {
  const read = readTolerant(text, FILE, 1);
  return read.blocks.map((b) => ({
    snapshot: redactDeep(b.snapshot).value,
    line: b.line,
    verified: b.verified,
  }));
}

describe("readBlockLines", () => {
  it("gives what remark gives for any block written by hand, whenever it reads one itself", () => {
    let fast = 0;
    fc.assert(
      fc.property(nastyHandBlockArb, (text) => {
        const lines = text.split("\n").map(stripCr);
        if (lines.at(-1) === "") lines.pop();
        const mine = readBlockLines(lines, FILE, (l) => l + 7);
        if (mine === null) return;
        fast++;
        const theirs = readTolerant(lines.join("\n"), FILE, 7);
        expect(mine.block).toEqual(theirs.blocks[0] ?? null);
        expect(mine.diagnostics).toEqual(theirs.diagnostics);
      }),
      { numRuns: 400 },
    );
    expect(fast).toBeGreaterThan(100);
  });

  it("reads the blocks people write (lists, bold labels, fences, CRLF) without remark", () => {
    fc.assert(
      fc.property(tidySnapshotArb, handStyleArb, (s, style) => {
        const lines = handWritten(s, style).split("\n").map(stripCr);
        lines.pop();
        expect(readBlockLines(lines, FILE, (l) => l + 1)?.block?.snapshot.id).toBe(s.id);
      }),
      { numRuns: 200 },
    );
  });

  it("leaves a block with an HTML block or an indented heading to remark", () => {
    const base = handWritten(snap("2026-11-20-01"), STYLE).split("\n");
    base.pop();
    const withHtml = [...base.slice(0, 6), "<details>", "x", "</details>", ...base.slice(6)];
    const indented = [...base.slice(0, 6), "- item", "  ### [SNAPSHOT] Next Steps", ...base.slice(6)];
    expect(readBlockLines(withHtml, FILE, (l) => l + 1)).toBeNull();
    expect(readBlockLines(indented, FILE, (l) => l + 1)).toBeNull();
  });
});

describe("parseDailyLog against remark over the whole log", () => {
  // Tidy values: raw HTML such as `<pre>` in a hand-written value makes remark swallow the blocks that
  // follow it, which a region-bounded reader rightly does not.
  it("reads the same blocks from notes, hand-written blocks and canonical blocks", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(notesArb, tidySnapshotArb, handStyleArb, fc.boolean()), {
          minLength: 1,
          maxLength: 4,
        }),
        notesArb,
        (parts, tail) => {
          const blocks = parts
            .map(([notes, s, style, canonical], i) => {
              const unique = { ...s, id: `2026-11-20-${i + 10}` };
              return `${notes}\n\n${canonical ? renderSnapshot(unique) : handWritten(unique, { ...style, crlf: false })}`;
            })
            .join("\n")
            .replace(/\r(?!\n)/g, ""); // a lone CR is a line break to remark only
          const text = `${blocks}\n${tail}\n`;
          const parsed = parseDailyLog(text, FILE);
          expect(
            parsed.snapshots.map((s) => ({ snapshot: s.snapshot, line: s.line, verified: s.verified })),
          ).toEqual(reference(text));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("parseDailyLog regions", () => {
  it("never hands the notes around a block to remark: a log of notes costs about the same with one block", () => {
    const notes = Array.from(
      { length: 4000 },
      (_, i) => `- note ${i}: looked at the dashboards, nothing new`,
    ).join("\n");
    const block = handWritten(snap("2026-11-20-01", { goal: "the one block" }), STYLE);
    const withBlock = `${notes}\n\n${block}\n${notes}\n`;
    expect(parseDailyLog(withBlock, FILE).snapshots.map((s) => s.snapshot.goal)).toEqual(["the one block"]);
    const time = (text: string) => {
      const t = performance.now();
      for (let i = 0; i < 20; i++) parseDailyLog(text, FILE);
      return performance.now() - t;
    };
    time(withBlock);
    // remark over these notes takes hundreds of times longer; reading the one region does not.
    expect(time(withBlock)).toBeLessThan(200);
  });

  it("reads a block after fenced code in the notes that shows a block as an example, and not the example", () => {
    const example = [
      "```markdown",
      "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
      "<!-- snapshot-id: 2026-11-20-99 -->",
      "```",
    ];
    const block = handWritten(snap("2026-11-20-01"), STYLE);
    const text = `# notes\n\n${example.join("\n")}\n\n${block}`;
    expect(parseDailyLog(text, FILE)).toEqual({
      snapshots: [
        expect.objectContaining({ line: 8, snapshot: expect.objectContaining({ id: "2026-11-20-01" }) }),
      ],
      diagnostics: [],
    });
  });

  it("takes an end marker inside the block's own code fence as code", () => {
    const s = snap("2026-11-20-01", { code: "<!-- /BIG-MEMORY-SNAPSHOT -->\nstill code" });
    const parsed = parseDailyLog(handWritten(s, STYLE), FILE);
    expect(parsed.snapshots.map((p) => p.snapshot.code)).toEqual([
      "<!-- /BIG-MEMORY-SNAPSHOT -->\nstill code",
    ]);
  });

  it("reports a torn block with its line and the id its metadata gives, and reads the block after it", () => {
    const torn = handWritten(snap("2026-11-20-01"), STYLE).split("<!-- /BIG-MEMORY-SNAPSHOT -->")[0] ?? "";
    const text = `# notes\n${torn}\n${handWritten(snap("2026-11-20-02"), STYLE)}`;
    const parsed = parseDailyLog(text, FILE);
    expect(parsed.snapshots.map((s) => s.snapshot.id)).toEqual(["2026-11-20-02"]);
    expect(parsed.diagnostics).toEqual([
      {
        file: FILE,
        line: 2,
        id: "2026-11-20-01",
        message: "snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)",
      },
    ]);
  });

  it("reports a torn block of an unknown version as an unknown version", () => {
    const text = "<!-- BIG-MEMORY-SNAPSHOT v9 -->\n<!-- snapshot-id: 2026-11-20-01 -->\n";
    expect(parseDailyLog(text, FILE).diagnostics).toEqual([
      { file: FILE, line: 1, message: "unknown snapshot version v9 (expected v1)" },
    ]);
  });
});

describe("checksum removed", () => {
  const canonical = renderSnapshot(
    snap("2026-11-20-01", { trigger: "compaction", session: "agent:main:main" }),
  );
  const stripped = canonical.replace(/^<!-- checksum: .*\n/m, "");

  it("flags a block that carries big-memory's own metadata but lost its checksum line", () => {
    expect(
      parseDailyLog(stripped, FILE).snapshots.map((s) => [s.snapshot.id, s.verified, s.checksum]),
    ).toEqual([["2026-11-20-01", false, null]]);
  });

  it("takes a block without a checksum as unverified when a model in the flush or a person wrote it", () => {
    const flush = stripped.replace("trigger: compaction", "trigger: flush");
    const person = handWritten(snap("2026-11-20-02"), STYLE);
    expect(parseDailyLog(`${flush}\n${person}`, FILE).snapshots.map((s) => s.verified)).toEqual([null, null]);
  });

  it("flags a tombstone without a checksum", () => {
    const tomb = renderSnapshot(
      snap("2026-11-20-03", { trigger: null, name: "abc-def", tombstone: true }),
    ).replace(/^<!-- checksum: .*\n/m, "");
    expect(parseDailyLog(tomb, FILE).snapshots.map((s) => s.verified)).toEqual([false]);
  });
});
