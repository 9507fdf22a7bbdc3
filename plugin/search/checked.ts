/**
 * Reads at an index the engine knows is in range, checked. TypeScript types `array[i]` as possibly
 * undefined; a cast would hide an index that is wrong, and these throw instead: an index out of range in
 * the engine is a bug, never a value. One function per kind of array, so that each stays monomorphic
 * where V8 inlines it into a loop.
 */

function outOfRange(i: number, length: number): RangeError {
  return new RangeError(`big-memory: search engine read index ${i} of ${length} items`);
}

/** `array[i]` of an array of values that are never undefined (strings, objects, arrays). */
export function at<T>(array: readonly T[], i: number): T {
  const value = array[i];
  if (value === undefined) throw outOfRange(i, array.length);
  return value;
}

/** `array[i]` of an array of numbers. */
export function num(array: readonly number[], i: number): number {
  const value = array[i];
  if (value === undefined) throw outOfRange(i, array.length);
  return value;
}

/** `array[i]` of a Float64Array. */
export function f64(array: Float64Array, i: number): number {
  const value = array[i];
  if (value === undefined) throw outOfRange(i, array.length);
  return value;
}

/** `array[i]` of a Uint32Array. */
export function u32(array: Uint32Array, i: number): number {
  const value = array[i];
  if (value === undefined) throw outOfRange(i, array.length);
  return value;
}

/** `array[i]` of a Uint16Array. */
export function u16(array: Uint16Array, i: number): number {
  const value = array[i];
  if (value === undefined) throw outOfRange(i, array.length);
  return value;
}

/** `array[i]` of a Uint8Array. */
export function u8(array: Uint8Array, i: number): number {
  const value = array[i];
  if (value === undefined) throw outOfRange(i, array.length);
  return value;
}

/** `map.get(key)` of a key the engine knows is there. */
export function got<K, V>(map: ReadonlyMap<K, V>, key: K): V {
  const value = map.get(key);
  if (value === undefined)
    throw new RangeError(`big-memory: search engine read a missing key ${String(key)}`);
  return value;
}
