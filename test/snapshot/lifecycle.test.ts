import { describe, expect, it } from "vitest";
import {
  historyOfName,
  isSharedSession,
  liveSnapshots,
  newestOfName,
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
