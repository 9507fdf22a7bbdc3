import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyTrail, reduceTrail } from "../../plugin/capture/trail.ts";
import {
  type CoverTrigger,
  type CycleCapture,
  type CycleEvent,
  type CycleHookEvent,
  claimsFlush,
  closeCycle,
  cycleStep,
} from "../../plugin/session/cycle.ts";
import {
  initialSessionState,
  SessionState,
  withCapture,
  withPendingRestore,
} from "../../plugin/session/session-state.ts";

const AT = "2026-11-22T12:00:00.000Z";
const LATER = "2026-11-22T12:05:00.000Z";
const fresh = () => initialSessionState("agent:main:main", "main");
const capture = (id = "2026-11-22-01", source: CycleCapture["source"] = "safety-net"): CycleCapture => ({
  id,
  file: "memory/2026-11-22.md",
  source,
});

/** One hook event and its settling, as the capture service applies them with `capture` covering the cycle. */
function apply(
  s: SessionState,
  event: CycleHookEvent,
  opts: { capture?: CycleCapture; restore?: boolean } = {},
): { state: SessionState; covers: CoverTrigger[] } {
  let { state, effects } = cycleStep(s, event);
  const covers: CoverTrigger[] = [];
  for (const effect of effects) {
    if (effect.type !== "cover") continue;
    covers.push(effect.trigger);
    const covered: CycleEvent = {
      type: "covered",
      after: event,
      capture: opts.capture ?? capture(),
      restore: opts.restore ?? true,
    };
    ({ state, effects } = cycleStep(state, covered));
    expect(effects.every((x) => x.type === "record")).toBe(true);
  }
  return { state, covers };
}

/** The ledger facts one hook event and its settling record. */
function facts(
  s: SessionState,
  event: CycleHookEvent,
  opts: { capture?: CycleCapture; flushRan?: boolean } = {},
) {
  let { state, effects } = cycleStep(s, event);
  const out: unknown[] = [];
  const pending = [...effects];
  for (let e = pending.shift(); e !== undefined; e = pending.shift()) {
    if (e.type === "record") {
      out.push(e.fact);
      continue;
    }
    ({ state, effects } = cycleStep(state, {
      type: "covered",
      after: event,
      capture: opts.capture ?? capture(),
      restore: true,
      flushRan: opts.flushRan ?? false,
    }));
    pending.push(...effects);
  }
  return { state, facts: out };
}

const beforeEv = (at = AT): CycleHookEvent => ({ type: "before-compaction", at, path: "manual" });
const afterEv = (at = LATER): CycleHookEvent => ({ type: "after-compaction", at, path: "manual" });
const reset = (at = LATER): CycleHookEvent => ({ type: "before-reset", at, path: "reset" });
const CLOSED = { compacting: false, captured: null, thresholds: [], held: null, opened: null, path: null };

