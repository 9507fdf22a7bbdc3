/**
 * The read path on a long history of hand-written daily logs (see corpus-history.ts): the first search
 * with no index (answered by reading the logs when they are large), the index build that follows it,
 * then list, show, recall and status once indexed, each in-process
 * through the CLI, beside the baseline of the same run: parsing every log (readAllSnapshots, what list,
 * show and status did before they read through the index). Peak heap is sampled every 10 ms.
 * Then the same commands as a person runs them, each a whole `big-memory` process (Node's start
 * included), beside `node -e 0` and `big-memory --version` run in turn with them. Once indexed, list,
 * show, recall and status read only the saved refs their answer needs (search/saved-refs.ts).
 * `--against DIR,...` names other copies of the package (another checkout, or an installed copy under a
 * `node_modules/` folder, which runs its built `dist/`), whose `bin/big-memory.js` runs in turn with this
 * checkout's over the same logs, each in its own column, so that two trees compare in one run.
 *
 *   node test/bench/history.bench.ts [--mb 100] [--against DIR,...]
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import { readAllSnapshots } from "../../plugin/store/snapshots.ts";
import { runCli } from "../../plugin/surface/cli.ts";
import { writeHistory } from "./corpus-history.ts";
import { fmt, printTable } from "./table.ts";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** Runs `work`, returning its time and the peak heap (used) seen while it ran, above the heap before it. */
async function measure(work: () => Promise<unknown>): Promise<{ ms: number; heapMb: number }> {
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 10);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { ms, heapMb: (peak - base) / 1e6 };
}

/** Runs the CLI in-process, output discarded; returns the exit code. */
function cli(args: string[]): Promise<number> {
  return runCli(args, {
    stdout: () => {},
    stderr: () => {},
    readStdin: async () => "",
    color: false,
    cwd: process.cwd(),
    env: { HOME: "/nonexistent", BIG_MEMORY_BACKGROUND_INDEX: "0" },
    now: () => new Date(),
  });
}

/** A wall time and the CPU time (user + system) the process reported at exit, in ms. */
interface Timed {
  wall: number;
  cpu: number;
}

/**
 * Preloaded into every timed process: prints the process's CPU time (process.cpuUsage, user + system) as
 * the last line of stderr at exit. On a machine shared with other work the CPU time moves far less than
 * the wall time, which counts the waits for a core as well.
 */
const CPU_PROBE = `data:text/javascript,${encodeURIComponent(
  'process.on("exit",()=>{const u=process.cpuUsage();process.stderr.write("\\nbench-cpu-us "+(u.user+u.system)+"\\n")})',
)}`;

/**
 * Median wall and CPU time of each command as its own process under each of `bins` (the `big-memory`
 * scripts of the trees compared), every command of every tree run in turn `runs` times; stdout is
 * discarded. A command's arguments are given without the script, which comes first; `node -e 0` runs once
 * a round, with none.
 */
