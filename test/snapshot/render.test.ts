import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { readStrict } from "../../plugin/snapshot/read-strict.ts";
import { readTolerant } from "../../plugin/snapshot/read-tolerant.ts";
import { redactDeep } from "../../plugin/snapshot/redact.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { snapshotArb } from "./arbitraries.ts";

const FILE = "memory/2026-11-22.md";

describe("renderSnapshot", () => {
  it("round-trips every snapshot through parseDailyLog, which hands it back redacted", () => {
    fc.assert(
      fc.property(snapshotArb, (s) => {
        const parsed = parseDailyLog(renderSnapshot(s), FILE);
        expect(parsed.diagnostics).toEqual([]);
        // A generated value can take a secret's shape ("Pw: 𐀀𐀀!!" reads as a password assignment): the reader
        // redacts whatever it hands out, so the round trip returns the snapshot as redaction leaves it.
        expect(parsed.snapshots.map((p) => p.snapshot)).toEqual([redactDeep(s).value]);
        expect(parsed.snapshots[0]?.verified).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("gives identical results through the strict and the remark reader", () => {
    fc.assert(
      fc.property(snapshotArb, (s) => {
        const text = renderSnapshot(s);
        const start = text.indexOf("<!-- BIG-MEMORY-SNAPSHOT");
        const strict = readStrict(text, start);
        const tolerant = readTolerant(text, FILE, 1);
        expect(tolerant.diagnostics).toEqual([]);
        expect(strict?.snapshot).toEqual(s);
        expect(tolerant.blocks.map((b) => [b.snapshot, b.verified, b.line])).toEqual([[s, true, 5]]);
      }),
      { numRuns: 500 },
    );
  });
});
