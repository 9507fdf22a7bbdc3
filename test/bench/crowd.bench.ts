import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { fmt, printTable } from "./table.ts";

/**
 * A crowd of writers: 100 `big-memory save` processes started at once against one workspace, against the
 * same number of bare Node processes started at once (the floor: process start-up on this machine). Goal:
 * 100 of 100 written, within 30 s on 2 cores.
 */
const BIN = new URL("../../bin/big-memory.js", import.meta.url).pathname;

function run(args: string[], stdin: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["pipe", "ignore", "ignore"] });
    child.once("error", reject);
    child.once("close", resolve);
    child.stdin.end(stdin);
  });
}

async function crowd(
  n: number,
  make: (i: number) => [string[], string],
): Promise<{ ms: number; ok: number }> {
  const started = performance.now();
  const codes = await Promise.all(Array.from({ length: n }, (_, i) => run(...make(i))));
  return { ms: performance.now() - started, ok: codes.filter((c) => c === 0).length };
}

export async function runCrowdBench(opts: { writers?: number } = {}): Promise<void> {
  const n = opts.writers ?? 100;
  const ws = mkdtempSync(join(tmpdir(), "big-memory-crowd-bench-"));
  try {
    mkdirSync(join(ws, "memory"));
    // One save first, so the compile cache is warm as it is for a user's second command.
    await run([BIN, "save", "--dir", ws], JSON.stringify({ goal: "warm up" }));
    const bare = await crowd(n, () => [["-e", "0"], ""]);
    const saves = await crowd(n, (i) => [
      [BIN, "save", "--dir", ws],
      JSON.stringify({ goal: `crowd ${i} ERR_CROWD_${i}`, next: [`step ${i}`] }),
    ]);
    const ids = readdirSync(join(ws, "memory"))
      .filter((f) => f.endsWith(".md"))
      .flatMap((f) => parseDailyLog(readFileSync(join(ws, "memory", f), "utf8"), f).snapshots)
      .map((s) => s.snapshot.id);
    printTable(`A crowd of writers: ${n} processes at once (goal: ${n} of ${n} written within 30 s)`, [
      ["writers", "wall s", "succeeded", "written (distinct ids)", "vs bare start"],
      [
        `${n} x big-memory save`,
        fmt(saves.ms / 1000, 1),
        String(saves.ok),
        String(new Set(ids).size - 1),
        `${fmt(saves.ms / bare.ms, 1)}x`,
      ],
      [`${n} x node -e 0 (baseline)`, fmt(bare.ms / 1000, 1), String(bare.ok), "-", "1.0x"],
    ]);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}
