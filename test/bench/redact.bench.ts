import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import { RE2JS } from "re2js";
import { LogText } from "../../plugin/snapshot/block-span.ts";
import { type ParseOptions, parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { REDACTION_RULES_VERSION, redact } from "../../plugin/snapshot/redact.ts";
import { COMMAND_RULES } from "../../plugin/snapshot/redact-commands.ts";
import { CONTEXT_RULES } from "../../plugin/snapshot/redact-context.ts";
import { compileRules } from "../../plugin/snapshot/redact-engine.ts";
import { JudgedBlocks } from "../../plugin/snapshot/redact-judged.ts";
import { LABEL_RULES } from "../../plugin/snapshot/redact-labels.ts";
import { PAIR_RULES } from "../../plugin/snapshot/redact-pairs.ts";
import { PROVIDER_RULES } from "../../plugin/snapshot/redact-providers.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { NEGATIVES, POSITIVES, type PositiveCase } from "../snapshot/fixtures/secret-corpus.ts";
import { CONTEXT_POSITIVES } from "../snapshot/fixtures/secret-corpus-context.ts";
import { FORMAT_POSITIVES, TOKEN_FORMATS } from "../snapshot/fixtures/secret-corpus-formats.ts";
import { LABEL_LANGUAGES, LABEL_POSITIVES } from "../snapshot/fixtures/secret-corpus-labels.ts";
import { PROVIDER_POSITIVES } from "../snapshot/fixtures/secret-corpus-providers.ts";
import { PATHOLOGICAL_FRAGMENTS, PATHOLOGICAL_VARIED, repeatTo } from "../snapshot/redact-pathological.ts";
import { dailyLogText, generateCorpus } from "./corpus.ts";
import { familyText } from "./redact-family.ts";
import { fmt, printTable } from "./table.ts";

/**
 * Secret detection, measured: recall on the labelled positives, false positives on the hard negatives,
 * and throughput of `redact` on ordinary daily logs and on the corpus, beside baselines in the same run
 * (one `includes` of a literal, one regular expression over every trigger literal) and beside secretlint's
 * recommended preset run through `@secretlint/core` on the same texts.
 *
 * Times are CPU time (user + system), the best of several rounds, so other processes disturb them less.
 * secretlint is timed on whole files (daily logs, or the corpus joined into one text): its profiler keeps
 * every performance mark of the process and searches them on each new one, so thousands of small calls
 * would measure that search rather than its rules.
 */

const SECRETLINT: Parameters<typeof lintSource>[0]["options"]["config"] = {
  rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommended }],
};

/**
 * Spans secretlint reports in `text`. Its profiler (one per process, always on) observes every performance
 * mark: each observed mark searches every mark kept so far, and the observer runs on later turns of the
 * event loop. Unattended, the thousands of calls below leave a backlog that took the process far longer
 * than the bench to work through after its last line (it seemed not to exit). So each call lets the
 * observer catch up, then empties what the profiler and the performance timeline keep.
 */
async function secretlintSpans(text: string): Promise<(readonly [number, number])[]> {
  const result = await lintSource({
    source: { filePath: "note.md", content: text, contentType: "text" },
    options: { config: SECRETLINT, noPhysicFilePath: true },
  });
  await new Promise((resolve) => setImmediate(resolve));
  await secretLintProfiler.getMeasures();
  // Private in its types; the arrays it searches and grows on every mark.
  const kept = secretLintProfiler as unknown as { entries: unknown[]; measures: unknown[] };
  kept.entries.length = 0;
  kept.measures.length = 0;
  performance.clearMarks();
  performance.clearMeasures();
  return result.messages.map((m) => m.range);
}

/** Whether every occurrence of every secret of `c` overlaps one of `spans`. */
function covers(c: PositiveCase, spans: readonly (readonly [number, number])[]): boolean {
  return c.secrets.every((secret) => {
    for (let at = c.text.indexOf(secret); at !== -1; at = c.text.indexOf(secret, at + 1)) {
      if (!spans.some(([start, end]) => start < at + secret.length && at < end)) return false;
    }
    return true;
  });
}

/** Best CPU milliseconds of `fn` over `rounds` rounds. */
async function cpuMs(fn: () => unknown, rounds = 5): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const before = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

