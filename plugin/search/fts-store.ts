/**
 * The SQLite file that holds sealed months of snapshots for search (`node:sqlite`, no native build): an
 * FTS5 table with one column per field (document.ts), fed with the terms of tokenize.ts joined by spaces
 * and read back through FTS5's ASCII tokenizer with every connector as a token character, so that each
 * term of the project stays one FTS5 token (`err_duplicate_key`, `src/auth/oauth-callback.ts`); the
 * `fts5vocab` tables expose the vocabulary and term frequencies. Beside it, the stored entry of each
 * snapshot, the field lengths of each month, the fingerprints of the logs read, and the terms of each
 * month with their document counts, in all and per field, in a plain B-tree (`terms`): a term's counts
 * or a range of the vocabulary are a seek there, where `fts5vocab` walks each term's postings; and the
 * forward index (fts-forward.ts: each snapshot's term ids with their counts per field, the ids in
 * `term_ids`), where a common term is read for a query's candidates alone. The file
 * and its WAL are private (0600 in a 0700 folder); a file that is corrupt, of another version or not a
 * database at all is deleted and created anew (its content comes from the logs).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, rmSync } from "node:fs";
import { endianness } from "node:os";
import { join } from "node:path";
import { DatabaseSync, type SQLOutputValue, type StatementSync } from "node:sqlite";
import { type Entry, FIELDS } from "./document.ts";
import { encodeForward } from "./fts-forward.ts";

/** Version of the file's layout (SQLite `user_version`); a file of another version is rebuilt. */
export const FTS_VERSION = 5;
/** Name of the database file in the index folder. */
export const FTS_FILE = "sealed.sqlite";

/** Every character tokenize.ts joins words with: FTS5 keeps them inside tokens. */
const TOKEN_CHARS = "_-./\\:@#$+~";
const COLUMNS = FIELDS.join(", ");
/** Columns of `terms` holding, per field in FIELDS order, how many of the month's snapshots hold the term there. */
export const FIELD_COUNTS = FIELDS.map((_f, i) => `f${i}`);

/** The columns of an entry (document.ts `Entry` but `time`, derived again), with their SQL types. */
export const ENTRY_COLUMNS = [
  ["id", "TEXT NOT NULL"],
  ["timestamp", "TEXT NOT NULL"],
  ["file", "TEXT NOT NULL"],
  ["line", "INTEGER NOT NULL"],
  ["session", "TEXT"],
  ["agent", "TEXT"],
  ["trigger", "TEXT"],
  ["name", "TEXT"],
  ["parent", "TEXT"],
  ["tombstone", "INTEGER NOT NULL"],
  ["verified", "INTEGER"],
  ["goal", "TEXT NOT NULL"],
  ["text", "TEXT NOT NULL"],
] as const;
const ENTRY_NAMES = ENTRY_COLUMNS.map(([name]) => name).join(", ");

const SCHEMA = `
CREATE VIRTUAL TABLE postings USING fts5(${COLUMNS}, content='', contentless_delete=1,
  tokenize="ascii tokenchars '${TOKEN_CHARS}'");
CREATE VIRTUAL TABLE vocab_row USING fts5vocab(postings, row);
CREATE VIRTUAL TABLE vocab_col USING fts5vocab(postings, col);
CREATE VIRTUAL TABLE vocab_instance USING fts5vocab(postings, instance);
CREATE TABLE entries (doc INTEGER PRIMARY KEY, month TEXT NOT NULL, ${ENTRY_COLUMNS.map(
  ([name, type]) => `${name} ${type}`,
).join(", ")});
CREATE INDEX entries_month ON entries (month);
CREATE TABLE terms (term TEXT NOT NULL, month TEXT NOT NULL, docs INTEGER NOT NULL, ${FIELD_COUNTS.map(
  (c) => `${c} INTEGER NOT NULL`,
).join(", ")}, PRIMARY KEY (term, month)) WITHOUT ROWID;
CREATE INDEX terms_month ON terms (month);
CREATE TABLE term_ids (term TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE term_next (id INTEGER NOT NULL);
INSERT INTO term_next (id) VALUES (1);
CREATE TABLE forward (doc INTEGER PRIMARY KEY, terms BLOB NOT NULL);
CREATE TABLE months (month TEXT PRIMARY KEY, first_doc INTEGER NOT NULL, lengths BLOB NOT NULL);
CREATE TABLE logs (file TEXT PRIMARY KEY, month TEXT NOT NULL, size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL, crc32 TEXT NOT NULL);
PRAGMA user_version = ${FTS_VERSION};
`;