describe("cycleStep", () => {
  it("covers a before-compaction and holds its snapshot: nothing is queued until the compaction is known", () => {
    const s = fresh();
    expect(cycleStep(s, beforeEv())).toEqual({
      state: s,
      effects: [{ type: "cover", trigger: "compaction" }],
    });
    const { state } = apply(s, beforeEv());
    expect(state.cycle).toEqual({
      n: 0,
      compacting: true,
      captured: null,
      thresholds: [],
      held: { id: "2026-11-22-01", file: "memory/2026-11-22.md", at: AT },
      opened: AT,
      path: "manual",
    });
    expect(state.pendingRestore).toBeNull();
  });

  it("queues the held snapshot when the after arrives, with no second cover, and closes the cycle", () => {
    const compacting = apply(fresh(), beforeEv()).state;
    const step = cycleStep(compacting, afterEv());
    expect(step.effects).toEqual([
      {
        type: "record",
        fact: { kind: "outcome", cycle: AT, session: "agent:main:main", at: LATER, outcome: "done" },
      },
    ]);
    expect(step.state.cycle).toEqual({ n: 1, ...CLOSED });
    expect(step.state.pendingRestore).toEqual({
      id: "2026-11-22-01",
      file: "memory/2026-11-22.md",
      reason: "compaction",
      at: LATER,
      cycle: AT,
    });
  });

  it("queues the held snapshot at the next turn when its conversation shows the compaction happened", () => {
    const compacting = apply(fresh(), beforeEv()).state;
    const step = cycleStep(compacting, { type: "turn", at: LATER, compacted: true });
    expect(step.state.pendingRestore?.id).toBe("2026-11-22-01");
    expect(step.state.cycle.n).toBe(1);
    expect(step.effects).toEqual([
      {
        type: "record",
        fact: {
          kind: "outcome",
          cycle: AT,
          session: "agent:main:main",
          at: LATER,
          outcome: "done",
          note: "no after_compaction; the next turn's conversation was compacted",
        },
      },
    ]);
  });

  it("restores nothing after a compaction that failed, and records the failure; the snapshot still covers", () => {
    const compacting = apply(fresh(), beforeEv()).state;
    const step = cycleStep(compacting, { type: "turn", at: LATER, compacted: false });
    expect(step.state.pendingRestore).toBeNull();
    expect(step.state.cycle).toEqual({
      ...compacting.cycle,
      ...CLOSED,
      captured: compacting.cycle.captured,
      n: 0,
    });
    expect(step.effects).toEqual([
      {
        type: "record",
        fact: {
          kind: "outcome",
          cycle: AT,
          session: "agent:main:main",
          at: LATER,
          outcome: "failed",
          note: "no after_compaction, and the next turn's conversation was not compacted",
        },
      },
    ]);
  });

  it("ignores a turn when no compaction is open", () => {
    const s = fresh();
    expect(cycleStep(s, { type: "turn", at: LATER, compacted: true })).toEqual({ state: s, effects: [] });
  });

  it("covers an after-compaction that arrives alone, then closes the cycle and queues the restore", () => {
    const { state, covers } = apply(fresh(), afterEv());
    expect(covers).toEqual(["compaction"]);
    expect(state.cycle).toEqual({ n: 1, ...CLOSED });
    expect(state.updatedAt).toBe(LATER);
    expect(state.pendingRestore).toMatchObject({ reason: "compaction", at: LATER, cycle: LATER });
  });

  it("records a before whose after never came as failed when the next before arrives, and holds the new one", () => {
    const first = apply(fresh(), beforeEv(), { capture: capture("2026-11-22-01") });
    const second = facts(first.state, beforeEv(LATER), { capture: capture("2026-11-22-02") });
    expect(second.facts[0]).toMatchObject({ kind: "outcome", cycle: AT, outcome: "failed" });
    expect(second.facts[1]).toMatchObject({
      kind: "cycle",
      cycle: LATER,
      outcome: "open",
      snapshot: "2026-11-22-02",
    });
    expect(second.state.cycle.held?.id).toBe("2026-11-22-02");
    expect(second.state.pendingRestore).toBeNull();
  });

  it("records a cycle fact with the path, the flush and the cover; a manual compaction after a flush is a preflight", () => {
    expect(
      facts(fresh(), beforeEv(), { capture: capture("2026-11-22-03", "flush"), flushRan: true }).facts,
    ).toEqual([
      {
        kind: "cycle",
        cycle: AT,
        session: "agent:main:main",
        agent: "main",
        at: AT,
        path: "preflight",
        flush: true,
        cover: "flush",
        snapshot: "2026-11-22-03",
        file: "memory/2026-11-22.md",
        outcome: "open",
      },
    ]);
    const overflow: CycleHookEvent = { type: "before-compaction", at: AT, path: "overflow" };
    expect(facts(fresh(), overflow, { capture: capture("", "none") }).facts).toEqual([
      expect.objectContaining({ path: "overflow", flush: false, cover: "none", snapshot: null, file: null }),
    ]);
  });

  it("covers a reset with the reset trigger, empties the trail and queues a reset restore", () => {
    const worked = {
      ...fresh(),
      trail: reduceTrail(emptyTrail(), { type: "ask", text: "fix ERR_LOGIN", at: AT }),
    };
    const { state, covers } = apply(worked, reset());
    expect(covers).toEqual(["reset"]);
    expect(state.trail).toEqual(emptyTrail());
    expect(state.cycle.n).toBe(1);
    expect(state.pendingRestore?.reason).toBe("reset");
    const rollover = facts(worked, { type: "before-reset", at: LATER, path: "rollover" });
    expect(rollover.facts).toEqual([
      expect.objectContaining({ kind: "cycle", path: "rollover", outcome: "done" }),
    ]);
  });

  it("covers a compaction noticed with no hook (a trim, a provider's) and queues its restore at once", () => {
    for (const path of ["trim", "provider"] as const) {
      const noticed = facts(fresh(), { type: "noticed", at: LATER, path });
      expect(noticed.state.pendingRestore).toMatchObject({ reason: "compaction", cycle: LATER });
      expect(noticed.state.cycle.n).toBe(1);
      expect(noticed.facts).toEqual([
        expect.objectContaining({ path, outcome: "done", cover: "safety-net" }),
      ]);
    }
  });

  it("takes a provider's markers as handled only as its cycle settles, and moves nothing for markers taken", () => {
    const ev = (marks: string[]): CycleHookEvent => ({ type: "noticed", at: LATER, path: "provider", marks });
    // Before the cover answers, nothing is taken: a process that dies while it writes leaves the marker.
    expect(cycleStep(fresh(), ev(["m1", "m1"])).state.seen.providerMarks).toEqual([]);
    const once = facts(fresh(), ev(["m1", "m1"]));
    expect(once.state.seen.providerMarks).toEqual(["m1"]);
    expect(cycleStep(once.state, ev(["m1"]))).toEqual({ state: once.state, effects: [] });
    const twice = facts(once.state, ev(["m1", "m2"]));
    expect(twice.state.seen.providerMarks).toEqual(["m1", "m2"]);
    expect(twice.facts).toHaveLength(1);
    // Only the last 20 are kept.
    let s = fresh();
    for (let n = 0; n < 25; n++) s = facts(s, ev([`m${n}`])).state;
    expect(s.seen.providerMarks).toEqual(Array.from({ length: 20 }, (_, n) => `m${n + 5}`));
  });

  it("ends a compaction in progress when a reset arrives (its after then counts as alone)", () => {
    const compacting = apply(fresh(), beforeEv()).state;
    const afterReset = apply(compacting, reset(AT)).state;
    expect(afterReset.cycle.compacting).toBe(false);
    expect(afterReset.pendingRestore?.reason).toBe("reset");
    expect(apply(afterReset, afterEv()).covers).toEqual(["compaction"]);
  });

  it("covers crossed thresholds with the threshold trigger, remembers each once, and never queues a restore", () => {
    const once = apply(fresh(), { type: "thresholds", crossed: [0.7], at: AT });
    expect(once.covers).toEqual(["threshold"]);
    const twice = apply(once.state, { type: "thresholds", crossed: [0.7, 0.9], at: AT }).state;
    expect(twice.cycle).toEqual({ n: 0, ...CLOSED, thresholds: [0.7, 0.9] });
    expect(twice.pendingRestore).toBeNull();
  });

  it("never replaces what the user asked for: a resume stays first, the compaction's restore waits behind it", () => {
    const resumed = withPendingRestore(fresh(), capture("2026-11-21-04"), "resume", AT, {
      line: { name: "billing-export-v2", parent: null },
    });
    const compacted = apply(apply(resumed, beforeEv()).state, afterEv()).state;
    expect(compacted.pendingRestore).toMatchObject({ id: "2026-11-21-04", reason: "resume" });
    expect(compacted.queue).toEqual([expect.objectContaining({ id: "2026-11-22-01", reason: "compaction" })]);
    const again = apply(compacted, afterEv("2026-11-22T12:09:00.000Z"), {
      capture: capture("2026-11-22-02"),
    }).state;
    expect(again.queue.map((p) => p.id)).toEqual(["2026-11-22-02"]);
    expect(again.pendingRestore?.id).toBe("2026-11-21-04");
  });

  it("queues nothing when restore is off or nothing covered the cycle, and keeps an earlier restore", () => {
    const queued = withPendingRestore(fresh(), capture("2026-11-21-04"), "resume", AT);
    const off = apply(queued, reset(), { restore: false }).state;
    const none = apply(queued, afterEv(), { capture: capture("", "none") }).state;
    expect(off.pendingRestore).toEqual(queued.pendingRestore);
    expect(none.pendingRestore).toEqual(queued.pendingRestore);
    expect(none.queue).toEqual([]);
    expect(none.cycle.n).toBe(1);
  });
});

