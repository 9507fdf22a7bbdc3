import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  FlushMarks,
  initialFlushMarks,
  initialSessionState,
  SessionState,
  sessionStatePath,
  withCapture,
  withPendingRestore,
} from "../../plugin/session/session-state.ts";

const AT = "2026-11-22T12:00:00.000Z";
const ref = (n: number) => ({
  id: `2026-11-22-${String(n).padStart(2, "0")}`,
  file: "memory/2026-11-22.md",
  trigger: "manual",
  at: AT,
});
const issues = (value: unknown) =>
  SessionState.safeParse(value).error?.issues.map((i) => ({ path: i.path.join("."), code: i.code }));

describe("SessionState", () => {
  it("accepts a fresh state, and an older state file without a line of work (read as none)", () => {
    const fresh = initialSessionState("agent:main:main", "main");
    expect(SessionState.parse(fresh)).toEqual(fresh);
    const { line: _line, ...older } = fresh;
    expect(SessionState.parse(older).line).toBeNull();
  });

  it("rejects another version, a negative cycle count, an unknown restore reason and more than 50 snapshots, naming where", () => {
    const fresh = initialSessionState("agent:main:main", null);
    expect(issues({ ...fresh, version: 2 })).toEqual([{ path: "version", code: "invalid_value" }]);
    expect(issues({ ...fresh, cycle: { ...fresh.cycle, n: -1 } })).toEqual([
      { path: "cycle.n", code: "too_small" },
    ]);
    expect(
      issues({
        ...fresh,
        pendingRestore: { id: "2026-11-22-01", file: "memory/2026-11-22.md", reason: "whim", at: AT },
      }),
    ).toEqual([{ path: "pendingRestore.reason", code: "invalid_value" }]);
    const many = Array.from({ length: 51 }, (_, i) => ref(i + 1));
    expect(issues({ ...fresh, snapshots: many })).toEqual([{ path: "snapshots", code: "too_big" }]);
    expect(issues({ ...fresh, trail: null })).toEqual([{ path: "trail", code: "invalid_type" }]);
  });
});

describe("initialSessionState", () => {
  it("starts with an empty trail, cycle 0, nothing pending or restored, at the epoch", () => {
    const s = initialSessionState("agent:ops:x", "ops");
    expect(s).toMatchObject({
      version: 1,
      sessionKey: "agent:ops:x",
      agentId: "ops",
      cycle: { n: 0, compacting: false, captured: null, thresholds: [] },
      pendingRestore: null,
      line: null,
      snapshots: [],
      lastRestore: null,
      updatedAt: "1970-01-01T00:00:00.000Z",
    });
    expect(s.trail.turns).toBe(0);
  });
});

describe("withCapture", () => {
  it("records the snapshot as covering the cycle, newest last, without changing its input", () => {
    const s = initialSessionState("agent:main:main", "main");
    const next = withCapture(withCapture(s, ref(1)), { ...ref(2), at: "2026-11-22T13:00:00.000Z" });
    expect(next.cycle.captured).toBe("2026-11-22-02");
    expect(next.snapshots.map((x) => x.id)).toEqual(["2026-11-22-01", "2026-11-22-02"]);
    expect(next.updatedAt).toBe("2026-11-22T13:00:00.000Z");
    expect(s.snapshots).toEqual([]);
    expect(s.cycle.captured).toBeNull();
  });

  it("keeps one entry per id, moved to the end with its newest details", () => {
    let s = initialSessionState("agent:main:main", "main");
    for (const n of [1, 2, 1]) s = withCapture(s, ref(n));
    s = withCapture(s, { ...ref(2), trigger: "flush" });
    expect(s.snapshots.map((x) => [x.id, x.trigger])).toEqual([
      ["2026-11-22-01", "manual"],
      ["2026-11-22-02", "flush"],
    ]);
  });

  it("keeps the 50 newest, so the state always parses", () => {
    let s = initialSessionState("agent:main:main", "main");
    for (let n = 1; n <= 60; n++) s = withCapture(s, ref(n));
    expect(s.snapshots).toHaveLength(50);
    expect(s.snapshots[0]?.id).toBe("2026-11-22-11");
    expect(s.snapshots.at(-1)?.id).toBe("2026-11-22-60");
    expect(SessionState.safeParse(s).success).toBe(true);
  });
});

describe("withPendingRestore", () => {
  it("queues the capture with its reason and instant, replacing one already queued", () => {
    const s = withPendingRestore(initialSessionState("agent:main:main", "main"), ref(1), "compaction", AT);
    const next = withPendingRestore(s, ref(2), "resume", "2026-11-22T12:01:00.000Z");
    expect(s.pendingRestore).toEqual({
      id: "2026-11-22-01",
      file: "memory/2026-11-22.md",
      reason: "compaction",
      at: AT,
    });
    expect(next.pendingRestore).toEqual({
      id: "2026-11-22-02",
      file: "memory/2026-11-22.md",
      reason: "resume",
      at: "2026-11-22T12:01:00.000Z",
    });
  });
});

describe("sessionStatePath", () => {
  const dir = join("/ws", ".big-memory");
  const name = (key: string) => basename(sessionStatePath(dir, key));

  it("names the file by a readable slug of the key and a short hash, under sessions/", () => {
    const path = sessionStatePath(dir, "agent:main:main");
    expect(dirname(path)).toBe(join(dir, "sessions"));
    expect(basename(path)).toMatch(/^agent-main-main-[0-9a-f]{10}\.json$/);
    expect(sessionStatePath(dir, "agent:main:main")).toBe(path);
  });

  it("folds odd characters into dashes and never leaves the sessions folder", () => {
    for (const key of ["../../etc/passwd", "agent:main:telegram:group:-100 ü/\\?*", "", "\n"]) {
      expect(dirname(sessionStatePath(dir, key))).toBe(join(dir, "sessions"));
      expect(name(key)).toMatch(/^[a-zA-Z0-9_-]*-[0-9a-f]{10}\.json$/);
    }
    expect(name("../../etc/passwd")).toMatch(/^-etc-passwd-[0-9a-f]{10}\.json$/);
  });

  it("cuts the slug at 60 characters", () => {
    expect(name(`agent:main:${"x".repeat(200)}`)).toMatch(/^agent-main-x{49}-[0-9a-f]{10}\.json$/);
  });

  it("keeps keys apart whose slugs collide", () => {
    const keys = ["a:b", "a/b", "a b", "a::b", "a-b", `${"k".repeat(60)}1`, `${"k".repeat(60)}2`];
    const names = keys.map(name);
    expect(new Set(names.map((n) => n.replace(/-[0-9a-f]{10}\.json$/, ""))).size).toBeLessThan(keys.length);
    expect(new Set(names).size).toBe(keys.length);
  });
});

describe("FlushMarks", () => {
  it("starts empty and holds at most 20 marks", () => {
    const mark = {
      agentId: "main",
      flushSessionKey: null,
      file: "memory/2026-11-22.md",
      offset: 0,
      id: "2026-11-22-01",
      at: AT,
    };
    expect(FlushMarks.parse(initialFlushMarks())).toEqual({ version: 1, marks: [] });
    expect(FlushMarks.safeParse({ version: 1, marks: Array(20).fill(mark) }).success).toBe(true);
    expect(FlushMarks.safeParse({ version: 1, marks: Array(21).fill(mark) }).success).toBe(false);
    expect(FlushMarks.safeParse({ version: 1, marks: [{ ...mark, offset: -1 }] }).success).toBe(false);
  });
});
