/**
 * A long history of hand-written daily logs for the read-path benchmark: the snapshots of the search
 * corpus written the way people and models write them (no checksum, no session, agent or trigger line),
 * between paragraphs of ordinary notes, until the logs reach a size. Deterministic.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";
import { generateCorpus, prng } from "./corpus.ts";
import { PROSE, TECH } from "./corpus-vocabulary.ts";

/** A snapshot block as a person or a model following the skill writes it: no plugin metadata. */
export function handWrittenBlock(s: Snapshot): string {
  return renderSnapshot(s).replace(/^<!-- (?:checksum|session|agent|trigger|name|parent): .*\n/gm, "");
}

/** A paragraph of notes of about `words` words. */
export function notesParagraph(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const pool = r() < 0.8 ? PROSE : TECH;
    out.push(pool[Math.floor(r() * pool.length)] ?? "note");
  }
  return `${out.join(" ")}.`;
}

export interface HistoryOptions {
  /** Stop once the logs hold this many bytes. */
  bytes: number;
  /** Bytes of notes per day, besides the blocks. Default 2000. */
  notesPerDay?: number;
  seed?: number;
}

export interface History {
  logs: number;
  blocks: number;
  bytes: number;
  /** An identifier found in exactly one block (an error code), and that block's id. */
  probe: { query: string; id: string };
}

/**
 * Writes hand-written daily logs under `<workspaceDir>/memory/` until they reach `bytes`; returns
 * what was written. Each snapshot of the search corpus (rendered at about 1.6 KB without metadata)
 * becomes one block.
 */
export async function writeHistory(workspaceDir: string, options: HistoryOptions): Promise<History> {
  const r = prng(options.seed ?? 7);
  const estimate = Math.ceil(options.bytes / 1500);
  const corpus = generateCorpus({ snapshots: estimate, queriesPerCategory: 1 });
  await mkdir(join(workspaceDir, "memory"), { recursive: true });
  let bytes = 0;
  let blocks = 0;
  let logs = 0;
  let probe = { query: "", id: "" };
  for (const day of corpus.days) {
    if (bytes >= options.bytes) break;
    const parts = [`# ${day.date}\n`];
    let notes = 0;
    for (const s of day.snapshots) {
      if (notes < (options.notesPerDay ?? 2000)) {
        const p = notesParagraph(r, 20 + Math.floor(r() * 60));
        notes += p.length;
        parts.push(p, "");
      }
      parts.push("---", "", `## Task Snapshot -- ${s.timestamp.slice(11, 16)}`, "", handWrittenBlock(s));
      blocks++;
      if (probe.id === "") probe = { query: s.names[0]?.value ?? "", id: s.id };
    }
    const text = parts.join("\n");
    await writeFile(join(workspaceDir, "memory", `${day.date}.md`), text);
    bytes += Buffer.byteLength(text);
    logs++;
  }
  return { logs, blocks, bytes, probe };
}
