import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMAND_GROUPS, type CommandContext, groupsFor } from "../../plugin/surface/cli.ts";
import { styleFor } from "../../plugin/surface/cli-text.ts";
import { cli, SAVE_INPUT, SKILL_LOG, workspaces } from "./cli-harness.ts";

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

  it("a real `--version` or `list` from saved refs loads no redactor; a reply quoting typed input loads it", async () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    expect((await cli(["reindex", "--dir", dir])).code).toBe(0);
    const bin = new URL("../../bin/big-memory.js", import.meta.url).pathname;
    const hook = new URL("./fixtures/record-modules.mjs", import.meta.url).pathname;
    const run = (name: string, args: string[]) => {
      const log = join(dir, `modules-${name}.txt`);
      const r = spawnSync(process.execPath, ["--import", hook, bin, ...args], {
        encoding: "utf8",
        env: { ...process.env, BIG_MEMORY_MODULE_LOG: log, BIG_MEMORY_BACKGROUND_INDEX: "0" },
      });
      const redactor = readFileSync(log, "utf8")
        .split("\n")
        .filter((url) => /\/snapshot\/(redact[^/]*|echo)\.ts$/.test(url));
      return { status: r.status, stdout: r.stdout, stderr: r.stderr, redactor, log };
    };
    const { version: v } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const version = run("version", ["--version"]);
    expect([version.status, version.stdout, version.redactor]).toEqual([0, `${v}\n`, []]);
    // --version alone needs no option parser, no workspace, no table layout.
    expect(
      readFileSync(version.log, "utf8")
        .split("\n")
        .filter((url) => /commander|json5|fast-string-width|cli-(text|workspace|read)\.ts$/.test(url)),
    ).toEqual([]);
    const listed = run("list", ["list", "--limit", "20", "--dir", dir, "--json"]);
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout).snapshots.map((r: { id: string }) => r.id)).toEqual([
      "2026-11-20-02",
      "2026-11-20-01",
    ]);
    expect(listed.redactor).toEqual([]);
    // The same hook sees the redactor when a reply quotes what was typed, and the quote is redacted.
    const token = `ghp_${"Qd5v".repeat(9)}`;
    const refused = run("refused", ["list", "--limit", token, "--dir", dir]);
    expect([refused.status, refused.stdout, refused.stderr]).toEqual([
      2,
      "",
      'big-memory: --limit expects a whole number of at least 1, or all, received "[REDACTED:github-token]"\n',
    ]);
    expect(refused.redactor.some((url) => url.endsWith("/snapshot/redact.ts"))).toBe(true);
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

  it("prints --json on one line for a pipe or a file and indented for a terminal, the same document", async () => {
    const dir = workspace({ "memory/2026-11-22.md": SKILL_LOG });
    const commands = [["list"], ["status"], ["show", "2026-11-22-01"], ["doctor"], ["save"]];
    for (const args of commands) {
      const run = (columns?: number) =>
        cli([...args, "--dir", dir, "--json"], {
          stdin: JSON.stringify(SAVE_INPUT),
          ...(columns === undefined ? {} : { columns }),
        });
      const piped = await run();
      expect(piped.stdout.endsWith("}\n"), args[0]).toBe(true);
      expect(piped.stdout.trimEnd().split("\n"), args[0]).toHaveLength(1);
      if (args[0] === "save") continue;
      const shown = await run(100);
      expect(shown.stdout.split("\n").length, args[0]).toBeGreaterThan(3);
      expect(shown.stdout.startsWith('{\n  "'), args[0]).toBe(true);
      expect(JSON.parse(shown.stdout), args[0]).toEqual(JSON.parse(piped.stdout));
    }
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
