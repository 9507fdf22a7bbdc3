import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { convertClaude } from "./convert-claude.ts";
import { convertPi } from "./convert-pi.ts";
import { convertSpecStory } from "./convert-specstory.ts";
import type { RealSession } from "./session.ts";

/**
 * The fidelity corpus: real public agent sessions, one gzip'd transcript each, listed with their origin in
 * `manifest.json` (the folder's `ATTRIBUTION.md` is the human-readable copy). The folder is, in order:
 * `$BIG_MEMORY_FIDELITY_CORPUS`, `test/fidelity/fixtures` when it holds a manifest, or `shared/fidelity-corpus`
 * beside the repository (where CI finds the steering repository's `shared/`).
 */

export const FORMATS = ["pi", "claude-code", "specstory"] as const;

export const CorpusEntry = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  source: z.string().min(1),
  format: z.enum(FORMATS),
  file: z.string().min(1),
  repo: z.string().min(1),
  path: z.string().min(1),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  /** CC0 (a public-domain dedication) asks even less than MIT or CC-BY. */
  license: z.enum(["MIT", "Apache-2.0", "CC-BY-4.0", "CC0-1.0"]),
  author: z.string().min(1),
  /** Lines whose numbers the author's own masking had broken, repaired (the number became 0). */
  repairedLines: z.number().int().nonnegative().optional(),
  /** Lines the author's masking had cut short (no longer JSON), left out. */
  droppedLines: z.number().int().nonnegative().optional(),
});
export type CorpusEntry = z.infer<typeof CorpusEntry>;
export const Manifest = z.object({ version: z.literal(1), sessions: z.array(CorpusEntry).min(1) });
export type Manifest = z.infer<typeof Manifest>;

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The corpus folders tried, in order. */
export function corpusCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const fromEnv = env.BIG_MEMORY_FIDELITY_CORPUS;
  return [
    ...(fromEnv === undefined || fromEnv === "" ? [] : [resolve(fromEnv)]),
    join(REPO, "test/fidelity/fixtures"),
    resolve(REPO, "../shared/fidelity-corpus"),
  ];
}

/** The first candidate folder that holds a `manifest.json`, or null. */
export function findCorpus(env: NodeJS.ProcessEnv = process.env): string | null {
  return corpusCandidates(env).find((dir) => existsSync(join(dir, "manifest.json"))) ?? null;
}

/** Reads and checks `manifest.json`; throws with what was expected, what was found, and where. */
export function readManifest(dir: string): Manifest {
  const file = join(dir, "manifest.json");
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: not readable JSON (${(error as Error).message})`);
  }
  const parsed = Manifest.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: ${issue?.path.join(".") ?? "?"}: ${issue?.message ?? "invalid manifest"}`);
  }
  return parsed.data;
}

/** The transcript text of an entry (gunzipped when the file ends `.gz`). */
export function transcriptText(dir: string, entry: CorpusEntry): string {
  const bytes = readFileSync(join(dir, "sessions", entry.file));
  return (entry.file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
}

/** Converts a transcript of a known format into session events. */
export function convertTranscript(
  format: CorpusEntry["format"],
  text: string,
  meta: { id: string; source: string },
): RealSession {
  if (format === "pi") return convertPi(text, meta);
  return format === "specstory" ? convertSpecStory(text, meta) : convertClaude(text, meta);
}

/** Every session of the corpus in `dir`, converted. */
export function loadCorpus(dir: string): { manifest: Manifest; sessions: RealSession[] } {
  const manifest = readManifest(dir);
  const sessions = manifest.sessions.map((e) =>
    convertTranscript(e.format, transcriptText(dir, e), { id: e.id, source: e.source }),
  );
  return { manifest, sessions };
}
