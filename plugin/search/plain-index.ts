/**
 * A shard in minisearch's own serialised form (`AsPlainObject`, what `toJSON` gives and `loadJS`
 * takes) and back, so a frozen month can be thawed into a live minisearch index and a live one frozen
 * without re-reading or re-tokenizing anything. Pure.
 */

import type { AsPlainObject } from "minisearch";
import { got, u32 } from "./checked.ts";
import { type Entry, FIELDS } from "./document.ts";
import { assemble, type FrozenParts, MAX_TF, sortPostings } from "./frozen-shard.ts";
import { PostingCursor } from "./postings.ts";
import { newerFirst } from "./shard.ts";

const F = FIELDS.length;

/** minisearch's form of a frozen shard; document ids (and minisearch's short ids) are the doc numbers. */
export function toPlainIndex(p: FrozenParts): AsPlainObject {
  const n = p.entries.length;
  const ids: Record<string, number> = {};
  const lengths: Record<string, number[]> = {};
  for (let doc = 0; doc < n; doc++) {
    ids[doc] = doc;
    lengths[doc] = Array.from(p.fieldLength.subarray(doc * F, (doc + 1) * F));
  }
  const c = new PostingCursor(p.postings);
  const index: AsPlainObject["index"] = p.terms.map((term, i) => {
    const byField: Record<string, Record<string, number>> = {};
    c.reset(u32(p.termStart, i), u32(p.termStart, i + 1));
    while (c.next()) {
      let docs = byField[c.field];
      if (docs === undefined) {
        docs = {};
        byField[c.field] = docs;
      }
      docs[c.doc] = c.tf;
    }
    return [term, byField];
  });
  return {
    documentCount: n,
    nextId: n,
    documentIds: ids,
    fieldIds: Object.fromEntries(FIELDS.map((f, i) => [f, i])),
    fieldLength: lengths,
    averageFieldLength: Array.from(p.avgFieldLength),
    storedFields: {},
    dirtCount: 0,
    index,
    serializationVersion: 2,
  };
}

/**
 * The frozen parts of a minisearch index whose document ids are keys of `entries`: only documents
 * still in `entries` (discarded ones may linger in minisearch until it vacuums), renumbered newest first.
 */
export function fromPlainIndex(
  month: string,
  plain: AsPlainObject,
  entries: ReadonlyMap<number, Entry>,
): FrozenParts {
  const live = [...entries.keys()].sort((a, b) => newerFirst(got(entries, a), got(entries, b)));
  const docOfKey = new Map(live.map((key, doc) => [key, doc]));
  const docOfShort = new Map<number, number>();
  for (const [short, key] of Object.entries(plain.documentIds)) {
    const doc = docOfKey.get(key as number);
    if (doc !== undefined) docOfShort.set(Number(short), doc);
  }
  const fieldLength = new Uint16Array(live.length * F);
  for (const [short, lengths] of Object.entries(plain.fieldLength)) {
    const doc = docOfShort.get(Number(short));
    if (doc === undefined) continue;
    for (let f = 0; f < F; f++) fieldLength[doc * F + f] = Math.min(lengths[f] ?? 0, 0xffff);
  }
  const postings = new Map<string, number[]>();
  for (const [term, byField] of plain.index) {
    const list: number[] = [];
    for (const [field, freqs] of Object.entries(byField)) {
      for (const [short, tf] of Object.entries(freqs)) {
        const doc = docOfShort.get(Number(short));
        if (doc !== undefined) list.push(doc, (Number(field) << 12) | Math.min(tf as number, MAX_TF));
      }
    }
    if (list.length === 0) continue;
    sortPostings(list);
    postings.set(term, list);
  }
  const kept = live.map((key) => got(entries, key));
  return assemble(month, kept, postings, fieldLength, Float64Array.from(plain.averageFieldLength));
}
