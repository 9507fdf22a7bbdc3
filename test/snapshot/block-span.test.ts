import { hash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LogText, SPAN_KEY_PREFIX, textSpan } from "../../plugin/snapshot/block-span.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { snapshot } from "../builders.ts";
import { snapshotArb } from "./arbitraries.ts";

const START = "<!-- BIG-MEMORY-SNAPSHOT v1 -->";
const first = renderSnapshot(snapshot("2026-11-22-01", { goal: "ship the reader" }));
const second = renderSnapshot(snapshot("2026-11-22-02", { goal: "Café — 東京 ✓ 🚀" }));
const blockOf = (rendered: string) => rendered.slice(rendered.indexOf(START));

describe("textSpan", () => {
  it("spans a block from its start marker line to its end marker line and newline, keyed by the SHA-256 of its UTF-8", () => {
    const notes = "# notes\n\nsome words\n\n";
    const text = `${notes}${blockOf(second)}after\n`;
    const span = textSpan(text, notes.length);
    expect(span?.end).toBe(notes.length + blockOf(second).length);
    expect(span?.key).toBe(`${SPAN_KEY_PREFIX}${hash("sha256", Buffer.from(blockOf(second)))}`);
  });

  it("ends at the end of the text when the end marker line has no newline", () => {
    const block = blockOf(first).trimEnd();
    expect(textSpan(block, 0)?.end).toBe(block.length);
  });

  it("is null without an end marker line, or when the marker does not end its line", () => {
    const block = blockOf(first);
    expect(textSpan(block.replace("<!-- /BIG-MEMORY-SNAPSHOT -->", "(torn)"), 0)).toBeNull();
    expect(
      textSpan(block.replace("<!-- /BIG-MEMORY-SNAPSHOT -->", "<!-- /BIG-MEMORY-SNAPSHOT --> x"), 0),
    ).toBeNull();
  });

  it("gives two texts the same key only when they are the same text", () => {
    const block = blockOf(first);
    expect(textSpan(block, 0)?.key).toBe(textSpan(`x\n${block}`, 2)?.key);
    expect(textSpan(block.replace("ship", "shop"), 0)?.key).not.toBe(textSpan(block, 0)?.key);
  });

  it("gives no key to a text holding a lone surrogate, whose UTF-8 form is that of the text with U+FFFD", () => {
    const withReplacement = blockOf(first).replace("ship", "sh\uFFFDp");
    const withSurrogate = blockOf(first).replace("ship", "sh\uD800p");
    expect(Buffer.from(withSurrogate).equals(Buffer.from(withReplacement))).toBe(true);
    expect(textSpan(withReplacement, 0)?.key).toMatch(/^span-sha256:[0-9a-f]{64}$/);
    expect(textSpan(withSurrogate, 0)?.key).toBeNull();
  });
});

describe("LogText", () => {
  it("decodes its bytes, counts them, and keys each block as textSpan keys its text", () => {
    const text = `# 2026-11-22 ✓\n\n${first}\nnotes — 東京\n\n${second}`;
    const log = new LogText(Buffer.from(text));
    expect([log.text, log.byteLength]).toEqual([text, Buffer.byteLength(text)]);
    const starts = [text.indexOf(START), text.lastIndexOf(START)];
    expect(starts.map((s) => log.span(s))).toEqual(starts.map((s) => textSpan(text, s)));
    // Asked again, or out of order: the same keys.
    expect([...starts].reverse().map((s) => log.span(s))).toEqual(
      [...starts].reverse().map((s) => textSpan(text, s)),
    );
  });

  it("finds the right block's bytes past invalid UTF-8 and start markers that begin no block", () => {
    const before = Buffer.concat([
      Buffer.from("notes "),
      Buffer.from([0xc3, 0x3c, 0xf0, 0x9f, 0x0a, 0xff, 0xed, 0xa0, 0x80]),
      Buffer.from(` quoted ${START} inline\n\`\`\`\n${START}\n\`\`\`\n\n`),
    ]);
    const bytes = Buffer.concat([before, Buffer.from(first), Buffer.from([0xe2, 0x82]), Buffer.from(second)]);
    const log = new LogText(bytes);
    const starts = [...log.text.matchAll(/^<!-- BIG-MEMORY-SNAPSHOT v1 -->$/gm)].map((m) => m.index);
    expect(starts).toHaveLength(3);
    const keys = starts.map((s) => log.span(s)?.key);
    // The one in the code fence spans to the first block's end marker: its bytes, as the text has them.
    expect(keys).toEqual(starts.map((s) => textSpan(log.text, s)?.key));
    expect(keys[1]).toBe(textSpan(blockOf(first), 0)?.key);
    expect(keys[2]).toBe(textSpan(blockOf(second), 0)?.key);
  });

  it("gives no key at an offset that is not a start marker", () => {
    const log = new LogText(Buffer.from(first));
    expect([log.span(0), log.span(first.indexOf(START) + 1)]).toEqual([null, null]);
  });

  it("keys every rendered block as its text is keyed", () => {
    fc.assert(
      fc.property(fc.array(snapshotArb, { minLength: 1, maxLength: 4 }), fc.string(), (snaps, noise) => {
        const text = snaps.map((s) => `${noise.replaceAll("<", "")}\n${renderSnapshot(s)}`).join("");
        const log = new LogText(Buffer.from(text));
        const starts = [...log.text.matchAll(/^<!-- BIG-MEMORY-SNAPSHOT v1 -->$/gm)].map((m) => m.index);
        for (const s of starts) {
          expect(log.span(s)).toEqual(textSpan(log.text, s));
        }
      }),
      { numRuns: 200 },
    );
  });
});
