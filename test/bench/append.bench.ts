import { mkdtempSync, rmSync } from "node:fs";
import { appendFile, mkdir, open, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { gateTextOnce } from "../../plugin/store/gate.ts";
import { idsOfDay, readJournalTail, recordAppend } from "../../plugin/store/journal.ts";
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
    // The journal's share of a save, alone: the day's journal's tail (here after the runs above: a day of
    // `runs` snapshots), the log's ids counted, fstat, one redacted append without fsync.
    const date =
      (await readdir(join(ws, "memory"))).find((n) => /^\d{4}-\d{2}-\d{2}\.md$/.test(n))?.slice(0, 10) ?? "";
    const logText = await readFile(join(ws, "memory", `${date}.md`), "utf8");
    const log = await open(join(ws, "memory", `${date}.md`), "r");
    const journal = await timeRuns(runs, async (i) => {
      const tail = await readJournalTail(ws, date);
      const problem = await recordAppend(await log.stat({ bigint: true }), {
        workspaceDir: ws,
        file: `memory/${date}.md`,
        id: `${date}-${String(runs + 1 + i).padStart(2, "0")}`,
        line: 1,
        base: logText.length,
        block: gateTextOnce(texts[i % texts.length] ?? "").gated,
        journal: tail,
        idsBefore: idsOfDay(logText, `${date}-00`),
      });
      if (problem !== null) throw new Error(problem);
    });
    await log.close();
    const row = (label: string, t: number[], goal = "") => [
      label,
      fmt(percentile(t, 50)),
      fmt(percentile(t, 99)),
      `${fmt(percentile(t, 50) / percentile(fsynced, 50), 1)}x`,
      goal,
    ];
    printTable(`Append latency, ms (${runs} appends of ~2 KB snapshots to one daily log)`, [
      ["writer", "p50", "p99", "p50 vs bare append+fsync", "goal"],
      row("saveSnapshot (redact, render, lock, write, fsync)", save),
      row("bare append + fsync (baseline)", fsynced),
      row("bare append, no fsync", plain),
      row(`journal's share of a save (a day of ${runs} snapshots)`, journal, "<= 0.5x"),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runAppendBench();
