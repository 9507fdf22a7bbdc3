import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { readTolerant } from "../../plugin/snapshot/read-tolerant.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { generateCorpus } from "./corpus.ts";
import { fmt, printTable } from "./table.ts";

/**
 * Parse throughput in MB/s over realistic daily logs: the strict line reader on canonical blocks,
 * remark (the tolerant reader) on the same text, the tolerant path as hand-written blocks take it,
 * and the marker scan on notes that hold no block (remark never runs there).
 */
export async function runParseBench(opts: { snapshots?: number } = {}): Promise<void> {
  const corpus = generateCorpus({ snapshots: opts.snapshots ?? 3000, queriesPerCategory: 1 });
  const canonical = corpus.days.map((d) => ({
    file: `memory/${d.date}.md`,
    text: d.snapshots.map(renderSnapshot).join("\n"),
  }));
  const handWritten = canonical.map((l) => ({
    ...l,
    text: l.text.replace(/^<!-- (?:checksum|session|agent|trigger): .*\n/gm, ""),
  }));
  const notes = canonical.map((l) => ({
    ...l,
    text: l.text.replace(/BIG-MEMORY-SNAPSHOT/g, "big memory snapshot"),
  }));
  const bytes = (logs: { text: string }[]) => logs.reduce((n, l) => n + Buffer.byteLength(l.text), 0);

  const measure = (
    logs: { file: string; text: string }[],
    fn: (text: string, file: string) => number,
    minMs = 1500,
  ) => {
    let count = 0;
    let rounds = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < minMs || rounds === 0) {
      for (const l of logs) count += fn(l.text, l.file);
      rounds++;
    }
    const seconds = (performance.now() - t0) / 1000;
    return { mbps: (bytes(logs) * rounds) / 1e6 / seconds, perRound: count / rounds };
  };

  const strict = measure(canonical, (t, f) => parseDailyLog(t, f).snapshots.length);
  const remark = measure(canonical, (t, f) => readTolerant(t, f, 1).blocks.length);
  const tolerant = measure(handWritten, (t, f) => parseDailyLog(t, f).snapshots.length);
  const scan = measure(notes, (t, f) => parseDailyLog(t, f).snapshots.length);
  printTable(
    `Parse throughput (${corpus.days.reduce((n, d) => n + d.snapshots.length, 0)} snapshots, ${fmt(bytes(canonical) / 1e6)} MB of daily logs)`,
    [
      ["reader", "input", "snapshots read", "MB/s", "vs remark"],
      [
        "parseDailyLog (strict line reader)",
        "canonical blocks",
        String(strict.perRound),
        fmt(strict.mbps, 1),
        `${fmt(strict.mbps / remark.mbps, 1)}x`,
      ],
      [
        "remark reader alone (baseline)",
        "canonical blocks",
        String(remark.perRound),
        fmt(remark.mbps, 1),
        "1.0x",
      ],
      [
        "parseDailyLog (falls back to remark)",
        "hand-written blocks",
        String(tolerant.perRound),
        fmt(tolerant.mbps, 1),
        `${fmt(tolerant.mbps / remark.mbps, 1)}x`,
      ],
      [
        "parseDailyLog (marker scan only)",
        "notes, no block",
        String(scan.perRound),
        fmt(scan.mbps, 0),
        `${fmt(scan.mbps / remark.mbps, 0)}x`,
      ],
    ],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runParseBench();
