import { execFileSync } from "node:child_process";
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";
import { STATE_GITIGNORE } from "../../plugin/store/gate.ts";
import { blockSpans, scrubWorkspace } from "../../plugin/store/scrub.ts";
import { snapshot as snap } from "../builders.ts";
import { BLOCK_SECRETS, OWN_LINES, writeRealWorkspace } from "./fixtures/real-workspace.ts";

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
      logs: [],
      logsChecked: null,
      applied: false,
      problems: [],
      strays: [],
      backup: null,
      counts: {},
      total: 0,
    });
  });

  it("with logs and apply: backs up, redacts the blocks alone, and renews the checksum of canonical blocks", async () => {
    const { text: block } = oldBlock();
    const log = `# notes\nthe deploy token is GITHUB_TOKEN=${TOKEN}\n\n${block}\nafter the block: ${TOKEN}\n`;
    await mkdir(join(ws, "memory"), { recursive: true });
    await writeFile(join(ws, "memory", "2026-11-22.md"), log, { mode: 0o640 });
    await chmod(join(ws, "memory", "2026-11-22.md"), 0o640);
    await writeFile(join(ws, "memory", "2026-11-21.md"), "nothing secret\n");
    const now = new Date("2026-11-23T08:00:00Z");
    const report = await scrubWorkspace(ws, { logs: true, apply: true, now });
    expect(report.files).toEqual([
      { file: "memory/2026-11-22.md", redactions: { "stripe-key": 1 }, total: 1, rechecksummed: 1 },
    ]);
    expect([report.applied, report.logsChecked, report.problems]).toEqual([true, 2, []]);
    expect(report.backup).toBe(".big-memory/scrub-backup/2026-11-23T08-00-00-000Z");
    const backup = join(ws, report.backup ?? "", "memory", "2026-11-22.md");
    expect(await readFile(backup, "utf8")).toBe(log);
    expect(await mode(backup)).toBe("600");
    const after = await readFile(join(ws, "memory", "2026-11-22.md"), "utf8");
    expect(after).not.toContain(STRIPE);
    // People's own lines, before and after the block, stay as they were written.
    expect(after.startsWith(`# notes\nthe deploy token is GITHUB_TOKEN=${TOKEN}\n\n`)).toBe(true);
    expect(after.endsWith(`\nafter the block: ${TOKEN}\n`)).toBe(true);
    expect(await mode(join(ws, "memory", "2026-11-22.md"))).toBe("640");
    const parsed = parseDailyLog(after, "memory/2026-11-22.md");
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.snapshots.map((s) => [s.snapshot.id, s.verified, s.snapshot.goal])).toEqual([
      ["2026-11-22-01", true, "Rotate [REDACTED:stripe-key]"],
    ]);
    expect(await readFile(join(ws, "memory", "2026-11-21.md"), "utf8")).toBe("nothing secret\n");
  });
});

