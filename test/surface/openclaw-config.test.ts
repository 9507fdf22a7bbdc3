import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mergeConfig, readOpenClawConfig } from "../../plugin/surface/openclaw-config.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
/** A temp HOME with `files` (relative paths to text) under it. */
function home(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "big-memory-home-"));
  roots.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

describe("mergeConfig", () => {
  it("merges objects, concatenates arrays and lets the later scalar win", () => {
    expect(mergeConfig({ a: { x: 1, l: [1] }, s: "a" }, { a: { y: 2, l: [2] }, s: "b" })).toEqual({
      a: { x: 1, y: 2, l: [1, 2] },
      s: "b",
    });
  });
});

describe("readOpenClawConfig", () => {
  it("reads ~/.openclaw/openclaw.json as JSON5, with comments and trailing commas", () => {
    const h = home({
      ".openclaw/openclaw.json": "// mine\n{ agents: { defaults: { workspace: '~/ws', }, }, }\n",
    });
    expect(readOpenClawConfig({ env: { HOME: h }, cwd: h })).toEqual({
      path: join(h, ".openclaw", "openclaw.json"),
      exists: true,
      config: { agents: { defaults: { workspace: "~/ws" } } },
      problem: null,
      missingEnv: [],
    });
  });

  it("says the file is absent without calling it a problem", () => {
    const h = home({});
    expect(readOpenClawConfig({ env: { HOME: h }, cwd: h })).toMatchObject({ exists: false, problem: null });
  });

  it("names the file and line of a syntax error", () => {
    const h = home({ "cfg.json5": "{\n  agents: {\n    defaults: ]\n}" });
    const read = readOpenClawConfig({ env: { HOME: h, OPENCLAW_CONFIG_PATH: join(h, "cfg.json5") }, cwd: h });
    expect(read.problem).toBe(`${join(h, "cfg.json5")}:3: not valid JSON5 (invalid character ']' at 3:15)`);
  });

  it("follows $include relative to the including file, merging siblings over it", () => {
    const h = home({
      "oc/openclaw.json": '{ $include: ["./base.json5", "./more.json5"], plugins: { allow: ["b"] } }',
      "oc/base.json5": "{ agents: { defaults: { workspace: '/base' } }, plugins: { allow: ['a'] } }",
      "oc/more.json5": "{ agents: { defaults: { workspace: '/more' } } }",
    });
    const read = readOpenClawConfig({ env: { HOME: h, OPENCLAW_STATE_DIR: join(h, "oc") }, cwd: h });
    expect(read.config).toEqual({
      agents: { defaults: { workspace: "/more" } },
      plugins: { allow: ["a", "b"] },
    });
  });

  it("refuses an $include outside the config's folder unless OPENCLAW_INCLUDE_ROOTS admits it", () => {
    const h = home({
      "oc/openclaw.json": '{ $include: "../shared/base.json" }',
      "shared/base.json": '{ "agents": { "defaults": { "workspace": "/shared" } } }',
    });
    const env = { HOME: h, OPENCLAW_STATE_DIR: join(h, "oc") };
    expect(readOpenClawConfig({ env, cwd: h }).problem).toBe(
      `${join(h, "oc", "openclaw.json")}: $include ../shared/base.json is outside the config's folder (allow it with OPENCLAW_INCLUDE_ROOTS)`,
    );
    const admitted = readOpenClawConfig({
      env: { ...env, OPENCLAW_INCLUDE_ROOTS: join(h, "shared") },
      cwd: h,
    });
    expect(admitted.config).toEqual({ agents: { defaults: { workspace: "/shared" } } });
  });

  it("substitutes $-brace references, keeps escaped ones literal and lists unset variables", () => {
    const ref = (name: string) => ["$", "{", name, "}"].join("");
    const h = home({
      ".openclaw/openclaw.json": `{ a: "${ref("WS_ROOT")}/ws", b: "$${ref("WS_ROOT")}", c: "${ref("NOPE_UNSET")}" }`,
    });
    const read = readOpenClawConfig({ env: { HOME: h, WS_ROOT: "/r" }, cwd: h });
    expect([read.config, read.missingEnv]).toEqual([
      { a: "/r/ws", b: ref("WS_ROOT"), c: ref("NOPE_UNSET") },
      ["NOPE_UNSET"],
    ]);
  });
});
