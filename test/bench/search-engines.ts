/**
 * The engines the search benchmark compares, behind one interface, all reading the same daily logs:
 * big-memory's SearchService, plain minisearch (one index, lean options, big-memory's tokenizer and fields, its own search), SQLite FTS5 with BM25 queried the way OpenClaw's memory-core builds its
 * queries, and a plain full scan of the files (grep-like: case-insensitive substring per query word).
 */
import { readFileSync } from "node:fs";
import { appendFile, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import MiniSearch, { type Options, type SearchOptions } from "minisearch";
import { FIELD_BOOSTS, FIELDS, type Field, fieldsOf } from "../../plugin/search/document.ts";
import { SearchService } from "../../plugin/search/search-service.ts";
import { tokenize } from "../../plugin/search/tokenize.ts";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";

/** One engine under test. `search` returns snapshot ids, best first. */
export interface Engine {
  readonly name: string;
  /** Builds the index from the markdown logs; resolves when everything is searchable (and saved). */
  build(): Promise<void>;
  /** Opens the saved index; resolves with the ms until a first query was answered. */
  open(firstQuery: string): Promise<number>;
  /** Resolves when everything saved is searchable. */
  loaded(): Promise<void>;
  /** Resolves when everything saved is also checked whole (big-memory: each month's file against its checksums). */
  verified(): Promise<void>;
  search(query: string, limit: number): string[];
  /** Appends a block to a log and resolves with the ms until a query finds `id`. */
  appendAndFind(file: string, block: string, query: string, id: string): Promise<number>;
  /** Bytes the index keeps on disk. */
  diskBytes(): Promise<number>;
  close(): Promise<void>;
}

const START = "<!-- BIG-MEMORY-SNAPSHOT v1 -->";
const ID = /<!-- snapshot-id: (\S+) -->/;

/** The snapshot blocks of a log as raw text with their ids (what a chunker would see). */
export function blocksOf(text: string): { id: string; body: string }[] {
  const out: { id: string; body: string }[] = [];
  for (const part of text.split(START).slice(1)) {
    const id = ID.exec(part)?.[1];
    if (id !== undefined) out.push({ id, body: part });
  }
  return out;
}

async function logFiles(workspaceDir: string): Promise<string[]> {
  const names = (await readdir(join(workspaceDir, "memory"))).filter((n) =>
    /^\d{4}-\d{2}-\d{2}\.md$/.test(n),
  );
  return names.sort().map((n) => `memory/${n}`);
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir).catch(() => [] as string[]))
    total += (await stat(join(dir, name))).size;
  return total;
}

const pollUntil = async (check: () => boolean, since: number): Promise<number> => {
  while (!check()) {
    if (performance.now() - since > 10_000) return Number.POSITIVE_INFINITY;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now() - since;
};

/** big-memory: the SearchService with its saved monthly shards and watcher. */
export class BigMemoryEngine implements Engine {
  readonly name = "big-memory";
  readonly workspaceDir: string;
  #service: SearchService | undefined;
  constructor(workspaceDir: string) {
    this.workspaceDir = workspaceDir;
  }

  async build(): Promise<void> {
    const service = await SearchService.open(this.workspaceDir, { logger: { warn: () => {} }, watch: false });
    await service.ready();
    await service.close();
  }

  async open(firstQuery: string): Promise<number> {
    const started = performance.now();
    this.#service = await SearchService.open(this.workspaceDir, {
      logger: { warn: () => {} },
      debounceMs: 20,
    });
    this.#service.search(firstQuery);
    return performance.now() - started;
  }

  async loaded(): Promise<void> {
    await this.#service?.searchable();
  }

  /** Every month's file checked against its checksums, and the watcher running. */
  async verified(): Promise<void> {
    await this.#service?.ready();
  }

  get service(): SearchService | undefined {
    return this.#service;
  }

  search(query: string, limit: number): string[] {
    return this.#service?.search(query, { limit }).hits.map((h) => h.id) ?? [];
  }

  /** Whether the answer claims the query is there: a hit that holds every identifier as typed. */
  claims(query: string, limit: number): boolean {
    const result = this.#service?.search(query, { limit });
    return result !== undefined && result.match === "exact" && result.hits.length > 0;
  }

  async appendAndFind(file: string, block: string, query: string, id: string): Promise<number> {
    const started = performance.now();
    await appendFile(join(this.workspaceDir, file), block);
    return pollUntil(() => this.search(query, 1)[0] === id, started);
  }

  diskBytes(): Promise<number> {
    return dirBytes(join(this.workspaceDir, ".big-memory", "search"));
  }

  async close(): Promise<void> {
    await this.#service?.close();
  }
}

type PlainDocument = { id: string } & Record<Field, string>;

/** Lean options: the snapshot id is the only thing stored; big-memory's tokenizer for text and queries. */
const PLAIN_OPTIONS: Options<PlainDocument> = {
  fields: FIELDS,
  storeFields: [],
  tokenize,
  processTerm: (term) => term,
  logger: () => {},
};

