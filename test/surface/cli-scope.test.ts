import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "./cli-harness.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
/** A temp HOME whose OpenClaw config gives agent main `~/ws` and agent ops `~/ops`, both with memory/. */
function home(): string {
  const h = mkdtempSync(join(tmpdir(), "big-memory-scope-"));
  roots.push(h);
  for (const dir of [".openclaw", "ws/memory", "ops/memory", "elsewhere"])
    mkdirSync(join(h, dir), { recursive: true });
  writeFileSync(
    join(h, ".openclaw", "openclaw.json"),
    "{ agents: { defaults: { workspace: '~/ws' }, entries: { main: { default: true }, ops: { workspace: '~/ops' } } } }",
  );
  return h;
}
const version = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

describe("big-memory --version", () => {
  it("prints the package version and exits 0", async () => {
    const r = await cli(["--version"]);
    expect([r.code, r.stdout]).toEqual([0, `${version}\n`]);
  });
});

describe("nothing found", () => {
  it("names the workspace folder read from OpenClaw's config, on stderr, for people only", async () => {
    const h = home();
    const r = await cli(["list"], { cwd: join(h, "elsewhere"), env: { HOME: h } });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      "No snapshots found.\n",
      `big-memory: read the workspace ${join(h, "ws")} (agent main: agents.defaults.workspace, from ${join(h, ".openclaw", "openclaw.json")})\n`,
    ]);
    const json = await cli(["list", "--json"], { cwd: join(h, "elsewhere"), env: { HOME: h } });
    expect([json.code, json.stderr]).toEqual([1, ""]);
  });
});

describe("--agent", () => {
  it("selects the agent's workspace on every command, also where --agent filters or attributes", async () => {
    const h = home();
    const at = { cwd: join(h, "elsewhere"), env: { HOME: h } };
    const saved = await cli(["save", "--agent", "ops", "--json"], {
      ...at,
      stdin: '{"goal":"Rotate the ops keys"}',
    });
    expect(saved.code).toBe(0);
    expect(readFileSync(join(h, "ops", (saved.json() as { file: string }).file), "utf8")).toContain(
      "Rotate the ops keys",
    );
    expect((await cli(["status", "--agent", "ops", "--json"], at)).json()).toMatchObject({ snapshots: 1 });
    expect((await cli(["status", "--json"], at)).json()).toMatchObject({ snapshots: 0 });
  });

  it("refuses an unknown agent with exit 2", async () => {
    const h = home();
    const r = await cli(["verify", "--agent", "nobody"], { cwd: h, env: { HOME: h } });
    expect([r.code, r.stderr]).toEqual([
      2,
      `big-memory: unknown agent "nobody" in ${join(h, ".openclaw", "openclaw.json")} (configured: main, ops)\n`,
    ]);
  });
});

describe("big-memory doctor", () => {
  it("exits 1 with the fix when conversation access is missing, and 0 once it is set", async () => {
    const h = home();
    const at = { cwd: join(h, "elsewhere"), env: { HOME: h } };
    const before = await cli(["doctor"], at);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(
      "      fix: openclaw config set plugins.entries.big-memory.hooks.allowConversationAccess true --strict-json",
    );
    writeFileSync(
      join(h, ".openclaw", "openclaw.json"),
      "{ agents: { defaults: { workspace: '~/ws' } }, plugins: { entries: { 'big-memory': { enabled: true, hooks: { allowConversationAccess: true } } } } }",
    );
    const after = await cli(["doctor", "--json"], at);
    expect([after.code, (after.json() as { ok: boolean }).ok]).toEqual([0, true]);
  });
});

describe("usage errors", () => {
  it("exit 2 for an unknown command or option", async () => {
    expect((await cli(["frobnicate"])).code).toBe(2);
    expect((await cli(["list", "--frobnicate"])).code).toBe(2);
  });
});