describe("closeCycle", () => {
  it("counts the cycle and starts the next one with nothing captured or held, and forgets the count seen", () => {
    const s: SessionState = {
      ...fresh(),
      cycle: {
        ...fresh().cycle,
        n: 3,
        compacting: true,
        captured: "2026-11-22-01",
        thresholds: [0.5],
        opened: AT,
      },
      seen: { messages: 12, summaries: 1, providerMarks: ["x"] },
    };
    expect(closeCycle(s).cycle).toEqual({ n: 4, ...CLOSED });
    expect(closeCycle(s).seen).toEqual({ messages: null, summaries: 1, providerMarks: ["x"] });
    expect(s.cycle.n).toBe(3);
  });
});

describe("claimsFlush", () => {
  it("looks for the flush block on a before, a reset and a lone after, never on a paired after or thresholds", () => {
    const idle = fresh();
    const compacting = { ...idle, cycle: { ...idle.cycle, compacting: true } };
    const events: CycleHookEvent[] = [
      beforeEv(),
      afterEv(),
      reset(),
      { type: "thresholds", crossed: [0.7], at: AT },
    ];
    expect(events.map((e) => [claimsFlush(idle, e), claimsFlush(compacting, e)])).toEqual([
      [true, true],
      [true, false],
      [true, true],
      [false, false],
    ]);
  });
});

