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
    covers.push(effect.trigger);
    const covered: CycleEvent = {
      type: "covered",
      after: event,
      capture: opts.capture ?? capture(),
      restore: opts.restore ?? true,
    };
    ({ state, effects } = cycleStep(state, covered));
    expect(effects).toEqual([]);
  }
  return { state, covers };
}

describe("cycleStep", () => {
  it("covers a before-compaction, then marks the cycle compacting and queues the restore", () => {
    const s = fresh();
    const step = cycleStep(s, { type: "before-compaction", at: AT });
    expect(step).toEqual({ state: s, effects: [{ type: "cover", trigger: "compaction" }] });
    const { state } = apply(s, { type: "before-compaction", at: AT });
    expect(state.cycle).toEqual({ n: 0, compacting: true, captured: null, thresholds: [] });
    expect(state.pendingRestore).toEqual({
      id: "2026-11-22-01",
      file: "memory/2026-11-22.md",
      reason: "compaction",
      at: AT,
    });
  });

  it("closes the cycle on the after of a before, with no second cover and the restore kept", () => {
    const compacting = apply(withCapture(fresh(), { ...capture(), trigger: "compaction", at: AT }), {
      type: "before-compaction",
      at: AT,
    }).state;
    const step = cycleStep(compacting, { type: "after-compaction", at: LATER });
    expect(step.effects).toEqual([]);
    expect(step.state.cycle).toEqual({ n: 1, compacting: false, captured: null, thresholds: [] });
    expect(step.state.updatedAt).toBe(LATER);
    expect(step.state.pendingRestore).toEqual(compacting.pendingRestore);
    expect(step.state.snapshots).toEqual(compacting.snapshots);
  });

  it("covers an after-compaction that arrives alone, then closes the cycle and queues the restore", () => {
    const { state, covers } = apply(fresh(), { type: "after-compaction", at: LATER });
    expect(covers).toEqual(["compaction"]);
    expect(state.cycle).toEqual({ n: 1, compacting: false, captured: null, thresholds: [] });
    expect(state.updatedAt).toBe(LATER);
    expect(state.pendingRestore?.reason).toBe("compaction");
    expect(state.pendingRestore?.at).toBe(LATER);
  });

  it("closes the old cycle first when a before arrives while the last before's after was lost", () => {
    const first = apply(
      fresh(),
      { type: "before-compaction", at: AT },
      { capture: capture("2026-11-22-01") },
    );
    const step = cycleStep(first.state, { type: "before-compaction", at: LATER });
    expect(step.effects).toEqual([{ type: "cover", trigger: "compaction" }]);
    expect(step.state.cycle).toEqual({ n: 1, compacting: false, captured: null, thresholds: [] });
    const second = apply(
      first.state,
      { type: "before-compaction", at: LATER },
      { capture: capture("2026-11-22-02") },
    );
    expect(second.state.cycle.compacting).toBe(true);
    expect(second.state.pendingRestore?.id).toBe("2026-11-22-02");
  });

  it("covers a reset with the reset trigger, empties the trail and queues a reset restore", () => {
    const worked = {
      ...fresh(),
      trail: reduceTrail(emptyTrail(), { type: "ask", text: "fix ERR_LOGIN", at: AT }),
    };
    const { state, covers } = apply(worked, { type: "before-reset", at: LATER });
    expect(covers).toEqual(["reset"]);
    expect(state.trail).toEqual(emptyTrail());
    expect(state.cycle.n).toBe(1);
    expect(state.pendingRestore?.reason).toBe("reset");
  });

  it("ends a compaction in progress when a reset arrives (its after then counts as alone)", () => {
    const compacting = apply(fresh(), { type: "before-compaction", at: AT }).state;
    const reset = apply(compacting, { type: "before-reset", at: AT }).state;
    expect(reset.cycle.compacting).toBe(false);
    expect(apply(reset, { type: "after-compaction", at: LATER }).covers).toEqual(["compaction"]);
  });

  it("covers crossed thresholds with the threshold trigger, remembers each once, and never queues a restore", () => {
    const once = apply(fresh(), { type: "thresholds", crossed: [0.7], at: AT });
    expect(once.covers).toEqual(["threshold"]);
    const twice = apply(once.state, { type: "thresholds", crossed: [0.7, 0.9], at: AT }).state;
    expect(twice.cycle).toEqual({ n: 0, compacting: false, captured: null, thresholds: [0.7, 0.9] });
    expect(twice.pendingRestore).toBeNull();
  });

  it("queues nothing when restore is off or nothing covered the cycle, and keeps an earlier restore", () => {
    const queued = withPendingRestore(fresh(), capture("2026-11-21-04"), "resume", AT);
    const off = apply(queued, { type: "before-reset", at: LATER }, { restore: false }).state;
    const none = apply(
      queued,
      { type: "after-compaction", at: LATER },
      { capture: capture("", "none") },
    ).state;
    expect(off.pendingRestore).toEqual(queued.pendingRestore);
    expect(none.pendingRestore).toEqual(queued.pendingRestore);
    expect(none.cycle.n).toBe(1);
  });
});

