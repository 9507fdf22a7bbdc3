import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendLedger, type LedgerFact } from "../../plugin/store/ledger.ts";
import { appendRestoreLog } from "../../plugin/store/restore-log.ts";
import { renderPage } from "../../plugin/surface/view-page.ts";
import { readWholeView } from "../../plugin/surface/view-read.ts";
import { generateCorpus, writeCorpus } from "./corpus.ts";
import { fmt, printTable } from "./table.ts";

/** Goals of the memory timeline for a long history (10,000 snapshots). */
const GOAL_MB = 10;
const GOAL_PAINT_MS = 1000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * The memory timeline on long histories: the size of the page `big-memory view` writes, the time to read
 * and render it, and in Debian's headless Chromium its first contentful paint and the time until its
 * script has drawn every lane and the first rows (the page marks `data-ready`), each from `file://`, the
 * median of three loads. The baseline is the page of an empty workspace, measured in the same run.
 */
export async function runViewBench(opts: { sizes?: number[] } = {}): Promise<void> {
  const sizes = opts.sizes ?? [1000, 10_000];
  const root = await mkdtemp(join(tmpdir(), "big-memory-view-bench-"));
  const browser = existsSync(CHROMIUM)
    ? await (await import("playwright-core")).chromium.launch({
        executablePath: CHROMIUM,
        args: ["--no-sandbox"],
      })
    : null;
  try {
    const rows: string[][] = [
      [
        "snapshots",
        "page MB",
        "goal",
        "read+render ms",
        "first paint ms",
        "goal",
        "ready ms",
        "paint vs empty",
      ],
    ];
    let baseline = Number.NaN;
    for (const n of [0, ...sizes]) {
      const dir = join(root, `ws-${n}`);
      await writeCorpus(dir, generateCorpus({ snapshots: Math.max(n, 1), queriesPerCategory: 1 }));
      if (n === 0) await rm(join(dir, "memory"), { recursive: true, force: true });
      await writeHistory(dir, n);
      const t0 = performance.now();
      const page = renderPage(await readWholeView(dir, new Date()));
      const buildMs = performance.now() - t0;
      const file = join(dir, "view.html");
      await writeFile(file, page);
      const mb = Buffer.byteLength(page) / 1e6;
      const paint = browser === null ? null : await paintOf(browser, file);
      if (n === 0) baseline = paint?.fcp ?? Number.NaN;
      rows.push([
        n === 0 ? "0 (empty page)" : String(n),
        fmt(mb),
        `< ${GOAL_MB}`,
        fmt(buildMs, 0),
        paint === null ? "no chromium" : fmt(paint.fcp, 0),
        `< ${GOAL_PAINT_MS}`,
        paint === null ? "-" : fmt(paint.ready, 0),
        paint === null ? "-" : `${fmt(paint.fcp / baseline)}x`,
      ]);
    }
    printTable("Memory timeline page (big-memory view), from file:// in headless Chromium", rows);
  } finally {
    await browser?.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** One compaction for every 10 snapshots (one in 20 with no capture), a restore for each covered one. */
async function writeHistory(dir: string, snapshots: number): Promise<void> {
  const facts: LedgerFact[] = [];
  const state = join(dir, ".big-memory");
  for (let i = 0; i < snapshots / 10; i++) {
    const at = new Date(Date.UTC(2026, 0, 5) + i * 3_600_000).toISOString();
    const session = `agent:main:s${i % 7}`;
    const gap = i % 20 === 0;
    facts.push({
      kind: "cycle",
      cycle: at,
      session,
      agent: "main",
      at,
      path: "preflight",
      flush: !gap,
      cover: gap ? "none" : "flush",
      snapshot: null,
      file: null,
      outcome: "done",
    });
    if (!gap) {
      facts.push({ kind: "restore", cycle: at, session, at, snapshot: "2026-01-05-01", tokens: 600 });
      await appendRestoreLog(state, { at, id: "2026-01-05-01", session, reason: "compaction", tokens: 600 });
    }
  }
  await appendLedger(state, facts);
}

/** First contentful paint and `data-ready`, ms after navigation start: the median of three fresh loads. */
async function paintOf(
  browser: import("playwright-core").Browser,
  file: string,
): Promise<{ fcp: number; ready: number }> {
  const runs: { fcp: number; ready: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`file://${file}`);
    await page.waitForSelector("body[data-ready=true]", { timeout: 60_000 });
    runs.push(
      await page.evaluate<{ fcp: number; ready: number }>(
        "(() => { const p = performance.getEntriesByName('first-contentful-paint')[0]; return { fcp: p ? p.startTime : NaN, ready: performance.now() }; })()",
      ),
    );
    await page.close();
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[1] ?? Number.NaN;
  return { fcp: median(runs.map((r) => r.fcp)), ready: median(runs.map((r) => r.ready)) };
}

if (import.meta.url === `file://${process.argv[1]}`) await runViewBench();
