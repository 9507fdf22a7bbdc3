import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findBlockSpan, lineFeedsIn } from "../../plugin/session/block-find.ts";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { snapshot } from "../builders.ts";
import { snapshotArb } from "../snapshot/arbitraries.ts";
import { notesArb } from "../snapshot/hand-written.ts";

const FILE = "memory/2026-11-22.md";

/** The span of `id` in `text` as written to disk (UTF-8 bytes, byte offsets). */
const find = (text: string, id: string) => findBlockSpan(Buffer.from(text, "utf8"), id);

/** What the whole parse gives for `id` (the first block of that id), and what the span alone gives, if any. */
function both(text: string, id: string) {
  const whole = parseDailyLog(text, FILE).snapshots.find((s) => s.snapshot.id === id) ?? null;
  const span = find(text, id);
  if (span === null) return { whole, span: null, alone: null };
  const read = parseDailyLog(
    Buffer.from(text, "utf8").toString("utf8", span.start, span.end),
    FILE,
  ).snapshots;
  const alone = read.length === 1 && read[0]?.line === 1 ? { ...read[0], line: span.line } : null;
  return { whole, span, alone };
}

const block = (id: string, goal = `goal of ${id}`) => renderSnapshot(snapshot(id, { goal }));

describe("findBlockSpan", () => {
  it("finds a block among others and notes, at its line, and it reads alone as the whole parse reads it", () => {
    const text = [
      "# Notes\n\nsome text\n\n```ts\nconst a = 1;\n```\n",
      block("2026-11-22-01"),
      "\nmore notes\n",
      block("2026-11-22-02"),
      block("2026-11-22-10"),
    ].join("\n");
    for (const id of ["2026-11-22-01", "2026-11-22-02", "2026-11-22-10"]) {
      const { whole, span, alone } = both(text, id);
      expect(span).not.toBeNull();
      expect(whole).not.toBeNull();
      expect(alone).toEqual(whole);
    }
    // `-1` is no block's id, though `-10` starts with it.
    expect(find(text, "2026-11-22-1")).toBeNull();
  });

  it("leaves to the whole parse a block after a fence the notes leave open (the parse reads it as code)", () => {
    const text = `notes\n\n\`\`\`\nunclosed code\n\n${block("2026-11-22-01")}`;
    expect(find(text, "2026-11-22-01")).toBeNull();
    expect(parseDailyLog(text, FILE).snapshots).toEqual([]);
  });

  it("leaves to the whole parse a block whose id another block or a fenced copy also carries", () => {
    const twice = `${block("2026-11-22-01", "first")}\n${block("2026-11-22-01", "second")}`;
    expect(find(twice, "2026-11-22-01")).toBeNull();
    const fencedCopy = `\`\`\`\n${block("2026-11-22-01", "fake")}\`\`\`\n\n${block("2026-11-22-01")}`;
    expect(find(fencedCopy, "2026-11-22-01")).toBeNull();
    expect(parseDailyLog(fencedCopy, FILE).snapshots.map((s) => s.snapshot.goal)).toEqual([
      "goal of 2026-11-22-01",
    ]);
  });

  it("leaves to the whole parse a block after a marker line inside fenced notes", () => {
    const text = `\`\`\`\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\n\`\`\`\n\n${block("2026-11-22-02")}`;
    expect(find(text, "2026-11-22-02")).toBeNull();
  });

  it("gives null for an id no line carries, or one outside a block", () => {
    expect(find(block("2026-11-22-01"), "2026-11-22-02")).toBeNull();
    expect(find("notes\n<!-- snapshot-id: 2026-11-22-01 -->\n", "2026-11-22-01")).toBeNull();
    expect(find("anything", "")).toBeNull();
  });

  it("never reads alone what the whole parse does not read there, whatever the log holds", () => {
    let found = 0;
    // Characters of 1 to 4 bytes and the no-break space (C2 A0) among notes, blocks, torn blocks, fence and
    // marker lines: the span is found on the bytes, the whole parse reads the decoded text.
    const odd = fc.constantFrom("é", "→", "日本", "🚀", "\u00a0", "\u2028", "\r", " ", "`", "~");
    const piece = fc.oneof(
      notesArb,
      fc.array(odd, { maxLength: 8 }).map((a) => a.join("")),
      snapshotArb.map(renderSnapshot),
      snapshotArb.map((s) => renderSnapshot({ ...s, goal: `${s.goal} → 🚀 été` })),
      snapshotArb.map((s) => renderSnapshot(s).replace("<!-- /BIG-MEMORY-SNAPSHOT -->\n", "")),
      fc.constantFrom(
        "```",
        "~~~",
        "~~~ é",
        "~~~\u00a0",
        "   ```",
        "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
        "<!-- /BIG-MEMORY-SNAPSHOT -->",
      ),
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 6 }), fc.nat(), (pieces, pick) => {
        const text = pieces.join("\n");
        const ids = [...text.matchAll(/snapshot-id: (\d{4}-\d{2}-\d{2}-\d{2,})/g)].map((m) => m[1] as string);
        const id = ids[pick % Math.max(1, ids.length)];
        if (id === undefined) return;
        const { whole, span, alone } = both(text, id);
        if (span === null || alone === null) return;
        found++;
        expect(alone).toEqual(whole);
      }),
      { numRuns: 500 },
    );
    expect(found).toBeGreaterThan(50);
  });
});

describe("lineFeedsIn", () => {
  it("counts the line feeds of the first bytes as the decoded text holds them", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.nat(), (text, cut) => {
        const bytes = Buffer.from(text, "utf8");
        const to = cut % (bytes.length + 1);
        expect(lineFeedsIn(bytes, to)).toBe(bytes.toString("utf8", 0, to).split("\n").length - 1);
      }),
    );
    expect(lineFeedsIn(Buffer.from("a\nb\r\nc\n"), 100)).toBe(3);
  });
});
