import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMAND_GROUPS, type CommandContext, groupsFor } from "../../plugin/surface/cli.ts";
import { styleFor } from "../../plugin/surface/cli-text.ts";
import { cli, SAVE_INPUT, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

const context: CommandContext = {
  io: {
    stdout: () => {},
    stderr: () => {},
    readStdin: async () => "",
    color: false,
    cwd: process.cwd(),
    env: {},
    now: () => new Date(),
  },
  setExit: () => {},
  common: (cmd) => cmd,
  style: styleFor(false),
  out: () => {},
};

describe("command groups", () => {
  it("each group declares exactly the commands it is listed with, and no command is in two groups", async () => {
    const all: string[] = [];
    for (const group of COMMAND_GROUPS) {
      const program = new Command();
      (await group.load())(program, context);
      expect(program.commands.map((c) => c.name()).sort()).toEqual([...group.names].sort());
      all.push(...group.names);
    }
    expect(new Set(all).size).toBe(all.length);
  });

  it("loads only the group of the command named, none for --version, and every group for help or an unknown word", () => {
    const save = COMMAND_GROUPS.find((g) => g.names.includes("save"));
    expect(groupsFor(["save", "--dir", "x"])).toEqual([save]);
    expect(groupsFor(["--json", "save"])).toEqual([save]);
    expect(groupsFor(["--version"])).toEqual([]);
    expect(groupsFor(["save", "--version"])).toEqual([save]);
    for (const argv of [[], ["--help"], ["--version", "--help"], ["help"], ["help", "save"], ["sav"]]) {
      expect(groupsFor(argv)).toBe(COMMAND_GROUPS);
    }
  });

  it("a real `big-memory save` process loads neither the markdown parser nor the search engine", () => {
    const dir = workspace();
    const bin = new URL("../../bin/big-memory.js", import.meta.url).pathname;
    const hook = new URL("./fixtures/record-modules.mjs", import.meta.url).pathname;
    const loaded = (args: string[], stdin: string) => {
      const log = join(dir, `modules-${args[0]}.txt`);
      const r = spawnSync(process.execPath, ["--import", hook, bin, ...args], {
        input: stdin,
        encoding: "utf8",
        env: { ...process.env, BIG_MEMORY_MODULE_LOG: log },
      });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      return readFileSync(log, "utf8").split("\n");
    };
    const heavy =
      /\/(remark|unified|mdast|micromark|minisearch)[^/]*\/|\/search\/|snapshot\/(parse|read-tolerant)\.ts$/;
    const saved = loaded(["save", "--dir", dir], JSON.stringify({ goal: "Fix ERR_LAZY in cli.ts" }));
    expect(saved.some((url) => url.endsWith("/store/save.ts"))).toBe(true);
    expect(saved.filter((url) => heavy.test(url))).toEqual([]);
    // The same hook sees the search engine when a command needs it.
    const listed = loaded(["list", "--dir", dir], "");
    expect(listed.some((url) => url.includes("/search/"))).toBe(true);
  });
});
describe("runCli", () => {
  it("prints the package version and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(await cli(["--version"])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  });

  it("prints the usage on stderr and exits 2 without a command", async () => {
    const r = await cli([]);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toMatch(/^Usage: big-memory \[options\] \[command\]\n/);
  });

  it("lists every command on help and exits 0", async () => {
    const r = await cli(["help"]);
    expect(r.code).toBe(0);
    for (const command of [
      "list",
      "show",
      "recall",
      "status",
      "search",
      "reindex",
      "verify",
      "delete",
      "archive",
      "scrub",
      "save",
      "doctor",
    ])
      expect(r.stdout).toContain(`  ${command}`);
  });

  it("exits 2 on an unknown option, pointing to the help", async () => {
    expect(await cli(["list", "--frob"])).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "error: unknown option '--frob'\n(run big-memory --help for usage)\n",
    });
  });

  it("exits 3 with one line on stderr when the disk fails it", async () => {
    const dir = workspace();
    mkdirSync(join(dir, "memory", "2026-11-22.md"));
    const r = await cli(["save", "--dir", dir], { stdin: JSON.stringify(SAVE_INPUT) });
    expect([r.code, r.stdout, r.stderr.split("\n").length]).toEqual([3, "", 2]);
    expect(r.stderr).toMatch(/^big-memory: cannot append to memory\/2026-11-22\.md: /);
    expect(r.stderr).toContain("(a folder stands where a file is expected: move the folder away)");
  });
});
