/**
 * The stored entry of a snapshot in the SQLite file of fts-store.ts, as search reads it: checked column by
 * column ({@link rowEntry}) and read on first use of a field ({@link LazyEntry}); and the screen of its
 * goal and text that runs inside SQLite ({@link screenText}). Pure but for the read it is given.
 */
import type { SQLOutputValue } from "node:sqlite";
import { isTrigger } from "../snapshot/format.ts";
import type { Entry } from "./document.ts";
import { ENTRY_COLUMNS, num, text, textOrNull } from "./fts-store.ts";
import { foldText } from "./tokenize.ts";

/** The entry columns of the file, as a select list. */
export const ENTRY_NAMES = ENTRY_COLUMNS.map(([name]) => name).join(", ");

/** An entry read on first use of a field (see fts-shard.ts `FtsShard.entry`); `refOf` and spreads of it work as usual. */
export class LazyEntry implements Entry {
  readonly #load: () => Entry;
  readonly #indexed: boolean;
  #entry: Entry | undefined;
  claimed?: boolean;

  /** `indexed`: the document holds an indexed term, so it is no tombstone. */
  constructor(load: () => Entry, indexed: boolean) {
    this.#load = load;
    this.#indexed = indexed;
  }

  /** The entry as a plain object (read now if not yet). */
  get full(): Entry {
    this.#entry ??= this.#load();
    return this.#entry;
  }
  get id(): string {
    return this.full.id;
  }
  get timestamp(): string {
    return this.full.timestamp;
  }
  get time(): number {
    return this.full.time;
  }
  get file(): string {
    return this.full.file;
  }
  get line(): number {
    return this.full.line;
  }
  get session(): string | null {
    return this.full.session;
  }
  get agent(): string | null {
    return this.full.agent;
  }
  get trigger(): Entry["trigger"] {
    return this.full.trigger;
  }
  get name(): string | null {
    return this.full.name;
  }
  get parent(): string | null {
    return this.full.parent;
  }
  get tombstone(): boolean {
    return this.#indexed ? false : this.full.tombstone;
  }
  get verified(): Entry["verified"] {
    return this.full.verified;
  }
  get goal(): string {
    return this.full.goal;
  }
  get text(): string {
    return this.full.text;
  }
}

/** The stored entry of document `doc`, checked; throws naming the document and the column when it is not one. */
export function rowEntry(row: Record<string, SQLOutputValue>, doc: number): Entry {
  try {
    const trigger = textOrNull(row, "trigger");
    if (trigger !== null && !isTrigger(trigger))
      throw new Error(`column trigger: unknown trigger ${trigger}`);
    const flag = (column: string) => (row[column] === null ? null : num(row, column) !== 0);
    const timestamp = text(row, "timestamp");
    return {
      id: text(row, "id"),
      timestamp,
      time: Date.parse(timestamp),
      file: text(row, "file"),
      line: num(row, "line"),
      session: textOrNull(row, "session"),
      agent: textOrNull(row, "agent"),
      trigger,
      name: textOrNull(row, "name"),
      parent: textOrNull(row, "parent"),
      tombstone: flag("tombstone") === true,
      verified: flag("verified"),
      goal: text(row, "goal"),
      text: text(row, "text"),
    };
  } catch (error) {
    const message =
      error instanceof Error ? error.message.replace(/^big-memory: search index: /, "") : String(error);
    throw new Error(`big-memory: search index: entry of document ${doc}: ${message}`);
  }
}

const patterns = new Map<string, RegExp>();
const NOT_ASCII = /[^\t\n\r -~]/;

/**
 * SQL function `screen_text(source, flags, text)` (fts-shard.ts registers it): 1 when the pattern matches
 * the text as written or folded, else 0 (also for arguments that are not text). Remembers 64 patterns.
 */
export function screenText(source: unknown, flags: unknown, value: unknown): number {
  if (typeof source !== "string" || typeof flags !== "string" || typeof value !== "string") return 0;
  const key = `${flags}/${source}`;
  let pattern = patterns.get(key);
  if (pattern === undefined) {
    if (patterns.size >= 64) patterns.clear();
    pattern = new RegExp(source, flags);
    patterns.set(key, pattern);
  }
  return pattern.test(value) || (NOT_ASCII.test(value) && pattern.test(foldText(value))) ? 1 : 0;
}
