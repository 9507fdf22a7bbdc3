import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONTEXT_RULES } from "../../plugin/snapshot/redact-context.ts";
import {
  compileRules,
  type Finding,
  findSecrets,
  type RuleSet,
  rule,
  type Span,
} from "../../plugin/snapshot/redact-engine.ts";
import { LABEL_RULES } from "../../plugin/snapshot/redact-labels.ts";
import { PROVIDER_RULES } from "../../plugin/snapshot/redact-providers.ts";
import { carryMarkers, markersIn } from "../../plugin/snapshot/redact-spans.ts";
import { endOfLine, linesAround, windowsAfter, windowsOf } from "../../plugin/snapshot/redact-windows.ts";

const RULES = compileRules([...PROVIDER_RULES, ...CONTEXT_RULES, ...LABEL_RULES]);

/** `text` with each of `found` replaced by a marker: the new text, the markers written and all its markers. */
function replaced(
  text: string,
  found: readonly Finding[],
): { after: string; written: Span[]; markers: Span[] } {
  let after = "";
  let copied = 0;
  const written: Span[] = [];
  for (const f of found) {
    after += text.slice(copied, f.start);
    const marker = `[REDACTED:${f.kind}]`;
    written.push({ start: after.length, end: after.length + marker.length });
    after += marker;
    copied = f.end;
  }
  after += text.slice(copied);
  return { after, written, markers: carryMarkers(markersIn(text), found, written) };
}

/** `windowsAfter` for `text` and `found`, with the witnesses of a scan of `text`. */
function secondPass(text: string, found: readonly Finding[]) {
  const witnesses: number[] = [];
  windowsOf(text, RULES, markersIn(text), witnesses);
  const next = replaced(text, found);
  return {
    ...next,
    windows: windowsAfter(text, next.after, RULES, next.markers, found, next.written, witnesses),
  };
}

describe("windowsOf", () => {
  it("opens a group's window over the lines of its trigger and its reach, none inside a marker", () => {
    const set = compileRules([
      rule("jwt", "a", { triggers: ["key"] }),
      rule("jwt", "b", { triggers: ["token"], caseSensitive: false, reach: 1 }),
      rule("jwt", "c", { triggers: [] }),
    ]);
    const text = "x\nKey key\nTOKEN\ny\n[REDACTED:key-token]";
    const witnesses: number[] = [];
    expect(windowsOf(text, set, markersIn(text), witnesses)).toEqual([
      [2, 9],
      [10, 17],
      [0, text.length],
    ]);
    // One witness per line and group: the hit that opened it (`Key` is not `key`).
    expect(witnesses).toEqual([2, 0, 6, 3, 10, 1, 10, 5]);
    expect(endOfLine(text, 3)).toBe(9);
    // A text of many lines keeps no witnesses, and the pass after it scans.
    const many = "key\n".repeat(1100);
    windowsOf(many, set, [], witnesses);
    expect(witnesses).toEqual([-1]);
    expect(windowsAfter(many, many, set, [], [], [], witnesses)).toBeUndefined();
    expect(endOfLine(text, 30)).toBe(text.length);
  });
});

/**
 * `windowsOf` the long way: every occurrence of every literal the scanner finds, none skipped, each opening
 * the windows of its groups over its line and reach, the first of each line and group its witness.
 */
function everyHitWindows(text: string, set: RuleSet, markers: readonly Span[]) {
  const windows: (number[] | undefined)[] = new Array(set.groups.length);
  for (const g of set.untriggeredGroups) windows[g] = [0, text.length];
  const witnesses: number[] = [];
  const opened = new Set<string>();
  set.scanner.scan(text, (at, literal) => {
    const length = set.scanner.literals[literal]?.length ?? 0;
    if (markers.some((m) => m.start <= at && at + length <= m.end)) return undefined;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    for (const { group, trigger } of set.activations[literal] ?? []) {
      const g = set.groups[group];
      if (g === undefined || (g.caseSensitive && !text.startsWith(trigger, at))) continue;
      if (!opened.has(`${lineStart}:${group}`)) {
        opened.add(`${lineStart}:${group}`);
        witnesses.push(lineStart, group, at, length);
      }
      let end = endOfLine(text, at);
      for (let k = 0; k < g.reach && end < text.length; k++) end = endOfLine(text, end + 1);
      const list = windows[group];
      const lastEnd = list?.at(-1);
      if (list === undefined) windows[group] = [lineStart, end];
      else if (lastEnd === undefined || lineStart > lastEnd + 1) list.push(lineStart, end);
      else if (end > lastEnd) list[list.length - 1] = end;
    }
    return undefined;
  });
  return { windows, witnesses };
}