/** Writing many months, then serving (see {@link FtsStore.bulk}). */
const BULK = "PRAGMA cache_size = -32768; PRAGMA wal_autocheckpoint = 16384;";
const SERVING =
  "PRAGMA cache_size = -2000; PRAGMA wal_autocheckpoint = 1000; PRAGMA wal_checkpoint(TRUNCATE);";

/** The fingerprint of a log as read into the file. */
export interface LogPrint {
  file: string;
  month: string;
  size: number;
  mtimeMs: number;
  crc32: string;
}

/** A snapshot as the file takes it: its entry and the text of each field (terms joined by spaces). */
export interface SealedDocument {
  entry: Entry;
  /** Terms of each field in FIELDS order, joined by single spaces. */
  fields: readonly string[];
  /** Distinct terms of each field, in FIELDS order (what BM25 calls the field length). */
  lengths: readonly number[];
  /** The distinct terms of each field, in FIELDS order (counted into the `terms` table). */
  distinct: readonly (readonly string[])[];
}

/** How the file was found: opened as it was, created, or deleted and created anew (and why). */
export type StoreStatus = { kind: "opened" } | { kind: "created" } | { kind: "rebuilt"; reason: string };

/** A cell of a row, checked: text. */
export function text(row: Record<string, SQLOutputValue> | undefined, column: string): string {
  const value = row?.[column];
  if (typeof value !== "string")
    throw new Error(`big-memory: search index: column ${column}: expected text, got ${kind(value)}`);
  return value;
}

/** A cell of a row, checked: text or null. */
export function textOrNull(row: Record<string, SQLOutputValue> | undefined, column: string): string | null {
  return row?.[column] === null ? null : text(row, column);
}

/** A cell of a row, checked: a number (integers come back as numbers below 2^53). */
export function num(row: Record<string, SQLOutputValue> | undefined, column: string): number {
  const value = row?.[column];
  if (typeof value !== "number")
    throw new Error(`big-memory: search index: column ${column}: expected a number, got ${kind(value)}`);
  return value;
}

/** A cell of a row, checked: bytes. */
export function bytes(row: Record<string, SQLOutputValue> | undefined, column: string): Uint8Array {
  const value = row?.[column];
  if (!(value instanceof Uint8Array))
    throw new Error(`big-memory: search index: column ${column}: expected bytes, got ${kind(value)}`);
  return value;
}

const kind = (v: unknown) => (v === null ? "null" : v instanceof Uint8Array ? "bytes" : typeof v);

/** Field lengths as stored: FIELDS.length unsigned 16-bit counts per document, little-endian. */
export function encodeLengths(lengths: readonly number[]): Uint8Array {
  const out = new Uint8Array(lengths.length * 2);
  const view = new DataView(out.buffer);
  lengths.forEach((n, i) => {
    view.setUint16(i * 2, Math.min(n, 0xffff), true);
  });
  return out;
}

/** The counts of {@link encodeLengths}: one copy on a little-endian machine, a loop elsewhere. */
export function decodeLengths(data: Uint8Array): Uint16Array {
  const n = Math.floor(data.byteLength / 2);
  if (LITTLE_ENDIAN) return new Uint16Array(data.buffer.slice(data.byteOffset, data.byteOffset + n * 2));
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint16Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getUint16(i * 2, true);
  return out;
}

const LITTLE_ENDIAN = endianness() === "LE";

/**
 * Adds a document's terms to `counts`: per term, the documents holding it anywhere, then per field (FIELDS
 * order) those holding it there, then the number of the last document counted (`doc`, distinct for each
 * document counted into the same map); `distinct` as {@link SealedDocument.distinct}.
 */
export function countTerms(
  distinct: readonly (readonly string[])[],
  doc: number,
  counts: Map<string, number[]>,
): void {
  const last = FIELDS.length + 1;
  for (let f = 0; f < distinct.length; f++) {
    for (const term of distinct[f] ?? []) {
      let row = counts.get(term);
      if (row === undefined) {
        row = new Array<number>(last + 1).fill(0);
        row[last] = -1;
        counts.set(term, row);
      }
      row[f + 1] = (row[f + 1] ?? 0) + 1;
      if (row[last] !== doc) {
        row[last] = doc;
        row[0] = (row[0] ?? 0) + 1;
      }
    }
  }
}

/** The SQLite file of sealed months, open. */
export class FtsStore {
  readonly path: string;
  readonly db: DatabaseSync;
  readonly status: StoreStatus;
  readonly #insert: StatementSync;
  readonly #insertEntry: StatementSync;
  readonly #insertTerm: StatementSync;
  readonly #termId: StatementSync;
  readonly #newTermId: StatementSync;
  readonly #insertForward: StatementSync;

