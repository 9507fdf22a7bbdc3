/**
 * A month held by its snapshot refs alone, without postings: what `list`, `show`, `recall` and `status`
 * need, read from the headers of the saved shards (see codec.ts `decodeShardHeader`) in a fraction of the
 * time a full load takes. It answers lookups by id, scope and name, never a search. Logs that changed
 * since are re-read into it. Pure.
 */

import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { at } from "./checked.ts";
import { type Entry, entryOf, FIELDS } from "./document.ts";
import type { Accumulator, CorpusStats, Reach, TermLookup } from "./scoring.ts";
import { newerFirst, type Shard } from "./shard.ts";

/** A month of snapshot refs, newest first, that takes whole-file replacements. */
export class LightShard implements Shard {
  readonly month: string;
  readonly lengthSums = new Float64Array(FIELDS.length);
  #entries: Entry[];

  constructor(month: string, entries: readonly Entry[]) {
    this.month = month;
    this.#entries = [...entries].sort(newerFirst);
  }

  get size(): number {
    return this.#entries.length;
  }

  entry(doc: number): Entry | undefined {
    return this.#entries[doc];
  }

  *documents(): IterableIterator<[number, Entry]> {
    for (let doc = 0; doc < this.#entries.length; doc++) yield [doc, at(this.#entries, doc)];
  }

  files(): string[] {
    return [...new Set(this.#entries.map((e) => e.file))];
  }

  /** Replaces the snapshots of one log with a fresh read of it (none: the log is gone). */
  replaceFile(file: string, snapshots: readonly LocatedSnapshot[]): void {
    this.#entries = [...this.#entries.filter((e) => e.file !== file), ...snapshots.map(entryOf)].sort(
      newerFirst,
    );
  }

  exactCount(_term: string, _cap: number): number {
    return 0;
  }

  holding(_term: string, _docs: readonly number[]): Set<number> {
    return new Set();
  }

  reach(_lookup: TermLookup): Reach[] {
    return [];
  }

  countFields(_reach: Reach, _df: Float64Array): void {}

  score(_reach: Reach, _bit: number, _df: Float64Array, _stats: CorpusStats, _acc: Accumulator): void {}
}