/**
 * minisearch's own search: any term may match (OR), ranked by its BM25+, with the field boosts and the
 * expansion limits big-memory plans with (prefix matches from 4 characters, one typo from 5, two from 9;
 * minisearch's `fuzzy: 0.2` would allow four typos in a long identifier and walk most of the vocabulary).
 */
const PLAIN_SEARCH: SearchOptions = {
  boost: FIELD_BOOSTS,
  prefix: (term) => term.length >= 4,
  fuzzy: (term) => (term.length >= 9 ? 2 : term.length >= 5 ? 1 : false),
  maxFuzzy: 2,
};

/**
 * Plain minisearch: one index over every snapshot of every log (no months, no compaction), saved as
 * minisearch's JSON and loaded with `loadJSON`. The baseline a second engine beside minisearch must beat.
 */
export class MiniSearchEngine implements Engine {
  readonly name = "plain minisearch";
  readonly workspaceDir: string;
  readonly path: string;
  #index: MiniSearch<PlainDocument> | undefined;
  /** The snapshot ids of each log, to replace a log's documents when it changes. */
  readonly #byFile = new Map<string, string[]>();
  constructor(workspaceDir: string) {
    this.workspaceDir = workspaceDir;
    this.path = join(workspaceDir, ".minisearch.json");
  }

  /** Adds the snapshots of a log (after removing what it held before). */
  #add(index: MiniSearch<PlainDocument>, file: string, text: string): void {
    for (const id of this.#byFile.get(file) ?? []) index.discard(id);
    const ids: string[] = [];
    for (const located of parseDailyLog(text, file).snapshots) {
      index.add({ id: located.snapshot.id, ...fieldsOf(located) });
      ids.push(located.snapshot.id);
    }
    this.#byFile.set(file, ids);
  }

  async build(): Promise<void> {
    const index = new MiniSearch(PLAIN_OPTIONS);
    for (const file of await logFiles(this.workspaceDir))
      this.#add(index, file, await readFile(join(this.workspaceDir, file), "utf8"));
    await writeFile(this.path, JSON.stringify(index));
    this.#byFile.clear();
  }

  async open(firstQuery: string): Promise<number> {
    const started = performance.now();
    this.#index = MiniSearch.loadJSON(await readFile(this.path, "utf8"), PLAIN_OPTIONS);
    this.search(firstQuery, 10);
    return performance.now() - started;
  }

  async loaded(): Promise<void> {}

  async verified(): Promise<void> {}

  search(query: string, limit: number): string[] {
    return (this.#index?.search(query, PLAIN_SEARCH) ?? []).slice(0, limit).map((r) => String(r.id));
  }

  async appendAndFind(file: string, block: string, query: string, id: string): Promise<number> {
    const started = performance.now();
    await appendFile(join(this.workspaceDir, file), block);
    const index = this.#index;
    if (index === undefined) return Number.POSITIVE_INFINITY;
    if (!this.#byFile.has(file)) {
      // The log's earlier snapshots, as the saved index holds them (it keeps no list of them).
      const before = parseDailyLog(await readFile(join(this.workspaceDir, file), "utf8"), file);
      this.#byFile.set(
        file,
        before.snapshots.map((s) => s.snapshot.id).filter((known) => index.has(known)),
      );
    }
    this.#add(index, file, await readFile(join(this.workspaceDir, file), "utf8"));
    return pollUntil(() => this.search(query, 1)[0] === id, started);
  }

  async diskBytes(): Promise<number> {
    return (await stat(this.path).catch(() => ({ size: 0 }))).size;
  }

  async close(): Promise<void> {
    this.#index = undefined;
  }
}

/** OpenClaw memory-core's query builder: word tokens, quoted, joined with AND. */
export function memoryCoreFtsQuery(raw: string): string | null {
  const tokens = raw.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return tokens.length === 0 ? null : tokens.map((t) => `"${t.replaceAll('"', "")}"`).join(" AND ");
}

/** Most characters of a hit's text plain FTS5 hands back (memory-core cuts each hit's text to a snippet too). */
export const FTS_SNIPPET_CHARS = 700;

/** A hit of plain FTS5 with what a caller needs to show it: id, file, score and text. */
export interface Fts5Hit {
  id: string;
  file: string;
  score: number;
  snippet: string;
}

/**
 * SQLite FTS5 (unicode61 tokenizer, bm25 ranking), one row per snapshot block. Each hit carries what
 * memory-core's keyword search reads for it (id, path, text, rank: `SELECT id, path, source, start_line,
 * end_line, text, bm25(...)`), the text cut to a snippet, as big-memory hands back a snippet with each
 * hit: both engines answer the same question, not the ids alone.
 */
export class Fts5Engine implements Engine {
  readonly name = "SQLite FTS5";
  #db: DatabaseSync | undefined;
  #query: StatementSync | undefined;
  /** Queries SQLite refused (syntax errors); they count as finding nothing. */
  errors = 0;
  readonly workspaceDir: string;
  readonly path: string;
  constructor(workspaceDir: string) {
    this.workspaceDir = workspaceDir;
    this.path = join(workspaceDir, ".fts5.sqlite");
  }

