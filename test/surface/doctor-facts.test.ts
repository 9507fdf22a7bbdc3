import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initialSessionState, sessionStatePath } from "../../plugin/session/session-state.ts";
import { cliDoctorInput, doctorText, runDoctor } from "../../plugin/surface/cli-doctor.ts";

const NOW = new Date("2026-11-22T12:00:00Z");
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A temp HOME with a config (`config`, JSON), a workspace `~/ws` holding memory/, and a plugin folder. */
function home(config: (h: string) => Record<string, unknown>): string {
  const h = mkdtempSync(join(tmpdir(), "big-memory-doctor-"));
  roots.push(h);
  mkdirSync(join(h, ".openclaw"));
  mkdirSync(join(h, "ws", "memory"), { recursive: true });
  mkdirSync(join(h, "plugin", "dist"), { recursive: true });
  writeFileSync(join(h, "plugin", "openclaw.plugin.json"), '{ id: "big-memory" }');
  writeFileSync(
    join(h, "plugin", "package.json"),
    JSON.stringify({ name: "big-memory", openclaw: { runtimeExtensions: ["./dist/index.js"] } }),
  );
  writeFileSync(join(h, "plugin", "dist", "index.js"), "");
  writeFileSync(join(h, ".openclaw", "openclaw.json"), JSON.stringify(config(h)));
  return h;
}
const good = (h: string) => ({
  agents: { defaults: { workspace: "~/ws", model: "openai/gpt-5.4" } },
  plugins: {
    load: { paths: [join(h, "plugin")] },
    entries: { "big-memory": { enabled: true, hooks: { allowConversationAccess: true } } },
  },
});
function session(h: string, key: string, patch: (s: ReturnType<typeof initialSessionState>) => void): void {
  const state = initialSessionState(key, "main");
  patch(state);
  const path = sessionStatePath(join(h, "ws", ".big-memory"), key);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, JSON.stringify(state));
}
const doctor = (h: string, opts: { dir?: string } = {}) =>
  runDoctor(cliDoctorInput(opts, { cwd: h, env: { HOME: h }, now: () => NOW }));

describe("runDoctor", () => {
  it("is ok for a configured workspace whose sessions saw user turns", async () => {
    const h = home(good);
    session(h, "agent:main:main", (s) => {
      s.trail.turns = 3;
      s.trail.asks = [{ text: "fix the login bug", at: "2026-11-22T11:58:00Z" }];
      s.updatedAt = "2026-11-22T11:59:00Z";
    });
    const report = await runDoctor(cliDoctorInput({}, { cwd: h, env: { HOME: h }, now: () => NOW }));
    expect(report.ok).toBe(true);
    expect([report.workspace, report.config]).toEqual([join(h, "ws"), join(h, ".openclaw", "openclaw.json")]);
    expect(report.checks.find((c) => c.name === "hooks seen")?.detail).toBe(
      "1 session, last user turn 2m ago",
    );
    expect(report.checks.find((c) => c.name === "plugin installed")?.detail).toBe(join(h, "plugin"));
    expect(doctorText(report).split("\n").at(-1)).toBe(
      "big-memory will capture and restore in this workspace.",
    );
  });

  it("fails naming the consent flag when a session compacted but no user turn was ever observed", async () => {
    const h = home(good);
    session(h, "agent:main:main", (s) => {
      s.cycle.n = 1;
      s.trail.toolCalls = 2;
    });
    const report = await doctor(h);
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.name === "hooks seen")?.status).toBe("fail");
    expect(doctorText(report)).toContain(
      "      fix: openclaw config set plugins.entries.big-memory.hooks.allowConversationAccess true --strict-json",
    );
  });

  it("writes nothing: the workspace's folders keep their entries and their modification times", async () => {
    const h = home(good);
    session(h, "agent:main:main", (s) => {
      s.trail.turns = 1;
    });
    const dirs = [join(h, "ws"), join(h, "ws", "memory"), join(h, "ws", ".big-memory")];
    const seen = () =>
      dirs.map((d) => ({ d, entries: readdirSync(d).sort(), mtime: statSync(d, { bigint: true }).mtimeNs }));
    const before = seen();
    const report = await doctor(h);
    expect(report.checks.find((c) => c.name === "workspace")?.status).toBe("ok");
    expect(seen()).toEqual(before);
  });

  it("fails when memory/ is a file, naming it", async () => {
    const h = home(good);
    rmSync(join(h, "ws", "memory"), { recursive: true });
    writeFileSync(join(h, "ws", "memory"), "");
    const check = (await doctor(h)).checks.find((c) => c.name === "workspace");
    expect(check).toMatchObject({
      status: "fail",
      detail: expect.stringContaining(`${join(h, "ws", "memory")} is a file, not a folder`),
    });
  });

  it("fails when the linked checkout has no build, naming the missing entry", async () => {
    const h = home(good);
    rmSync(join(h, "plugin", "dist"), { recursive: true });
    const check = (await doctor(h)).checks.find((c) => c.name === "plugin installed");
    expect(check?.detail).toBe(
      `${join(h, "plugin", "dist", "index.js")} is missing: OpenClaw loads the built entry (package.json openclaw.runtimeExtensions), not the TypeScript`,
    );
  });

  it("reports a log's problem and a month not yet indexed, and still passes", async () => {
    const h = home(good);
    writeFileSync(
      join(h, "ws", "memory", "2026-11-22.md"),
      "<!-- BIG-MEMORY-SNAPSHOT v1 -->\n<!-- snapshot-id: 2026-11-22-01 -->\n### [SNAPSHOT] Active Goal\nShip it\n",
    );
    const report = await doctor(h);
    expect(report.checks.find((c) => c.name === "daily logs")?.status).toBe("warn");
    expect(report.checks.find((c) => c.name === "index")?.detail).toBe("not indexed yet: 2026-11");
  });

  it("fails without a config file, checking the --dir workspace all the same", async () => {
    const h = home(good);
    rmSync(join(h, ".openclaw", "openclaw.json"));
    const report = await doctor(h, { dir: join(h, "ws") });
    expect(report.checks.find((c) => c.name === "config")).toMatchObject({ status: "fail" });
    expect(report.checks.find((c) => c.name === "workspace")).toMatchObject({ status: "ok" });
  });
});

describe("runDoctor with a FIFO among the session files", () => {
  it("counts it unreadable, without blocking, and still reports the readable sessions", async () => {
    const h = home(good);
    session(h, "agent:main:main", (s) => {
      s.trail.turns = 3;
      s.trail.asks = [{ text: "fix the login bug", at: "2026-11-22T11:58:00Z" }];
      s.updatedAt = "2026-11-22T11:59:00Z";
    });
    const fifo = join(sessionStatePath(join(h, "ws", ".big-memory"), "agent:main:main"), "..", "fifo.json");
    execFileSync("mkfifo", [fifo]);
    const report = await doctor(h);
    const hooks = report.checks.find((c) => c.name === "hooks seen");
    expect(hooks?.detail).toBe(
      "1 session, last user turn 2m ago; 1 session file not read (corrupt, or not a regular file)",
    );
  });
});