const hookEvent: fc.Arbitrary<CycleHookEvent> = fc.oneof(
  fc.constant<CycleHookEvent>(beforeEv()),
  fc.constant<CycleHookEvent>(afterEv(AT)),
  fc.constant<CycleHookEvent>(reset(AT)),
  fc.boolean().map((compacted): CycleHookEvent => ({ type: "turn", at: AT, compacted })),
  fc
    .constantFrom<"trim" | "provider">("trim", "provider")
    .map((path): CycleHookEvent => ({ type: "noticed", at: AT, path })),
  fc
    .subarray([0.5, 0.7, 0.9], { minLength: 1 })
    .map((crossed): CycleHookEvent => ({ type: "thresholds", crossed, at: AT })),
);

describe("cycleStep over any sequence of hook events", () => {
  it("queues a compaction's restore only once it is known to have happened, and never over the user's", () => {
    const steps = fc.array(fc.record({ event: hookEvent, nothing: fc.boolean() }), { maxLength: 30 });
    fc.assert(
      fc.property(steps, fc.boolean(), (events, asked) => {
        let s = asked ? withPendingRestore(fresh(), capture("2026-11-20-01"), "resume", AT) : fresh();
        // The naive model: an open compaction and what it holds; closed cycles.
        const model = { open: false, held: null as string | null, n: 0 };
        events.forEach(({ event, nothing }, i) => {
          const id = `2026-11-22-${String(i + 1).padStart(2, "0")}`;
          const prior = s;
          let { state, effects } = cycleStep(s, event);
          const pending = [...effects];
          let covered = false;
          for (let e = pending.shift(); e !== undefined; e = pending.shift()) {
            if (e.type === "record") continue;
            covered = true;
            const found = capture(nothing ? "" : id, nothing ? "none" : "safety-net");
            const recorded = nothing ? state : withCapture(state, { ...found, trigger: e.trigger, at: AT });
            ({ state, effects } = cycleStep(recorded, {
              type: "covered",
              after: event,
              capture: found,
              restore: true,
            }));
            pending.push(...effects);
          }
          s = state;
          let queued: string | null = null;
          switch (event.type) {
            case "before-compaction":
              model.open = true;
              model.held = nothing ? null : id;
              break;
            case "after-compaction":
              queued = model.open ? model.held : nothing ? null : id;
              model.open = false;
              model.held = null;
              model.n++;
              break;
            case "turn":
              if (model.open && event.compacted) {
                queued = model.held;
                model.n++;
              }
              model.open = false;
              model.held = null;
              break;
            case "before-reset":
            case "noticed":
              queued = nothing ? null : id;
              model.open = false;
              model.held = null;
              model.n++;
              break;
            case "thresholds":
              break;
          }
          expect(covered).toBe(
            event.type !== "turn" && !(event.type === "after-compaction" && prior.cycle.compacting),
          );
          expect(s.cycle.n).toBe(model.n);
          expect(s.cycle.compacting).toBe(model.open);
          expect(s.cycle.held?.id ?? null).toBe(model.held);
          const all = [s.pendingRestore, ...s.queue].filter((p) => p !== null);
          if (asked) expect(s.pendingRestore?.id).toBe("2026-11-20-01");
          if (queued !== null) expect(all.map((p) => p.id)).toContain(queued);
          else
            expect(all.filter((p) => p.reason !== "resume")).toEqual(
              [prior.pendingRestore, ...prior.queue].filter((p) => p !== null && p.reason !== "resume"),
            );
          expect(all.filter((p) => p.reason !== "resume").length).toBeLessThanOrEqual(1);
          expect(SessionState.safeParse(s).success).toBe(true);
        });
      }),
    );
  });
});
