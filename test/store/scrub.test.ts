import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";
import { STATE_GITIGNORE } from "../../plugin/store/gate.ts";
import { scrubWorkspace } from "../../plugin/store/scrub.ts";
import { snapshot as snap } from "../builders.ts";

const TOKEN = `ghp_${"Sc7b".repeat(9)}`;
const STRIPE = `sk_live_${"Rb8q".repeat(6)}`;
const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "big-memory-scrub-"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

/** The state an older version left: 0755/0644, no .gitignore, secrets in the trail and the restore log. */
async function oldState(): Promise<void> {
  await mkdir(join(ws, ".big-memory", "sessions"), { recursive: true, mode: 0o755 });
  await mkdir(join(ws, ".big-memory", "search"), { mode: 0o755 });
  await chmod(join(ws, ".big-memory"), 0o755);
  await writeFile(
    join(ws, ".big-memory", "sessions", "agent-main-main-0123456789.json"),
    `${JSON.stringify({ version: 1, trail: { asks: [{ text: `push with GITHUB_TOKEN=${TOKEN}` }] } })}\n`,
    { mode: 0o644 },
  );
  await writeFile(
    join(ws, ".big-memory", "restore-log.jsonl"),
    `{"at":"2026-11-22T10:00:00Z","id":"2026-11-22-01","session":null,"reason":"compaction"}\nnot json ${STRIPE}\n`,
    { mode: 0o644 },
  );
  await writeFile(join(ws, ".big-memory", "search", "2026-11.bmx"), `binary ${TOKEN}`, { mode: 0o644 });
}

/** A canonical block whose value holds a secret the writer did not know (an older rule set). */
function oldBlock(): { snapshot: Snapshot; text: string } {
  const snapshot = snap("2026-11-22-01", { trigger: "compaction", goal: `Rotate ${STRIPE}` });
  return { snapshot, text: renderSnapshot(snapshot) };
}

describe("scrubWorkspace", () => {
  it("redacts and privatises an old state folder, removes the index, and leaves the logs alone", async () => {
    await oldState();
    await mkdir(join(ws, "memory"));
    const log = `# notes\npassword for staging: GITHUB_TOKEN=${TOKEN}\n`;
    await writeFile(join(ws, "memory", "2026-11-22.md"), log);
    const report = await scrubWorkspace(ws);
    expect(report.files).toEqual([
      { file: ".big-memory/restore-log.jsonl", redactions: { "stripe-key": 1 }, total: 1 },
      {
        file: ".big-memory/sessions/agent-main-main-0123456789.json",
        redactions: { "github-token": 1 },
        total: 1,
      },
    ]);
    expect(report.counts).toEqual({ "stripe-key": 1, "github-token": 1 });
    expect(report.total).toBe(2);
    expect(report.indexRemoved).toBe(true);
    expect(report.backup).toBeNull();
    // The two redacted files were rewritten 0600; a clean file of mode 0644 is fixed in place.
    expect(report.fixed).toEqual([".big-memory/ mode 755 -> 700", ".big-memory/.gitignore written"]);
    expect(await mode(join(ws, ".big-memory", "restore-log.jsonl"))).toBe("600");
    await writeFile(join(ws, ".big-memory", "flush.json"), '{"version":1,"marks":[]}\n', { mode: 0o644 });
    await chmod(join(ws, ".big-memory", "flush.json"), 0o644);
    expect((await scrubWorkspace(ws)).fixed).toEqual([".big-memory/flush.json mode 644 -> 600"]);
    const session = await readFile(
      join(ws, ".big-memory", "sessions", "agent-main-main-0123456789.json"),
      "utf8",
    );
    expect(JSON.parse(session)).toEqual({
      version: 1,
      trail: { asks: [{ text: "push with GITHUB_TOKEN=[REDACTED:github-token]" }] },
    });
    expect(await readFile(join(ws, ".big-memory", "restore-log.jsonl"), "utf8")).toBe(
      '{"at":"2026-11-22T10:00:00Z","id":"2026-11-22-01","session":null,"reason":"compaction"}\nnot json [REDACTED:stripe-key]\n',
    );
    expect(await readdir(join(ws, ".big-memory"))).not.toContain("search");
    expect(await readFile(join(ws, ".big-memory", ".gitignore"), "utf8")).toBe(STATE_GITIGNORE);
    expect(await mode(join(ws, ".big-memory", "sessions"))).toBe("700");
    expect(await readFile(join(ws, "memory", "2026-11-22.md"), "utf8")).toBe(log);
    expect(await scrubWorkspace(ws)).toEqual({
      files: [],
      fixed: [],
      indexRemoved: false,
      backup: null,
      counts: {},
      total: 0,
    });
  });

  it("with logs: backs up, redacts notes and blocks, and renews the checksum of canonical blocks", async () => {
    await mkdir(join(ws, "memory", "archive"), { recursive: true });
    const { text: block } = oldBlock();
    const log = `# notes\nthe deploy token is GITHUB_TOKEN=${TOKEN}\n\n${block}`;
    await writeFile(join(ws, "memory", "2026-11-22.md"), log, { mode: 0o640 });
    await chmod(join(ws, "memory", "2026-11-22.md"), 0o640);
    await writeFile(join(ws, "memory", "2026-11-21.md"), "nothing secret\n");
    const now = new Date("2026-11-23T08:00:00Z");
    const report = await scrubWorkspace(ws, { logs: true, now });
    expect(report.files).toEqual([
      {
        file: "memory/2026-11-22.md",
        redactions: { "github-token": 1, "stripe-key": 1 },
        total: 2,
        rechecksummed: 1,
      },
    ]);
    expect(report.backup).toBe(".big-memory/scrub-backup/2026-11-23T08-00-00-000Z");
    const backup = join(ws, report.backup ?? "", "memory", "2026-11-22.md");
    expect(await readFile(backup, "utf8")).toBe(log);
    expect(await mode(backup)).toBe("600");
    const after = await readFile(join(ws, "memory", "2026-11-22.md"), "utf8");
    expect(after).not.toContain(TOKEN);
    expect(after).not.toContain(STRIPE);
    expect(after).toContain("# notes\nthe deploy token is GITHUB_TOKEN=[REDACTED:github-token]\n");
    expect(await mode(join(ws, "memory", "2026-11-22.md"))).toBe("640");
    const parsed = parseDailyLog(after, "memory/2026-11-22.md");
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.snapshots.map((s) => [s.snapshot.id, s.verified, s.snapshot.goal])).toEqual([
      ["2026-11-22-01", true, "Rotate [REDACTED:stripe-key]"],
    ]);
    expect(await readFile(join(ws, "memory", "2026-11-21.md"), "utf8")).toBe("nothing secret\n");
  });
});
