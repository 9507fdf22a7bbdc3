import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { UNQUOTED, UsageError } from "../../plugin/surface/cli-args.ts";
import { chooseWorkspace } from "../../plugin/surface/cli-workspace.ts";
import { cli, thrownUsage } from "./cli-harness.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
/** A temp HOME holding `~/.openclaw/openclaw.json` with `config` (JSON5 text), and a folder `elsewhere/`. */
function home(config?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "big-memory-home-"));
  roots.push(dir);
  mkdirSync(join(dir, ".openclaw"));
  mkdirSync(join(dir, "elsewhere"));
  if (config !== undefined) writeFileSync(join(dir, ".openclaw", "openclaw.json"), config);
  return dir;
}
const io = (h: string, cwd = join(h, "elsewhere"), env: NodeJS.ProcessEnv = {}) => ({
  cwd,
  env: { HOME: h, ...env },
});

describe("chooseWorkspace", () => {
  it("takes agents.defaults.workspace from ~/.openclaw/openclaw.json and says where it came from", () => {
    const h = home("{ agents: { defaults: { workspace: '~/ws' } } }");
    const choice = chooseWorkspace({}, io(h));
    expect([choice.dir, choice.agent, choice.source]).toEqual([
      join(h, "ws"),
      "main",
      `agent main: agents.defaults.workspace, from ${join(h, ".openclaw", "openclaw.json")}`,
    ]);
  });

  it("reads the config named by OPENCLAW_CONFIG_PATH", () => {
    const h = home();
    writeFileSync(join(h, "alt.json5"), "{ agents: { entries: { main: { workspace: '/alt-ws' } } } }");
    expect(
      chooseWorkspace({}, io(h, join(h, "elsewhere"), { OPENCLAW_CONFIG_PATH: "~/alt.json5" })).dir,
    ).toBe("/alt-ws");
  });

  it("takes the workspace of the agent named by --agent, its own or under agents.defaults.workspace", () => {
    const h = home(
      "{ agents: { defaults: { workspace: '/ws' }, entries: { main: { default: true }, ops: {}, qa: { workspace: '/qa' } } } }",
    );
    expect(chooseWorkspace({ agent: "ops" }, io(h)).dir).toBe("/ws/ops");
    expect(chooseWorkspace({ agent: "QA" }, io(h)).dir).toBe("/qa");
    expect(chooseWorkspace({}, io(h)).dir).toBe("/ws");
  });

  it("prefers --dir, then --agent, then the current folder when it has memory/", () => {
    const h = home("{ agents: { defaults: { workspace: '/ws' } } }");
    mkdirSync(join(h, "elsewhere", "memory"));
    expect(chooseWorkspace({}, io(h)).source).toBe("the current folder, which has memory/");
    expect(chooseWorkspace({ agent: "main" }, io(h)).dir).toBe("/ws");
    expect(chooseWorkspace({ dir: ".", agent: "main" }, io(h)).dir).toBe(join(h, "elsewhere"));
  });

  it("uses OpenClaw's defaults when there is no config file, naming the absent file", () => {
    const h = home();
    const choice = chooseWorkspace({}, io(h));
    expect([choice.dir, choice.source]).toEqual([
      join(h, ".openclaw", "workspace"),
      `agent main: the state folder's default, from ${join(h, ".openclaw", "openclaw.json")} (absent: OpenClaw's defaults apply)`,
    ]);
  });

  it("refuses an unknown agent and an ownerless fleet with a usage error naming the agents", async () => {
    const h = home("{ agents: { entries: { a: {}, b: {} } } }");
    const file = join(h, ".openclaw", "openclaw.json");
    expect(await thrownUsage(() => chooseWorkspace({ agent: "c" }, io(h)))).toEqual({
      text: `unknown agent "c" in ${file} (configured: a, b)`,
      message: `unknown agent ${UNQUOTED} in ${file} (configured: a, b)`,
    });
    expect(() => chooseWorkspace({}, io(h))).toThrow(
      new UsageError(
        `several agents are configured in ${file} (a, b) and none is the default: pass --agent ID or --dir WORKSPACE`,
      ),
    );
  });

  it("fails as an environment problem (not a usage error) when the config cannot be parsed", () => {
    const h = home("{ agents: ");
    expect(() => chooseWorkspace({}, io(h))).toThrow(
      /^big-memory: cannot read OpenClaw's config: .*not valid JSON5/,
    );
    expect(() => chooseWorkspace({}, io(h))).not.toThrow(UsageError);
  });

  it("uses the config the host passed instead of reading the file", () => {
    const h = home("{ agents: { defaults: { workspace: '/from-file' } } }");
    const host = { ...io(h), openclawConfig: { agents: { defaults: { workspace: "/from-host" } } } };
    expect(chooseWorkspace({ agent: "main" }, host).dir).toBe("/from-host");
  });
});

describe("resolveWorkspace", () => {
  it("refuses a workspace whose memory/ is a file, as an environment failure naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "big-memory-args-"));
    try {
      writeFileSync(join(dir, "memory"), "not a folder");
      for (const args of [["list"], ["search", "anything"], ["status"], ["recall"]]) {
        const r = await cli([...args, "--dir", dir]);
        expect([r.code, r.stdout], args.join(" ")).toEqual([3, ""]);
        expect(r.stderr).toBe(
          `big-memory: ${join(dir, "memory")} is not a folder: the daily logs cannot be read or written (a file stands where a folder is expected: move the file away)\n`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
