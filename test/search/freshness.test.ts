import { readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SearchService } from "../../plugin/search/search-service.ts";
import { recordingLogger, snap, tempWorkspace, writeLog } from "./helpers.ts";

describe("SearchService freshness and saved problems", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  const open = async (options: { entriesOnly?: boolean } = {}) => {
    const logger = recordingLogger();
    const service = await SearchService.open(ws.dir, { logger, watch: false, saveDelayMs: 10, ...options });
    await service.ready();
    return { service, logger };
  };

  beforeEach(async () => {
    ws = await tempWorkspace();
    await writeLog(ws.dir, "2026-11-20", [
      snap("2026-11-20-01", { goal: "Fix ERR_ALPHA_ONE in the upsert" }),
    ]);
  });
  afterEach(() => ws.cleanup());

  it("sees a same-size edit whose modification time was put back", async () => {
    const path = join(ws.dir, "memory/2026-11-20.md");
    const when = 1_790_000_000; // whole seconds: put back exactly
    await utimes(path, when, when);
    const first = await open();
    expect(first.service.search("ERR_ALPHA_ONE").hits.map((h) => h.id)).toEqual(["2026-11-20-01"]);
    await first.service.close();
    const before = await stat(path);
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace("ERR_ALPHA_ONE", "ERR_OMEGA_TWO"));
    await utimes(path, when, when);
    expect((await stat(path)).size).toBe(before.size);
    expect((await stat(path)).mtimeMs).toBe(before.mtimeMs);
    const second = await open();
    expect(second.service.search("ERR_OMEGA_TWO").hits.map((h) => h.id)).toEqual(["2026-11-20-01"]);
    expect(second.service.search("ERR_ALPHA_ONE").hits).toEqual([]);
    await second.service.close();
  });

  it("keeps the problems found in a log with the index, and reports them without reading the log again", async () => {
    const torn = "\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-11-20-02 -->\n";
    await writeFile(join(ws.dir, "memory/2026-11-20.md"), torn, { flag: "a" });
    const first = await open();
    const problem = first.service.diagnostics();
    expect(problem).toEqual([expect.objectContaining({ file: "memory/2026-11-20.md", id: "2026-11-20-02" })]);
    await first.service.close();
    const second = await open({ entriesOnly: true });
    expect(second.service.diagnostics()).toEqual(problem);
    expect(second.service.list().map((r) => r.id)).toEqual(["2026-11-20-01"]);
    await second.service.close();
  });

  it("answers list, latest and get from the saved refs alone, and re-reads a log that changed", async () => {
    const first = await open();
    await first.service.close();
    await writeLog(ws.dir, "2026-11-21", [snap("2026-11-21-01", { goal: "Second day", session: "s9" })]);
    const light = await open({ entriesOnly: true });
    expect(light.service.list().map((r) => r.id)).toEqual(["2026-11-21-01", "2026-11-20-01"]);
    expect(light.service.latest({ session: "s9" })?.id).toBe("2026-11-21-01");
    expect((await light.service.get("2026-11-20-01"))?.snapshot.goal).toBe("Fix ERR_ALPHA_ONE in the upsert");
    expect(light.logger.warnings).toEqual([]);
    await light.service.close();
  });
});
