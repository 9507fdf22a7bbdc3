import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { corpusCandidates, findCorpus, loadCorpus } from "../fidelity/corpus.ts";
import { diagnose, PROBE_LABELS, PROBES, type Probe, type ProbeResult, probe } from "../fidelity/probes.ts";
import { type Arm, replay } from "../fidelity/replay.ts";
import { type RealSession, toolEvents } from "../fidelity/session.ts";
import { type Truth, truthAt } from "../fidelity/truth.ts";
import { fmt, percentile, printTable } from "./table.ts";

/**
 * Fidelity on real sessions: each session of the corpus (test/fidelity/corpus.ts) replayed through the
 * plugin entry up to 50% and 80% of its events, compacted with the model silent (`safety-net`) and with a
 * model that writes the block the flush prompt asks for (`flush`), then checked against the truth derived
 * from the session (test/fidelity/truth.ts): the share of sessions whose restore names each probe, per
 * source and overall. Goal: every probe >= 95% at both cuts, no source below 85%. Also the restore's size
 * (estimated tokens; budget 1,500) and whether two renders of one snapshot are byte-identical.
 * `--misses` prints each miss (truth against the restore); `--json FILE` writes every verdict.
 */

const CUTS = [0.5, 0.8] as const;
const ARMS: Arm[] = ["safety-net", "flush"];
const GOAL = 0.95;
const SOURCE_FLOOR = 0.85;

export interface Verdict {
  session: string;
  source: string;
  cut: number;
  arm: Arm;
  events: number;
  truth: Truth;
  probes: Record<Probe, ProbeResult>;
  diagnosis: ReturnType<typeof diagnose>;
  restore: string;
  tokens: number;
  snapshotSource: string;
  identicalAsRendered: boolean;
  identicalSameNonce: boolean;
}

function share(vs: Verdict[], p: Probe): { named: number; counted: number } {
  const counted = vs.filter((v) => v.probes[p] !== null);
  return { named: counted.filter((v) => v.probes[p] === "named").length, counted: counted.length };
}

function cell({ named, counted }: { named: number; counted: number }): string {
  return counted === 0 ? "n/a" : `${Math.round((100 * named) / counted)}% (${named}/${counted})`;
}

function median(xs: number[]): number {
  return percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
}

function excerpt(text: string, max = 900): string {
  const flat = text.replace(/\n{2,}/g, "\n");
  return flat.length <= max ? flat : `${flat.slice(0, max)} …`;
}

function printMisses(verdicts: Verdict[]): void {
  console.log("\n## Misses (truth vs restore)\n");
  for (const v of verdicts) {
    const missed = PROBES.filter((p) => v.probes[p] === "missed");
    if (missed.length === 0) continue;
    console.log(`### ${v.session} @${v.cut * 100}% ${v.arm}: missed ${missed.join(", ")}`);
    console.log(`truth: ${JSON.stringify({ ...v.truth, cut: undefined })}`);
    console.log(`restore (${v.tokens} tokens):\n${excerpt(v.restore)}\n`);
  }
}

