/**
 * The search bench's goals table (the goals of the engine at 10k and 100k snapshots): big-memory beside
 * plain SQLite FTS5 from the same run, each figure with its ratio to FTS5's and the goal it is held to;
 * then the goals met or missed.
 */
import { isAbsent, QUERY_CATEGORIES } from "./corpus.ts";
import type { EngineResult, SizeResult } from "./search.bench.ts";
import { ms, percentile } from "./search.bench.ts";

const CURRENT = "big-memory";
const FTS = "SQLite FTS5";

type Row = [string, string, string, string, string];

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
 * When a saved index is usable: big-memory once every month is searchable (its first answer comes from the
 * newest months alone; each month's file is checked against its checksums after, the next row); plain
 * FTS5 at its first answer, which searches the whole file on disk.
 */
const usable = (e: EngineResult, name: string) => (name === CURRENT ? e.loadMs : e.firstAnswerMs);

/** The goals of each size (README, Benchmarks: search at scale). */
function goals(n: number) {
  return n >= 100_000
    ? { heap: 100e6, usable: 200, build: true }
    : n >= 10_000
      ? { heap: 30e6, usable: 20, build: false }
      : undefined;
}

function engines(r: SizeResult): [EngineResult, EngineResult] | undefined {
  const [b, f] = [r.engines[CURRENT], r.engines[FTS]];
  return b === undefined || f === undefined ? undefined : [b, f];
}

/** The table, one block of rows per size. */
export function goalsTable(results: readonly SizeResult[]): string[] {
  const rows: Row[] = [];
  for (const r of results) {
    const both = engines(r);
    if (both === undefined) continue;
    const [b, f] = both;
    const g = goals(r.snapshots);
    const perClass = r.queries / QUERY_CATEGORIES.length;
    rows.push([`${r.snapshots} snapshots, ${r.queries} queries`, "", "", "", ""]);
    const time = (label: string, pick: (e: EngineResult) => number, goal: string) =>
      rows.push([label, ms(pick(b)), ms(pick(f)), ratio(pick(b), pick(f)), goal]);
    time("  cold build from markdown", (e) => e.buildMs, g?.build === true ? "<= FTS5's" : "");
    time("  first answer after start", (e) => e.firstAnswerMs, "");
    time(
      "  saved index usable (every month searched)",
      (e) => usable(e, e === b ? CURRENT : FTS),
      g === undefined ? "" : `<= ${ms(g.usable)}`,
    );
    time("  every saved file verified (checksums)", (e) => (e === b ? e.verifiedMs : e.firstAnswerMs), "");
    time("  append -> searchable (median)", (e) => percentile(e.appendMs, 0.5), "<= 1 s");
    for (const c of QUERY_CATEGORIES) {
      const cell = (e: EngineResult) => `${ms(percentile(e.latency[c], 0.5))} / ${ms(p99(e, c))}`;
      rows.push([
        `  query ${c} p50 / p99`,
        cell(b),
        cell(f),
        ratio(p99(b, c), p99(f, c)),
        g === undefined ? "" : "p99 <= 2x",
      ]);
    }
    rows.push([
      "  MRR@5 all categories",
      mrr(b).toFixed(3),
      mrr(f).toFixed(3),
      "",
      g === undefined ? "" : ">= 0.99",
    ]);
    for (const c of QUERY_CATEGORIES)
      rows.push([`  MRR@5 ${c}`, b.mrr[c].toFixed(3), f.mrr[c].toFixed(3), "", ""]);
    const claims = (e: EngineResult) => `${absentClaims(e, perClass)}/${2 * perClass}`;
    rows.push(["  absent queries claimed found", claims(b), claims(f), "", "0"]);
    rows.push([
      "  heap (RSS growth)",
      `${mb(b.memoryBytes)} (${mb(b.rssBytes)})`,
      `- (${mb(f.rssBytes)})`,
      "",
      g === undefined ? "" : `heap <= ${mb(g.heap)}`,
    ]);
    rows.push(["  index on disk", mb(b.diskBytes), mb(f.diskBytes), "", ""]);
  }
  const head: Row = ["metric", CURRENT, FTS, "big-memory/FTS5", "goal"];
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((row) => row[i]?.length ?? 0)));
  const line = (row: Row) =>
    row
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)];
}

/** The goals of each size, met or missed. */
export function goalsMet(results: readonly SizeResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    const both = engines(r);
    const g = goals(r.snapshots);
    if (both === undefined || g === undefined) continue;
    const [e, f] = both;
    const perClass = r.queries / QUERY_CATEGORIES.length;
    const n = `${r.snapshots / 1000}k`;
    const check = (label: string, ok: boolean, value: string) =>
      out.push(`${ok ? "met   " : "MISSED"}  ${n} ${CURRENT}: ${label}: ${value}`);
    check(`saved index usable <= ${ms(g.usable)}`, usable(e, CURRENT) <= g.usable, ms(usable(e, CURRENT)));
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
  return out;
}