const megabytes = (texts: readonly string[]) => texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1e6;
const pct = (n: number, of: number) => `${fmt((100 * n) / of, 1)}%`;

/** Generated daily logs with one corpus positive every ~400 lines: ordinary notes with few secrets. */
function dailyLogs(snapshots: number): string[] {
  let next = 0;
  return generateCorpus({ snapshots, queriesPerCategory: 1 }).days.map((d) => {
    const lines = dailyLogText(d.date, d.snapshots).split("\n");
    for (let at = 200; at < lines.length; at += 400)
      lines.splice(at, 0, POSITIVES[next++ % POSITIVES.length]?.text ?? "");
    return lines.join("\n");
  });
}

export async function runRedactBench(opts: { quick?: boolean } = {}): Promise<void> {
  const secrets = POSITIVES.reduce((n, p) => n + p.secrets.length, 0);
  const spans = new Map<string, (readonly [number, number])[]>();
  for (const { text } of [...POSITIVES, ...NEGATIVES])
    if (!spans.has(text)) spans.set(text, await secretlintSpans(text));
  const ours = (c: PositiveCase) => {
    const out = redact(c.text);
    return c.secrets.every((s) => !out.text.includes(s)) && (out.counts[c.kind] ?? 0) > 0;
  };
  const theirs = (c: PositiveCase) => covers(c, spans.get(c.text) ?? []);
  const recall = (cases: readonly PositiveCase[], caught: (c: PositiveCase) => boolean) =>
    pct(cases.filter(caught).length, cases.length);
  const ourFalse = NEGATIVES.filter((n) => redact(n.text).total > 0).length;
  const theirFalse = NEGATIVES.filter((n) => (spans.get(n.text) ?? []).length > 0).length;

  const corpus = [...POSITIVES.map((p) => p.text), ...NEGATIVES.map((n) => n.text)];
  const joined = [corpus.join("\n\n")];
  const kb = megabytes(joined) * 1e3;
  const ourMs = await cpuMs(() => redact(joined[0] ?? ""));
  const theirMs = await cpuMs(() => secretlintSpans(joined[0] ?? ""), 3);
  printTable(
    `Secret detection (corpus: ${POSITIVES.length} positives holding ${secrets} secrets, ${NEGATIVES.length} hard negatives, ${fmt(kb, 0)} KB)`,
    [
      [
        "detector",
        "recall: provider formats",
        "recall: context rules",
        `recall: ${TOKEN_FORMATS.length} formats`,
        `recall: labels, ${LABEL_LANGUAGES.length} languages`,
        "recall: all",
        "false positives",
        "ms per KB",
      ],
      [
        "big-memory redact",
        recall(PROVIDER_POSITIVES, ours),
        recall(CONTEXT_POSITIVES, ours),
        recall(FORMAT_POSITIVES, ours),
        recall(LABEL_POSITIVES, ours),
        recall(POSITIVES, ours),
        `${ourFalse} (${pct(ourFalse, NEGATIVES.length)})`,
        fmt(ourMs / kb, 3),
      ],
      [
        "secretlint preset-recommend (baseline)",
        recall(PROVIDER_POSITIVES, theirs),
        recall(CONTEXT_POSITIVES, theirs),
        recall(FORMAT_POSITIVES, theirs),
        recall(LABEL_POSITIVES, theirs),
        recall(POSITIVES, theirs),
        `${theirFalse} (${pct(theirFalse, NEGATIVES.length)})`,
        fmt(theirMs / kb, 3),
      ],
    ],
  );

  const caught = POSITIVES.filter(ours).length;
  const goals: [string, boolean][] = [
    [`recall 100% (${caught} of ${POSITIVES.length})`, caught === POSITIVES.length],
    [`0 false positives (${ourFalse} of ${NEGATIVES.length})`, ourFalse === 0],
    [`>= 1,500 positives (${POSITIVES.length})`, POSITIVES.length >= 1500],
    [`>= 150 provider formats (${TOKEN_FORMATS.length} named by their source)`, TOKEN_FORMATS.length >= 150],
    [`password labels in >= 20 languages (${LABEL_LANGUAGES.length})`, LABEL_LANGUAGES.length >= 20],
    [`>= 1,000 hard negatives (${NEGATIVES.length})`, NEGATIVES.length >= 1000],
  ];
  for (const [goal, met] of goals) console.log(`${met ? "met   " : "MISSED"}  ${goal}`);

  const set = compileRules([
    ...PROVIDER_RULES,
    ...CONTEXT_RULES,
    ...COMMAND_RULES,
    ...PAIR_RULES,
    ...LABEL_RULES,
  ]);
  const escaped = set.scanner.literals.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const combined = new RegExp(escaped.join("|"), "gi");
  const logs = dailyLogs(opts.quick ? 600 : 2000);
  const rows: string[][] = [["pass over the text", "input", "MB/s", "vs redact"]];
  for (const [input, texts, withSecretlint] of [
    [`daily logs: ${fmt(megabytes(logs), 1)} MB in ${logs.length} files, few secrets`, logs, true],
    [`corpus, one call per text: ${corpus.length} texts`, corpus, false],
    [`corpus joined into one text: ${fmt(kb, 0)} KB`, joined, true],
  ] as const) {
    const speed = async (fn: (t: string) => unknown, rounds = 5) =>
      megabytes(texts) /
      ((await cpuMs(async () => {
        for (const t of texts) await fn(t);
      }, rounds)) /
        1000);
    const base = await speed((t) => redact(t));
    const row = (name: string, mbps: number) =>
      rows.push([name, input, fmt(mbps, 1), `${fmt(mbps / base, 2)}x`]);
    row("big-memory redact", base);
    row(
      `one regex over the ${escaped.length} trigger literals (baseline)`,
      await speed((t) => t.match(combined)),
    );
    row("text.includes of one literal (baseline)", await speed((t) => t.includes("-----BEGIN")));
    if (withSecretlint) row("secretlint preset-recommend (baseline)", await speed(secretlintSpans, 3));
  }
  printTable("Redaction throughput (CPU time, best of several rounds)", rows);
  await runPathologicalBench(combined);
  runJudgedBench(opts.quick ? 1000 : 3000);
}

