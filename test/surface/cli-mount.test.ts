import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { SKILL_LOG, workspaces } from "./cli-harness.ts";

const workspace = workspaces();
const HOST = new URL("./fixtures/cli-mount-host.ts", import.meta.url).pathname;
const DESCRIPTORS = JSON.stringify([
  { name: "big-memory", description: "Task snapshots that survive compaction", hasSubcommands: true },
]);

/** `openclaw big-memory …` in a real process, with OpenClaw's workspace `workspaceDir`. */
function openclaw(workspaceDir: string | null, argv: string[], config: unknown = {}) {
  const r = spawnSync(process.execPath, [HOST, workspaceDir ?? "-", "big-memory", ...argv], {
    cwd: tmpdir(),
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", BIG_MEMORY_HOST_CONFIG: JSON.stringify(config) },
  });
  const [descriptors = "", ...stderr] = r.stderr.split("\n");
  return { code: r.status, stdout: r.stdout, stderr: stderr.join("\n"), descriptors };
}

describe("registerBigMemoryCli", () => {
  it("registers big-memory as a command with subcommands", () => {
    expect(openclaw(null, ["--version"]).descriptors).toBe(DESCRIPTORS);
  });

  it("passes the arguments unparsed to the big-memory CLI, with its JSON and exit code 0", () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const r = openclaw(null, ["list", "--dir", dir, "--json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(JSON.parse(r.stdout).snapshots.map((s: { id: string }) => s.id)).toEqual([
      "2026-11-20-02",
      "2026-11-20-01",
    ]);
  });

  it("keeps big-memory's exit codes: 1 when nothing is found, 2 for a usage error", () => {
    expect(openclaw(null, ["list", "--dir", workspace()]).code).toBe(1);
    const unknown = openclaw(null, ["frobnicate", "--no-such-flag"]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      expect.stringContaining("unknown command 'frobnicate'"),
    ]);
  });

  it("answers --help with big-memory's own help", () => {
    const r = openclaw(null, ["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: big-memory /);
    expect(r.stdout).toContain("save");
  });

  it("works in OpenClaw's workspace for the agent when no --dir is given", () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const r = openclaw(dir, ["list", "--json"]);
    expect(JSON.parse(r.stdout).snapshots).toHaveLength(2);
  });

  it("finds the workspace in OpenClaw's config when the host names none", () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const r = openclaw(null, ["list", "--json"], { agents: { defaults: { workspace: dir } } });
    expect([r.code, JSON.parse(r.stdout).snapshots.length]).toEqual([0, 2]);
  });
});
