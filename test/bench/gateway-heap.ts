import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeModel } from "../e2e/harness/fake-model.ts";
import { createInstance } from "../e2e/harness/instance.ts";
import { ensureOpenClaw } from "../e2e/harness/openclaw-install.ts";
import { stageBigMemory } from "../e2e/harness/plugin-stage.ts";
import { ASKS, seedWorkspace, taskScript } from "../e2e/scenario.ts";

/**
 * The heap of a real OpenClaw gateway with big-memory loaded, while it runs the end-to-end task (every ask
 * of the scenario, then `/compact`, `--rounds N` times, through `chat.send`): what the hook bench's host heap
 * (host-heap.ts, `HOST_HEAP_MB`) stands for. A preload in the gateway's process records, after each full
 * collection, the heap in use and its spaces, and every two seconds the totals. Prints one line per full
 * collection and the last totals. `node test/bench/gateway-heap.ts [--rounds 4]`.
 */
const PRELOAD = `
import { appendFileSync } from "node:fs";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
import { PerformanceObserver } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";
const out = process.env.BIG_MEMORY_HEAP_DIR + "/heap-" + process.pid + ".jsonl";
const role = process.argv.slice(2, 4).join(" ");
const mb = (n) => Math.round(n / 104857.6) / 10;
const spaces = () => Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, [mb(s.space_used_size), mb(s.space_size)]]));
let full = 0, young = 0;
const line = (ev, extra) => appendFileSync(out, JSON.stringify({ t: Math.round(performance.now()), ev, role, main: isMainThread, used: mb(getHeapStatistics().used_heap_size), full, young, spaces: spaces(), ...extra }) + "\\n");
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.detail?.kind === 4) { full++; line("full", { ms: Math.round(e.duration * 10) / 10 }); } else young++;
  }
}).observe({ entryTypes: ["gc"] });
setInterval(() => line("tick", {}), 2000).unref();
`;

interface HeapLine {
  t: number;
  ev: "full" | "tick";
  role: string;
  main: boolean;
  used: number;
  full: number;
  young: number;
  ms?: number;
  spaces: Record<string, [number, number]>;
}

export async function measureGatewayHeap(rounds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "big-memory-gateway-heap-"));
  const preload = join(dir, "preload.mjs");
  writeFileSync(preload, PRELOAD);
  const [install, stage] = await Promise.all([ensureOpenClaw("2026.9.6"), stageBigMemory()]);
  const model = await startFakeModel(taskScript("no-reply"));
  const instance = await createInstance({
    install,
    modelUrl: model.url,
    plugins: [{ dir: stage.dir, id: "big-memory", config: {} }],
    env: { NODE_OPTIONS: `--import=${preload}`, BIG_MEMORY_HEAP_DIR: dir },
  });
  const started = Date.now();
  try {
    await seedWorkspace(instance.workspaceDir);
    await instance.startGateway();
    for (let round = 0; round < rounds; round++) {
      for (const ask of Object.values(ASKS)) await instance.chatSend("agent:main:heap", ask);
      await instance.chatSend("agent:main:heap", "/compact");
    }
    await new Promise((resolve) => setTimeout(resolve, 5000));
  } finally {
    await instance.dispose();
    await model.close();
    await stage.dispose();
  }
  const gateway = readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) =>
      readFileSync(join(dir, name), "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as HeapLine)
        .filter((l) => l.main && l.role === "gateway run"),
    )
    .find((lines) => lines.length > 0);
  rmSync(dir, { recursive: true, force: true });
  if (gateway === undefined) throw new Error("gateway-heap: the gateway's process wrote no heap line");
  console.log(
    `OpenClaw 2026.9.6 gateway, ${rounds} rounds of the task, ${Math.round((Date.now() - started) / 1000)} s`,
  );
  for (const l of gateway.filter((x) => x.ev === "full")) {
    const [oldUsed] = l.spaces.old_space ?? [0];
    const [, young] = l.spaces.new_space ?? [0, 0];
    console.log(
      `full collection at ${(l.t / 1000).toFixed(0)} s (${l.ms} ms): ${l.used} MB in use, old space ${oldUsed} MB, young generation ${young} MB`,
    );
  }
  const last = gateway.filter((x) => x.ev === "tick").at(-1);
  if (last !== undefined)
    console.log(
      `at ${(last.t / 1000).toFixed(0)} s: ${last.used} MB in use, ${last.full} full and ${last.young} young collections`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rounds = process.argv.indexOf("--rounds");
  await measureGatewayHeap(rounds === -1 ? 4 : Number(process.argv[rounds + 1]));
}
