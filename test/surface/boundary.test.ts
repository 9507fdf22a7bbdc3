import { execFileSync, spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI_MAIN, cli, SAVE_INPUT, SKILL_LOG } from "./cli-harness.ts";

/**
 * The workspace as the boundary of what is read, through the real executable: a `memory/` that holds,
 * beside a real daily log, a link to a log outside the workspace, a link to `/dev/zero`, a FIFO, a loop of
 * links and a dated log in a sub-folder. Every read command answers from the real log alone and names each
 * of the others with its fix; none hangs, none reads outside, none exits 3 for one bad file.
 */

let root: string;
let ws: string;

/** A secret only the outside log holds: it must never be printed. */
const OUTSIDE_SECRET = "outside-only-7Qm2Zp";

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "big-memory-boundary-"));
  ws = join(root, "workspace");
  const memory = join(ws, "memory");
  mkdirSync(join(memory, "daily"), { recursive: true });
  mkdirSync(join(root, "outside"));
  writeFileSync(join(memory, "2026-11-20.md"), SKILL_LOG);
  writeFileSync(
    join(root, "outside", "x.md"),
    SKILL_LOG.replace("Implement user authentication", `Implement ${OUTSIDE_SECRET} authentication`),
  );
  symlinkSync(join(root, "outside", "x.md"), join(memory, "2026-11-21.md"));
  symlinkSync("/dev/zero", join(memory, "2026-11-22.md"));
  execFileSync("mkfifo", [join(memory, "2026-11-23.md")]);
  symlinkSync("2026-11-24.md", join(memory, "2026-11-24.md"));
  writeFileSync(join(memory, "daily", "2026-11-19.md"), SKILL_LOG);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/**
 * Runs the CLI in a child process. The kill after a minute only turns a hang into a failure with a
 * message instead of a stuck test run; nothing here measures time.
 */