  private constructor(path: string, db: DatabaseSync, status: StoreStatus) {
    this.path = path;
    this.db = db;
    this.status = status;
    this.#insert = db.prepare(
      `INSERT INTO postings (rowid, ${COLUMNS}) VALUES (?${", ?".repeat(FIELDS.length)})`,
    );
    this.#insertEntry = db.prepare(
      `INSERT INTO entries (doc, month, ${ENTRY_NAMES}) VALUES (?, ?${", ?".repeat(ENTRY_COLUMNS.length)})`,
    );
    this.#insertTerm = db.prepare(
      `INSERT INTO terms (term, month, docs, ${FIELD_COUNTS.join(", ")}) VALUES (?, ?, ?${", ?".repeat(FIELDS.length)})`,
    );
    this.#termId = db.prepare("SELECT id FROM term_ids WHERE term = ?");
    this.#newTermId = db.prepare("INSERT INTO term_ids (term, id) VALUES (?, ?)");
    this.#insertForward = db.prepare("INSERT INTO forward (doc, terms) VALUES (?, ?)");
  }

  /**
   * Opens the file in `dir` (created 0700 if missing), creating it when missing and rebuilding it
   * empty when it cannot be read as this version's layout; `status` says which.
   */
  static open(dir: string): FtsStore {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const path = join(dir, FTS_FILE);
    const existed = existsSync(path);
    if (existed) {
      // One connection checks the file and, when it is fit, serves: opening costs a few milliseconds.
      let db: DatabaseSync | undefined;
      let problem: string | undefined;
      try {
        db = connect(path);
        problem = check(db);
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
      }
      if (problem === undefined && db !== undefined) return new FtsStore(path, db, { kind: "opened" });
      if (db?.isOpen === true) db.close();
      removeFile(path);
      return new FtsStore(path, create(path), { kind: "rebuilt", reason: problem ?? "unreadable" });
    }
    return new FtsStore(path, create(path), { kind: "created" });
  }

  /** Months held, oldest first. */
  months(): string[] {
    return this.db
      .prepare("SELECT month FROM months ORDER BY month")
      .all()
      .map((row) => text(row, "month"));
  }

  /** Number of documents held, from the months' field lengths (counting the entries would read them all). */
  size(): number {
    const row = this.db.prepare("SELECT coalesce(sum(length(lengths)), 0) AS bytes FROM months").get();
    return num(row, "bytes") / (2 * FIELDS.length);
  }

  /** Field lengths of every document held: FIELDS.length counts at `doc * FIELDS.length`. */
  lengths(): Uint16Array {
    const parts = this.db
      .prepare("SELECT first_doc, lengths FROM months")
      .all()
      .map((row) => ({ first: num(row, "first_doc"), lengths: decodeLengths(bytes(row, "lengths")) }));
    const end = Math.max(0, ...parts.map((p) => p.first * FIELDS.length + p.lengths.length));
    const out = new Uint16Array(end);
    for (const p of parts) out.set(p.lengths, p.first * FIELDS.length);
    return out;
  }

  /** The fingerprints of the logs read into the file. */
  logs(): LogPrint[] {
    return this.db
      .prepare("SELECT file, month, size, mtime_ms, crc32 FROM logs ORDER BY file")
      .all()
      .map((row) => ({
        file: text(row, "file"),
        month: text(row, "month"),
        size: num(row, "size"),
        mtimeMs: num(row, "mtime_ms"),
        crc32: text(row, "crc32"),
      }));
  }

  /**
   * Writes a month (replacing what the file held of it) in one transaction: its documents (numbered
   * after every document held) and the fingerprints of its logs. Secrets must be gone already (the
   * logs are read through the redactor).
   */
  putMonth(month: string, documents: readonly SealedDocument[], logs: readonly LogPrint[]): void {
    this.#transaction(() => {
      this.#deleteMonth(month);
      const next = this.db.prepare("SELECT coalesce(max(doc) + 1, 0) AS next FROM entries").get();
      const first = num(next, "next");
      const lengths: number[] = [];
      const counts = new Map<string, number[]>();
      documents.forEach((d, i) => {
        if (
          d.fields.length !== FIELDS.length ||
          d.lengths.length !== FIELDS.length ||
          d.distinct.length !== FIELDS.length
        )
          throw new Error(
            `big-memory: search index: snapshot ${d.entry.id} has ${d.fields.length} fields, expected ${FIELDS.length}`,
          );
        this.#insert.run(first + i, ...d.fields);
        const e = d.entry;
        const flag = (b: boolean | null) => (b === null ? null : b ? 1 : 0);
        this.#insertEntry.run(
          first + i,
          month,
          e.id,
          e.timestamp,
          e.file,
          e.line,
          e.session,
          e.agent,
          e.trigger,
          e.name,
          e.parent,
          flag(e.tombstone),
          flag(e.verified),
          e.goal,
          e.text,
        );
        lengths.push(...d.lengths);
        countTerms(d.distinct, i, counts);
      });
      // A term keeps its id for good (ids are never reused): the next one is kept in a row of its own.
      const ids = new Map<string, number>();
      let nextId = num(this.db.prepare("SELECT id FROM term_next").get(), "id");
      for (const term of [...counts.keys()].sort()) {
        this.#insertTerm.run(term, month, ...(counts.get(term) ?? []).slice(0, -1));
        const known = this.#termId.get(term);
        if (known !== undefined) ids.set(term, num(known, "id"));
        else {
          this.#newTermId.run(term, nextId);
          ids.set(term, nextId++);
        }
      }
      this.db.prepare("UPDATE term_next SET id = ?").run(nextId);
      documents.forEach((d, i) => {
        this.#insertForward.run(first + i, encodeForward(d.fields, ids));
      });
      this.db
        .prepare("INSERT INTO months (month, first_doc, lengths) VALUES (?, ?, ?)")
        .run(month, first, encodeLengths(lengths));
      const log = this.db.prepare(
        "INSERT OR REPLACE INTO logs (file, month, size, mtime_ms, crc32) VALUES (?, ?, ?, ?, ?)",
      );
      for (const l of logs) log.run(l.file, month, l.size, l.mtimeMs, l.crc32);
    });
    privatize(this.path);
  }

  /**
   * For writing many months (`true`): 32 MB of page cache for the `terms` tree (rows arrive out of key
   * order; 40 MB at 100k) and a checkpoint every 64 MB of WAL; `false`: the defaults, WAL truncated.
   */
  bulk(on: boolean): void {
    this.db.exec(on ? BULK : SERVING);
  }

  /** Removes a month and the fingerprints of its logs, in one transaction. */
  dropMonth(month: string): void {
    this.#transaction(() => this.#deleteMonth(month));
  }

  /** Runs `work` in one transaction, rolled back when it throws. */
  #transaction(work: () => void): void {
    this.db.exec("BEGIN");
    try {
      work();
      this.db.exec("COMMIT");
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }

  #deleteMonth(month: string): void {
    const docs = this.db.prepare("SELECT doc FROM entries WHERE month = ?").all(month);
    const remove = this.db.prepare("DELETE FROM postings WHERE rowid = ?");
    for (const row of docs) remove.run(num(row, "doc"));
    this.db.prepare("DELETE FROM forward WHERE doc IN (SELECT doc FROM entries WHERE month = ?)").run(month);
    this.db.prepare("DELETE FROM entries WHERE month = ?").run(month);
    this.db.prepare("DELETE FROM months WHERE month = ?").run(month);
    this.db.prepare("DELETE FROM terms WHERE month = ?").run(month);
    this.db.prepare("DELETE FROM logs WHERE month = ?").run(month);
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

