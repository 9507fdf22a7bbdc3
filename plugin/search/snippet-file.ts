/**
 * Snippet texts of a saved month read from its shard file when asked, instead of held in memory: the
 * texts are most of a shard file's bytes, and only the candidates of a query are ever read (rank.ts
 * screens and compares their lines, hit.ts cuts their snippets). The file stays open from the load that
 * checked it: an atomic rewrite of the month puts a new file in its place and leaves this one as it was
 * checked. The descriptor is closed when nothing holds the month's entries any more.
 */
import { closeSync, readSync } from "node:fs";
import type { Trigger, Verified } from "../snapshot/snapshot.ts";
import { u32 } from "./checked.ts";
import type { RefTuple } from "./codec.ts";
import type { Entry } from "./document.ts";

const open = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
});

/** The texts section of an open shard file: entry `doc`'s UTF-8 bytes at `[starts[doc], starts[doc + 1])`. */
export class SnippetFile {
  readonly #fd: number;
  readonly #base: number;
  readonly #starts: Uint32Array;
  #buffer = Buffer.alloc(4096);
  /** The last text read, which is often read again at once (screened, then split into lines). */
  #lastDoc = -1;
  #lastText = "";

  /**
   * Texts at byte `base` of the file open as `fd` (now owned by this reader), delimited by `starts`
   * (checked against the section by the caller).
   */
  constructor(fd: number, base: number, starts: Uint32Array) {
    this.#fd = fd;
    this.#base = base;
    this.#starts = starts;
    open.register(this, fd);
  }

  /** The text of entry `doc`; throws when the file no longer holds it (cut short since it was checked). */
  text(doc: number): string {
    if (doc === this.#lastDoc) return this.#lastText;
    const from = u32(this.#starts, doc);
    const length = u32(this.#starts, doc + 1) - from;
    if (length > this.#buffer.length) this.#buffer = Buffer.alloc(Math.max(length, 2 * this.#buffer.length));
    let got = 0;
    while (got < length) {
      const n = readSync(this.#fd, this.#buffer, got, length - got, this.#base + from + got);
      if (n === 0) throw new Error("big-memory: search index file was cut short after it was loaded");
      got += n;
    }
    this.#lastDoc = doc;
    this.#lastText = this.#buffer.toString("utf8", 0, length);
    return this.#lastText;
  }
}

/** An entry of a saved month whose snippet text is read from the file when asked (see {@link SnippetFile}). */
export class FileEntry implements Entry {
  id: string;
  timestamp: string;
  time: number;
  file: string;
  line: number;
  session: string | null;
  agent: string | null;
  trigger: Trigger | null;
  name: string | null;
  parent: string | null;
  tombstone: boolean;
  verified: Verified;
  claimed?: boolean;
  goal: string;
  readonly #texts: SnippetFile;
  readonly #doc: number;

  /** The entry of a checked header row, document `doc` of `texts`. */
  constructor(r: RefTuple, texts: SnippetFile, doc: number) {
    this.id = r[0];
    this.timestamp = r[1];
    this.time = Date.parse(r[1]);
    this.file = r[2];
    this.line = r[3];
    this.session = r[4];
    this.agent = r[5];
    this.trigger = r[6];
    this.name = r[7];
    this.parent = r[8];
    this.tombstone = r[9];
    this.verified = r[10];
    this.goal = r[11];
    this.#texts = texts;
    this.#doc = doc;
  }

  get text(): string {
    return this.#texts.text(this.#doc);
  }
}
