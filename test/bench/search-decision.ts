/**
 * The search bench's decision table: the current engine (frozen shards) and the sealed months on SQLite
 * FTS5 under the query layer, side by side with plain FTS5 from the same run, each figure with its ratio
 * to FTS5's and the goal it is held to; then the goals met or missed by each of the two engines.
 */
import { isAbsent, QUERY_CATEGORIES } from "./corpus.ts";
import type { EngineResult, SizeResult } from "./search.bench.ts";
import { percentile } from "./search.bench.ts";

const CURRENT = "big-memory";
const LAYER = "FTS5 + query layer";
const FTS = "SQLite FTS5";

type Row = [string, string, string, string, string, string, string];

const ms = (x: number) =>
  !Number.isFinite(x)
    ? "n/a"
    : x >= 1000
      ? `${(x / 1000).toFixed(1)} s`
      : x >= 10
        ? `${x.toFixed(0)} ms`
        : `${x.toFixed(2)} ms`;
const mb = (x: number) => (Number.isFinite(x) ? `${(x / 1e6).toFixed(1)} MB` : "n/a");
/** `ours` as a multiple of `base` (2.0x = twice FTS5's). */
const ratio = (ours: number, base: number) =>
  Number.isFinite(ours) && Number.isFinite(base) && base > 0 ? `${(ours / base).toFixed(1)}x` : "";
const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length);
const mrr = (e: EngineResult) => mean(QUERY_CATEGORIES.map((c) => e.mrr[c]));
const p99 = (e: EngineResult, c: (typeof QUERY_CATEGORIES)[number]) => percentile(e.latency[c], 0.99);
const absentClaims = (e: EngineResult, n: number) =>
  QUERY_CATEGORIES.filter(isAbsent).reduce((sum, c) => sum + Math.round((1 - e.mrr[c]) * n), 0);

/**
 * When a saved index is usable: the current engine once every month is loaded (its first answer comes
 * from the newest months alone); the FTS5 arm and plain FTS5 at their first answer, which searches every
 * sealed month on disk. The arm checks the logs' fingerprints after that answer (its own row).
 */
const usable = (e: EngineResult, name: string) => (name === CURRENT ? e.loadMs : e.firstAnswerMs);

/** The goals of each size (issue 23, item 2). */
function goals(n: number) {
  return n >= 100_000
    ? { heap: 100e6, usable: 200, build: true }
    : n >= 10_000
      ? { heap: 30e6, usable: 20, build: false }
      : undefined;
}

/** A result for an engine that did not run (`--arm-only`): every figure n/a. */
const NOT_RUN: EngineResult = {
  buildMs: Number.NaN,
  buildStallMs: Number.NaN,
  firstAnswerMs: Number.NaN,
  loadMs: Number.NaN,
  loadStallMs: Number.NaN,
  appendMs: [],
  latency: Object.fromEntries(QUERY_CATEGORIES.map((c) => [c, []])) as unknown as EngineResult["latency"],
  cpu: Object.fromEntries(QUERY_CATEGORIES.map((c) => [c, []])) as unknown as EngineResult["cpu"],
  mrr: Object.fromEntries(QUERY_CATEGORIES.map((c) => [c, Number.NaN])) as unknown as EngineResult["mrr"],
  top1: Object.fromEntries(QUERY_CATEGORIES.map((c) => [c, Number.NaN])) as unknown as EngineResult["top1"],
  absentHits: {},
  memoryBytes: Number.NaN,
  rssBytes: Number.NaN,
  diskBytes: Number.NaN,
};

function engines(r: SizeResult): [EngineResult, EngineResult, EngineResult] | undefined {
  const [b, l, f] = [r.engines[CURRENT] ?? NOT_RUN, r.engines[LAYER], r.engines[FTS]];
  return l === undefined || f === undefined ? undefined : [b, l, f];
}

