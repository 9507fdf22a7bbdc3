import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checksumOf } from "../../plugin/snapshot/checksum.ts";
import { readStrict } from "../../plugin/snapshot/read-strict.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { snapshot } from "../builders.ts";
import { snapshotArb } from "./arbitraries.ts";

const s = snapshot("2026-11-22-01", { code: "x = 1", next: ["write the test"] });
const block = renderSnapshot(s);
const start = block.indexOf("<!-- BIG-MEMORY-SNAPSHOT");

describe("readStrict", () => {
  it("reads a canonical block at its start marker: the snapshot, its checksum, where it ends and its lines", () => {
    const notes = "# notes\n\nmorning\n";
    const text = `${notes}${block}afternoon\n`;
    const read = readStrict(text, notes.length + start);
    expect(read).toEqual({
      snapshot: s,
      checksum: checksumOf(s),
      end: notes.length + block.length,
      lineCount: block.slice(start).split("\n").length - 1,
    });
    expect(text.slice(read?.end)).toBe("afternoon\n");
  });

  it("reads back every snapshot the renderer writes", () => {
    fc.assert(
      fc.property(snapshotArb, (any) => {
        const text = renderSnapshot(any);
        expect(readStrict(text, text.indexOf("<!-- BIG-MEMORY-SNAPSHOT"))?.snapshot).toEqual(any);
      }),
      { numRuns: 300 },
    );
  });

  it("returns null when the offset is not at a v1 start marker", () => {
    expect(readStrict(block, 0)).toBeNull();
    expect(readStrict(block.replace("SNAPSHOT v1 -->", "SNAPSHOT v2 -->"), start)).toBeNull();
  });

  it("returns null when a value was changed after writing, so the checksum no longer holds", () => {
    expect(readStrict(block.replace("write the test", "skip the test"), start)).toBeNull();
  });

  it("returns null for a block without a checksum line", () => {
    expect(readStrict(block.replace(/<!-- checksum: .* -->\n/, ""), start)).toBeNull();
  });

  it("returns null when metadata lines are out of order or unknown", () => {
    const swapped = block.replace(
      "<!-- session: agent:main:main -->\n<!-- agent: main -->",
      "<!-- agent: main -->\n<!-- session: agent:main:main -->",
    );
    expect(readStrict(swapped, start)).toBeNull();
    expect(
      readStrict(block.replace("<!-- agent: main -->", "<!-- agent: main -->\n<!-- owner: me -->"), start),
    ).toBeNull();
  });

  it("returns null for a tombstone value other than yes, even when the checksum holds", () => {
    const text = block.replace("<!-- checksum:", "<!-- tombstone: no -->\n<!-- checksum:");
    expect(readStrict(text, start)).toBeNull();
  });

  it("returns null when a known section is missing, out of order or empty", () => {
    expect(readStrict(block.replace("### [SNAPSHOT] Decisions Made\nnone\n\n", ""), start)).toBeNull();
    const reordered = block
      .replace("### [SNAPSHOT] Files In Play", "### [SNAPSHOT] TMP")
      .replace("### [SNAPSHOT] Decisions Made", "### [SNAPSHOT] Files In Play")
      .replace("### [SNAPSHOT] TMP", "### [SNAPSHOT] Decisions Made");
    expect(readStrict(reordered, start)).toBeNull();
    expect(
      readStrict(
        block.replace("### [SNAPSHOT] Next Steps\n1. write the test\n", "### [SNAPSHOT] Next Steps\n"),
        start,
      ),
    ).toBeNull();
  });

  it("returns null when the code section is neither none nor a closed fence", () => {
    expect(readStrict(block.replace("```\nx = 1\n```", "x = 1"), start)).toBeNull();
    expect(readStrict(block.replace("x = 1\n```\n", "x = 1\n"), start)).toBeNull();
  });

  it("returns null for a torn block and for CRLF line ends, leaving them to the tolerant reader", () => {
    expect(readStrict(block.slice(0, block.length - 40), start)).toBeNull();
    expect(readStrict(block.slice(0, block.indexOf("<!-- /BIG-MEMORY")), start)).toBeNull();
    expect(
      readStrict(block.replace(/\n/g, "\r\n"), block.replace(/\n/g, "\r\n").indexOf("<!-- BIG")),
    ).toBeNull();
  });

  it("returns null for an id that is not YYYY-MM-DD-NN", () => {
    const bad = { ...s, id: "2026-11-22-1" };
    const text = renderSnapshot(bad);
    expect(readStrict(text, text.indexOf("<!-- BIG-MEMORY-SNAPSHOT"))).toBeNull();
  });
});
