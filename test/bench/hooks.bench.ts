import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createDriver } from "../surface/plugin-driver.ts";
import { hostHeap } from "./host-heap.ts";
import { fmt, percentile, printTable, timeRuns } from "./table.ts";

/**
 * The MB of the host's heap the bench holds alive (host-heap.ts): a real gateway's heap in use after its full
 * collections (about 300 MB) less this process's own. `--host-heap 0` times a bare process.
 */
export const HOST_HEAP_MB = 280;

// `gc()` for the spaced calls below, without a command-line flag (`npm run bench` runs plain `node`).
setFlagsFromString("--expose-gc");

/**
 * Hook latency: what each big-memory hook adds to an OpenClaw turn, measured by calling the
 * registered handlers over a real workspace, against a bare 2 KB append + fsync (the floor of any
 * durable capture) in the same run. Compaction hooks are awaited by OpenClaw, so their p99 is what
 * a user can feel. Tool calls and user turns update the session in memory (written behind, at
 * agent_end); goals: after_tool_call and a user turn with nothing to restore at most 0.1 ms p50 and
 * 1 ms p99, before_compaction at most 10 ms p99. before_compaction returns once the block, its journal copy
 * and the ledger line are written; the session's state follows behind (the next hook of the session waits
 * for it), so the after_compaction row carries that write, and a row sums both hooks of each cycle. On a
 * machine others load, a p99 is mostly their load:
 * before_compaction runs in rounds (`--rounds N`, default 3), each call paired with a bare append+fsync
 * made just before it and timed in CPU too, and each round is printed beside its paired baseline.
 * The process holds the host's heap (`--host-heap MB`, default {@link HOST_HEAP_MB}; host-heap.ts says why):
 * the hooks run inside a gateway whose heap is ten times this process's, and V8 sizes its collections by it.
 */
