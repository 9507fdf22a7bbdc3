/**
 * The persistence gate's redaction of a JSON value, part by part: a session's state is written again at every
 * turn with most of its parts as they were, and redacting it whole each time walked every string again. Here
 * each object is judged with its own strings only (its objects and arrays stand aside as `null`), and an object
 * this process already found clean is taken as it is while unchanged: a flat one (strings, numbers, booleans,
 * null), wherever it stands, while its keys and values are the same; another one inside an array while its
 * JSON text is the same.
 *
 * The result equals `redactDeep` of the whole value, because `redactDeep` judges a string with its name (its
 * key, or the label beside it) and its string neighbours only, all in the object that holds it: an object or
 * an array is judged the same wherever it stands (gate-json.test.ts holds the two to each other over values
 * with secrets in every place). An object where anything is found is handed to `redactDeep` whole.
 */
import { addCounts, type RedactionCounts, redactDeep } from "../snapshot/redact.ts";

type Gated<T> = { value: T; counts: RedactionCounts; total: number };
/** What one call found so far. */
type Found = { counts: RedactionCounts; total: number };

/** Objects of arrays found clean: the object (as given, and as given back) -> its JSON text then. */
const cleanElements = new WeakMap<object, string>();
/**
 * Flat objects (every value a string, number, boolean or null) found clean, wherever they stand: the object
 * (as given, and as given back) -> its keys and values then. Checked against the object as it is now, key by
 * key, which makes no JSON text of it (the elements of a session's state are flat, and checked at every write).
 */
const cleanFlat = new WeakMap<object, { keys: string[]; values: unknown[] }>();

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isContainer(value: unknown): boolean {
  return Array.isArray(value) || isPlainObject(value);
}

/**
 * Redacts every string of `value` for the disk, as `redactDeep(value, { remember: true })` does. Module-level
 * functions and loops, no callback made per call: those lose their optimised code at every full collection.
 */
export function redactJsonParts<T>(value: T): Gated<T> {
  if (!isContainer(value)) return redactDeep(value, { remember: true });
  const found: Found = { counts: {}, total: 0 };
  // The value itself is always a new object (callers keep the input as it was).
  const out = Array.isArray(value) ? elements(value, found) : object(value as Record<string, unknown>, found);
  return { value: out as T, counts: found.counts, total: found.total };
}

function add(found: Found, part: Gated<unknown>): unknown {
  if (part.total > 0) {
    found.counts = addCounts(found.counts, part.counts);
    found.total += part.total;
  }
  return part.value;
}

function node(item: unknown, found: Found): unknown {
  if (Array.isArray(item)) return elements(item, found);
  if (isPlainObject(item)) return flatClean(item) ?? object(item, found);
  return add(found, redactDeep(item, { remember: true }));
}

function elements(items: readonly unknown[], found: Found): unknown[] {
  const out: unknown[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) out[i] = element(items[i], found);
  return out;
}

function element(item: unknown, found: Found): unknown {
  if (!isPlainObject(item)) return node(item, found);
  const flat = flatClean(item);
  if (flat !== null) return flat;
  const known = cleanElements.get(item);
  if (known !== undefined && known === JSON.stringify(item)) return item;
  const before = found.total;
  const out = object(item, found);
  if (found.total === before && !cleanFlat.has(out as object)) {
    const json = JSON.stringify(out);
    cleanElements.set(item, json);
    cleanElements.set(out as object, json);
  }
  return out;
}

/** `item` when it is a flat object found clean before and unchanged since, else null. */
function flatClean(item: Record<string, unknown>): Record<string, unknown> | null {
  const seen = cleanFlat.get(item);
  if (seen === undefined) return null;
  let i = 0;
  for (const key in item) {
    if (!Object.hasOwn(item, key) || key !== seen.keys[i] || !Object.is(item[key], seen.values[i]))
      return null;
    i++;
  }
  return i === seen.keys.length ? item : null;
}

/** Whether every property of `item` (own, enumerable: what JSON writes) is a string, number, boolean or null. */
function flatParts(item: Record<string, unknown>): { keys: string[]; values: unknown[] } | null {
  const keys = Object.keys(item);
  const values: unknown[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const v = item[keys[i] as string];
    if (v !== null && typeof v === "object") return null;
    if (typeof v === "function" || typeof v === "symbol" || typeof v === "bigint" || v === undefined)
      return null;
    values[i] = v;
  }
  return { keys, values };
}

/** Sets `key` as an own data property, `__proto__` included (an assignment of that one sets the prototype). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function object(item: Record<string, unknown>, found: Found): unknown {
  const keys = Object.keys(item);
  // The object's own strings and names, its objects and arrays standing aside (null: neither a name nor a text).
  const shell: Record<string, unknown> = {};
  for (const key of keys) {
    const child = item[key];
    put(shell, key, isContainer(child) ? null : child);
  }
  const own = redactDeep(shell, { remember: true });
  // Something found here: the whole object the plain way (a key it renames, a value it replaces).
  if (own.total > 0) return add(found, redactDeep(item, { remember: true }));
  const out: Record<string, unknown> = {};
  let containers = 0;
  for (const key of keys) {
    const child = item[key];
    if (isContainer(child)) containers++;
    put(out, key, isContainer(child) ? node(child, found) : child);
  }
  if (containers === 0) {
    const parts = flatParts(item);
    if (parts !== null) {
      cleanFlat.set(item, parts);
      cleanFlat.set(out, parts);
    }
  }
  return out;
}
