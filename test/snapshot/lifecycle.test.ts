import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  historyOfName,
  inScope,
  isSharedSession,
  latestCandidate,
  latestSettled,
  live,
  liveNewestFirst,
  liveSnapshots,
  newestOfName,
  type Requester,
  retentionStart,
  scopeFilter,
  withinRetention,
} from "../../plugin/snapshot/lifecycle.ts";
import type { LocatedSnapshot } from "../../plugin/snapshot/snapshot.ts";
import { located, snapshot } from "../builders.ts";

function at(n: number, name: string | null, tombstone = false): LocatedSnapshot {
  const nn = String(n).padStart(2, "0");
  const s = snapshot(`2026-11-22-${nn}`, {
    timestamp: `2026-11-22T10:${nn}:00+00:00`,
    name,
    tombstone,
    goal: `goal ${n}`,
  });
  return located(s, n * 10);
}
const idsOf = (l: LocatedSnapshot[]) => l.map((s) => s.snapshot.id.slice(-2));

describe("liveSnapshots", () => {
  it("keeps every version of a name and unnamed snapshots", () => {
    expect(idsOf(liveSnapshots([at(1, "auth-fix"), at(2, null), at(3, "auth-fix")]))).toEqual([
      "01",
      "02",
      "03",
    ]);
  });

  it("hides a deleted name's versions and the tombstone, but not a later reuse of the name", () => {
    const log = [
      at(1, "auth-fix"),
      at(2, "auth-fix"),
      at(3, "auth-fix", true),
      at(4, null),
      at(5, "auth-fix"),
    ];
    expect(idsOf(liveSnapshots(log))).toEqual(["04", "05"]);
    expect(newestOfName(log, "auth-fix")?.snapshot.id).toBe("2026-11-22-05");
    expect(idsOf(historyOfName(log, "auth-fix"))).toEqual(["01", "02", "03", "05"]);
  });

  it("offers nothing for a name whose newest block is a tombstone", () => {
    expect(newestOfName([at(1, "auth-fix"), at(2, "auth-fix", true)], "auth-fix")).toBeUndefined();
  });
});

describe("isSharedSession", () => {
  it("tells group and channel sessions from direct ones", () => {
    expect(
      [
        "agent:main:main",
        "agent:main:telegram:group:-100123",
        "agent:main:discord:channel:42",
        "agent:main:msteams:group:abc",
        "agent:main:telegram:direct:777",
        "agent:main:googlechat:group:spaces/x",
      ].map(isSharedSession),
    ).toEqual([false, true, true, true, false, true]);
    expect(isSharedSession(null)).toBe(false);
  });
});

const metaArb = fc.array(fc.record({ name: fc.constantFrom(null, "a", "b"), tombstone: fc.boolean() }), {
  maxLength: 12,
});

describe("liveNewestFirst", () => {
  it("is live over the same items, read newest first", () => {
    fc.assert(
      fc.property(metaArb, (metas) => {
        const items = metas.map((m, i) => ({ ...m, i }));
        const newestFirst = [...items].reverse();
        expect(liveNewestFirst(newestFirst, (x) => x)).toEqual(live(items, (x) => x).reverse());
      }),
    );
  });
});

describe("latestCandidate and latestSettled", () => {
  const newest = (items: { name: string | null; tombstone: boolean; i: number }[], name?: string) =>
    latestSettled([...items].reverse().find((x) => latestCandidate(x, name)));

  it("finds the newest live snapshot, or the newest of a name unless a tombstone ends it", () => {
    const items = [
      { name: "a", tombstone: false, i: 0 },
      { name: null, tombstone: false, i: 1 },
      { name: "a", tombstone: true, i: 2 },
      { name: "b", tombstone: false, i: 3 },
      { name: "b", tombstone: true, i: 4 },
    ];
    expect(newest(items)?.i).toBe(3);
    expect(newest(items, "a")).toBeUndefined();
    expect(newest(items, "b")).toBeUndefined();
    expect(newest(items.slice(0, 4), "b")?.i).toBe(3);
    expect(newest(items, "c")).toBeUndefined();
  });

  it("agrees with newestOfName over live snapshots for every history", () => {
    fc.assert(
      fc.property(metaArb, fc.constantFrom("a", "b"), (metas, name) => {
        const items = metas.map((m, i) => at(i + 1, m.name, m.tombstone));
        const snapshots = items.map((x) => x.snapshot).reverse();
        const viaRule = latestSettled(snapshots.find((x) => latestCandidate(x, name)));
        expect(viaRule?.id).toBe(newestOfName(items, name)?.snapshot.id);
      }),
    );
  });
});

