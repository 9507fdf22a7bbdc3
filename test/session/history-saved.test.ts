import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { History } from "../../plugin/session/history-index.ts";
import {
  hasLiveName,
  listSaved,
  recallSaved,
  showSaved,
  statusSaved,
} from "../../plugin/session/history-saved.ts";
import { deleteCheckpoint, saveSnapshot } from "../../plugin/session/maintenance.ts";
import { emptyContent } from "../../plugin/snapshot/sections.ts";

const NOW = new Date("2026-11-25T09:00:00Z");
let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "big-memory-history-saved-"));
  await mkdir(join(ws, "memory"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

const save = (goal: string, over: { name?: string; session?: string } = {}) =>
  saveSnapshot({
    workspaceDir: ws,
    content: { ...emptyContent(), goal },
    meta: { trigger: "manual", session: over.session ?? "agent:main:main", name: over.name ?? null },
    now: NOW,
    timeZone: "UTC",
  });

/** Builds and saves the index, as `big-memory reindex` does. */
async function reindex(): Promise<History> {
  const history = await History.open(ws, { entriesOnly: true, skipLoad: true, warn: () => {} });
  await history.reindex();
  await history.close();
  return history;
}

describe("the saved refs' answers", () => {
  it("answer null before any month was indexed, so that the index answers", async () => {
    await save("Fix the OAuth callback");
    expect(await listSaved({ dir: ws, limit: 5, all: false })).toBeNull();
    expect(await showSaved(ws, "2026-11-25-01")).toBeNull();
    expect(await recallSaved(ws, {})).toBeNull();
    expect(await statusSaved(ws)).toBeNull();
  });

  it("answer as the index does once it is saved", async () => {
    await save("Fix the OAuth callback", { name: "oauth-fix" });
    await save("Write the migration", { session: "agent:main:other" });
    await reindex();
    const opened = await History.open(ws, { entriesOnly: true, warn: () => {} });
    await opened.ready();
    try {
      const listing = { dir: ws, limit: 5, all: false };
      const saved = await listSaved(listing);
      expect(saved?.refs.map((r) => r.id)).toEqual(opened.list(listing).map((r) => r.id));
      expect(saved?.diagnostics).toEqual([]);
      expect((await showSaved(ws, "oauth-fix"))?.found?.snapshot.id).toBe("2026-11-25-01");
      expect((await showSaved(ws, "2026-11-25-02"))?.found?.snapshot.goal).toBe("Write the migration");
      expect((await recallSaved(ws, { session: "agent:main:main" }))?.found?.snapshot.id).toBe(
        "2026-11-25-01",
      );
      expect((await recallSaved(ws, {}))?.found?.snapshot.id).toBe("2026-11-25-02");
      expect((await statusSaved(ws))?.status.tally).toEqual((await opened.status()).tally);
    } finally {
      await opened.close();
    }
  });

  it("list keeps one ref more than the limit, to tell that older ones exist", async () => {
    for (const goal of ["one", "two", "three"]) await save(goal);
    await reindex();
    expect((await listSaved({ dir: ws, limit: 1, all: false }))?.refs.map((r) => r.id)).toEqual([
      "2026-11-25-03",
      "2026-11-25-02",
    ]);
  });
});

describe("hasLiveName", () => {
  it("is true for a live checkpoint name, false once deleted, with or without an index", async () => {
    await save("Fix the OAuth callback", { name: "oauth-fix" });
    expect(await hasLiveName(ws, "oauth-fix")).toBe(true);
    expect(await hasLiveName(ws, "other")).toBe(false);
    await reindex();
    expect(await hasLiveName(ws, "oauth-fix")).toBe(true);
    await deleteCheckpoint({ workspaceDir: ws, name: "oauth-fix", session: null, now: NOW });
    expect(await hasLiveName(ws, "oauth-fix")).toBe(false);
  });
});