function run(argv: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI_MAIN, ...argv, "--dir", ws], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", HOME: "/nonexistent-home" },
    timeout: 60_000,
  });
  if (r.error !== undefined)
    throw new Error(`big-memory ${argv.join(" ")} did not finish: ${r.error.message}`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const refused = (outside: string) => [
  `memory/2026-11-21.md is not read: it is a link to ${outside}, outside memory/; replace the link with the log itself; its snapshots are left out`,
  "memory/2026-11-22.md is not read: it is a link to /dev/zero, outside memory/; replace the link with the log itself; its snapshots are left out",
  "memory/2026-11-23.md is not read: it is a FIFO (named pipe), not a regular file; move it out of memory/; its snapshots are left out",
  "memory/2026-11-24.md is not read: it is a loop of links; replace the link with the log itself; its snapshots are left out",
];
const STRAY =
  "memory/daily/ holds a dated log (memory/daily/2026-11-19.md) that big-memory does not read: it reads the daily logs directly in memory/; move a log that holds snapshots up to memory/ for them to be found";

describe("the read commands at the workspace's boundary", () => {
  it("answer from the logs of memory/ alone, naming every file they leave out, in JSON", () => {
    const outside = realpathSync(join(root, "outside", "x.md"));
    for (const argv of [["list"], ["search", "authentication"], ["recall"], ["show", "2026-11-20-01"]]) {
      const r = run([...argv, "--json"]);
      expect([argv, r.code], r.stderr).toEqual([argv, 0]);
      const doc = JSON.parse(r.stdout) as { diagnostics: { file: string; message: string }[] };
      expect(doc.diagnostics.map((d) => d.message).sort()).toEqual([...refused(outside), STRAY].sort());
      expect(r.stdout).not.toContain(OUTSIDE_SECRET);
      expect(r.stdout).not.toContain("memory/daily/2026-11-19.md:");
    }
    const list = JSON.parse(run(["list", "--json"]).stdout) as { snapshots: { file: string }[] };
    expect(list.snapshots.map((s) => s.file)).toEqual(["memory/2026-11-20.md", "memory/2026-11-20.md"]);
  });

  it("status, verify and reindex name each refused file; verify counts them as problems", () => {
    const outside = realpathSync(join(root, "outside", "x.md"));
    const status = run(["status"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("snapshots     2 in 1 daily log");
    for (const message of [...refused(outside), STRAY]) expect(status.stderr).toContain(message);

    const verify = run(["verify", "--json"]);
    const doc = JSON.parse(verify.stdout) as { ok: boolean; checked: number; problems: { file: string }[] };
    expect([verify.code, doc.ok, doc.checked]).toEqual([1, false, 2]);
    expect(doc.problems.map((p) => p.file)).toEqual([
      "memory/2026-11-21.md",
      "memory/2026-11-22.md",
      "memory/2026-11-23.md",
      "memory/2026-11-24.md",
    ]);

    const reindex = run(["reindex"]);
    expect(reindex.stdout).toContain("reindexed 2 snapshots from 1 daily logs");
    for (const message of refused(outside)) expect(reindex.stderr).toContain(message);
    expect(reindex.stdout + reindex.stderr).not.toContain(OUTSIDE_SECRET);
  });

  it("show refuses a location outside memory/ as a usage error, and reads nothing there", () => {
    for (const where of [
      "memory/../../outside/x.md:9",
      join(root, "outside", "x.md:9"),
      "memory/daily/2026-11-19.md:9",
    ]) {
      const r = run(["show", where]);
      expect([r.code, r.stdout], where).toEqual([2, ""]);
      expect(r.stderr).toMatch(
        /^big-memory: show ".*": not read, it is (outside the workspace's memory\/ folder|in a sub-folder of memory\/)/,
      );
      expect(r.stderr).not.toContain(OUTSIDE_SECRET);
    }
    // Through a link, by its own name: refused when read, and the location is not found.
    const linked = run(["show", "memory/2026-11-21.md:9", "--json"]);
    expect(linked.code).toBe(1);
    expect(JSON.parse(linked.stdout).snapshot).toBeNull();
    expect(linked.stdout).not.toContain(OUTSIDE_SECRET);
  });
});

describe("the state folder at the workspace's boundary", () => {
  it("is refused as a link, never written through, and its target keeps its mode", () => {
    const target = join(root, "elsewhere");
    mkdirSync(target, { mode: 0o755 });
    symlinkSync(target, join(ws, ".big-memory"));
    const r = run(["reindex"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `refusing to write through ${join(ws, ".big-memory")}: it is a link to ${target}; big-memory keeps its private state in a real folder`,
    );
    expect(readdirSync(target)).toEqual([]);
    expect((statSync(target).mode & 0o777).toString(8)).toBe("755");
    const scrub = run(["scrub"]);
    expect(scrub.code).toBe(3);
    expect((statSync(target).mode & 0o777).toString(8)).toBe("755");
  });

  it("reads big-memory's own files as regular files only: a FIFO put there does not hang status or list", () => {
    mkdirSync(join(ws, ".big-memory", "sessions"), { recursive: true });
    execFileSync("mkfifo", [join(ws, ".big-memory", "restore-log.jsonl")]);
    execFileSync("mkfifo", [join(ws, ".big-memory", "sessions", "agent-main-main-0123456789.json")]);
    execFileSync("mkfifo", [join(ws, ".big-memory", "claims.jsonl")]);
    const status = run(["status", "--json"]);
    expect(status.code).toBe(0);
    const doc = JSON.parse(status.stdout) as { diagnostics: { message: string }[] };
    expect(doc.diagnostics.map((d) => d.message)).toContain(
      ".big-memory/claims.jsonl is not read: it is a FIFO (named pipe), not a regular file; move it away (big-memory writes it again)",
    );
    const list = run(["list"]);
    expect([list.code, list.stdout.split("\n")[0]]).toEqual([0, expect.stringMatching(/^ID +AGE/)]);
  });

  it("refuses to append to a FIFO in the place of today's log, without blocking", async () => {
    const r = await cli(["save", "--dir", ws, "--json"], {
      stdin: JSON.stringify(SAVE_INPUT),
      now: new Date("2026-11-23T12:00:00Z"),
    });
    expect([r.code, r.stdout]).toEqual([3, ""]);
    expect(r.stderr).toContain(
      "big-memory: cannot append to memory/2026-11-23.md: it is a FIFO (named pipe), not a regular file: move it out of memory/",
    );
  });
});