/**
 * The strict reader on plugin-written logs: `parseDailyLog` redacting every block it reads (the baseline),
 * against the same reader with a memory of the blocks judged clean by the current rules (filled by one
 * read before timing, as a first read fills it), and against the reader with redaction taken out (the
 * memory holding every block, which is what it costs when rules have not changed).
 */
export function runJudgedBench(snapshots: number): void {
  const days = generateCorpus({ snapshots, queriesPerCategory: 1 }).days;
  // Each log as the readers have it: its bytes from disk, decoded at each read (`LogText`).
  const logs = days.map((d) => ({
    file: `memory/${d.date}.md`,
    bytes: Buffer.from(d.snapshots.map(renderSnapshot).join("\n")),
  }));
  const mb = logs.reduce((sum, l) => sum + l.bytes.length, 0) / 1e6;
  const judged = new JudgedBlocks(REDACTION_RULES_VERSION);
  for (const l of logs) parseDailyLog(new LogText(l.bytes), l.file, { judged });
  const stale = JudgedBlocks.from(judged.toJSON(), "rules before an edit");
  // CPU time, the best of several rounds, as above: the machine may be shared. A round that redacts nothing
  // takes tens of milliseconds, so it runs more rounds, as many as make a second of work.
  const speed = (options: () => ParseOptions, rounds = 5) => {
    let best = Number.POSITIVE_INFINITY;
    for (let round = 0; round < rounds; round++) {
      const before = process.cpuUsage();
      for (const l of logs) parseDailyLog(new LogText(l.bytes), l.file, options());
      const used = process.cpuUsage(before);
      best = Math.min(best, (used.user + used.system) / 1e6);
    }
    return mb / best;
  };
  const base = speed(() => ({}));
  const remembered = speed(() => ({ judged }), 25);
  const changed = speed(() => ({ judged: JudgedBlocks.from(stale.toJSON(), REDACTION_RULES_VERSION) }));
  printTable(`Strict reader on plugin-written logs (${fmt(mb, 1)} MB, ${judged.size} blocks judged clean)`, [
    ["parseDailyLog", "MB/s", "vs redacting every block", "goal"],
    ["redacting every block (baseline: no memory)", fmt(base, 1), "1.00x", ""],
    ["rules changed since the memory was written", fmt(changed, 1), `${fmt(changed / base, 2)}x`, ""],
    [
      "rules unchanged: remembered blocks are not redacted again",
      fmt(remembered, 1),
      `${fmt(remembered / base, 2)}x`,
      remembered >= 150 ? ">= 150 MB/s: met" : ">= 150 MB/s: NOT met",
    ],
  ]);
}

