/**
 * What shard files of versions 2 and 3 hold that the current format does not: postings laid out as two
 * arrays (documents, then field and frequency), packed as they load (postings.ts), and, in version 2,
 * the snippet texts inside the header's rows. Such files still load; the index writes them again in the
 * current format. Pure.
 */
import { u16, u32 } from "./checked.ts";
import { FIELDS } from "./document.ts";
import { packArrays } from "./postings.ts";

function fail(message: string): never {
  throw new Error(message);
}

/** Structural checks of postings laid out as arrays (versions 2 and 3), before they are packed. */
export function checkArrays(
  termStart: Uint32Array,
  postDoc: Uint32Array,
  postFieldTf: Uint16Array,
  docs: number,
): void {
  const terms = termStart.length - 1;
  if (terms < 0) fail("term offsets do not match the vocabulary");
  if (postDoc.length !== postFieldTf.length) fail("posting arrays differ in length");
  if (termStart[0] !== 0 || termStart[terms] !== postDoc.length)
    fail("term offsets do not cover the postings");
  for (let t = 0; t < terms; t++) {
    const end = u32(termStart, t + 1);
    if (u32(termStart, t) > end) fail("term offsets go backwards");
    for (let i = u32(termStart, t); i < end; i++) {
      if (u32(postDoc, i) >= docs) fail("a posting names a missing snapshot");
      if (u16(postFieldTf, i) >>> 12 >= FIELDS.length) fail("a posting names a missing field");
      if (i > u32(termStart, t) && u32(postDoc, i) < u32(postDoc, i - 1))
        fail("postings are out of document order");
    }
  }
}

/** Postings of a version 2 or 3 file, checked, then packed: the bytes and each term's start in them. */
export function packedFromArrays(
  termStart: Uint32Array,
  postDoc: Uint32Array,
  postFieldTf: Uint16Array,
  docs: number,
): { bytes: Uint8Array; starts: Uint32Array } {
  checkArrays(termStart, postDoc, postFieldTf, docs);
  return packArrays(termStart, postDoc, postFieldTf);
}
