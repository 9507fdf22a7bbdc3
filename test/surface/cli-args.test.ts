import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  chooseWorkspace,
  parseLimitOrAll,
  parsePositiveInt,
  UNQUOTED,
  UsageError,
} from "../../plugin/surface/cli-args.ts";
import { cli } from "./cli-harness.ts";

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
/** The UsageError `run` throws, as printed (`text()`), beside its `message`. */
async function usage(run: () => unknown): Promise<{ text: string; message: string }> {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(UsageError);
  const error = thrown as UsageError;
  return { text: await error.text(), message: error.message };
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
    expect(await usage(() => chooseWorkspace({ agent: "c" }, io(h)))).toEqual({
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

describe("parsePositiveInt and parseLimitOrAll", () => {
  it("take a whole number of at least 1; parseLimitOrAll also all, as no limit", async () => {
    expect(parsePositiveInt("7", "--limit")).toBe(7);
    expect(parseLimitOrAll("7", "--limit")).toBe(7);
    expect(parseLimitOrAll("all", "--limit")).toBe(Number.POSITIVE_INFINITY);
    expect(() => parsePositiveInt("all", "--limit")).toThrow(UsageError);
    expect(parsePositiveInt("007", "--limit")).toBe(7);
    for (const bad of [
      "0",
      "-2",
      "1.5",
      "",
      "ten",
      "All",
      "0x10",
      "1e3",
      "+3",
      " 3",
      "3 ",
      "99999999999999999999",
    ]) {
      expect((await usage(() => parsePositiveInt(bad, "--limit"))).text, bad).toBe(
        `--limit expects a whole number of at least 1, received ${JSON.stringify(bad.trim())}`,
      );
      expect((await usage(() => parseLimitOrAll(bad, "--limit"))).text, bad).toBe(
        `--limit expects a whole number of at least 1, or all, received ${JSON.stringify(bad.trim())}`,
      );
    }
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

describe("UsageError", () => {
  it("quotes what was typed only when printed, redacted, and never holds it verbatim in its message", async () => {
    const token = `ghp_${"Qd5v".repeat(9)}`;
    const error = new UsageError(
      (quote) => `--limit expects a number, received ${quote(`x ${token}\u202Ey`)}`,
    );
    expect(error.message).toBe(`--limit expects a number, received ${UNQUOTED}`);
    expect(await error.text()).toBe('--limit expects a number, received "x [REDACTED:github-token] y"');
    expect(`${error.message}${await error.text()}`).not.toContain(token);
  });

  it("prints a message that quotes nothing as it is", async () => {
    const error = new UsageError("--out needs a file name");
    expect([error.message, await error.text()]).toEqual([
      "--out needs a file name",
      "--out needs a file name",
    ]);
  });

  it("reaches the CLI's stderr quoted and redacted, exit 2, for an option parsed before any command runs", async () => {
    const token = `ghp_${"Qd5v".repeat(9)}`;
    const dir = mkdtempSync(join(tmpdir(), "big-memory-args-"));
    roots.push(dir);
    const r = await cli(["list", "--limit", token, "--dir", dir]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      "",
      'big-memory: --limit expects a whole number of at least 1, or all, received "[REDACTED:github-token]"\n',
    ]);
  });
});