/** The table, one block of rows per size. */
export function decisionTable(results: readonly SizeResult[]): string[] {
  const rows: Row[] = [];
  for (const r of results) {
    const all = engines(r);
    if (all === undefined) continue;
    const [b, l, f] = all;
    const g = goals(r.snapshots);
    const perClass = r.queries / QUERY_CATEGORIES.length;
    rows.push([`${r.snapshots} snapshots, ${r.queries} queries`, "", "", "", "", "", ""]);
    const time = (label: string, pick: (e: EngineResult) => number, goal: string) =>
      rows.push([
        label,
        ms(pick(b)),
        ms(pick(l)),
        ms(pick(f)),
        ratio(pick(b), pick(f)),
        ratio(pick(l), pick(f)),
        goal,
      ]);
    time("  cold build from markdown", (e) => e.buildMs, g?.build === true ? "<= FTS5's" : "");
    time("  first answer after start", (e) => e.firstAnswerMs, "");
    time(
      "  saved index usable (every month searched)",
      (e) => usable(e, e === b ? CURRENT : LAYER),
      g === undefined ? "" : `<= ${ms(g.usable)}`,
    );
    time(
      "  logs' fingerprints checked after",
      (e) => (e === l ? e.loadMs - e.firstAnswerMs : Number.NaN),
      "",
    );
    time("  append -> searchable (median)", (e) => percentile(e.appendMs, 0.5), "<= 1 s");
    for (const c of QUERY_CATEGORIES) {
      const cell = (e: EngineResult) => `${ms(percentile(e.latency[c], 0.5))} / ${ms(p99(e, c))}`;
      rows.push([
        `  query ${c} p50 / p99`,
        cell(b),
        cell(l),
        cell(f),
        ratio(p99(b, c), p99(f, c)),
        ratio(p99(l, c), p99(f, c)),
        g === undefined ? "" : "p99 <= 2x",
      ]);
    }
    const q = (e: EngineResult) => (e === NOT_RUN ? "n/a" : mrr(e).toFixed(3));
    rows.push(["  MRR@5 all categories", q(b), q(l), q(f), "", "", g === undefined ? "" : ">= 0.99"]);
    for (const c of QUERY_CATEGORIES) {
      rows.push([
        `  MRR@5 ${c}`,
        b === NOT_RUN ? "n/a" : b.mrr[c].toFixed(3),
        l.mrr[c].toFixed(3),
        f.mrr[c].toFixed(3),
        "",
        "",
        "",
      ]);
    }
    const claims = (e: EngineResult) =>
      e === NOT_RUN ? "n/a" : `${absentClaims(e, perClass)}/${2 * perClass}`;
    rows.push(["  absent queries claimed found", claims(b), claims(l), claims(f), "", "", "0"]);
    rows.push([
      "  heap (RSS growth)",
      `${mb(b.memoryBytes)} (${mb(b.rssBytes)})`,
      `${mb(l.memoryBytes)} (${mb(l.rssBytes)})`,
      `- (${mb(f.rssBytes)})`,
      "",
      "",
      g === undefined ? "" : `heap <= ${mb(g.heap)}`,
    ]);
    rows.push(["  index on disk", mb(b.diskBytes), mb(l.diskBytes), mb(f.diskBytes), "", "", ""]);
  }
  const head: Row = ["metric", CURRENT, LAYER, FTS, "current/FTS5", "layer/FTS5", "goal"];
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((row) => row[i]?.length ?? 0)));
  const line = (row: Row) =>
    row
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)];
}

/** The goals of each size, met or missed, for the current engine and for the FTS5 arm. */
export function decisionTargets(results: readonly SizeResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    const all = engines(r);
    const g = goals(r.snapshots);
    if (all === undefined || g === undefined) continue;
    const [b, l, f] = all;
    const perClass = r.queries / QUERY_CATEGORIES.length;
    const n = `${r.snapshots / 1000}k`;
    for (const [name, e] of [
      [CURRENT, b],
      [LAYER, l],
    ] as const) {
      if (e === NOT_RUN) continue;
      const check = (label: string, ok: boolean, value: string) =>
        out.push(`${ok ? "met   " : "MISSED"}  ${n} ${name}: ${label}: ${value}`);
      check(`saved index usable <= ${ms(g.usable)}`, usable(e, name) <= g.usable, ms(usable(e, name)));
      check(`heap <= ${mb(g.heap)}`, e.memoryBytes <= g.heap, mb(e.memoryBytes));
      if (g.build)
        check("cold build <= FTS5's", e.buildMs <= f.buildMs, `${ms(e.buildMs)} vs ${ms(f.buildMs)}`);
      const slow = QUERY_CATEGORIES.filter((c) => p99(e, c) > 2 * p99(f, c));
      check(
        "every query class p99 <= 2x FTS5's",
        slow.length === 0,
        slow.length === 0 ? "all" : slow.map((c) => `${c} ${ratio(p99(e, c), p99(f, c))}`).join(", "),
      );
      check("MRR@5 >= 0.99", mrr(e) >= 0.99, mrr(e).toFixed(3));
      const claimed = absentClaims(e, perClass);
      check("absent identifiers and paths 0 hits", claimed === 0, `${claimed} claimed`);
    }
  }
  return out;
}
