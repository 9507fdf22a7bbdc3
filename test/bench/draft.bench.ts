/**
 * The safety-net draft on real trails: every corpus session with at least 100 tool calls (test/fidelity/
 * fixtures), its first 100 calls and the texts around them reduced into a trail as the hooks reduce them,
 * then `draftSnapshot` timed on it. Baseline in the same run: checking the same trail against its schema
 * (`Trail.parse`), which every load of a session's state does. Goal: the draft well under 10 ms at p50.
 *
 * Run alone: `node test/bench/draft.bench.ts`.
 */
import { fileURLToPath } from "node:url";
import { draftSnapshot } from "../../plugin/capture/draft.ts";
import { emptyTrail, reduceTrail, Trail, type TrailEvent } from "../../plugin/capture/trail.ts";
import { corpusCandidates, findCorpus, loadCorpus } from "../fidelity/corpus.ts";
import { toolOutcome } from "../fidelity/hook-stream.ts";
import type { RealSession } from "../fidelity/session.ts";
import { fmt, percentile, printTable } from "./table.ts";

const CALLS = 100;
const AT = "2026-11-26T10:00:00.000Z";

/** The trail of a session's events up to its `calls`-th tool call, or null when it has fewer. */
export function trailOf(session: RealSession, calls = CALLS): Trail | null {
  let trail = emptyTrail();
  let seen = 0;
  for (const e of session.events) {
    let event: TrailEvent;
    if (e.kind === "user") event = { type: "ask", text: e.text, at: AT };
    else if (e.kind === "assistant") event = { type: "assistant", texts: [e.text], at: AT };
    else {
      event = { type: "tool", tool: e.tool, params: e.params, ...toolOutcome(e), at: AT };
      seen++;
    }
    trail = reduceTrail(trail, event);
    if (seen === calls) return trail;
  }
  return null;
}

/** Milliseconds of each call of `fn`, `runs` times, sorted. */
function times(runs: number, fn: () => unknown): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

export async function runDraftBench(opts: { runs?: number } = {}): Promise<void> {
  const runs = opts.runs ?? 40;
  const dir = findCorpus();
  if (dir === null) {
    console.log(`\n## The safety-net draft\n\nno corpus found: looked in ${corpusCandidates().join(", ")}`);
    return;
  }
  const trails = loadCorpus(dir)
    .sessions.map((s) => trailOf(s))
    .filter((t): t is Trail => t !== null);
  for (const trail of trails) draftSnapshot(trail); // warm up
  const draft = trails.flatMap((trail) => times(runs, () => draftSnapshot(trail))).sort((a, b) => a - b);
  const parse = trails.flatMap((trail) => times(runs, () => Trail.parse(trail))).sort((a, b) => a - b);
  const row = (name: string, xs: number[], goal: string) => [
    name,
    fmt(percentile(xs, 50), 3),
    fmt(percentile(xs, 99), 3),
    `${fmt(percentile(xs, 50) / percentile(parse, 50), 1)}x`,
    goal,
  ];
  printTable(
    `The safety-net draft on ${trails.length} real trails of ${CALLS} tool calls (ms, ${runs} runs each)`,
    [
      ["", "p50", "p99", "p50 vs schema check", "goal p50"],
      row("draftSnapshot", draft, "<= 10 (well under)"),
      row("Trail.parse of the same trail (baseline)", parse, ""),
    ],
  );
  const p50 = percentile(draft, 50);
  console.log(
    `${p50 <= 10 ? "met    " : "MISSED "} draft on a ${CALLS}-call real trail: p50 ${fmt(p50, 3)} ms (<= 10)`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runDraftBench();
