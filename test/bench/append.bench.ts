import { mkdtempSync, rmSync } from "node:fs";
import { appendFile, mkdir, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { saveSnapshot } from "../../plugin/store/save.ts";
import { generateCorpus } from "./corpus.ts";
import { fmt, percentile, printTable, timeRuns } from "./table.ts";

/**
 * Append latency with fsync: big-memory's save (redact, render, cross-process lock, one write,
 * fsync) against a bare append of the same bytes with and without fsync, in the same run.
 */
export async function runAppendBench(opts: { runs?: number } = {}): Promise<void> {
  const runs = opts.runs ?? 200;
  const snapshots = generateCorpus({ snapshots: runs, queriesPerCategory: 1 }).days.flatMap(
    (d) => d.snapshots,
  );
  const dir = mkdtempSync(join(tmpdir(), "big-memory-append-bench-"));
  try {
    const ws = join(dir, "ws");
    const save = await timeRuns(runs, (i) => {
      const s = snapshots[i % snapshots.length];
      if (s === undefined) return;
      const {
        version: _v,
        id: _id,
        timestamp: _t,
        session,
        agent,
        trigger,
        name,
        parent: _p,
        tombstone: _tb,
        ...content
      } = s;
      return saveSnapshot({
        workspaceDir: ws,
        content,
        meta: { session, agent, trigger: trigger ?? "manual", name },
      });
    });
    await mkdir(join(dir, "raw"), { recursive: true });
    const rawFile = join(dir, "raw", "log.md");
    const texts = snapshots.map(renderSnapshot);
    const fsynced = await timeRuns(runs, async (i) => {
      const h = await open(rawFile, "a");
      await h.write(texts[i % texts.length] ?? "");
      await h.sync();
      await h.close();
    });
    const plain = await timeRuns(runs, (i) =>
      appendFile(join(dir, "raw", "plain.md"), texts[i % texts.length] ?? ""),
    );
    const row = (label: string, t: number[]) => [
      label,
      fmt(percentile(t, 50)),
      fmt(percentile(t, 99)),
      `${fmt(percentile(t, 50) / percentile(fsynced, 50), 1)}x`,
    ];
    printTable(`Append latency, ms (${runs} appends of ~2 KB snapshots to one daily log)`, [
      ["writer", "p50", "p99", "p50 vs bare append+fsync"],
      row("saveSnapshot (redact, render, lock, write, fsync)", save),
      row("bare append + fsync (baseline)", fsynced),
      row("bare append, no fsync", plain),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runAppendBench();