describe("retention", () => {
  const now = new Date("2026-11-22T12:00:00Z");

  it("keeps everything without a limit", () => {
    expect(retentionStart({ now })).toBe(Number.NEGATIVE_INFINITY);
    expect(withinRetention("2001-01-01T00:00:00Z", { now })).toBe(true);
  });

  it("keeps what is no older than the limit, reading the timestamp's own offset", () => {
    const r = { retentionDays: 7, now };
    expect(retentionStart(r)).toBe(Date.parse("2026-11-15T12:00:00Z"));
    expect(
      [
        "2026-11-15T12:00:00Z",
        "2026-11-15T11:59:59Z",
        "2026-11-15T13:30:00+01:00",
        "2026-11-15T12:30:00+01:00",
      ].map((t) => withinRetention(t, r)),
    ).toEqual([true, false, true, false]);
  });

  it("does not keep a snapshot whose timestamp cannot be read once a limit is set", () => {
    expect(withinRetention("yesterday", { retentionDays: 7, now })).toBe(false);
  });
});

describe("scope", () => {
  const direct: Requester = { scope: "agent", sessionKey: "agent:main:main", agentId: "main" };
  const snap = (id: string, session: string | null, agent: string | null) => ({ id, session, agent });

  it("filters the index by session or agent, or not at all", () => {
    expect(scopeFilter({ ...direct, scope: "session" })).toEqual({ session: "agent:main:main" });
    expect(scopeFilter(direct)).toEqual({ agent: "main" });
    expect(scopeFilter({ ...direct, scope: "workspace" })).toEqual({});
    expect(scopeFilter({ scope: "session", sessionKey: null, agentId: null })).toEqual({});
  });

  it("shows a session its own snapshots in every scope, also those it owns by id", () => {
    const own = new Set(["2026-11-22-09"]);
    for (const scope of ["session", "agent", "workspace"] as const) {
      expect(inScope(snap("2026-11-22-01", "agent:main:main", "main"), { ...direct, scope }, new Set())).toBe(
        true,
      );
      expect(inScope(snap("2026-11-22-09", null, null), { ...direct, scope }, own)).toBe(true);
    }
  });

  it("shows the agent's other sessions in agent scope, other agents' only in workspace scope", () => {
    const sibling = snap("2026-11-22-02", "agent:main:telegram:direct:7", null);
    const other = snap("2026-11-22-03", "agent:ops:main", "ops");
    expect(inScope(sibling, { ...direct, scope: "session" }, new Set())).toBe(false);
    expect(inScope(sibling, direct, new Set())).toBe(true);
    expect(inScope(other, direct, new Set())).toBe(false);
    expect(inScope(other, { ...direct, scope: "workspace" }, new Set())).toBe(true);
  });

  it("never shows a shared channel a direct session's snapshot, nor one of no known session", () => {
    const channel: Requester = {
      scope: "workspace",
      sessionKey: "agent:main:discord:channel:1",
      agentId: "main",
    };
    expect(inScope(snap("2026-11-22-04", "agent:main:main", "main"), channel, new Set())).toBe(false);
    expect(inScope(snap("2026-11-22-05", null, null), channel, new Set())).toBe(false);
    expect(inScope(snap("2026-11-22-06", "agent:main:slack:channel:2", "main"), channel, new Set())).toBe(
      true,
    );
  });
});
