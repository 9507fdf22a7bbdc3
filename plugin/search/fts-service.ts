/**
 * Sealed months on SQLite FTS5 for one workspace, kept in step with its daily logs: opens the file of
 * fts-store.ts (built from the logs when missing, and rebuilt when corrupt or of another version, with
 * one warning), answers queries at once through fts-index.ts, and checks the logs' fingerprints after
 * opening. A log that changes takes its month out of the file into a hot (minisearch) shard, built from
 * the month's logs; `seal` writes a month back. Logs are read through log-read.ts, so every snapshot is
 * redacted before it reaches the file.
 */
import type { LocatedSnapshot } from "../snapshot/snapshot.ts";
import { entryOf, FIELDS, fieldsOf } from "./document.ts";
import { FtsIndex, type FtsQueryOptions, type FtsResult } from "./fts-index.ts";
import { FtsShard } from "./fts-shard.ts";
import { FtsStore, type LogPrint, type SealedDocument } from "./fts-store.ts";
import { HotShard } from "./hot-shard.ts";
import { monthOf, newerFirst } from "./shard.ts";
import { groupByMonth, isUnreadable, listLogs, readLog } from "./sources.ts";
import { tokenize } from "./tokenize.ts";

export interface FtsServiceOptions {
  /** Folder of the SQLite file (created 0700). */
  dir: string;
  logger: { warn(message: string): void };
}

/** What a build read: months written and snapshots indexed. */
export interface FtsBuildReport {
  months: number;
  snapshots: number;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A snapshot as the file takes it: each field's terms joined by spaces, its distinct terms and their count. */
export function sealedDocument(located: LocatedSnapshot): SealedDocument {
  const fields = located.snapshot.tombstone ? undefined : fieldsOf(located);
  const texts: string[] = [];
  const lengths: number[] = [];
  const distinct: string[][] = [];
  for (const field of FIELDS) {
    const terms = tokenize(fields?.[field] ?? "");
    texts.push(terms.join(" "));
    const unique = [...new Set(terms)];
    distinct.push(unique);
    lengths.push(unique.length);
  }
  return { entry: entryOf(located), fields: texts, lengths, distinct };
}

/** The sealed-months search of a workspace. */
export class FtsService {
  readonly workspaceDir: string;
  readonly #options: FtsServiceOptions;
  readonly #store: FtsStore;
  readonly #index: FtsIndex;

  private constructor(workspaceDir: string, options: FtsServiceOptions, store: FtsStore) {
    this.workspaceDir = workspaceDir;
    this.#options = options;
    this.#store = store;
    this.#index = new FtsIndex(new FtsShard(store));
  }

  /** Opens the file of a workspace, building it from the logs when it is missing or was rebuilt empty. */
  static async open(workspaceDir: string, options: FtsServiceOptions): Promise<FtsService> {
    const store = FtsStore.open(options.dir);
    const service = new FtsService(workspaceDir, options, store);
    if (store.status.kind === "rebuilt")
      options.logger.warn(
        `big-memory: search index ${store.path} rebuilt from the logs: ${store.status.reason}`,
      );
    if (store.status.kind !== "opened") await service.build();
    return service;
  }

  /** The file's path. */
  get path(): string {
    return this.#store.path;
  }

  /** Writes every month of the logs into the file (replacing what it held); hot months are sealed. */
  async build(): Promise<FtsBuildReport> {
    const report: FtsBuildReport = { months: 0, snapshots: 0 };
    const byMonth = groupByMonth(await listLogs(this.workspaceDir));
    for (const month of this.#store.months()) if (!byMonth.has(month)) this.#store.dropMonth(month);
    this.#store.bulk(true);
    try {
      for (const [month, logs] of byMonth) {
        report.snapshots += await this.#sealMonth(
          month,
          logs.map((l) => l.file),
        );
        report.months++;
      }
    } finally {
      this.#store.bulk(false);
    }
    this.#reload();
    return report;
  }

  /** Reads a month's logs and writes its snapshots into the file, newest first; returns how many. */
  async #sealMonth(month: string, files: readonly string[]): Promise<number> {
    const snapshots: LocatedSnapshot[] = [];
    const prints: LogPrint[] = [];
    for (const file of files) {
      const read = await readLog(this.workspaceDir, file);
      await yieldToLoop();
      if (read === null) continue;
      if (isUnreadable(read)) {
        this.#options.logger.warn(`big-memory: ${read.unreadable.message}`);
        continue;
      }
      snapshots.push(...read.snapshots);
      const { size, mtimeMs, crc32 } = read.fingerprint;
      prints.push({ file, month, size, mtimeMs, crc32 });
    }
    const documents = snapshots.map(sealedDocument).sort((a, b) => newerFirst(a.entry, b.entry));
    this.#store.putMonth(month, documents, prints);
    this.#index.dropHot(month);
    return documents.length;
  }

  #reload(): void {
    this.#index.setSealed(new FtsShard(this.#store));
  }

  /**
   * Compares the logs with the fingerprints in the file and re-reads those that changed, appeared or
   * vanished (their months turn hot); resolves with the files re-read.
   */
  async verify(): Promise<string[]> {
    const known = new Map(this.#store.logs().map((l) => [l.file, l]));
    const changed: string[] = [];
    for (const log of await listLogs(this.workspaceDir)) {
      const print = known.get(log.file);
      known.delete(log.file);
      if (this.#index.hot(monthOf(log.file)) !== undefined) continue;
      if (print === undefined || print.size !== log.size || print.mtimeMs !== log.mtimeMs)
        changed.push(log.file);
    }
    changed.push(...known.keys());
    for (const file of changed) await this.refresh(file);
    return changed;
  }

  /** Re-reads a log that changed: its month leaves the file for a hot shard built from its logs. */
  async refresh(file: string): Promise<void> {
    const month = monthOf(file);
    let hot = this.#index.hot(month);
    if (hot === undefined) {
      const files = new Set(this.#store.logs().flatMap((l) => (l.month === month ? [l.file] : [])));
      files.add(file);
      hot = HotShard.empty(month);
      for (const f of [...files].sort()) hot.replaceFile(f, await this.#snapshotsOf(f));
      this.#store.dropMonth(month);
      this.#reload();
      this.#index.setHot(hot);
      return;
    }
    hot.replaceFile(file, await this.#snapshotsOf(file));
  }

  /** The snapshots of a log, redacted; none when it is gone or unreadable (with a warning). */
  async #snapshotsOf(file: string): Promise<LocatedSnapshot[]> {
    const read = await readLog(this.workspaceDir, file);
    if (read === null) return [];
    if (isUnreadable(read)) {
      this.#options.logger.warn(`big-memory: ${read.unreadable.message}`);
      return [];
    }
    return read.snapshots;
  }

  /** Writes a hot month back into the file from its logs (when it stopped changing). */
  async seal(month: string): Promise<void> {
    const hot = this.#index.hot(month);
    if (hot === undefined) return;
    await this.#sealMonth(month, hot.files());
    this.#index.dropHot(month);
    this.#reload();
  }

  /** See fts-index.ts `FtsIndex.query`. */
  query(query: string, options: FtsQueryOptions = {}): FtsResult {
    return this.#index.query(query, options);
  }

  close(): void {
    this.#store.close();
  }
}