/** Runs every session at every cut and arm; prints the tables; returns the verdicts. */
export async function runFidelityBench(opts: { misses?: boolean; json?: string } = {}): Promise<Verdict[]> {
  const dir = findCorpus();
  if (dir === null) {
    console.log(
      `\n## Fidelity on real sessions\n\nno corpus found (a folder with manifest.json): looked in ${corpusCandidates().join(", ")}; set BIG_MEMORY_FIDELITY_CORPUS to the corpus folder`,
    );
    return [];
  }
  const started = performance.now();
  const { manifest, sessions } = loadCorpus(dir);
  const verdicts: Verdict[] = [];
  for (const session of sessions) {
    for (const fraction of CUTS) {
      const truth = truthAt(session, fraction);
      for (const arm of ARMS) {
        const r = await replay(session, truth.cut, arm);
        verdicts.push({
          session: session.id,
          source: session.source,
          cut: fraction,
          arm,
          events: session.events.length,
          truth,
          probes: probe(r.restore, truth),
          diagnosis: diagnose(r.restore, truth),
          restore: r.restore,
          tokens: r.tokens,
          snapshotSource: r.snapshotSource,
          identicalAsRendered: r.identicalAsRendered,
          identicalSameNonce: r.identicalSameNonce,
        });
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  printCorpus(dir, manifest.sessions, sessions);
  const sources = [...new Set(sessions.map((s) => s.source))];
  const rows: string[][] = [
    ["source", "probe", ...ARMS.flatMap((a) => CUTS.map((c) => `${a} ${c * 100}%`)), "goal"],
  ];
  for (const source of [...sources, "all"]) {
    for (const p of PROBES) {
      const of = (arm: Arm, cut: number) =>
        verdicts.filter((v) => v.arm === arm && v.cut === cut && (source === "all" || v.source === source));
      rows.push([
        source,
        PROBE_LABELS[p],
        ...ARMS.flatMap((a) => CUTS.map((c) => cell(share(of(a, c), p)))),
        source === "all" ? `>= ${GOAL * 100}%` : `>= ${SOURCE_FLOOR * 100}%`,
      ]);
    }
  }
  printTable(
    `Fidelity on real sessions: share of sessions whose restore names each probe (${sessions.length} sessions, ${seconds.toFixed(1)} s)`,
    rows,
  );
  const sizeRows: string[][] = [
    [
      "arm",
      "restores",
      "median tokens",
      "max tokens",
      "budget",
      "identical as rendered",
      "identical, same nonce",
    ],
  ];
  for (const arm of ARMS) {
    const vs = verdicts.filter((v) => v.arm === arm && v.restore !== "");
    sizeRows.push([
      arm,
      `${vs.length}/${verdicts.filter((v) => v.arm === arm).length}`,
      fmt(median(vs.map((v) => v.tokens)), 0),
      fmt(Math.max(0, ...vs.map((v) => v.tokens)), 0),
      "1500",
      `${vs.filter((v) => v.identicalAsRendered).length}/${vs.length}`,
      `${vs.filter((v) => v.identicalSameNonce).length}/${vs.length}`,
    ]);
  }
  printTable("Restore size and stability (two renders of the restored snapshot)", sizeRows);
  const diagRows: string[][] = [
    [
      "arm",
      "cut",
      "next action in Next steps",
      "first action, foreseen or not",
      "search exit as blocker",
      "open failure, no Blockers",
    ],
  ];
  for (const arm of ARMS) {
    for (const cut of CUTS) {
      const vs = verdicts.filter((v) => v.arm === arm && v.cut === cut);
      const nexts = vs.filter((v) => v.diagnosis.nextInNextSteps !== null);
      const failures = vs.filter((v) => v.diagnosis.failureWithoutBlockers !== null);
      const firsts = vs.filter((v) => v.diagnosis.firstAction !== null);
      diagRows.push([
        arm,
        `${cut * 100}%`,
        cell({
          named: nexts.filter((v) => v.diagnosis.nextInNextSteps === "named").length,
          counted: nexts.length,
        }),
        cell({
          named: firsts.filter((v) => v.diagnosis.firstAction === "named").length,
          counted: firsts.length,
        }),
        `${vs.filter((v) => v.diagnosis.searchBlocker).length}/${vs.length}`,
        `${failures.filter((v) => v.diagnosis.failureWithoutBlockers === true).length}/${failures.length}`,
      ]);
    }
  }
  printTable("What the sections say (reads the restore's ## Next steps and ## Blockers headings)", diagRows);
  if (opts.misses === true) printMisses(verdicts);
  if (opts.json !== undefined) writeFileSync(opts.json, `${JSON.stringify(verdicts, null, 2)}\n`);
  return verdicts;
}

function printCorpus(
  dir: string,
  entries: { id: string; source: string; repo: string; license: string; format: string }[],
  sessions: RealSession[],
): void {
  const rows: string[][] = [
    ["source", "repository", "license", "format", "sessions", "median tool calls", "over 30 calls"],
  ];
  for (const source of [...new Set(entries.map((e) => e.source))]) {
    const es = entries.filter((e) => e.source === source);
    const calls = sessions.filter((s) => s.source === source).map((s) => toolEvents(s).length);
    rows.push([
      source,
      [...new Set(es.map((e) => e.repo))].join(", "),
      [...new Set(es.map((e) => e.license))].join(", "),
      [...new Set(es.map((e) => e.format))].join(", "),
      String(es.length),
      fmt(median(calls), 0),
      String(calls.filter((c) => c > 30).length),
    ]);
  }
  printTable(`Fidelity corpus (${dir})`, rows);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const json = process.argv.indexOf("--json");
  await runFidelityBench({
    misses: process.argv.includes("--misses"),
    ...(json >= 0 && process.argv[json + 1] !== undefined ? { json: process.argv[json + 1] } : {}),
  });
}
