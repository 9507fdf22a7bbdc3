/**
 * How a shard file's body is laid out and read back: sections 8-byte aligned, typed arrays copied out of
 * the file's bytes into buffers of their own (a file's bytes may be unaligned for the element type).
 * Shared by the codec, which writes and decodes whole files, and saved-month.ts, which reads a month's
 * lean part alone. Pure.
 */

/** Where a section of the body lies, in bytes from the start of the body. */
export interface Section {
  offset: number;
  length: number;
}

/** `n` rounded up to a multiple of 8. */
export const align = (n: number): number => (n + 7) & ~7;

/** The bytes of a typed array, without a copy. */
export function bytesOf(a: ArrayBufferView): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/** Sections for `blobs` (their lengths), in the order given, each 8-byte aligned; `size` is the body's length. */
export function layout<K extends string>(
  blobs: Record<K, { readonly length: number }>,
): { sections: Record<K, Section>; size: number } {
  const sections: Partial<Record<K, Section>> = {};
  let offset = 0;
  for (const name of Object.keys(blobs) as K[]) {
    sections[name] = { offset, length: blobs[name].length };
    offset = align(offset + blobs[name].length);
  }
  return { sections: sections as Record<K, Section>, size: offset };
}

/** Each blob with its section (`sections` may hold more). */
export function pairs<K extends string>(
  blobs: Record<K, Buffer>,
  sections: Record<NoInfer<K>, Section>,
): [Buffer, Section][] {
  return (Object.keys(blobs) as K[]).map((name) => [blobs[name], sections[name]]);
}

/** A typed array type: its element size and a constructor over a whole buffer. */
export interface ArrayType<T> {
  readonly BYTES_PER_ELEMENT: number;
  new (buffer: ArrayBuffer): T;
}

/**
 * The typed array of a section of `body`, in a buffer of its own; throws when the section runs past the
 * body or is not a whole number of elements.
 */
export function readArray<T>(body: Buffer, s: Section, type: ArrayType<T>): T {
  if (s.offset + s.length > body.length || s.length % type.BYTES_PER_ELEMENT !== 0)
    throw new Error("a section runs past the end of the file");
  const copy = new ArrayBuffer(s.length);
  new Uint8Array(copy).set(body.subarray(s.offset, s.offset + s.length));
  return new type(copy);
}
