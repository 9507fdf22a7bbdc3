import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import * as current from "../../plugin/snapshot/redact.ts";
import { findCorpus, readManifest, transcriptText } from "../fidelity/corpus.ts";
import { NEGATIVES, POSITIVES } from "./fixtures/secret-corpus.ts";
import { PATHOLOGICAL_FRAGMENTS, PATHOLOGICAL_VARIED, repeatTo, variedTo } from "./redact-pathological.ts";

/**
 * A change meant to make redaction faster must not change a single output. This compares `redact` and
 * `redactDeep` of this tree with those of another tree (an earlier commit, unpacked with
 * `git archive COMMIT | tar -x -C DIR`) on: every text of the labelled corpus, alone and joined; every line
 * and every string of every real session of the fidelity corpus; every pathological family at 200 KB,
 * repeated and with values varied; random mixes of families, corpus texts, separators and short random
 * strings, repeated; and `redactDeep` over values built from the corpus. It prints the first differences
 * and their count, and exits 1 when there is any.
 *
 *   node test/snapshot/redact-differential.ts DIR [RUNS]
 */

type Redactor = Pick<typeof current, "redact" | "redactDeep">;

async function load(dir: string): Promise<Redactor> {
  const file = join(resolve(dir), "plugin/snapshot/redact.ts");
  if (!existsSync(file))
    throw new Error(`big-memory: redact differential: ${file} not found (unpack a tree there first)`);
  return (await import(pathToFileURL(file).href)) as Redactor;
}

/** Texts a real session holds: each line, and each string of a JSON line, whole and line by line. */
function sessionTexts(transcript: string): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value, ...value.split("\n"));
    else if (value !== null && typeof value === "object") for (const item of Object.values(value)) walk(item);
  };
  for (const line of transcript.split("\n")) {
    out.push(line);
    try {
      walk(JSON.parse(line));
    } catch {
      // Not JSON: the line alone.
    }
  }
  return out;
}

export async function differential(oldDir: string, runs: number): Promise<number> {
  const old = await load(oldDir);
  let checked = 0;
  let differences = 0;
  const same = (a: unknown, b: unknown, where: string, input: unknown) => {
    checked++;
    const x = JSON.stringify(a);
    const y = JSON.stringify(b);
    if (x === y) return;
    differences++;
    if (differences <= 5)
      console.log(
        `DIFFERENT (${where}): ${JSON.stringify(input).slice(0, 200)}\n  old ${x.slice(0, 300)}\n  new ${y.slice(0, 300)}`,
      );
  };
  const text = (t: string, where: string) => same(old.redact(t), current.redact(t), where, t);

  const corpus = [...POSITIVES.map((p) => p.text), ...NEGATIVES.map((n) => n.text)];
  for (const t of corpus) text(t, "corpus");
  for (const separator of ["\n\n", " ", ""]) text(corpus.join(separator), "corpus joined");
  const dir = findCorpus();
  if (dir === null) console.log("no fidelity corpus: real sessions not compared");
  else
    for (const entry of readManifest(dir).sessions)
      for (const t of sessionTexts(transcriptText(dir, entry))) text(t, entry.id);
  for (const [name, fragment] of PATHOLOGICAL_FRAGMENTS) text(repeatTo(fragment, 200_000), name);
  for (const [name, family] of PATHOLOGICAL_VARIED) text(variedTo(family, 200_000), name);

  const separators = [" ", "\n", "", ";", "|", "\t", '"', "'", "=", ":", "\n\n", "@", "/"];
  const piece = fc.oneof(
    fc.constantFrom(...PATHOLOGICAL_FRAGMENTS.map(([, fragment]) => fragment)),
    fc.constantFrom(...PATHOLOGICAL_VARIED.map(([, family]) => variedTo(family, 300))),
    fc.constantFrom(...corpus),
    fc.constantFrom(...separators),
    fc.string({ maxLength: 10 }),
  );
  fc.assert(
    fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 30 }), (p, n) => {
      text(p.join("").repeat(n), "mix");
    }),
    { numRuns: runs, seed: 1 },
  );
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.constantFrom(...corpus), fc.constantFrom(...separators)), {
        minLength: 2,
        maxLength: 30,
      }),
      (p) => {
        text(p.join(""), "corpus mix");
      },
    ),
    { numRuns: runs, seed: 2 },
  );
  for (let i = 0; i < 300; i++) {
    const at = (k: number) => corpus[(i * k) % corpus.length] ?? "";
    const value = { a: at(7), b: [at(13), { password: at(1) }], label: "пароль", value: at(3) };
    same(old.redactDeep(value), current.redactDeep(value), "redactDeep", value);
  }
  console.log(`${checked} inputs compared, ${differences} different`);
  return differences;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, runs] = process.argv.slice(2);
  if (dir === undefined) {
    console.error("usage: node test/snapshot/redact-differential.ts OLD_TREE_DIR [RUNS]");
    process.exit(2);
  }
  process.exit((await differential(dir, Number(runs ?? 3000))) === 0 ? 0 : 1);
}
