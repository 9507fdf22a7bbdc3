import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The house rules that keep the code readable, checked on the sources themselves: the parts and the
 * direction of their imports (README, "How it works"), the size of a file, and a mirror test per module.
 */

const ROOT = resolve(import.meta.dirname, "..");
const PLUGIN = join(ROOT, "plugin");

/** The parts, bottom to top. A module imports from its own part or from parts below, never above. */
const LAYERS: readonly (readonly string[])[] = [
  ["snapshot", "config.ts"],
  ["store"],
  ["search"],
  ["capture", "recover"],
  ["session"],
  ["surface"],
  ["index.ts", "manifest.ts", "docs-regions.ts"],
];

/**
 * Parts the surface never imports from, type-only imports included: the plugin's tools and hooks and the
 * CLI ask the same query layer in session/ (history.ts and its neighbours) for list, show, recall, search,
 * status and verify, and session/maintenance.ts for the writes; the types they need are re-exported there.
 */
const BENEATH_THE_SURFACE: readonly string[] = ["search", "store"];

/** The imports of `module` that reach past the query layer (see {@link BENEATH_THE_SURFACE}). */
function pastTheQueryLayer(module: string, imports: readonly string[]): string[] {
  if (partOf(module) !== "surface") return [];
  return imports
    .filter((target) => BENEATH_THE_SURFACE.includes(partOf(target)))
    .map((target) => `${module} -> ${target}`);
}

/** Modules without a mirror test, and why. */
const NO_MIRROR: Record<string, string> = {
  "index.ts": "the entry: wiring only, exercised by the end-to-end tests in a real OpenClaw",
  "search/service-types.ts": "types only",
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

const modules = sources(PLUGIN).map((path) => relative(PLUGIN, path));

function partOf(module: string): string {
  return module.includes("/") ? (module.split("/")[0] as string) : module;
}

function layerOf(module: string): number {
  const part = partOf(module);
  const layer = LAYERS.findIndex((parts) => parts.includes(part));
  if (layer < 0) throw new Error(`${module}: part ${part} is in no layer of this test`);
  return layer;
}

/** Relative imports of a module, static and dynamic, type-only included, as plugin-relative paths. */
function importsOf(module: string): string[] {
  const text = readFileSync(join(PLUGIN, module), "utf8");
  const specifiers = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"']*?from\s*["'](\.[^"']+)["']/g),
    ...text.matchAll(/\bimport\(\s*["'](\.[^"']+)["']\s*\)/g),
  ].map((m) => m[1] as string);
  return specifiers.map((s) => relative(PLUGIN, resolve(dirname(join(PLUGIN, module)), s)));
}

describe("the house", () => {
  it("reads the imports of a module, static, dynamic and type-only", () => {
    expect(importsOf("surface/hooks.ts")).toContain("session/capture-service.ts");
    expect(importsOf("surface/cli.ts")).toContain("surface/cli-read.ts");
    expect(modules.length).toBeGreaterThan(100);
    expect(new Set(modules.map(partOf))).toEqual(new Set(LAYERS.flat()));
  });

  it("every part imports only from its own part or the parts below it", () => {
    const upward = modules.flatMap((module) =>
      importsOf(module)
        .filter((target) => layerOf(target) > layerOf(module))
        .map((target) => `${module} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it("the surface imports nothing from search/ or store/, not even a type: it asks session/", () => {
    const past = modules.flatMap((module) => pastTheQueryLayer(module, importsOf(module)));
    expect(past).toEqual([]);
  });

  it("the query layer's rule catches an import into search/ or store/, static, dynamic or type-only", () => {
    // The rule, tried on imports a surface module must not have, as importsOf reads them.
    const tried = [
      'import { planQuery } from "../search/query.ts";',
      'import type { LedgerRecord } from "../store/ledger.ts";',
      'const { readAllSnapshots } = await import("../store/snapshots.ts");',
      'export { tombstone } from "../store/save.ts";',
    ];
    for (const line of tried) {
      const specifier = /["'](\.[^"']+)["']/.exec(line)?.[1] as string;
      const target = relative(PLUGIN, resolve(join(PLUGIN, "surface"), specifier));
      expect(pastTheQueryLayer("surface/cli-index.ts", [target])).toEqual([
        `surface/cli-index.ts -> ${target}`,
      ]);
    }
    expect(pastTheQueryLayer("surface/cli-index.ts", ["session/history.ts", "snapshot/parse.ts"])).toEqual(
      [],
    );
    expect(pastTheQueryLayer("session/history.ts", ["search/query.ts", "store/ledger.ts"])).toEqual([]);
  });

  it("capture and recover, the pure logic, do not import each other", () => {
    const across = modules.flatMap((module) =>
      (["capture", "recover"].includes(partOf(module)) ? importsOf(module) : [])
        .filter(
          (target) => ["capture", "recover"].includes(partOf(target)) && partOf(target) !== partOf(module),
        )
        .map((target) => `${module} -> ${target}`),
    );
    expect(across).toEqual([]);
  });

  it("no source file is over 450 lines", () => {
    const long = modules
      .map((module) => ({ module, lines: readFileSync(join(PLUGIN, module), "utf8").split("\n").length }))
      .filter((m) => m.lines > 450);
    expect(long).toEqual([]);
  });

  it("the search engine holds at most 20 type casts (`as`, but `as const`); reads go through checked.ts", () => {
    const casts = modules
      .filter((module) => partOf(module) === "search")
      .flatMap((module) => {
        const source = ts.createSourceFile(
          module,
          readFileSync(join(PLUGIN, module), "utf8"),
          ts.ScriptTarget.Latest,
        );
        const found: string[] = [];
        const walk = (node: ts.Node): void => {
          if (ts.isAsExpression(node) && node.type.getText(source) !== "const") found.push(module);
          ts.forEachChild(node, walk);
        };
        walk(source);
        return found;
      });
    expect(casts.length, casts.join(", ")).toBeLessThanOrEqual(20);
  });

  it("every module has its mirror test (test/<part>/<name>.test.ts), but for the declared exceptions", () => {
    const missing = modules.filter(
      (module) =>
        NO_MIRROR[module] === undefined &&
        !existsFile(join(ROOT, "test", module.replace(/\.ts$/, ".test.ts"))),
    );
    expect(missing).toEqual([]);
    for (const module of Object.keys(NO_MIRROR)) expect(modules).toContain(module);
  });
});

function existsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
