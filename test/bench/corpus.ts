/**
 * Deterministic corpus of realistic task snapshots for the search benchmark, with a labelled query set.
 *
 * Work is organised in tasks (3-7 snapshots each, over consecutive days, several tasks interleaved per
 * day), in twelve product areas with their own paths, tables, endpoints and vocabulary. Every snapshot
 * carries prose (goal, state, decisions, blockers, next steps), 2-6 files, a code excerpt and key names,
 * about 1.8 KB once rendered. Each snapshot also holds a few values found only in it (an error code, a
 * ticket, a record id, a helper function, a commit), which is what the labelled queries ask for, the way a
 * person remembers "the one with INV-2026-00417".
 *
 * Each label is the one right answer at every size: a prefix query is long enough that no other
 * snapshot's names start with it, and a phrase query names the wrong person only when no other
 * snapshot opens its next steps with the same phrase.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";
import {
  ACTIONS,
  ADJ,
  AREAS,
  type Area,
  CJK_NOTES,
  LOCALES,
  OUTCOMES,
  PEOPLE,
  PHASES,
  PROBLEMS,
  PROSE,
  TECH,
  VERBS,
} from "./corpus-vocabulary.ts";

/** A query with the snapshot a person asking it wants first. */
export interface LabelledQuery {
  category: QueryCategory;
  query: string;
  /** Snapshot id of the right answer; "" for the absent categories, whose right answer is no hit at all. */
  expected: string;
}

export type QueryCategory =
  | "identifier"
  | "hyphenated"
  | "phrase"
  | "prefix"
  | "typo"
  | "absent-identifier"
  | "absent-path";
export const QUERY_CATEGORIES: readonly QueryCategory[] = [
  "identifier",
  "hyphenated",
  "phrase",
  "prefix",
  "typo",
  "absent-identifier",
  "absent-path",
];

/** Whether a category's right answer is no hit (an identifier or path that no snapshot holds). */
export function isAbsent(category: QueryCategory): boolean {
  return category.startsWith("absent");
}

export interface CorpusOptions {
  /** Number of snapshots. */
  snapshots: number;
  /** PRNG seed; the same seed gives the same corpus. Default 2026. */
  seed?: number;
  /** Snapshots per day (a heavy user writes about 27). Default 27. */
  perDay?: number;
  /** Labelled queries per category. Default 40. */
  queriesPerCategory?: number;
}

export interface Corpus {
  /** Daily logs in date order, each with its snapshots in write order. */
  days: { date: string; snapshots: Snapshot[] }[];
  queries: LabelledQuery[];
}

/** mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => {
  const x = xs[Math.floor(r() * xs.length)];
  if (x === undefined) throw new Error("pick from an empty list");
  return x;
};
const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pad = (n: number, width: number): string => String(n).padStart(width, "0");
const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const camel = (words: string[]): string =>
  words
    .map((w, i) => (i === 0 ? w : cap(w)))
    .join("")
    .replace(/[^A-Za-z0-9]/g, "");

function sentence(r: Rng, area: Area, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const roll = r();
    out.push(
      roll < 0.45
        ? pick(r, PROSE)
        : roll < 0.75
          ? pick(r, area.nouns)
          : roll < 0.9
            ? pick(r, TECH)
            : pick(r, ADJ),
    );
  }
  return out.join(" ");
}

interface Task {
  area: Area;
  goal: string;
  slug: string;
  branch: string;
  ticket: string;
  files: string[];
  session: string;
  agent: string;
  name: string | null;
  remaining: number;
  step: number;
}

/** Values found in exactly one snapshot; the generator retries on the rare collision. */
class Unique {
  readonly #seen = new Set<string>();
  /** A fresh value from `make`; after a few collisions, the last one widened by `widen` (a counter). */
  take(make: () => string, widen: (value: string, n: number) => string = (v, n) => `${v}-${n}`): string {
    let v = make();
    for (let attempt = 0; this.#seen.has(v) && attempt < 8; attempt++) v = make();
    const base = v;
    for (let n = 2; this.#seen.has(v); n++) v = widen(base, n);
    this.#seen.add(v);
    return v;
  }
}

function newTask(r: Rng, n: number, unique: Unique): Task {
  const area = pick(r, AREAS);
  const noun = pick(r, area.nouns);
  const noun2 = pick(r, area.nouns);
  const problem = pick(r, PROBLEMS);
  const agent = pick(r, ["main", "main", "main", "ops", "research"]);
  const slug = `${noun}-${problem.replace(/[^a-z0-9]+/g, "-")}`;
  const files = Array.from({ length: int(r, 3, 5) }, () => {
    const ext = pick(r, [".ts", ".ts", ".tsx", ".sql", ".yaml", ".py", ".go"]);
    return `${pick(r, area.dirs)}/${pick(r, area.nouns)}-${pick(r, [...ADJ, ...area.nouns])}${ext}`;
  });
  return {
    area,
    goal: `${cap(pick(r, VERBS))} the ${problem} in ${noun} ${pick(r, TECH)} handling for ${noun2} ${pick(r, ADJ)} records so that ${pick(r, OUTCOMES)}`,
    slug,
    branch: `${pick(r, ["fix", "feat", "chore", "perf"])}/${slug}-${n}`,
    ticket: unique.take(() => `${area.ticket}-${int(r, 100, 9999)}`),
    files,
    session: `agent:${agent}:${pick(r, ["telegram", "discord", "cli", "slack"])}:${int(r, 1, 400)}`,
    agent,
    name: r() < 0.3 ? unique.take(() => `${slug}-${int(r, 1, 999)}`).slice(0, 64) : null,
    remaining: int(r, 3, 7),
    step: 0,
  };
}

/** Values that identify one snapshot: what its labelled queries ask for. */
interface Marks {
  errorCode: string;
  record: string;
  fn: string;
  phraseWords: string[];
  area: Area;
  /** The folder of the snapshot's first file. */
  folder: string;
}

function snapshotOf(r: Rng, task: Task, id: string, timestamp: string, unique: Unique): [Snapshot, Marks] {
  const a = task.area;
  task.step++;
  const errorCode = unique.take(
    () =>
      `ERR_${pick(r, a.nouns)}_${pick(r, ADJ)}_${pick(r, ACTIONS)}`.toUpperCase().replace(/[^A-Z0-9_]/g, "_"),
    (code, n) => `${code}_${n}`,
  );
  const recordKind = pick(r, ["INV", "ADR", "REQ", "INC", "RFC"]);
  const record = unique.take(() =>
    recordKind === "INV"
      ? `INV-${timestamp.slice(0, 4)}-${pad(int(r, 1, 99999), 5)}`
      : `${recordKind}-${pad(int(r, 1, 999), 3)}-${pick(r, a.nouns)}`,
  );
  const fn = unique.take(() =>
    camel([pick(r, ACTIONS), pick(r, ADJ), pick(r, a.nouns), pick(r, [...a.nouns, ...ADJ])]),
  );
  const phraseWords = [
    pick(r, ACTIONS),
    "the",
    pick(r, ADJ),
    pick(r, a.nouns),
    pick(r, TECH).split(" ")[0] ?? "",
    "before",
    pick(r, PEOPLE),
  ];
  const nextSteps = [
    `${cap(phraseWords.join(" "))} ${sentence(r, a, 3)}`,
    `Run ${fn} against ${pick(r, a.tables)} and compare with ${sentence(r, a, 3)}`,
    `${cap(pick(r, ACTIONS))} ${pick(r, a.nouns)} ${sentence(r, a, 4)}`,
  ];
  const files = task.files
    .slice(0, int(r, 2, Math.min(4, task.files.length)))
    .map((path) => ({ path, note: sentence(r, a, int(r, 2, 5)) }));
  const code = [
    `// ${sentence(r, a, 5)}`,
    `export async function ${fn}(${pick(r, a.nouns)}Id: string, opts: { ${pick(r, ADJ)}: boolean }) {`,
    `  const rows = await db.query("SELECT * FROM ${pick(r, a.tables)} WHERE ${pick(r, a.nouns)}_id = $1 AND status = '${pick(r, ADJ)}'", [${pick(r, a.nouns)}Id]);`,
    `  if (rows.length === 0) throw new AppError("${errorCode}", \`no ${pick(r, a.nouns)} for \${${pick(r, a.nouns)}Id}\`);`,
    `  return rows.map((row) => ${pick(r, ACTIONS)}${cap(pick(r, a.nouns))}(row, opts));`,
    "}",
  ].join("\n");
  const names = [
    { label: "Error code", value: errorCode },
    { label: "Ticket", value: task.ticket },
    { label: recordKind === "INV" ? "Invoice" : "Reference", value: record },
    { label: "Endpoint", value: pick(r, a.endpoints) },
    { label: "Table", value: pick(r, a.tables) },
    {
      label: "Commit",
      value: Math.floor(r() * 0xfffffff)
        .toString(16)
        .padStart(7, "0"),
    },
  ];
  if (a.key === "i18n" || r() < 0.1) names.push({ label: "Locale", value: pick(r, LOCALES) });
  const snapshot: Snapshot = {
    version: 1,
    id,
    timestamp,
    session: task.session,
    agent: task.agent,
    trigger: pick(r, ["flush", "flush", "compaction", "manual", "tool", "autosave"] as const),
    name: task.name,
    parent: null,
    tombstone: false,
    goal: task.goal,
    state: {
      phase: pick(r, PHASES),
      branch: task.branch,
      blocked: r() < 0.25 ? `yes -- waiting for ${pick(r, PEOPLE)} to ${sentence(r, a, 4)}` : "no",
      progress: `${task.step}/${task.step + task.remaining} steps; ${sentence(r, a, 5)}`,
    },
    files,
    decisions: Array.from({ length: int(r, 1, 2) }, () => ({
      text: `Use ${pick(r, TECH)} for ${pick(r, a.nouns)} ${sentence(r, a, 4)}`,
      rationale: sentence(r, a, int(r, 4, 8)) + (r() < 0.05 ? ` (${pick(r, CJK_NOTES)})` : ""),
    })),
    code,
    names,
    blockers: r() < 0.5 ? [`${cap(sentence(r, a, 7))}?`] : [],
    next: nextSteps,
    extra: [],
  };
  return [
    snapshot,
    {
      errorCode,
      record,
      fn,
      phraseWords,
      area: a,
      folder: (files[0]?.path ?? "src/x").replace(/\/[^/]*$/, ""),
    },
  ];
}

/** One edit (deletion, swap or substitution) between two lower-case letters past the first two characters. */
function typo(r: Rng, word: string): string {
  const spots = [...word].flatMap((c, i) =>
    i >= 2 && /[a-z]/.test(c) && /[a-z]/.test(word[i + 1] ?? "") ? [i] : [],
  );
  const i = spots.length === 0 ? 2 : pick(r, spots);
  const kind = int(r, 0, 2);
  if (kind === 0) return word.slice(0, i) + word.slice(i + 1); // deletion
  if (kind === 1) return word.slice(0, i) + (word[i + 1] ?? "") + (word[i] ?? "") + word.slice(i + 2); // swap
  return (
    word.slice(0, i) +
    pick(
      r,
      [..."aeiourstln"].filter((c) => c !== word[i]),
    ) +
    word.slice(i + 1)
  ); // substitution
}

/** What a person remembers of a phrase: its action, adjective, noun and technique, and who it was for. */
function phraseQuery(phraseWords: readonly string[], who: string): string {
  const [action, , adj, noun, tech] = phraseWords;
  return `${action} ${adj} ${noun} ${tech} ${who}`;
}

/** The part of a next step's phrase a query asks for, up to the person (`compute the stale callback canary`). */
const phraseKey = (line: string): string => line.toLowerCase().split(" ").slice(0, 5).join(" ");

/** How many snapshots open their next steps with each phrase (see {@link phraseKey}). */
function phraseCounts(days: Corpus["days"]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const day of days) {
    for (const s of day.snapshots) {
      const key = phraseKey(s.next[0] ?? "");
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

function queriesFor(r: Rng, id: string, m: Marks): LabelledQuery[] {
  const person = m.phraseWords[6];
  // A third of the phrases are misremembered: the person named is the wrong one.
  const who =
    r() < 0.33
      ? pick(
          r,
          PEOPLE.filter((p) => p !== person),
        )
      : person;
  return [
    { category: "identifier", query: m.errorCode, expected: id },
    { category: "hyphenated", query: m.record, expected: id },
    { category: "phrase", query: phraseQuery(m.phraseWords, who ?? ""), expected: id },
    // Replaced by the shortest prefix no other snapshot's name starts with, once the corpus is complete.
    { category: "prefix", query: m.fn.slice(0, prefixLength(m.fn)), expected: id },
    { category: "typo", query: `${typo(r, m.fn)}`, expected: id },
  ];
}

/** Shortest prefix asked for: 60% of the name, at least 8 characters. */
const prefixLength = (fn: string): number => Math.max(8, Math.ceil(fn.length * 0.6));

/**
 * The names of the code of every snapshot (the function it defines, the functions it calls), lower-case,
 * sorted, each with the one snapshot holding it ("" when several do).
 */
function codeNames(days: Corpus["days"]): { names: string[]; owner: Map<string, string> } {
  const owner = new Map<string, string>();
  for (const day of days) {
    for (const s of day.snapshots) {
      for (const [name] of s.code.matchAll(/[A-Za-z][A-Za-z0-9]*/g)) {
        const key = name.toLowerCase();
        const held = owner.get(key);
        owner.set(key, held === undefined || held === s.id ? s.id : "");
      }
    }
  }
  return { names: [...owner.keys()].sort(), owner };
}

/**
 * The shortest prefix of `fn` (at least {@link prefixLength}) that no name in another snapshot's code
 * starts with: at large sizes, a short prefix of a name is the beginning of several names, each as right
 * an answer as the one labelled.
 */
function distinctPrefix(fn: string, id: string, code: ReturnType<typeof codeNames>): string {
  for (let length = prefixLength(fn); length < fn.length; length++) {
    const prefix = fn.slice(0, length).toLowerCase();
    let lo = 0;
    let hi = code.names.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((code.names[mid] as string) < prefix) lo = mid + 1;
      else hi = mid;
    }
    let shared = false;
    for (let i = lo; i < code.names.length && (code.names[i] as string).startsWith(prefix); i++) {
      if (code.owner.get(code.names[i] as string) !== id) shared = true;
    }
    if (!shared) return fn.slice(0, length);
  }
  return fn;
}

/**
 * The absent queries of a target snapshot, made once the corpus is complete, from their own random
 * stream (the corpus stays the same with or without them): its error code with the last word changed,
 * and a file in the folder of its first file, neither held by any snapshot.
 */
function absentQueries(r: Rng, m: Marks, taken: ReadonlySet<string>): LabelledQuery[] {
  // Tries `make` until it gives a value no snapshot holds; then `widen` (always fresh enough) as a last resort.
  const fresh = (make: () => string, widen: (v: string) => string) => {
    for (let attempt = 0; attempt < 50; attempt++) {
      const v = make();
      if (!taken.has(v)) return v;
    }
    return widen(make());
  };
  const word = (w: string) => w.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
  // The snapshot's code with its last word changed; at large sizes every such code may exist, and then
  // another of the area's nouns and adjectives.
  const stem = m.errorCode.slice(0, m.errorCode.lastIndexOf("_"));
  const code = fresh(
    () =>
      r() < 0.5
        ? `${stem}_${word(pick(r, ACTIONS))}`
        : `ERR_${word(pick(r, m.area.nouns))}_${word(pick(r, ADJ))}_${word(pick(r, ACTIONS))}`,
    (v) => `${v}_${word(pick(r, ACTIONS))}`,
  );
  const path = fresh(
    () => `${m.folder}/${pick(r, m.area.nouns)}-${pick(r, ACTIONS)}-${pick(r, ADJ)}.ts`,
    (v) => v.replace(/\.ts$/, "-2.ts"),
  );
  return [
    { category: "absent-identifier", query: code, expected: "" },
    { category: "absent-path", query: path, expected: "" },
  ];
}

/**
 * Generates `snapshots` snapshots across daily logs starting 2026-01-05, `perDay` a day, with their
 * labelled queries (`queriesPerCategory` targets spread evenly over the corpus).
 */
export function generateCorpus(options: CorpusOptions): Corpus {
  const r = prng(options.seed ?? 2026);
  const perDay = options.perDay ?? 27;
  const unique = new Unique();
  const targets = new Set<number>();
  const perCategory = Math.min(options.queriesPerCategory ?? 40, options.snapshots);
  for (let i = 0; i < perCategory; i++)
    targets.add(Math.floor(((i + 0.5) * options.snapshots) / perCategory));
  const days: Corpus["days"] = [];
  const queries: LabelledQuery[] = [];
  const absentFor: Marks[] = [];
  const marksOf = new Map<string, Marks>();
  let active: Task[] = [];
  let taskCount = 0;
  const day0 = Date.UTC(2026, 0, 5);
  for (let n = 0; n < options.snapshots; ) {
    const date = new Date(day0 + days.length * 86_400_000).toISOString().slice(0, 10);
    const day = { date, snapshots: [] as Snapshot[] };
    days.push(day);
    const count = Math.min(perDay, options.snapshots - n);
    for (let k = 0; k < count; k++, n++) {
      while (active.length < 6) active.push(newTask(r, taskCount++, unique));
      const task = pick(r, active);
      const minutes = Math.floor((k * 14 * 60) / count) + 7 * 60;
      const timestamp = `${date}T${pad(Math.floor(minutes / 60), 2)}:${pad(minutes % 60, 2)}:00+01:00`;
      const [snapshot, marks] = snapshotOf(r, task, `${date}-${pad(k + 1, 2)}`, timestamp, unique);
      day.snapshots.push(snapshot);
      task.remaining--;
      if (targets.has(n)) {
        queries.push(...queriesFor(r, snapshot.id, marks));
        absentFor.push(marks);
        marksOf.set(snapshot.id, marks);
      }
    }
    active = active.filter((t) => t.remaining > 0);
  }
  const taken = new Set<string>();
  for (const day of days) {
    for (const s of day.snapshots) {
      for (const n of s.names) taken.add(n.value);
      for (const f of s.files) taken.add(f.path);
    }
  }
  const code = codeNames(days);
  const phrases = phraseCounts(days);
  for (const q of queries) {
    const marks = marksOf.get(q.expected);
    if (marks === undefined) continue;
    if (q.category === "prefix") q.query = distinctPrefix(marks.fn, q.expected, code);
    // A person is misremembered only in a phrase no other snapshot shares: otherwise the snapshots
    // sharing it would answer the query equally well (or better, when one names that person).
    if (q.category === "phrase" && (phrases.get(phraseKey(marks.phraseWords.join(" "))) ?? 0) > 1)
      q.query = phraseQuery(marks.phraseWords, marks.phraseWords[6] ?? "");
  }
  const ra = prng((options.seed ?? 2026) + 1);
  for (const marks of absentFor) queries.push(...absentQueries(ra, marks, taken));
  queries.sort((x, y) => QUERY_CATEGORIES.indexOf(x.category) - QUERY_CATEGORIES.indexOf(y.category));
  return { days, queries };
}

/** The text of a daily log holding `snapshots`, as the plugin would have appended them. */
export function dailyLogText(date: string, snapshots: readonly Snapshot[]): string {
  return `# ${date}\n\n${snapshots.map((s) => renderSnapshot(s)).join("\n")}`;
}

/** Writes a corpus as daily logs under `<workspaceDir>/memory/`; returns the number of files. */
export async function writeCorpus(workspaceDir: string, corpus: Corpus): Promise<number> {
  await mkdir(join(workspaceDir, "memory"), { recursive: true });
  for (const day of corpus.days) {
    await writeFile(join(workspaceDir, "memory", `${day.date}.md`), dailyLogText(day.date, day.snapshots));
  }
  return corpus.days.length;
}
