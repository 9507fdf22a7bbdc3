/**
 * `npm run bench`: every benchmark, each printing a table against its baselines measured in the same
 * run. `--quick` runs smaller sizes (1k and 10k snapshots for search, 1k for the memory timeline) for a fast look. The fidelity table
 * (real sessions, test/bench/fidelity.bench.ts) comes last.
 */
import { runAppendBench } from "./append.bench.ts";
import { runCrowdBench } from "./crowd.bench.ts";
import { runHistoryBench } from "./history.bench.ts";
import { runHooksBench } from "./hooks.bench.ts";
import { runParseBench } from "./parse.bench.ts";
import { runSearchBench } from "./search.bench.ts";

const quick = process.argv.includes("--quick");
console.log(`big-memory benchmarks (node ${process.version}, ${quick ? "quick" : "full"} run)`);
await runParseBench({ snapshots: quick ? 1000 : 3000 });
await runAppendBench({ runs: quick ? 100 : 200 });
await runHooksBench({ runs: quick ? 30 : 60, rounds: quick ? 2 : 3 });
await runCrowdBench({ writers: quick ? 20 : 100 });
await (await import("./redact.bench.ts")).runRedactBench({ quick });
console.log("\n## Search (big-memory vs SQLite FTS5 vs full scan)\n");
await runSearchBench(quick ? { sizes: [1000, 10_000] } : {});
await (await import("./view.bench.ts")).runViewBench(quick ? { sizes: [1000] } : {});
console.log("\n## Read path on a long hand-written history\n");
await runHistoryBench({ mb: quick ? 10 : 100 });
await (await import("./draft.bench.ts")).runDraftBench({ runs: quick ? 10 : 40 });
await (await import("./fidelity.bench.ts")).runFidelityBench();
