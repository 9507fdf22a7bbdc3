import { hash } from "node:crypto";
import { COMMAND_OPTION_SOURCES, CONTEXT_JUDGEMENT_SOURCES } from "./redact-context.ts";
import type { Rule } from "./redact-engine.ts";
import { LABEL_JUDGEMENT_SOURCES } from "./redact-labels.ts";
import { JUDGEMENT_SOURCES } from "./redact-names.ts";
import { PAIR_JUDGEMENT_SOURCES } from "./redact-pairs.ts";

/**
 * What the redactor remembers of blocks it has judged: the checksums of blocks in which the current rules
 * found nothing, so that reading them again costs no redaction. A block's checksum covers every field of
 * its snapshot (`checksum.ts`), so a checksum that verified names the exact content that was judged; a
 * remembered checksum is worth as much as running the rules again, as long as the rules are the same.
 * The memory is tied to one version of the rules and forgets everything when they change.
 *
 * A block the fast reader read is also remembered by its text (`block-span.ts`): the same text reads to the
 * same snapshot and checksum, so a block whose text is remembered is read without computing its checksum
 * again (it verified when it was judged). Only the text of a block whose checksum verified is remembered.
 */

/**
 * The version of a rule set: a hash of everything that decides what it finds (each rule's kind, pattern,
 * flags, triggers, reach and the source of its pick, and the word lists and patterns that judge names and
 * values, and `more`: the sources of the code that applies them), so any change to a rule gives a new
 * version and every block is judged again.
 */
export function rulesVersion(rules: readonly Rule[], more: readonly string[] = []): string {
  const parts = rules.map((r) =>
    JSON.stringify([
      r.kind,
      r.pattern.source,
      r.pattern.flags,
      r.triggers,
      r.caseSensitive,
      r.reach,
      r.resume,
      r.pick.toString(),
    ]),
  );
  // Read at the call: every module's `commandOption` rules have been made by then.
  const helpers = [
    ...JUDGEMENT_SOURCES,
    ...CONTEXT_JUDGEMENT_SOURCES,
    ...COMMAND_OPTION_SOURCES,
    ...PAIR_JUDGEMENT_SOURCES,
    ...LABEL_JUDGEMENT_SOURCES,
  ];
  return hash("sha256", [...parts, ...helpers, ...more].join("\n")).slice(0, 16);
}

/** The persisted form of `JudgedBlocks`: the rules version and the checksums judged clean under it. */
export interface JudgedBlocksJson {
  readonly version: string;
  readonly checksums: readonly string[];
}

/**
 * Checksums of verified blocks in which the rules of `version` found nothing to redact. Only clean blocks
 * are remembered: a block that held a secret is redacted again on every read, so its secret never comes
 * back through a remembered checksum. At most `limit` checksums (default 200 000, about 15 MB) are kept;
 * past it the oldest are forgotten, which only costs a redaction.
 */
export class JudgedBlocks {
  readonly version: string;
  readonly #checksums = new Set<string>();
  readonly #limit: number;
  #revision = 0;

  constructor(version: string, checksums: Iterable<string> = [], limit = 200_000) {
    this.version = version;
    this.#limit = limit;
    for (const c of checksums) this.add(c);
  }

  /** A memory for `version` from its persisted form; empty when that form was written for other rules. */
  static from(json: JudgedBlocksJson, version: string): JudgedBlocks {
    return new JudgedBlocks(version, json.version === version ? json.checksums : []);
  }

  /** Whether the block with `checksum` was judged clean by these rules. */
  has(checksum: string): boolean {
    return this.#checksums.has(checksum);
  }

  /**
   * Remember that the block with `checksum` was judged clean by these rules. The memory keeps a string of its
   * own: a checksum or block text a reader passes is often a slice of a whole log's text, and kept as that slice
   * it would keep the log alive, a copy of the day's log for every block judged (megabytes a long-running
   * gateway carries into every full garbage collection).
   */
  add(checksum: string): void {
    if (this.#checksums.has(checksum)) return;
    if (this.#checksums.size >= this.#limit) {
      const oldest = this.#checksums.values().next();
      if (oldest.done !== true) this.#checksums.delete(oldest.value);
    }
    this.#checksums.add(Buffer.from(checksum, "utf8").toString("utf8"));
    this.#revision++;
  }

  /** How many checksums were added since this memory was made (what a persisted copy lacks). */
  get revision(): number {
    return this.#revision;
  }

  get size(): number {
    return this.#checksums.size;
  }

  toJSON(): JudgedBlocksJson {
    return { version: this.version, checksums: [...this.#checksums] };
  }
}