describe("windowsOf on long lines", () => {
  it("opens what opening at every occurrence opens, on long lines dense with triggers too", () => {
    const fragment = fc.constantFrom(
      "password: ",
      "passphrase ",
      "pass:",
      "PASS ",
      "token=",
      "Authorization: Bearer ",
      "[REDACTED:jwt]",
      "ghp_",
      "Key",
      "x".repeat(300),
      " ",
    );
    const line = fc.array(fragment, { minLength: 1, maxLength: 40 }).map((parts) => parts.join(""));
    const texts = fc.array(line, { minLength: 1, maxLength: 4 }).map((ls) => ls.join("\n"));
    fc.assert(
      fc.property(texts, (text) => {
        const markers = markersIn(text);
        const witnesses: number[] = [];
        const windows = windowsOf(text, RULES, markers, witnesses);
        expect({ windows, witnesses }).toEqual(everyHitWindows(text, RULES, markers));
      }),
      { numRuns: 400 },
    );
  });
});

describe("windowsAfter", () => {
  it("gives the windows of a dense line without scanning it again", () => {
    const text = "password: Xk9mP2vLq7 ".repeat(50);
    const found = findSecrets(text, RULES);
    expect(found.length).toBe(50);
    const { after: next, markers, windows } = secondPass(text, found);
    expect(windows).toEqual(windowsOf(next, RULES, markers));
  });

  it("scans again a line whose opening trigger a finding covered, and that line only", () => {
    const lines = [...Array(10).keys()].map((i) => `plain line ${i}`);
    lines[3] = "ghp_0123456789abcdefghijABCDEFGHIJ012345 and then ghp_ alone";
    lines[6] = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    const text = lines.join("\n");
    const found = findSecrets(text, RULES);
    expect(found.length).toBe(2);
    const { after: next, markers, windows } = secondPass(text, found);
    expect(windows).toBeDefined();
    expect(windows).toEqual(windowsOf(next, RULES, markers));
  });

  it("leaves the scan to the caller when a finding holds a line break or the lines to scan again are many", () => {
    const text = "a\nb";
    expect(secondPass(text, [{ start: 0, end: 3, kind: "jwt" }]).windows).toBeUndefined();
    const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    expect(secondPass(token, findSecrets(token, RULES)).windows).toBeUndefined();
  });

  it("says what scanning the new text says, or leaves it to the caller", () => {
    const fragment = fc.constantFrom(
      "password: ",
      "Xk9#mP2vQ ",
      "token=",
      "abc",
      "Authorization: Bearer ",
      "[REDACTED:jwt]",
      "pass",
      "ghp_",
      "curl -u a:",
      "(\n",
      "secret",
      " ",
      "|",
      "Key",
      "DB_PASSWORD=",
      "://u:p@h",
    );
    const line = fc.array(fragment, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(""));
    const texts = fc.array(line, { minLength: 1, maxLength: 14 }).map((ls) => ls.join("\n"));
    // Findings the rules make, or spans anywhere outside markers and line breaks (a finding of a rule may
    // cover a trigger of another line's group).
    const cases = fc
      .tuple(texts, fc.array(fc.nat(60), { maxLength: 12 }), fc.boolean())
      .map(([text, cuts, own]) => {
        if (own) return { text, found: findSecrets(text, RULES) };
        const markers = markersIn(text);
        const found: Finding[] = [];
        let at = 0;
        for (const [k, cut] of cuts.entries()) {
          const start = at + cut;
          const end = start + 1 + (k % 5);
          if (end > text.length) break;
          const clear =
            !text.slice(start, end).includes("\n") && !markers.some((m) => m.start < end && start < m.end);
          if (clear) found.push({ start, end, kind: "jwt" });
          at = end;
        }
        return { text, found };
      });
    let told = 0;
    fc.assert(
      fc.property(cases, ({ text, found }) => {
        if (found.length === 0) return;
        const { after: next, markers, windows } = secondPass(text, found);
        if (windows === undefined) return;
        told++;
        expect(windows).toEqual(windowsOf(next, RULES, markers));
      }),
      { numRuns: 3000 },
    );
    expect(told).toBeGreaterThan(500);
  });
});

describe("linesAround", () => {
  it("takes the lines of each span and as many around them, merged", () => {
    const text = "a\nb\nc\nd\ne\nf";
    expect(linesAround(text, [{ start: 4, end: 5 }], 1)).toEqual([{ start: 2, end: 7 }]);
    expect(
      linesAround(
        text,
        [
          { start: 0, end: 1 },
          { start: 10, end: 11 },
        ],
        0,
      ),
    ).toEqual([
      { start: 0, end: 1 },
      { start: 10, end: 11 },
    ]);
    expect(linesAround(text, [{ start: 2, end: 3 }], 5)).toEqual([{ start: 0, end: text.length }]);
  });
});