describe("closeCycle", () => {
  it("counts the cycle and starts the next one with nothing captured", () => {
    const s = { ...fresh(), cycle: { n: 3, compacting: true, captured: "2026-11-22-01", thresholds: [0.5] } };
    expect(closeCycle(s).cycle).toEqual({ n: 4, compacting: false, captured: null, thresholds: [] });
    expect(s.cycle.n).toBe(3);
  });
});

describe("claimsFlush", () => {
  it("looks for the flush block on a before, a reset and a lone after, never on a paired after or thresholds", () => {
    const idle = fresh();
    const compacting = { ...idle, cycle: { ...idle.cycle, compacting: true } };
    const events: CycleHookEvent[] = [
      { type: "before-compaction", at: AT },
      { type: "after-compaction", at: AT },
      { type: "before-reset", at: AT },
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
  fc.constant<CycleHookEvent>({ type: "before-compaction", at: AT }),
  fc.constant<CycleHookEvent>({ type: "after-compaction", at: AT }),
  fc.constant<CycleHookEvent>({ type: "before-reset", at: AT }),
  fc
    .subarray([0.5, 0.7, 0.9], { minLength: 1 })
    .map((crossed): CycleHookEvent => ({ type: "thresholds", crossed, at: AT })),
);

const TRIGGER = {
  "before-compaction": "compaction",
  "after-compaction": "compaction",
  "before-reset": "reset",
  thresholds: "threshold",
} as const;

describe("cycleStep over any sequence of hook events", () => {
  it("covers each compaction, reset and crossing once, counts closed cycles, and queues only real restores", () => {
    const steps = fc.array(fc.record({ event: hookEvent, nothing: fc.boolean() }), { maxLength: 30 });
    fc.assert(
      fc.property(steps, fc.boolean(), (events, restore) => {
        let s = fresh();
        // The naive model: whether a compaction is open, the closed cycles, the thresholds of this cycle.
        const model = { compacting: false, n: 0, thresholds: new Set<number>() };
        events.forEach(({ event, nothing }, i) => {
          const id = `2026-11-22-${String(i + 1).padStart(2, "0")}`;
          const before = s;
          const claims = claimsFlush(before, event);
          // A fake cover: records the capture as coverCycle does, unless nothing covered the cycle.
          let { state, effects } = cycleStep(s, event);
          const covers: CoverTrigger[] = [];
          for (const effect of effects) {
            covers.push(effect.trigger);
            const found = capture(nothing ? "" : id, nothing ? "none" : "safety-net");
            const recorded = nothing
              ? state
              : withCapture(state, { ...found, trigger: effect.trigger, at: AT });
            ({ state, effects } = cycleStep(recorded, {
              type: "covered",
              after: event,
              capture: found,
              restore,
            }));
          }
          s = state;

          const paired = event.type === "after-compaction" && model.compacting;
          const closesFirst = event.type === "before-compaction" && model.compacting;
          const closesAfter = event.type === "after-compaction" || event.type === "before-reset";
          expect(covers).toEqual(paired ? [] : [TRIGGER[event.type]]);
          expect(claims).toBe(covers.length > 0 && event.type !== "thresholds");
          if (event.type === "thresholds") for (const t of event.crossed) model.thresholds.add(t);
          else if (event.type !== "before-compaction" || model.compacting) {
            model.n++;
            model.thresholds.clear();
          }
          model.compacting =
            event.type === "before-compaction" || (event.type === "thresholds" && model.compacting);
          expect(s.cycle.n).toBe(model.n);
          expect(s.cycle.compacting).toBe(model.compacting);
          expect([...s.cycle.thresholds].sort()).toEqual([...model.thresholds].sort());

          const queues = covers.length > 0 && event.type !== "thresholds" && restore && !nothing;
          const reason = event.type === "before-reset" ? "reset" : "compaction";
          expect(s.pendingRestore).toEqual(
            queues ? { id, file: "memory/2026-11-22.md", reason, at: AT } : before.pendingRestore,
          );
          const kept = closesFirst ? null : before.cycle.captured;
          expect(s.cycle.captured).toBe(closesAfter ? null : nothing ? kept : id);
          expect(SessionState.safeParse(s).success).toBe(true);
          expect(s.snapshots).toHaveLength(before.snapshots.length + (covers.length > 0 && !nothing ? 1 : 0));
        });
      }),
    );
  });
});
