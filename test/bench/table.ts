/** Small helpers shared by the benchmarks: timing, percentiles and a plain-text table. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? Number.NaN;
}

/** Runs `fn` `runs` times and returns the sorted durations in milliseconds. */
export async function timeRuns(runs: number, fn: (i: number) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

export function fmt(n: number, digits = 2): string {
  if (!Number.isFinite(n)) return "-";
  return n >= 100 ? n.toFixed(0) : n.toFixed(digits);
}

/** Prints a titled, aligned table (first row is the header). */
export function printTable(title: string, rows: string[][]): void {
  const widths: number[] = [];
  for (const row of rows) for (const [i, c] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  const line = (row: string[]) =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  console.log(`\n## ${title}\n`);
  console.log(line(rows[0] ?? []));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows.slice(1)) console.log(line(row));
}
