import { describe, expect, it } from "vitest";
import type { LedgerRecord } from "../../plugin/store/ledger.ts";
import { buildViewData, inert, islandText, viewSnapshot } from "../../plugin/surface/view-model.ts";
import { located, snapshot } from "../builders.ts";
import { HOSTILE } from "./view-fixture.ts";

const record = (over: Partial<LedgerRecord>): LedgerRecord => ({
  cycle: "2026-11-25T10:00:00.000Z",
  session: "agent:main:a",
  agent: "main",
  path: "preflight",
  flush: true,
  cover: "flush",
  snapshot: "2026-11-25-01",
  file: "memory/2026-11-25.md",
  outcome: "done",
  note: null,
  restore: null,
  ...over,
});

describe("buildViewData", () => {
  const a1 = located(snapshot("2026-11-24-01", { session: "agent:main:a", goal: "first" }), 1);
  const b1 = located(snapshot("2026-11-24-02", { session: "agent:main:b", goal: "other" }), 40);
  const a2 = located(snapshot("2026-11-25-01", { session: "agent:main:a", goal: "second" }), 1);

  it("diffs each snapshot against the previous one of its own session", () => {
    const data = buildViewData({
      workspace: "/w",
      generated: new Date("2026-11-26T00:00:00Z"),
      snapshots: [a1, b1, a2],
      diagnostics: [],
      ledger: [],
      restores: [],
      problems: [],
    });
    expect(data.snapshots.map((s) => [s.i, s.df?.from ?? null, s.df?.goal ?? null])).toEqual([
      ["2026-11-24-01", null, null],
      ["2026-11-24-02", null, null],
      ["2026-11-25-01", "2026-11-24-01", "first"],
    ]);
  });

  it("shows live snapshots only, as list does: tombstones and the versions they delete are left out", () => {
    const named = located(snapshot("2026-11-24-03", { name: "auth-fix" }), 80);
    const tomb = located(snapshot("2026-11-24-04", { name: "auth-fix", tombstone: true }), 120);
    const data = buildViewData({
      workspace: "/w",
      generated: new Date(),
      snapshots: [a1, named, tomb],
      diagnostics: [],
      ledger: [],
      restores: [],
      problems: [],
    });
    expect(data.snapshots.map((s) => s.i)).toEqual(["2026-11-24-01"]);
  });

  it("puts a problem on the block it names, and the others with the workspace's", () => {
    const data = buildViewData({
      workspace: "/w",
      generated: new Date(),
      snapshots: [a1],
      diagnostics: [
        { file: a1.file, line: 1, message: "checksum does not hold" },
        { file: "memory/2026-11-20.md", line: 3, message: "snapshot block has no end marker" },
      ],
      ledger: [],
      restores: [],
      problems: ["ledger unreadable"],
    });
    expect(data.snapshots[0]?.dg).toEqual(["checksum does not hold"]);
    expect(data.problems).toEqual([
      "ledger unreadable",
      "memory/2026-11-20.md:3: snapshot block has no end marker",
    ]);
  });

  it("carries every compaction with its cover and restore, and every restore with its tokens", () => {
    const data = buildViewData({
      workspace: "/w",
      generated: new Date(),
      snapshots: [],
      diagnostics: [],
      ledger: [
        record({ restore: { at: "2026-11-25T10:01:00.000Z", snapshot: "2026-11-25-01", tokens: 640.4 } }),
        record({
          cycle: "2026-11-25T11:00:00.000Z",
          path: "overflow",
          flush: false,
          cover: "none",
          snapshot: null,
        }),
      ],
      restores: [{ at: "2026-11-25T10:01:00.000Z", id: "2026-11-25-01", session: null, reason: "amnesia" }],
      problems: [],
    });
    expect(data.compactions.map((c) => [c.p, c.fl, c.c, c.sn, c.r?.k ?? null])).toEqual([
      ["preflight", true, "flush", "2026-11-25-01", 640],
      ["overflow", false, "none", null, null],
    ]);
    expect(data.restores).toEqual([
      {
        t: "2026-11-25T10:01:00.000Z",
        m: Date.parse("2026-11-25T10:01:00.000Z"),
        sn: "2026-11-25-01",
        s: null,
        why: "amnesia",
        k: 0,
      },
    ]);
  });
});

describe("viewSnapshot", () => {
  it("escapes control and bidirectional characters in every text, and keeps markup as plain text", () => {
    const s = snapshot("2026-11-25-01", {
      goal: HOSTILE.bidi,
      files: [{ path: HOSTILE.link, note: HOSTILE.control }],
      code: HOSTILE.closing,
    });
    const v = viewSnapshot(located(s), undefined, []);
    expect(v.goal).toBe("invoice\\u202etxt.exe and \\u2066isolate\\u2069");
    expect(v.fi).toEqual([[HOSTILE.link, "bell\\u0007 and escape \\u001b[2J"]]);
    expect(v.co).toBe(HOSTILE.closing);
    expect(v.v).toBe(true);
  });
});

describe("inert", () => {
  it("writes C0, C1, line separators and bidi controls as escapes and leaves other text", () => {
    expect(inert("a\u0000b\u009bc\u2028d\u200fe\u2067f\tg\nh")).toBe(
      "a\\u0000b\\u009bc\\u2028d\\u200fe\\u2067f\tg\nh",
    );
  });
});

describe("islandText", () => {
  it("holds no <, > or & and parses back to the same data, whatever the snapshots say", () => {
    const data = buildViewData({
      workspace: "/w",
      generated: new Date("2026-11-26T00:00:00Z"),
      snapshots: Object.values(HOSTILE).map((text, i) =>
        located(snapshot(`2026-11-25-0${i + 1}`, { goal: text, next: [`${text}\u2028`] }), 1 + i * 40),
      ),
      diagnostics: [],
      ledger: [],
      restores: [],
      problems: [],
    });
    const text = islandText(data);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(data);
  });
});
