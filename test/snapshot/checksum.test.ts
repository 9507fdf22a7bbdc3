import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalForm, checksumOf } from "../../plugin/snapshot/checksum.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";
import { snapshot } from "../builders.ts";
import { snapshotArb } from "./arbitraries.ts";

describe("canonicalForm", () => {
  it("writes every field length-prefixed in a fixed order, ~ for an absent value and [n for a list", () => {
    const s = snapshot("2026-11-22-01", {
      session: null,
      agent: "main",
      trigger: null,
      goal: "ship",
      files: [{ path: "a.ts", note: "" }],
      next: ["one", "two"],
    });
    expect(canonicalForm(s)).toBe(
      "1:113:2026-11-22-0125:2026-11-22T10:00:00+00:00~4:main~~~5:false4:ship0:0:0:0:[14:a.ts0:[00:[0[0[23:one3:two[0",
    );
  });

  it("tells apart values that only differ in where one field ends and the next begins", () => {
    const a = snapshot("2026-11-22-01", { next: ["ab", "c"] });
    const b = snapshot("2026-11-22-01", { next: ["a", "bc"] });
    const c = snapshot("2026-11-22-01", { blockers: ["ab"], next: ["c"] });
    expect(new Set([canonicalForm(a), canonicalForm(b), canonicalForm(c)]).size).toBe(3);
  });

  it("equals the form built from one array of values per list item, over random snapshots", () => {
    // The reference: every list as arrays of its items' values, each value length-prefixed, `~` for null.
    const f = (v: string | number | boolean | null) =>
      v === null ? "~" : `${String(v).length}:${String(v)}`;
    const list = (items: readonly (readonly string[])[]) => `[${items.length}${items.flat().map(f).join("")}`;
    const reference = (s: Snapshot) =>
      [s.version, s.id, s.timestamp, s.session, s.agent, s.trigger, s.name, s.parent, s.tombstone, s.goal]
        .concat([s.state.phase, s.state.branch, s.state.blocked, s.state.progress])
        .map(f)
        .join("") +
      list(s.files.map((x) => [x.path, x.note])) +
      list(s.decisions.map((d) => [d.text, d.rationale])) +
      f(s.code) +
      list(s.names.map((n) => [n.label, n.value])) +
      list(s.blockers.map((b) => [b])) +
      list(s.next.map((n) => [n])) +
      list(s.extra.map((e) => [e.heading, e.body]));
    fc.assert(
      fc.property(snapshotArb, (s) => {
        expect(canonicalForm(s)).toBe(reference(s));
      }),
      { numRuns: 1000 },
    );
  });

  it("tells apart an absent value from the text ~ and from an empty text", () => {
    const forms = [null, "~", ""].map((session) => canonicalForm(snapshot("2026-11-22-01", { session })));
    expect(new Set(forms).size).toBe(3);
  });
});

describe("checksumOf", () => {
  it("returns sha256: and 64 lower-case hex digits", () => {
    expect(checksumOf(snapshot("2026-11-22-01"))).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("gives the same checksum for equal snapshots and another one when any field changes", () => {
    const base = snapshot("2026-11-22-01");
    expect(checksumOf(snapshot("2026-11-22-01"))).toBe(checksumOf(base));
    const changed = [
      { tombstone: true },
      { parent: "auth-fix" },
      { state: { ...base.state, progress: "half" } },
      { extra: [{ heading: "Notes", body: "x" }] },
      { names: [{ label: "", value: "ERR_X" }] },
      { code: "x" },
    ].map((over) => checksumOf(snapshot("2026-11-22-01", over)));
    expect(changed).not.toContain(checksumOf(base));
    expect(new Set(changed).size).toBe(changed.length);
  });
});
