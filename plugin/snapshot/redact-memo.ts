/**
 * The memo of the redactor's verdicts on values: a text repeats the same values (a pasted log thousands of
 * times), and a verdict is a pure function of the value, so each is judged once while it stays here.
 */

/** Values up to this long are remembered. */
const MEMO_VALUE_CHARS = 64;
/** Slots of a memo (a power of two): a memo holds at most about 512 KB. */
const MEMO_SLOTS = 4096;

/**
 * Verdicts on short values: a table of `MEMO_SLOTS` slots, each value in the slot its length and five of its characters pick, where a
 * newer value replaces an older one: a value seen once (most of a real log, where no two passwords are
 * alike) costs a store, no allocation and no refill of a map.
 */
export class Verdicts {
  private readonly keys: (string | undefined)[] = new Array(MEMO_SLOTS).fill(undefined);
  private readonly verdicts = new Uint8Array(MEMO_SLOTS);

  get(value: string): boolean | undefined {
    const at = slotOf(value);
    return this.keys[at] === value ? this.verdicts[at] === 1 : undefined;
  }

  set(value: string, verdict: boolean): void {
    if (value.length > MEMO_VALUE_CHARS) return;
    const at = slotOf(value);
    this.keys[at] = value;
    this.verdicts[at] = verdict ? 1 : 0;
  }
}

/** The slot of `value`: its length and five of its characters, mixed. */
function slotOf(value: string): number {
  const n = value.length;
  // An empty value reads NaN, which `| 0` makes 0.
  let h = (Math.imul(n, 31) + value.charCodeAt(0)) | 0;
  h = (Math.imul(h, 31) + value.charCodeAt(n >> 2)) | 0;
  h = (Math.imul(h, 31) + value.charCodeAt(n >> 1)) | 0;
  h = (Math.imul(h, 31) + value.charCodeAt((3 * n) >> 2)) | 0;
  h = (Math.imul(h, 31) + value.charCodeAt(n - 1)) | 0;
  return (h ^ (h >>> 12)) & (MEMO_SLOTS - 1);
}
