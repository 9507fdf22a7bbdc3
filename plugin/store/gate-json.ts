/**
 * The persistence gate's redaction of a JSON value, part by part: a session's state is written again at every
 * turn with most of its parts as they were, and redacting it whole each time walked every string again. Here
 * each object is judged with its own strings only (its objects and arrays stand aside as `null`), and an object
 * inside an array that this process already found clean is taken as it is while its JSON text is unchanged.
 *
 * The result equals `redactDeep` of the whole value, because `redactDeep` judges a string with its name (its
 * key, or the label beside it) and its string neighbours only, all in the object that holds it: an object or
 * an array is judged the same wherever it stands (gate-json.test.ts holds the two to each other over values
 * with secrets in every place). An object where anything is found is handed to `redactDeep` whole.
 */
import { addCounts, type RedactionCounts, redactDeep } from "../snapshot/redact.ts";

type Gated<T> = { value: T; counts: RedactionCounts; total: number };

/** Objects of arrays found clean: the object (as given, and as given back) -> its JSON text then. */
const cleanElements = new WeakMap<object, string>();

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Redacts every string of `value` for the disk, as `redactDeep(value, { remember: true })` does. */
export function redactJsonParts<T>(value: T): Gated<T> {
  if (!Array.isArray(value) && !isPlainObject(value)) return redactDeep(value, { remember: true });
  let counts: RedactionCounts = {};
  let total = 0;
  const add = (part: Gated<unknown>): unknown => {
    if (part.total > 0) {
      counts = addCounts(counts, part.counts);
      total += part.total;
    }
    return part.value;
  };
  const node = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(element);
    if (isPlainObject(item)) return object(item);
    return add(redactDeep(item, { remember: true }));
  };
  const element = (item: unknown): unknown => {
    if (!isPlainObject(item)) return node(item);
    const known = cleanElements.get(item);
    if (known !== undefined && known === JSON.stringify(item)) return item;
    const before = total;
    const out = object(item);
    if (total === before) {
      const json = JSON.stringify(out);
      cleanElements.set(item, json);
      cleanElements.set(out as object, json);
    }
    return out;
  };
  const object = (item: Record<string, unknown>): unknown => {
    const entries = Object.entries(item);
    // The object's own strings and names, its objects and arrays standing aside (null: neither a name nor a text).
    const shell = entries.map(([key, child]): [string, unknown] => [
      key,
      Array.isArray(child) || isPlainObject(child) ? null : child,
    ]);
    const own = redactDeep(Object.fromEntries(shell), { remember: true });
    // Something found here: the whole object the plain way (a key it renames, a value it replaces).
    if (own.total > 0) return add(redactDeep(item, { remember: true }));
    return Object.fromEntries(
      entries.map(([key, child]): [string, unknown] => [
        key,
        Array.isArray(child) || isPlainObject(child) ? node(child) : child,
      ]),
    );
  };
  return { value: node(value) as T, counts, total };
}
