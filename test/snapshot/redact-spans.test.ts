import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  carryMarkers,
  covers,
  type Finding,
  keep,
  markersIn,
  merge,
  type Span,
} from "../../plugin/snapshot/redact-spans.ts";

describe("markersIn", () => {
  it("finds every marker in text order, and nothing that only starts like one", () => {
    const text = "a [REDACTED:jwt] b [REDACTED:] c [REDACTED:Upper] d [REDACTED:cli-flag]";
    expect(markersIn(text).map(({ start, end }) => text.slice(start, end))).toEqual([
      "[REDACTED:jwt]",
      "[REDACTED:cli-flag]",
    ]);
    expect(markersIn("no markers")).toEqual([]);
  });

  it("finds what a pattern of the marker's shape finds, on texts made of marker pieces", () => {
    const piece = fc.constantFrom("[REDACTED:", "jwt", "cli-flag", "]", "[", "A", "x-9", " ", "\n", "");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join("");
        const expected = [...text.matchAll(/\[REDACTED:[a-z0-9-]+\]/g)].map((m) => ({
          start: m.index,
          end: m.index + m[0].length,
        }));
        expect(markersIn(text)).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("carryMarkers", () => {
  /** `text` with each of `found` (in order, apart) replaced by `[REDACTED:<kind>]`, and where each went. */
  function replace(text: string, found: readonly Finding[]): { text: string; written: Span[] } {
    let out = "";
    let copied = 0;
    const written: Span[] = [];
    for (const { start, end, kind } of found) {
      out += text.slice(copied, start);
      written.push({ start: out.length, end: out.length + kind.length + 11 });
      out += `[REDACTED:${kind}]`;
      copied = end;
    }
    return { text: out + text.slice(copied), written };
  }

  it("moves the markers a text held by what was replaced before them, beside the new ones", () => {
    const text = "[REDACTED:jwt] secret1 [REDACTED:bearer] x secret22";
    const found: Finding[] = [
      { start: 15, end: 22, kind: "cli-flag" },
      { start: 43, end: 51, kind: "secret-assignment" },
    ];
    const after = replace(text, found);
    expect(after.text).toBe(
      "[REDACTED:jwt] [REDACTED:cli-flag] [REDACTED:bearer] x [REDACTED:secret-assignment]",
    );
    expect(carryMarkers(markersIn(text), found, after.written)).toEqual(markersIn(after.text));
  });

  it("gives what reading the new text for markers gives, on texts of markers, their pieces and secrets", () => {
    const piece = fc.constantFrom("[REDACTED:jwt]", "[REDACTED:", "jwt", "]", "[", "x-9", " ", "secret", "");
    const kind = fc.constantFrom<Finding["kind"]>("jwt", "cli-flag", "bearer", "secret-assignment");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), fc.array(fc.tuple(fc.nat(), kind)), (pieces, picks) => {
        const text = pieces.join("");
        const markers = markersIn(text);
        // Findings at the `secret` pieces a pick names, as a pass finds them: apart, off every marker.
        const secrets = [...text.matchAll(/secret/g)].map((m) => m.index);
        const found: Finding[] = [...new Map(picks.map(([n, k]) => [secrets[n % (secrets.length || 1)], k]))]
          .filter((entry): entry is [number, Finding["kind"]] => entry[0] !== undefined)
          .sort((a, b) => a[0] - b[0])
          .map(([start, k]) => ({ start, end: start + 6, kind: k }))
          .filter((f) => !markers.some((m) => m.start < f.end && f.start < m.end));
        const after = replace(text, found);
        expect(carryMarkers(markers, found, after.written)).toEqual(markersIn(after.text));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("keep", () => {
  const markers = [{ start: 10, end: 20 }];
  const found: Finding[] = [{ start: 30, end: 40, kind: "jwt" }];

  it("adds a span moved by its window's offset when it overlaps nothing", () => {
    const mine: Finding[] = [];
    expect(keep({ start: 0, end: 5 }, 2, "bearer", markers, found, mine)).toBe(1);
    expect(mine).toEqual([{ start: 2, end: 7, kind: "bearer" }]);
  });

  it("drops an empty span, one over a marker or an earlier rule's finding, and one before its rule's last", () => {
    const mine: Finding[] = [{ start: 50, end: 60, kind: "bearer" }];
    expect(keep({ start: 3, end: 3 }, 0, "bearer", markers, found, mine)).toBe(0);
    expect(keep({ start: 15, end: 25 }, 0, "bearer", markers, found, mine)).toBe(0);
    expect(keep({ start: 35, end: 45 }, 0, "bearer", markers, found, mine)).toBe(0);
    expect(keep({ start: 55, end: 65 }, 0, "bearer", markers, found, mine)).toBe(0);
    expect(keep({ start: 60, end: 65 }, 0, "bearer", markers, found, mine)).toBe(1);
    expect(mine).toHaveLength(2);
  });
});

describe("merge", () => {
  it("merges two lists of disjoint spans into one in text order", () => {
    const a: Finding[] = [
      { start: 0, end: 1, kind: "jwt" },
      { start: 10, end: 11, kind: "jwt" },
    ];
    const b: Finding[] = [
      { start: 5, end: 6, kind: "bearer" },
      { start: 20, end: 21, kind: "bearer" },
    ];
    expect(merge(a, b).map((f) => f.start)).toEqual([0, 5, 10, 20]);
    expect(merge([], b)).toEqual(b);
  });
});

describe("covers", () => {
  it("says whether a span of a sorted list holds a position", () => {
    const spans = [
      { start: 2, end: 4 },
      { start: 10, end: 11 },
    ];
    expect([1, 2, 3, 4, 9, 10, 11].map((at) => covers(spans, at))).toEqual([
      false,
      true,
      true,
      false,
      false,
      true,
      false,
    ]);
    expect(covers([], 0)).toBe(false);
  });
});