export async function runHooksBench(
  opts: { runs?: number; rounds?: number; hostMb?: number } = {},
): Promise<void> {
  const runs = opts.runs ?? 60;
  const rounds = opts.rounds ?? 3;
  const host = hostHeap(opts.hostMb ?? HOST_HEAP_MB);
  console.log(`(the host's heap held alive: ${fmt(host.heap.mb)} MB in ${host.heap.strings} strings)`);
  // Compaction cycles per round (a quarter with a flush first): a round's p99 is a percentile, not the slowest.
  const compactions = runs * 3;
  const d = createDriver();
  const scratch = mkdtempSync(join(tmpdir(), "big-memory-hooks-bench-"));
  try {
    const floor = await timeRuns(runs, async () => {
      const h = await open(join(scratch, "floor.md"), "a");
      await h.write("x".repeat(2048));
      await h.sync();
      await h.close();
    });
    await d.userTurn("Fix ERR_DUPLICATE_KEY on second login in src/auth/oauth-callback.ts (ticket ADR-016)");
    const tool = (i: number) =>
      d.tool(
        i % 3 === 0 ? "exec" : "edit",
        i % 3 === 0 ? { command: `npm test -- case-${i}` } : { path: `src/auth/file-${i % 7}.ts` },
      );
    // A few calls first, so the table shows a running process's hot path, not the first call's compilation.
    await timeRuns(10, (i) => tool(i));
    await timeRuns(10, (i) => d.userTurn(`warm-up ${i}`));
    // The in-memory paths cost microseconds: 20x the calls, so that their p99 is a percentile, not the slowest call.
    const memoryRuns = runs * 20;
    const toolCall = await timeRuns(memoryRuns, tool);
    const userTurn = await timeRuns(memoryRuns, (i) =>
      d.userTurn(`step ${i}: keep going with the oauth fix`),
    );
    const turnEnd: number[] = [];
    for (let i = 0; i < runs; i++) {
      await tool(i);
      turnEnd.push(...(await timeRuns(1, () => d.endTurn())));
    }
    const flush = await timeRuns(runs, () =>
      d.fire(
        "before_prompt_build",
        { prompt: "Pre-compaction memory flush.", messages: [] },
        {
          trigger: "memory",
          sessionKey: "agent:main:internal-session-effects:bench",
        },
      ),
    );
    // The compaction hooks, in rounds: each call paired with a bare append+fsync made just before it (the same
    // moment's disk and load), wall and CPU time (all threads: redaction, JSON, the thread pool's file calls).
    const before: number[] = [];
    const beforeCpu: number[] = [];
    const paired: number[] = [];
    const afterFlush: number[] = [];
    const after: number[] = [];
    const cycle: number[] = [];
    const restore: number[] = [];
    const perRound: { before: number[]; cpu: number[]; sys: number[]; paired: number[] }[] = [];
    const bare = async () => {
      const h = await open(join(scratch, "floor.md"), "a");
      await h.write("x".repeat(2048));
      await h.sync();
      await h.close();
    };
    // The compaction path warmed like the others (its first call in a process compiles its code): a few cycles
    // first, the very first one kept apart and printed as such.
    const compaction = async (i: number, label: string) => {
      await d.tool("edit", { path: `src/auth/${label}-${i}.ts` });
      const [wall = Number.NaN] = await timeRuns(1, () =>
        d.fire("before_compaction", { messageCount: 40, tokenCount: 90_000 }),
      );
      await d.fire("after_compaction", { messageCount: 4, compactedCount: 36 });
      await d.userTurn("continue");
      return wall;
    };
    const first = [await compaction(0, "warm")];
    for (let i = 1; i < 20; i++) await compaction(i, "warm");
    for (let round = 0; round < rounds; round++) {
      const mine = {
        before: [] as number[],
        cpu: [] as number[],
        sys: [] as number[],
        paired: [] as number[],
      };
      for (let i = 0; i < compactions; i++) {
        // Every fourth cycle, a flush run first that writes nothing: its mark is taken, the draft still written.
        const flushed = i % 4 === 3;
        await d.tool("edit", { path: `src/auth/cycle-${round}-${i}.ts` });
        if (flushed)
          await d.fire(
            "before_prompt_build",
            { prompt: "Pre-compaction memory flush.", messages: [] },
            { trigger: "memory", sessionKey: "agent:main:internal-session-effects:bench" },
          );
        mine.paired.push(...(await timeRuns(1, bare)));
        const cpu = process.cpuUsage();
        const [wall = Number.NaN] = await timeRuns(1, () =>
          d.fire("before_compaction", { messageCount: 40, tokenCount: 90_000 }),
        );
        const used = process.cpuUsage(cpu);
        if (flushed) afterFlush.push(wall);
        else {
          mine.before.push(wall);
          mine.cpu.push((used.user + used.system) / 1000);
          mine.sys.push(used.system / 1000);
        }
        const [closed = Number.NaN] = await timeRuns(1, () =>
          d.fire("after_compaction", { messageCount: 4, compactedCount: 36 }),
        );
        after.push(closed);
        if (!flushed) cycle.push(wall + closed);
        restore.push(...(await timeRuns(1, () => d.userTurn("continue"))));
      }
      perRound.push(mine);
      before.push(...mine.before);
      beforeCpu.push(...mine.cpu);
      paired.push(...mine.paired);
    }
    // A gateway compacts minutes apart, with its own work and full collections in between: each of these calls
    // comes after two full collections and 300 ms idle (caches cold, the thread pool asleep), and so does a bare
    // append+fsync before it, the disk's own answer after idle.
    const collect = runInNewContext("gc") as () => void;
    const idle = async () => {
      collect();
      collect();
      await sleep(300);
    };
    const spaced: number[] = [];
    const spacedFloor: number[] = [];
    for (let i = 0; i < 30; i++) {
      await idle();
      spacedFloor.push(...(await timeRuns(1, bare)));
      await idle();
      spaced.push(await compaction(i, "spaced"));
    }
    const p = (t: number[], q: number) =>
      percentile(
        [...t].sort((a, b) => a - b),
        q,
      );
    const row = (label: string, t: number[], goal = "") => [
      label,
      fmt(p(t, 50)),
      fmt(p(t, 99)),
      `${fmt(p(t, 50) / p(floor, 50), 1)}x`,
      goal,
    ];
    printTable(
      `Hook latency, ms (${runs} calls each, ${memoryRuns} for the in-memory paths, ${rounds} x ${compactions} compaction cycles; real workspace, fsync on)`,
      [
        ["hook (path)", "p50", "p99", "p50 vs append+fsync", "goal p50 / p99"],
        row("after_tool_call (trail update)", toolCall, "0.1 / 1"),
        row("before_prompt_build (user turn, nothing to restore)", userTurn, "0.1 / 1"),
        row("agent_end (the turn's trail written, fsynced)", turnEnd),
        row("before_prompt_build (flush run: prompt + mark)", flush),
        row("before_compaction (safety-net draft + append)", before, "- / 10"),
        row("  its CPU time (all threads)", beforeCpu),
        row("  the process's first one (its code compiled), not in the rows above", first),
        row("  spaced: after two full collections and 300 ms idle, 30 calls", spaced),
        row("before_compaction (a flush ran, wrote nothing: mark + draft)", afterFlush),
        row("after_compaction (close cycle; waits for the state before_compaction left)", after),
        row("  before_compaction + after_compaction, the cycle's whole work", cycle),
        row("before_prompt_build (restore after compaction)", restore),
        row("bare 2 KB append + fsync (baseline)", floor),
        row("  the same, made just before each before_compaction", paired),
        row("  the same, after two full collections and 300 ms idle, 30 calls", spacedFloor),
      ],
    );
    printTable(
      "before_compaction with a safety-net draft, round by round (baseline: the bare append+fsync paired with each call)",
      [
        [
          "round",
          "p50",
          "p99",
          "CPU p50",
          "CPU p99",
          "baseline p50",
          "baseline p99",
          "p99 vs baseline p99",
          "goal p99",
        ],
        ...perRound.map((r, i) => [
          String(i + 1),
          fmt(p(r.before, 50)),
          fmt(p(r.before, 99)),
          `${fmt(p(r.cpu, 50))} (${fmt(p(r.sys, 50))})`,
          fmt(p(r.cpu, 99)),
          fmt(p(r.paired, 50)),
          fmt(p(r.paired, 99)),
          `${fmt(p(r.before, 99) / p(r.paired, 99), 1)}x`,
          "10",
        ]),
      ],
    );
    const check = (label: string, t: number[], p50: number | null, p99: number) => {
      const ok = (p50 === null || p(t, 50) <= p50) && p(t, 99) <= p99;
      console.log(
        `${ok ? "met   " : "MISSED"}  ${label}: ${p50 === null ? "" : `p50 ${fmt(p(t, 50))} ms (<= ${p50}), `}p99 ${fmt(p(t, 99))} ms (<= ${p99})`,
      );
    };
    check("after_tool_call", toolCall, 0.1, 1);
    check("before_prompt_build with nothing to restore", userTurn, 0.1, 1);
    // The one daily log the rounds append to: an append must cost the same whatever its length.
    const logs = readdirSync(join(d.workspace, "memory")).filter((n) => n.endsWith(".md"));
    const snapshots = logs
      .map((n) => readFileSync(join(d.workspace, "memory", n), "utf8").split("<!-- snapshot-id:").length - 1)
      .reduce((a, b) => a + b, 0);
    check(
      `before_compaction with a safety-net draft, ledger included (${fmt(p(before, 50) / p(paired, 50), 1)}x the paired append+fsync at p50, ${fmt(p(before, 99) / p(paired, 99), 1)}x at p99; CPU p50 ${fmt(p(beforeCpu, 50))} ms, p99 ${fmt(p(beforeCpu, 99))} ms; CPU p50 by round ${perRound.map((r) => fmt(p(r.cpu, 50))).join(" / ")} ms over a log growing to ${snapshots} snapshots)`,
      before,
      null,
      10,
    );
  } finally {
    await d.dispose();
    rmSync(scratch, { recursive: true, force: true });
    // Held to the end of the run: the collector sees the host's heap during every call above.
    if (host.keep === null) console.log("");
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rounds = process.argv.indexOf("--rounds");
  const host = process.argv.indexOf("--host-heap");
  await runHooksBench({
    ...(rounds === -1 ? {} : { rounds: Number(process.argv[rounds + 1]) }),
    ...(host === -1 ? {} : { hostMb: Number(process.argv[host + 1]) }),
  });
}
