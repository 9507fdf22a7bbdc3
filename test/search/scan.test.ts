import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scanSearch } from "../../plugin/search/scan.ts";
import { SearchService } from "../../plugin/search/search-service.ts";
import {
  makeUnreadable,
  recordingLogger,
  snap,
  tempWorkspace,
  unreadableMessage,
  writeLog,
} from "./helpers.ts";

describe("scanSearch", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace();
    await writeLog(ws.dir, "2026-10-30", [
      snap("2026-10-30-01", {
        goal: "Migrate billing to Stripe",
        names: [{ label: "Error", value: "ERR_WEBHOOK_REPLAY" }],
      }),
    ]);
    await writeLog(ws.dir, "2026-11-20", [
      snap("2026-11-20-01", { goal: "Fix ERR_DUPLICATE_KEY in the upsert" }),
      snap("2026-11-20-02", { goal: "Check ErrDuplicateKey handling in src/db/upsert.ts" }),
    ]);
    await writeLog(ws.dir, "2026-11-21", [
      snap("2026-11-21-01", { goal: "Unrelated notes about the billing run" }),
    ]);
  });
  afterEach(() => ws.cleanup());

  it("gives the index's exact hits while parsing only the logs that may hold them", async () => {
    const service = await SearchService.open(ws.dir, { logger: recordingLogger(), watch: false });
    await service.ready();
    for (const query of [
      "ERR_DUPLICATE_KEY",
      "ERR_WEBHOOK_REPLAY",
      "src/db/upsert.ts",
      "ERR_NOWHERE_AT_ALL",
    ]) {
      const scanned = await scanSearch(ws.dir, query);
      const indexed = service.search(query);
      expect([query, ...scanned.hits.map((h) => h.id).sort()]).toEqual([
        query,
        ...indexed.hits.map((h) => h.id).sort(),
      ]);
      expect(scanned.match).toBe(indexed.match);
    }
    // Plain words: the same best hit (statistics from the candidates may move the tail).
    expect((await scanSearch(ws.dir, "billing stripe")).hits[0]?.id).toBe(
      service.search("billing stripe").hits[0]?.id,
    );
    expect((await scanSearch(ws.dir, "ERR_WEBHOOK_REPLAY")).parsed).toBe(1);
    await service.close();
  });

  it("answers from the other logs when one cannot be read, and names it", async () => {
    await makeUnreadable(ws.dir, "memory/2026-11-21.md");
    const scanned = await scanSearch(ws.dir, "billing");
    expect(scanned.hits.map((h) => h.id)).toEqual(["2026-10-30-01"]);
    expect(scanned.diagnostics).toEqual([
      { file: "memory/2026-11-21.md", line: 0, message: unreadableMessage("memory/2026-11-21.md") },
    ]);
  });
});
