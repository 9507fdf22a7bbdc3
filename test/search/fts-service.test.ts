import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FIELDS } from "../../plugin/search/document.ts";
import { FtsService, sealedDocument } from "../../plugin/search/fts-service.ts";
import { FTS_FILE } from "../../plugin/search/fts-store.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { located, recordingLogger, snap, tempWorkspace, writeLog } from "./helpers.ts";

const TOKEN = `ghp_${"Ft5s".repeat(9)}`;

describe("FtsService", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let dir: string;
  beforeEach(async () => {
    ws = await tempWorkspace();
    dir = join(ws.dir, ".big-memory", "search");
    await writeLog(ws.dir, "2026-10-03", [
      snap("2026-10-03-01", {
        goal: "Stop the upsert failing",
        names: [{ label: "Error code", value: "ERR_DUPLICATE_KEY" }],
      }),
    ]);
    await writeLog(ws.dir, "2026-11-20", [
      snap("2026-11-20-01", {
        goal: "Wire the OAuth callback",
        files: [{ path: "src/auth/oauth-callback.ts", note: "" }],
      }),
    ]);
  });
  afterEach(() => ws.cleanup());

  const open = (logger = recordingLogger()) => FtsService.open(ws.dir, { dir, logger });

  it("builds the file from the logs on first open and answers from it after", async () => {
    const first = await open();
    expect(first.query("ERR_DUPLICATE_KEY").hits.map((h) => h.id)).toEqual(["2026-10-03-01"]);
    first.close();
    const again = await open();
    expect(again.query("oauth-callback.ts").hits.map((h) => h.id)).toEqual(["2026-11-20-01"]);
    expect(await again.verify()).toEqual([]);
    again.close();
  });

  it("never writes a secret of a log into the file or its WAL", async () => {
    await writeLog(ws.dir, "2026-11-21", [
      snap("2026-11-21-01", { goal: `Rotate the token ${TOKEN}`, next: [`check ${TOKEN} is gone`] }),
    ]);
    const service = await open();
    expect(service.query("Rotate the token").hits.map((h) => h.id)).toEqual(["2026-11-21-01"]);
    for (const suffix of ["", "-wal"]) {
      const bytes = await readFile(join(dir, FTS_FILE + suffix));
      expect(bytes.includes(TOKEN)).toBe(false);
      expect(bytes.includes(TOKEN.toLowerCase())).toBe(false);
    }
    service.close();
  });

  it("rebuilds a corrupt file from the logs with one warning naming it", async () => {
    (await open()).close();
    await writeFile(join(dir, FTS_FILE), "garbage ".repeat(1000));
    const logger = recordingLogger();
    const service = await open(logger);
    expect(logger.warnings).toEqual([
      `big-memory: search index ${join(dir, FTS_FILE)} rebuilt from the logs: file is not a database`,
    ]);
    expect(service.query("ERR_DUPLICATE_KEY").hits.map((h) => h.id)).toEqual(["2026-10-03-01"]);
    service.close();
  });

  it("finds a block appended to a log once the log is refreshed, and again once its month is sealed", async () => {
    const service = await open();
    const block = renderSnapshot(snap("2026-11-20-02", { goal: "Chase invoice INV-2026-00417" }));
    await appendFile(join(ws.dir, "memory/2026-11-20.md"), `\n${block}`);
    await service.refresh("memory/2026-11-20.md");
    expect(service.query("INV-2026-00417").hits.map((h) => h.id)).toEqual(["2026-11-20-02"]);
    expect(service.query("oauth-callback.ts").hits.map((h) => h.id)).toEqual(["2026-11-20-01"]);
    await service.seal("2026-11");
    expect(service.query("INV-2026-00417").hits.map((h) => h.id)).toEqual(["2026-11-20-02"]);
    service.close();
    const again = await open();
    expect(await again.verify()).toEqual([]);
    expect(again.query("INV-2026-00417").hits.map((h) => h.id)).toEqual(["2026-11-20-02"]);
    again.close();
  });

  it("re-reads the logs that changed, appeared or vanished while it was closed", async () => {
    (await open()).close();
    await writeLog(ws.dir, "2026-11-22", [snap("2026-11-22-01", { goal: "Bump the lockfile" })]);
    await writeFile(join(ws.dir, "memory/2026-10-03.md"), "# 2026-10-03\n");
    const service = await open();
    expect((await service.verify()).sort()).toEqual(["memory/2026-10-03.md", "memory/2026-11-22.md"]);
    expect(service.query("lockfile").hits.map((h) => h.id)).toEqual(["2026-11-22-01"]);
    expect(service.query("ERR_DUPLICATE_KEY").hits).toEqual([]);
    service.close();
  });
});

describe("sealedDocument", () => {
  it("gives each field's terms joined by spaces, and none for a tombstone", () => {
    const doc = sealedDocument(located(snap("2026-11-20-01", { goal: "Fix ERR_DB_TIMEOUT" })));
    expect(doc.fields[FIELDS.indexOf("goal")]).toBe("fix err_db_timeout err db timeout");
    expect(doc.lengths[FIELDS.indexOf("goal")]).toBe(5);
    const tomb = sealedDocument(located(snap("2026-11-20-02", { tombstone: true, name: "gone-now" })));
    expect(tomb.fields.every((f) => f === "")).toBe(true);
    expect(tomb.entry.tombstone).toBe(true);
  });
});
