import { spawn } from "node:child_process";
import { appendFile, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SHARD_FORMAT_VERSION } from "../../plugin/search/codec.ts";
import { loadShardHeader, shardPath } from "../../plugin/search/persist.ts";
import { SearchService } from "../../plugin/search/search-service.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import {
  makeUnreadable,
  recordingLogger,
  snap,
  tempWorkspace,
  unreadableMessage,
  writeLog,
} from "./helpers.ts";

const topId = (service: SearchService, query: string) => service.search(query).hits[0]?.id;

describe("SearchService", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  const open: SearchService[] = [];
  /** Waiters for a state of the index, looked at again after every refresh of a log. */
  let waiters: { check: () => boolean; resolve: () => void }[] = [];
  const refreshed = () => {
    const done = waiters.filter((w) => w.check());
    waiters = waiters.filter((w) => !done.includes(w));
    for (const w of done) w.resolve();
  };
  /** Resolves once `check` holds: at once, or after the refresh that makes it so. */
  const until = (check: () => boolean) =>
    check() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ check, resolve }));
  const start = async (options: { watch?: boolean } = {}) => {
    const logger = recordingLogger();
    const service = await SearchService.open(ws.dir, {
      logger,
      watch: options.watch ?? false,
      saveDelayMs: 10,
      onRefreshed: refreshed,
    });
    open.push(service);
    await service.ready();
    return { service, logger };
  };

  beforeEach(async () => {
    ws = await tempWorkspace();
    await writeLog(ws.dir, "2026-10-30", [
      snap("2026-10-30-01", { goal: "Migrate billing to Stripe", session: "s1" }),
    ]);
    await writeLog(ws.dir, "2026-11-20", [
      snap("2026-11-20-01", { goal: "Fix ERR_DUPLICATE_KEY in the upsert", session: "s1" }),
      snap("2026-11-20-02", { goal: "Write ADR-016 about retries", session: "s2", name: "adr-retries" }),
    ]);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
    await ws.cleanup();
  });

  it("answers nothing, without errors, for a workspace with no memory folder", async () => {
    await rm(join(ws.dir, "memory"), { recursive: true });
    const { service, logger } = await start();
    expect(service.search("anything")).toEqual({
      hits: [],
      match: "exact",
      missing: [],
      prefixes: [],
      suggestions: [],
      complete: true,
    });
    expect(service.latest()).toBeNull();
    expect(logger.warnings).toEqual([]);
  });

  it("indexes every log and answers search, latest, list and get", async () => {
    const { service } = await start();
    expect(topId(service, "ERR_DUPLICATE_KEY")).toBe("2026-11-20-01");
    expect(topId(service, "stripe")).toBe("2026-10-30-01");
    expect(service.latest({ session: "s1" })?.id).toBe("2026-11-20-01");
    expect(service.list().map((r) => r.id)).toEqual(["2026-11-20-02", "2026-11-20-01", "2026-10-30-01"]);
    const full = await service.get("2026-11-20-02");
    expect(full?.snapshot.goal).toBe("Write ADR-016 about retries");
    expect(full?.file).toBe("memory/2026-11-20.md");
    expect(await service.get("2026-01-01-01")).toBeNull();
  });

  it("carries the ref fields, a score and the matching line in each hit", async () => {
    const { service } = await start();
    expect(service.search("ADR-016").hits[0]).toMatchObject({
      id: "2026-11-20-02",
      timestamp: "2026-11-20T10:00:00+00:00",
      file: "memory/2026-11-20.md",
      session: "s2",
      agent: "main",
      trigger: "manual",
      name: "adr-retries",
      goal: "Write ADR-016 about retries",
      verified: true,
      snippet: "Write ADR-016 about retries",
      field: "goal",
    });
  });

  it("saves the index and loads it again instead of re-reading unchanged logs", async () => {
    const log = join(ws.dir, "memory", "2026-11-20.md");
    const when = new Date("2026-11-20T12:00:00Z");
    await utimes(log, when, when);
    const first = await start();
    await first.service.close();
    expect((await readdir(first.service.indexDir)).sort()).toEqual([
      "2026-10.bmx",
      "2026-11.bmx",
      "vocabulary.bmv",
    ]);
    // Change the log behind the index's back, keeping its size and time: the saved index, whose
    // fingerprint still matches, answers as before, which shows the log was not read again.
    const text = await readFile(log, "utf8");
    await writeFile(log, text.replace("ERR_DUPLICATE_KEY", "ERR_DUPLICATE_KYE"));
    await utimes(log, when, when);
    const { service, logger } = await start();
    expect(topId(service, "ERR_DUPLICATE_KEY")).toBe("2026-11-20-01");
    expect(service.status()).toMatchObject({ snapshots: 3, months: 2, complete: true });
    expect(logger.warnings).toEqual([]);
  });

  it("answers the same with its vocabulary file, without it, and with it stale or corrupt", async () => {
    const queries = ["ERR_DUPLICATE_KEY", "migrat", "stirpe", "retries adr", "zzz_absent"];
    const answers = (service: SearchService) => queries.map((q) => service.search(q, { suggest: true }));
    const first = await start();
    const expected = answers(first.service);
    await first.service.close();
    const path = join(first.service.indexDir, "vocabulary.bmv");
    const saved = await readFile(path);
    const reopen = async () => {
      const { service, logger } = await start();
      expect(answers(service)).toEqual(expected);
      expect(logger.warnings).toEqual([]);
      await service.close();
    };
    await reopen();
    expect(await readFile(path)).toEqual(saved); // it still says what the months hold: not written again
    const corrupt = Buffer.from(saved);
    corrupt[corrupt.length - 2] = (corrupt.at(-2) ?? 0) ^ 0x01;
    await writeFile(path, corrupt);
    await reopen();
    expect(await readFile(path)).toEqual(saved);
    await rm(path);
    await reopen();
    expect(await readFile(path)).toEqual(saved);
    // A month changed while closed is rebuilt: the file no longer names its saved shard, and is written again.
    await appendFile(
      join(ws.dir, "memory", "2026-11-20.md"),
      `\n${renderSnapshot(snap("2026-11-20-03", { goal: "Rotate the QUOKKA_TOKEN" }))}`,
    );
    const { service } = await start();
    expect(topId(service, "QUOKKA_TOKEN")).toBe("2026-11-20-03");
    expect(service.search("quokk").hits[0]?.id).toBe("2026-11-20-03");
    await service.close();
    expect(await readFile(path)).not.toEqual(saved);
  });

  it("re-reads at start-up only the logs that changed while it was closed", async () => {
    const first = await start();
    await first.service.close();
    await writeLog(ws.dir, "2026-11-20", [snap("2026-11-20-01", { goal: "Rotate the signing keys" })]);
    await rm(join(ws.dir, "memory", "2026-10-30.md"));
    const { service } = await start();
    expect(topId(service, "signing keys")).toBe("2026-11-20-01");
    expect(topId(service, "ERR_DUPLICATE_KEY")).toBeUndefined();
    expect(topId(service, "stripe")).toBeUndefined();
  });

  it("rebuilds a corrupt index from the logs with exactly one warning", async () => {
    const first = await start();
    await first.service.close();
    const path = shardPath(first.service.indexDir, "2026-11");
    await writeFile(path, "this is not an index");
    await rm(`${path}.prev`, { force: true });
    const { service, logger } = await start();
    expect(topId(service, "ERR_DUPLICATE_KEY")).toBe("2026-11-20-01");
    expect(logger.warnings).toEqual([
      `big-memory: search index ${path}: not a big-memory search shard (bad magic number); rebuilding from the daily logs`,
    ]);
  });

  it("falls back to the previous copy of a corrupt shard, re-reading the logs changed since", async () => {
    const first = await start();
    await first.service.refreshFile("memory/2026-11-20.md");
    await first.service.close();
    await writeLog(ws.dir, "2026-11-20", [snap("2026-11-20-01", { goal: "Rotate the signing keys" })]);
    const second = await start();
    await second.service.close();
    const path = shardPath(second.service.indexDir, "2026-11");
    await writeFile(path, "torn");
    const { service, logger } = await start();
    expect(topId(service, "signing keys")).toBe("2026-11-20-01");
    expect(topId(service, "ERR_DUPLICATE_KEY")).toBeUndefined();
    expect(logger.warnings).toEqual([
      `big-memory: search index ${path}: file is truncated (4 bytes); using the previous copy and re-reading the logs changed since`,
    ]);
  });

  it("rebuilds an index of an unknown version with one warning, never half-reading it", async () => {
    const first = await start();
    await first.service.close();
    const path = shardPath(first.service.indexDir, "2026-10");
    const data = await readFile(path);
    data.writeUInt32LE(SHARD_FORMAT_VERSION + 1, 4);
    await writeFile(path, data);
    await rm(`${path}.prev`, { force: true });
    const { service, logger } = await start();
    expect(topId(service, "stripe")).toBe("2026-10-30-01");
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain(
      `unknown format version ${SHARD_FORMAT_VERSION + 1} (expected ${SHARD_FORMAT_VERSION})`,
    );
  });

  it("re-indexes everything on reindex", async () => {
    const { service } = await start();
    const report = await service.reindex();
    expect(report).toMatchObject({ snapshots: 3, logs: 2, months: 2, diagnostics: [] });
    expect(topId(service, "ERR_DUPLICATE_KEY")).toBe("2026-11-20-01");
  });

  describe("a daily log that cannot be read", () => {
    const FILE = "memory/2026-11-20.md";
    const problem = { file: FILE, line: 0, message: unreadableMessage(FILE) };
    /** The logs the saved shard of 2026-11 holds a record of. */
    const recorded = async (service: SearchService) => {
      const load = await loadShardHeader(service.indexDir, "2026-11");
      return load.kind === "loaded" ? Object.keys(load.header.files).sort() : load.kind;
    };
    const ids = (service: SearchService) => service.list().map((r) => r.id);

    it("is left out of a first build, named, never recorded, and indexed once it can be read", async () => {
      await writeLog(ws.dir, "2026-11-21", [snap("2026-11-21-01", { goal: "Tune the consumer" })]);
      const mend = await makeUnreadable(ws.dir, FILE);
      for (const run of [1, 2]) {
        const { service, logger } = await start();
        expect([run, ids(service)]).toEqual([run, ["2026-11-21-01", "2026-10-30-01"]]);
        expect(service.diagnostics()).toEqual([problem]);
        expect([service.unreadable(), service.failures, logger.warnings]).toEqual([[FILE], 0, []]);
        expect(service.logs().files).toBe(2);
        await service.close();
        expect(await recorded(service)).toEqual(["memory/2026-11-21.md"]);
      }
      await mend();
      const { service } = await start();
      expect(topId(service, "ERR_DUPLICATE_KEY")).toBe("2026-11-20-01");
      expect([service.diagnostics(), service.unreadable()]).toEqual([[], []]);
      await service.close();
      expect(await recorded(service)).toEqual([FILE, "memory/2026-11-21.md"]);
    });

    it("drops the snapshots of an indexed log and its record once it cannot be read, and takes them back after", async () => {
      const first = await start();
      await first.service.close();
      const mend = await makeUnreadable(ws.dir, FILE);
      const { service, logger } = await start();
      expect(ids(service)).toEqual(["2026-10-30-01"]);
      expect(topId(service, "ERR_DUPLICATE_KEY")).toBeUndefined();
      expect([service.diagnostics(), logger.warnings]).toEqual([[problem], []]);
      expect(await service.get("2026-11-20-01")).toBeNull();
      await service.close();
      expect(await recorded(service)).toBe("missing");
      await mend();
      const again = await start();
      expect(ids(again.service)).toEqual(["2026-11-20-02", "2026-11-20-01", "2026-10-30-01"]);
    });

    it("is left out of a reindex, which counts only the logs it indexed and names the other", async () => {
      const { service } = await start();
      await makeUnreadable(ws.dir, FILE);
      const report = await service.reindex();
      expect(report).toMatchObject({ snapshots: 1, logs: 1, months: 2, diagnostics: [problem] });
      expect([service.unreadable(), service.failures]).toEqual([[FILE], 0]);
    });
  });

  it("treats a log that vanished before it could be read as gone, not as an error", async () => {
    const { service, logger } = await start();
    await rm(join(ws.dir, "memory", "2026-11-20.md"));
    await service.refreshFile("memory/2026-11-20.md");
    await service.refreshFile("memory/2026-11-19.md");
    expect(topId(service, "ERR_DUPLICATE_KEY")).toBeUndefined();
    expect(logger.warnings).toEqual([]);
  });

  it("picks up a block appended by another process", async () => {
    const { service, logger } = await start({ watch: true });
    const block = `\n${renderSnapshot(snap("2026-11-20-03", { goal: "Investigate ERR_CERT_EXPIRED on the gateway" }))}`;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [
        "-e",
        "require('node:fs').appendFileSync(process.argv[1], process.argv[2])",
        join(ws.dir, "memory", "2026-11-20.md"),
        block,
      ]);
      child.on("error", reject);
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`child exited with ${code}`))));
    });
    await until(() => topId(service, "ERR_CERT_EXPIRED") === "2026-11-20-03");
    expect(logger.warnings).toEqual([]);
  });

  it("follows a log that is rewritten, deleted, or created in a new month", async () => {
    const { service } = await start({ watch: true });
    await writeLog(ws.dir, "2026-11-20", [snap("2026-11-20-01", { goal: "Rotate the signing keys" })]);
    await until(() => topId(service, "signing keys") === "2026-11-20-01");
    expect(topId(service, "ERR_DUPLICATE_KEY")).toBeUndefined();
    await rm(join(ws.dir, "memory", "2026-10-30.md"));
    await until(() => topId(service, "stripe") === undefined);
    await writeLog(ws.dir, "2026-12-01", [snap("2026-12-01-01", { goal: "Plan the December freeze" })]);
    await until(() => topId(service, "december freeze") === "2026-12-01-01");
    await appendFile(
      join(ws.dir, "memory", "2026-12-01.md"),
      "\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: torn",
    );
    await service.refreshFile("memory/2026-12-01.md");
    expect(service.latest()?.id).toBe("2026-12-01-01");
  });
});