/**
 * Each pathological family at 1 MB through `redact`, against the goal of 50 ms: measured in a process of its
 * own (`redact-family.ts`), and again in this process after the corpus and the daily logs ran (the figure a
 * long-lived process that redacted other texts first may see), beside one pass of the trigger regex over the
 * same text. Then the engines: a lazy `command.*?option` pattern of the kind that was quadratic, in V8
 * (backtracking) and in re2js (linear, pure JavaScript), and one simple assignment pattern over a text dense
 * with matches in both, to show what a linear-time engine would cost.
 */
async function runPathologicalBench(triggers: RegExp): Promise<void> {
  const size = 1_000_000;
  const goal = 50;
  const rows: string[][] = [
    ["family (1 MB)", "redact ms", "MB/s", "goal", "in this process", "trigger regex ms", "vs trigger regex"],
  ];
  const script = fileURLToPath(new URL("./redact-family.ts", import.meta.url));
  const families = [...PATHOLOGICAL_FRAGMENTS, ...PATHOLOGICAL_VARIED].map(([name]) => name);
  for (const name of families) {
    const text = familyText(name, size) ?? "";
    const child = spawnSync(process.execPath, [script, name, String(size), "7"], { encoding: "utf8" });
    const alone = child.status === 0 ? (JSON.parse(child.stdout) as { ms: number }).ms : Number.NaN;
    const here = await cpuMs(() => redact(text), 7);
    const base = await cpuMs(() => text.match(triggers), 3);
    rows.push([
      name,
      fmt(alone, 1),
      fmt(size / 1e6 / (alone / 1000), 1),
      alone <= goal ? `<= ${goal} ms: met` : `<= ${goal} ms: NOT met`,
      fmt(here, 1),
      fmt(base, 1),
      `${fmt(alone / base, 1)}x`,
    ]);
  }
  printTable(
    "Pathological inputs: each family at 1 MB (CPU time, best of 7 for redact in its own process and in this one, 3 for the regex)",
    rows,
  );

  const lazy = String.raw`\bmysql\b(?:[^\n|;&]|\\\r?\n)*?[ \t]-p([^\s"'\x60;|&<>()]{1,256})`;
  const assignment = String.raw`(?:password|passwd|secret)[ \t]*[:=][ \t]*([^\s"'\x60,;()\[\]{}<>]{1,512})`;
  const v8 = (source: string, text: string) => () => {
    const re = new RegExp(source, "gi");
    let n = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) n++;
    return n;
  };
  const re2 = (source: string, text: string) => () => {
    const m = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE).matcher(text);
    let n = 0;
    while (m.find()) n++;
    return n;
  };
  const engines: string[][] = [["pattern", "input", "V8 irregexp ms", "re2js ms", "re2js vs V8"]];
  for (const [name, source, text] of [
    ["lazy `mysql .*? -p` (the old rule)", lazy, repeatTo("mysql ", 20_000)],
    ["lazy `mysql .*? -p` (the old rule)", lazy, repeatTo("mysql ", 40_000)],
    ["`password: value`", assignment, repeatTo("password: ", size)],
  ] as const) {
    const a = await cpuMs(v8(source, text), 3);
    const b = await cpuMs(re2(source, text), 3);
    engines.push([name, `${fmt(text.length / 1e3, 0)} KB`, fmt(a, 1), fmt(b, 1), `${fmt(b / a, 2)}x`]);
  }
  printTable("Regular expression engines on pathological inputs (CPU time, best of 3)", engines);
}

if (import.meta.url === `file://${process.argv[1]}`)
  await runRedactBench({ quick: process.argv.includes("--quick") });