function processTimes(
  commands: Record<string, string[]>,
  bins: readonly string[],
  runs: number,
): { start: Timed; times: Record<string, Timed[]> } {
  const times: Record<string, Timed[][]> = {};
  const starts: Timed[] = [];
  const time = (args: string[], label: string): Timed => {
    const started = performance.now();
    const run = spawnSync(process.execPath, ["--import", CPU_PROBE, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, HOME: "/nonexistent", BIG_MEMORY_BACKGROUND_INDEX: "0" },
    });
    const wall = performance.now() - started;
    const stderr = run.stderr.toString();
    if (run.status !== 0 && run.status !== 1)
      throw new Error(`${label}: exit ${run.status}: ${stderr.slice(0, 400)}`);
    const cpu = /\nbench-cpu-us (\d+)\n$/.exec(stderr)?.[1];
    if (cpu === undefined) throw new Error(`${label}: no CPU time at exit on stderr: ${stderr.slice(-400)}`);
    return { wall, cpu: Number(cpu) / 1000 };
  };
  for (let i = 0; i < runs; i++) {
    starts.push(time(["-e", "0"], "node -e 0"));
    for (const [label, args] of Object.entries(commands)) {
      const row = times[label] ?? bins.map(() => []);
      times[label] = row;
      for (const [b, bin] of bins.entries()) row[b]?.push(time([bin, ...args], `${bin} ${label}`));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  const medians = (ts: Timed[]): Timed => ({
    wall: median(ts.map((t) => t.wall)),
    cpu: median(ts.map((t) => t.cpu)),
  });
  return {
    start: medians(starts),
    times: Object.fromEntries(Object.entries(times).map(([k, row]) => [k, row.map(medians)])),
  };
}

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

export async function runHistoryBench(
  opts: { mb?: number; against?: readonly string[] } = {},
): Promise<void> {
  const mb = opts.mb ?? 100;
  const trees = [ROOT, ...(opts.against ?? []).map((dir) => resolve(dir))];
  const bins = trees.map((dir) => join(dir, "bin", "big-memory.js"));
  const dir = await mkdtemp(join(tmpdir(), "big-memory-history-"));
  try {
    const history = await writeHistory(dir, { bytes: mb * 1e6 });
    const probe = history.probe;
    const baseline = await measure(() => readAllSnapshots(dir));
    const first = await measure(() => cli(["search", probe.query, "--dir", dir, "--json"]));
    const build = await measure(() => cli(["reindex", "--dir", dir]));
    const search = await measure(() => cli(["search", probe.query, "--dir", dir, "--json"]));
    const list = await measure(() => cli(["list", "--dir", dir, "--json"]));
    const listTop = await measure(() => cli(["list", "--limit", "20", "--dir", dir]));
    const show = await measure(() => cli(["show", probe.id, "--dir", dir, "--json"]));
    const recall = await measure(() => cli(["recall", "--dir", dir, "--json"]));
    const status = await measure(() => cli(["status", "--dir", dir, "--json"]));
    const row = (label: string, m: { ms: number; heapMb: number }) => [
      label,
      fmt(m.ms, 0),
      `${fmt(baseline.ms / m.ms, 1)}x`,
      fmt(m.heapMb, 0),
    ];
    printTable(
      `Read path on ${fmt(history.bytes / 1e6, 0)} MB of hand-written logs (${history.blocks} blocks, ${history.logs} logs)`,
      [
        ["command (in-process)", "ms", "vs baseline", "peak heap MB"],
        row("parse every log: readAllSnapshots (baseline)", baseline),
        row("first search, no index (reads the logs for it)", first),
        row("index build (reindex; in the background after it)", build),
        row("search, indexed", search),
        row("list --json (every snapshot), indexed", list),
        row("list --limit 20, indexed", listTop),
        row("show ID, indexed", show),
        row("recall, indexed", recall),
        row("status, indexed", status),
      ],
    );
    const runs = mb >= 100 ? 7 : 3;
    const { start, times } = processTimes(
      {
        "big-memory --version": ["--version"],
        "list --limit 20": ["list", "--limit", "20", "--dir", dir],
        "list (for people: the newest 50)": ["list", "--dir", dir],
        "list --json (every snapshot)": ["list", "--dir", dir, "--json"],
        "show ID": ["show", probe.id, "--dir", dir, "--json"],
        recall: ["recall", "--dir", dir, "--json"],
        status: ["status", "--dir", dir, "--json"],
      },
      bins,
      runs,
    );
    const proc = Object.fromEntries(
      Object.entries(times).map(([label, ms]) => [label, ms[0]?.wall ?? Number.NaN]),
    );
    const named = trees.map((dir, i) => `\n  tree ${i + 1}: ${dir}${i === 0 ? " (this checkout)" : ""}`);
    const over = (m: Timed) =>
      `${fmt(m.wall, 0)} (${fmt(m.wall - start.wall, 0)})  ${fmt(m.cpu, 0)} (${fmt(m.cpu - start.cpu, 0)})`;
    printTable(
      `Whole processes, indexed (median of ${runs}, run in turn): wall ms and CPU ms (user + system), each with what it adds to node -e 0 in brackets${named.join("")}`,
      [
        ["command", ...trees.map((_, i) => `tree ${i + 1}: wall, cpu`)],
        ["node -e 0", ...trees.map(() => over(start))],
        ...Object.entries(times).map(([label, ms]) => [label, ...ms.map(over)]),
      ],
    );
    const check = (label: string, ok: boolean, value: string) =>
      console.log(`${ok ? "met   " : "MISSED"}  ${label}: ${value}`);
    if (mb >= 100) {
      check(
        "first search on an unindexed 100 MB history <= 5 s",
        first.ms <= 5000,
        `${fmt(first.ms / 1000, 1)} s`,
      );
      check("... and <= 400 MB heap", first.heapMb <= 400, `${fmt(first.heapMb, 0)} MB`);
      for (const label of [
        "list --limit 20",
        "list (for people: the newest 50)",
        "list --json (every snapshot)",
        "show ID",
        "recall",
        "status",
      ]) {
        const ms = proc[label] ?? Number.NaN;
        check(
          `${label} once indexed <= 200 ms, whole process`,
          ms <= 200,
          `${fmt(ms, 0)} ms (node -e 0: ${fmt(start.wall, 0)} ms)`,
        );
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const against = argValue("--against");
  await runHistoryBench({
    mb: Number(argValue("--mb") ?? 100),
    against: against === undefined ? [] : against.split(",").filter((d) => d !== ""),
  });
}
