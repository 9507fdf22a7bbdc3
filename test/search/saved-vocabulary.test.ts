import { mkdir, stat, writeFile } from "node:fs/promises";
import { crc32 } from "node:zlib";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { indexDir } from "../../plugin/search/persist.ts";
import {
  decodeVocabulary,
  encodeVocabulary,
  readVocabulary,
  VOCABULARY_FORMAT_VERSION,
  vocabularyKey,
  vocabularyPath,
  writeVocabulary,
} from "../../plugin/search/saved-vocabulary.ts";
import { allTerms } from "../../plugin/search/terms.ts";
import { mergeTerms } from "../../plugin/search/vocabulary.ts";
import { tempWorkspace } from "./helpers.ts";

const MONTHS = [
  { month: "2026-10", stamp: "1-2-300", terms: ["billing", "migrate", "stripe"] },
  { month: "2026-11", stamp: "4-5-600", terms: ["adr", "billing", "err_duplicate_key", "upsert"] },
];

/** The file with its checksums made right again after an edit, so that only the edit is wrong. */
function checksummed(data: Buffer): Buffer {
  const headerEnd = 20 + data.readUInt32LE(8);
  const start = (headerEnd + 7) & ~7;
  data.writeUInt32LE(crc32(data.subarray(20, headerEnd)), 12);
  data.writeUInt32LE(crc32(data.subarray(start)), 16);
  return data;
}

describe("encodeVocabulary and decodeVocabulary", () => {
  it("round-trip the merged terms and each month's terms as positions in them", () => {
    const v = decodeVocabulary(encodeVocabulary(MONTHS));
    expect(v && allTerms(v.terms)).toEqual(mergeTerms(MONTHS.map((m) => m.terms)));
    for (const m of MONTHS) {
      const own = v?.months.get(m.month);
      expect(own?.stamp).toBe(m.stamp);
      expect(Array.from(own?.ids ?? [], (id) => v?.terms.term(id))).toEqual(m.terms);
    }
    expect(v?.key).toBe(vocabularyKey(MONTHS));
  });

  it("give a month's positions only for the file that bears its stamp", () => {
    const v = decodeVocabulary(encodeVocabulary(MONTHS));
    expect(v?.shared("2026-11", "4-5-600")?.ids).toEqual(v?.months.get("2026-11")?.ids);
    expect(v?.shared("2026-11", "4-5-600")?.vocabulary).toBe(v?.terms);
    expect(v?.shared("2026-11", "4-5-601")).toBeUndefined();
    expect(v?.shared("2026-11", undefined)).toBeUndefined();
    expect(v?.shared("2026-09", "4-5-600")).toBeUndefined();
  });

  it("round-trip any months' terms", () => {
    const terms = fc.uniqueArray(
      fc.string({ minLength: 1, maxLength: 6 }).filter((t) => !t.includes("\n")),
      {
        maxLength: 30,
      },
    );
    fc.assert(
      fc.property(fc.array(terms, { maxLength: 5 }), (lists) => {
        const months = lists.map((list, i) => ({ month: `m${i}`, stamp: `s${i}`, terms: [...list].sort() }));
        const v = decodeVocabulary(encodeVocabulary(months));
        expect(v && allTerms(v.terms)).toEqual(mergeTerms(months.map((m) => m.terms)));
        for (const m of months)
          expect(Array.from(v?.months.get(m.month)?.ids ?? [], (id) => v?.terms.term(id))).toEqual(m.terms);
      }),
    );
  });

  it("refuse a file that is corrupt, truncated, foreign or of another version", () => {
    const data = encodeVocabulary(MONTHS);
    const flipped = Buffer.from(data);
    flipped[flipped.length - 3] = (flipped.at(-3) ?? 0) ^ 0x20;
    expect(decodeVocabulary(flipped)).toBeUndefined();
    expect(decodeVocabulary(data.subarray(0, data.length - 1))).toBeUndefined();
    expect(decodeVocabulary(data.subarray(0, 10))).toBeUndefined();
    const foreign = Buffer.from(data);
    foreign.writeUInt32LE(0x42_4d_53_58, 0);
    expect(decodeVocabulary(foreign)).toBeUndefined();
    const newer = Buffer.from(data);
    newer.writeUInt32LE(VOCABULARY_FORMAT_VERSION + 1, 4);
    expect(decodeVocabulary(newer)).toBeUndefined();
  });

  it("refuse term offsets and positions out of range or order, checksums notwithstanding", () => {
    const data = encodeVocabulary([{ month: "2026-11", stamp: "s", terms: ["alpha", "beta"] }]);
    const idsAt = (20 + data.readUInt32LE(8) + 7) & ~7;
    // The terms' starts: [0, 5, 9] for "alpha", "beta"; one past the text, or going back, is refused.
    const startsAt = idsAt + 8;
    expect([0, 1, 2].map((i) => data.readUInt32LE(startsAt + 4 * i))).toEqual([0, 5, 9]);
    const pastText = Buffer.from(data);
    pastText.writeUInt32LE(10, startsAt + 8);
    expect(decodeVocabulary(checksummed(pastText))).toBeUndefined();
    const goingBack = Buffer.from(data);
    goingBack.writeUInt32LE(10, startsAt + 4);
    expect(decodeVocabulary(checksummed(goingBack))).toBeUndefined();
    const outOfRange = Buffer.from(data);
    outOfRange.writeUInt32LE(2, idsAt + 4);
    expect(decodeVocabulary(checksummed(outOfRange))).toBeUndefined();
    const backwards = Buffer.from(data);
    backwards.writeUInt32LE(1, idsAt);
    backwards.writeUInt32LE(0, idsAt + 4);
    expect(decodeVocabulary(checksummed(backwards))).toBeUndefined();
    expect(decodeVocabulary(checksummed(Buffer.from(data)))).toBeDefined();
  });
});

describe("vocabulary files", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let dir: string;
  beforeEach(async () => {
    ws = await tempWorkspace();
    dir = indexDir(ws.dir);
  });
  afterEach(() => ws.cleanup());

  it("are written privately and read back", async () => {
    expect(readVocabulary(dir)).toBeUndefined();
    await writeVocabulary(dir, MONTHS);
    expect((await stat(vocabularyPath(dir))).mode & 0o777).toBe(0o600);
    expect(readVocabulary(dir)?.key).toBe(vocabularyKey(MONTHS));
  });

  it("are passed over when unreadable: garbage, or a folder in their place", async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(vocabularyPath(dir), "not a vocabulary");
    expect(readVocabulary(dir)).toBeUndefined();
    const other = indexDir(ws.dir, `${ws.dir}/state`);
    await mkdir(vocabularyPath(other), { recursive: true });
    expect(readVocabulary(other)).toBeUndefined();
  });
});