/** Opens a connection in WAL mode with the file and its companions private. */
function connect(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
  privatize(path);
  return db;
}

/** Creates the file 0600 before SQLite opens it: SQLite gives its WAL and shared memory the same mode. */
function create(path: string): DatabaseSync {
  closeSync(openSync(path, "wx", 0o600));
  const db = connect(path);
  db.exec(SCHEMA);
  privatize(path);
  return db;
}

/** Why the open file cannot be used as it is, or undefined when it can; throws what SQLite throws. */
function check(db: DatabaseSync): string | undefined {
  const version = num(db.prepare("PRAGMA user_version").get(), "user_version");
  if (version !== FTS_VERSION) return `version ${version}, expected ${FTS_VERSION}`;
  // Reading the small tables and the FTS5 structure record catches a file that is not this layout.
  db.prepare("SELECT count(*) AS n FROM months").get();
  db.prepare("SELECT count(*) AS n FROM logs").get();
  db.prepare("SELECT term FROM vocab_row LIMIT 1").all();
  db.prepare(`SELECT term, docs, ${FIELD_COUNTS.join(", ")} FROM terms LIMIT 1`).all();
  db.prepare("SELECT id, term FROM term_ids LIMIT 1").all();
  num(db.prepare("SELECT id FROM term_next").get(), "id");
  db.prepare("SELECT doc, terms FROM forward LIMIT 1").all();
  return undefined;
}

function removeFile(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
}

/** Makes the database file and its WAL and shared-memory files readable by their owner alone. */
function privatize(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(path + suffix)) chmodSync(path + suffix, 0o600);
}
