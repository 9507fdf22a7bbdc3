import v8 from "node:v8";
import vm from "node:vm";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { readTolerant } from "../../plugin/snapshot/read-tolerant.ts";
import { redactDeep } from "../../plugin/snapshot/redact.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { generateCorpus, prng } from "./corpus.ts";
import { handWrittenBlock, notesParagraph } from "./corpus-history.ts";
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
        "parseDailyLog (tolerant line reader)",
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
  notesWithOneBlock(corpus.days[0]?.snapshots[0]);
}

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/**
 * A long day of notes (340 KB, the longest day seen in real public workspaces) with one block in it: what
 * the block costs against the same notes without it, by how the block was written. The tolerant reader
 * reads the block's region only, never the notes.
 */
function notesWithOneBlock(snapshot: Parameters<typeof handWrittenBlock>[0] | undefined): void {
  if (snapshot === undefined) return;
  const r = prng(11);
  const parts: string[] = ["# 2026-01-05", ""];
  for (let i = 0; Buffer.byteLength(parts.join("\n")) < 340_000; i++) {
    if (i % 25 === 0) parts.push(`## ${notesParagraph(r, 4)}`, "");
    if (i % 40 === 0) parts.push("```sh", `npm run ${notesParagraph(r, 3)}`, "```", "");
    parts.push(i % 3 === 0 ? `- ${notesParagraph(r, 12)}` : notesParagraph(r, 40), "");
  }
  const half = Math.floor(parts.length / 2);
  const withBlock = (block: string) => [...parts.slice(0, half), block, ...parts.slice(half)].join("\n");
  const logs = {
    none: parts.join("\n"),
    canonical: withBlock(renderSnapshot(snapshot)),
    hand: withBlock(handWrittenBlock(snapshot)),
  };
  const cost = (
    text: string,
    fn: (t: string) => unknown = (t) => parseDailyLog(t, "memory/2026-01-05.md"),
  ) => {
    const runs: number[] = [];
    const heap: number[] = [];
    for (let i = 0; i < 60; i++) {
      gc();
      const before = process.memoryUsage().heapUsed;
      const t = performance.now();
      fn(text);
      runs.push(performance.now() - t);
      heap.push(Math.max(0, process.memoryUsage().heapUsed - before));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    return { ms: median(runs), kb: median(heap) / 1024 };
  };
  const base = cost(logs.none);
  const canonical = cost(logs.canonical);
  const hand = cost(logs.hand);
  const remark = cost(logs.hand, (t) => readTolerant(t, "memory/2026-01-05.md", 1));
  const redaction = cost("", () => redactDeep(snapshot));
  const row = (label: string, c: { ms: number; kb: number }) => [
    label,
    fmt(c.ms, 3),
    `${fmt(c.ms / base.ms, 1)}x`,
    `${fmt(c.ms / canonical.ms, 2)}x`,
    fmt(c.kb, 0),
    `${fmt(c.kb / Math.max(1, canonical.kb), 2)}x`,
  ];
  printTable(
    `One block in ${fmt(Buffer.byteLength(logs.none) / 1e3, 0)} KB of notes (parseDailyLog, median of 60)`,
    [
      ["log", "ms", "vs no block", "vs canonical", "heap KB", "vs canonical"],
      row("notes, no block (baseline)", base),
      row("notes + one canonical block", canonical),
      row("notes + one hand-written block", hand),
      row("  of which redacting the snapshot (redactDeep)", redaction),
      row("remark over the whole log (the old reader)", remark),
    ],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runParseBench();