describe("scrubWorkspace on a workspace shaped like a real one", () => {
  /** Every file under `dir` (memory/ and the root), workspace-relative, with its text. */
  async function filesOf(dir: string, rel = ""): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const e of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (path === ".big-memory") continue;
      if (e.isDirectory()) Object.assign(out, await filesOf(dir, path));
      else out[path] = await readFile(join(dir, path), "utf8");
    }
    return out;
  }

  it("with logs alone: plans the blocks it would redact, by file, line and id, and changes nothing in memory/", async () => {
    const files = writeRealWorkspace(ws);
    const report = await scrubWorkspace(ws, { logs: true, now: new Date("2026-02-09T08:00:00Z") });
    expect(report.logs).toEqual([
      {
        file: "memory/2026-02-07.md",
        blocks: [{ line: 13, id: "2026-02-07-01", redactions: { "stripe-key": 1 }, total: 1 }],
        redactions: { "stripe-key": 1 },
        total: 1,
      },
      {
        file: "memory/2026-02-07-0431.md",
        blocks: [{ line: 11, id: "2026-02-07-02", redactions: { "github-token": 1 }, total: 1 }],
        redactions: { "github-token": 1 },
        total: 1,
      },
    ]);
    expect([report.applied, report.backup, report.logsChecked, report.problems]).toEqual([
      false,
      null,
      4,
      [],
    ]);
    expect(report.strays.map((d) => d.file)).toEqual(["memory/archive/", "memory/daily/"]);
    expect(await filesOf(ws)).toEqual(files);
  });

  it("with apply: rewrites the blocks of the daily logs and variants alone; people's lines and other files stay byte for byte", async () => {
    const files = writeRealWorkspace(ws);
    const report = await scrubWorkspace(ws, {
      logs: true,
      apply: true,
      now: new Date("2026-02-09T08:00:00Z"),
    });
    expect(report.files.map((f) => f.file)).toEqual(["memory/2026-02-07.md", "memory/2026-02-07-0431.md"]);
    const after = await filesOf(ws);
    // Every file but the two logs with blocks is as it was: rapport-profile.md, the sub-folders, the root.
    const untouched = Object.keys(files).filter((f) => !report.files.some((r) => r.file === f));
    expect(untouched.map((f) => after[f] === files[f])).toEqual(untouched.map(() => true));
    for (const file of ["memory/2026-02-07.md", "memory/2026-02-07-0431.md"]) {
      const text = after[file] ?? "";
      for (const secret of Object.values(BLOCK_SECRETS)) {
        // A secret stays only where a person wrote it outside a block.
        expect(text.includes(secret), `${file} ${secret}`).toBe(
          OWN_LINES.some((l) => l.includes(secret)) && file === "memory/2026-02-07.md",
        );
      }
      const parsed = parseDailyLog(text, file);
      expect(parsed.snapshots.map((s) => s.verified)).toEqual([true]);
    }
    for (const line of OWN_LINES) expect(after["memory/2026-02-07.md"]).toContain(`${line}\n`);
    const original = files["memory/2026-02-07.md"] ?? "";
    const rewritten = after["memory/2026-02-07.md"] ?? "";
    const head = original.slice(0, original.indexOf("<!-- BIG-MEMORY-SNAPSHOT"));
    const tail = original.slice(original.indexOf("<!-- /BIG-MEMORY-SNAPSHOT -->") + 29);
    expect([rewritten.startsWith(head), rewritten.endsWith(tail)]).toEqual([true, true]);
    expect(await readFile(join(ws, report.backup ?? "", "memory/2026-02-07.md"), "utf8")).toBe(original);
  });

  it("names a log it does not read (a FIFO, a link out) and scrubs the others", async () => {
    writeRealWorkspace(ws);
    execFileSync("mkfifo", [join(ws, "memory", "2026-02-10.md")]);
    await symlink("/etc/hostname", join(ws, "memory", "2026-02-11.md"));
    const report = await scrubWorkspace(ws, { logs: true, apply: true });
    expect(report.problems.map((p) => p.message)).toEqual([
      "memory/2026-02-10.md is not read: it is a FIFO (named pipe), not a regular file; move it out of memory/; its snapshots are left out",
      `memory/2026-02-11.md is not read: it is a link to ${await realpath("/etc/hostname")}, outside memory/; replace the link with the log itself; its snapshots are left out`,
    ]);
    expect(report.files.map((f) => f.file)).toEqual(["memory/2026-02-07.md", "memory/2026-02-07-0431.md"]);
  });

  it("leaves a torn block, and everything after it, as written", async () => {
    await mkdir(join(ws, "memory"), { recursive: true });
    const torn = `# notes\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-02-07-01 -->\nkey ${STRIPE}\nmy own line ${TOKEN}\n`;
    await writeFile(join(ws, "memory", "2026-02-07.md"), torn);
    const report = await scrubWorkspace(ws, { logs: true, apply: true });
    expect([report.logs, report.files]).toEqual([[], []]);
    expect(await readFile(join(ws, "memory", "2026-02-07.md"), "utf8")).toBe(torn);
  });
});

describe("blockSpans", () => {
  it("spans complete blocks from their start line to the end of their end line, never a torn one", () => {
    const text =
      "a\r\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\r\nx\r\n<!-- /BIG-MEMORY-SNAPSHOT -->\r\nb\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\nc\n<!-- BIG-MEMORY-SNAPSHOT v1 -->\nd\n<!-- /BIG-MEMORY-SNAPSHOT -->";
    expect(blockSpans(text).map((s) => [s.line, text.slice(s.start, s.end)])).toEqual([
      [2, "<!-- BIG-MEMORY-SNAPSHOT v1 -->\r\nx\r\n<!-- /BIG-MEMORY-SNAPSHOT -->"],
      [8, "<!-- BIG-MEMORY-SNAPSHOT v1 -->\nd\n<!-- /BIG-MEMORY-SNAPSHOT -->"],
    ]);
  });
});