  #connect(): DatabaseSync {
    const db = new DatabaseSync(this.path);
    db.exec("PRAGMA journal_mode=WAL");
    db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(body, id UNINDEXED, file UNINDEXED)");
    this.#query = db.prepare(
      "SELECT id, file, body, bm25(chunks) AS rank FROM chunks WHERE chunks MATCH ? ORDER BY rank LIMIT ?",
    );
    return db;
  }

  /** Indexes the blocks of a log, first deleting its old rows unless this is the initial build. */
  #index(db: DatabaseSync, file: string, text: string, replace: boolean): void {
    const insert = db.prepare("INSERT INTO chunks (body, id, file) VALUES (?, ?, ?)");
    if (replace) db.prepare("DELETE FROM chunks WHERE file = ?").run(file);
    for (const block of blocksOf(text)) insert.run(block.body, block.id, file);
  }

  async build(): Promise<void> {
    const db = this.#connect();
    db.exec("BEGIN");
    for (const file of await logFiles(this.workspaceDir)) {
      this.#index(db, file, await readFile(join(this.workspaceDir, file), "utf8"), false);
    }
    db.exec("COMMIT");
    db.close();
  }

  async open(firstQuery: string): Promise<number> {
    const started = performance.now();
    this.#db = this.#connect();
    this.search(firstQuery, 10);
    return performance.now() - started;
  }

  async loaded(): Promise<void> {}

  async verified(): Promise<void> {}

  /** Runs a MATCH expression as given; throws what SQLite throws. */
  raw(match: string, limit: number): string[] {
    return this.hits(match, limit).map((h) => h.id);
  }

  /** The hits of a MATCH expression with their file, score and snippet; throws what SQLite throws. */
  hits(match: string, limit: number): Fts5Hit[] {
    return (this.#query?.all(match, limit) ?? []).map((row) => ({
      id: String(row.id),
      file: String(row.file),
      score: -Number(row.rank),
      snippet: String(row.body).slice(0, FTS_SNIPPET_CHARS),
    }));
  }

  /** The same words joined with OR instead (a broad query: any word may match). */
  searchAny(query: string, limit: number): string[] {
    const match = memoryCoreFtsQuery(query)?.replaceAll(" AND ", " OR ");
    if (match === undefined) return [];
    try {
      return this.raw(match, limit);
    } catch {
      this.errors++;
      return [];
    }
  }

  search(query: string, limit: number): string[] {
    const match = memoryCoreFtsQuery(query);
    if (match === null) return [];
    try {
      return this.raw(match, limit);
    } catch {
      this.errors++;
      return [];
    }
  }

  async appendAndFind(file: string, block: string, query: string, id: string): Promise<number> {
    const started = performance.now();
    await appendFile(join(this.workspaceDir, file), block);
    const db = this.#db;
    if (db === undefined) return Number.POSITIVE_INFINITY;
    db.exec("BEGIN");
    this.#index(db, file, await readFile(join(this.workspaceDir, file), "utf8"), true);
    db.exec("COMMIT");
    return pollUntil(() => this.search(query, 1)[0] === id, started);
  }

  async diskBytes(): Promise<number> {
    let total = 0;
    for (const suffix of ["", "-wal", "-shm"])
      total += (await stat(this.path + suffix).catch(() => ({ size: 0 }))).size;
    return total;
  }

  async close(): Promise<void> {
    this.#db?.close();
  }
}

/** A full scan of every log per query, the way grep would: no index, nothing to build or load. */
export class ScanEngine implements Engine {
  readonly name = "full scan";
  readonly workspaceDir: string;
  #files: string[] = [];
  constructor(workspaceDir: string) {
    this.workspaceDir = workspaceDir;
  }

  async build(): Promise<void> {}

  async open(firstQuery: string): Promise<number> {
    const started = performance.now();
    this.#files = await logFiles(this.workspaceDir);
    this.search(firstQuery, 10);
    return performance.now() - started;
  }

  async loaded(): Promise<void> {}

  async verified(): Promise<void> {}

  /** Blocks ranked by how many query words they contain, then newest first. */
  search(query: string, limit: number): string[] {
    const words = query
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w.length > 0);
    const found: { id: string; count: number; order: number }[] = [];
    let order = 0;
    for (const file of this.#files) {
      const text = readFileSync(join(this.workspaceDir, file), "utf8");
      for (const block of blocksOf(text)) {
        order++;
        const body = block.body.toLowerCase();
        const count = words.filter((w) => body.includes(w)).length;
        if (count > 0) found.push({ id: block.id, count, order });
      }
    }
    found.sort((a, b) => b.count - a.count || b.order - a.order);
    return found.slice(0, limit).map((f) => f.id);
  }

  async appendAndFind(file: string, block: string, query: string, id: string): Promise<number> {
    const started = performance.now();
    await appendFile(join(this.workspaceDir, file), block);
    return pollUntil(() => this.search(query, 1)[0] === id, started);
  }

  async diskBytes(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}
