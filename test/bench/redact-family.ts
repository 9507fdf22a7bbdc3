import { redact } from "../../plugin/snapshot/redact.ts";
import {
  PATHOLOGICAL_FRAGMENTS,
  PATHOLOGICAL_VARIED,
  repeatTo,
  variedTo,
} from "../snapshot/redact-pathological.ts";

/**
 * One pathological family at `size` characters through `redact` in a process of its own: prints the best
 * CPU milliseconds of `rounds` runs. `redact.bench.ts` runs one of these per family, so that no family's
 * figure depends on what ran before it in the same process (a family measured after the labelled corpus
 * and the daily logs costs 15-40% more: code those texts trained, and the collector's work with what the
 * process holds).
 *
 *   node test/bench/redact-family.ts NAME [SIZE] [ROUNDS]
 */
export function familyText(name: string, size: number): string | undefined {
  const fragment = PATHOLOGICAL_FRAGMENTS.find(([n]) => n === name)?.[1];
  if (fragment !== undefined) return repeatTo(fragment, size);
  const family = PATHOLOGICAL_VARIED.find(([n]) => n === name)?.[1];
  return family === undefined ? undefined : variedTo(family, size);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [name = "", size = "1000000", rounds = "7"] = process.argv.slice(2);
  const text = familyText(name, Number(size));
  if (text === undefined) {
    console.error(`big-memory: redact-family: no family named ${JSON.stringify(name)}`);
    process.exit(2);
  }
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < Number(rounds); r++) {
    const before = process.cpuUsage();
    redact(text);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  console.log(JSON.stringify({ name, ms: best }));
}
