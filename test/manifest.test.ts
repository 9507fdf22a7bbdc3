import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../plugin/config.ts";
import { buildManifest } from "../plugin/manifest.ts";
import { TOOL_NAMES } from "../plugin/surface/tools.ts";

const root = new URL("../", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("openclaw.plugin.json", root), "utf8")) as Record<
  string,
  unknown
>;
const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as {
  version: string;
  devDependencies: Record<string, string>;
  openclaw: { extensions: string[]; runtimeExtensions: string[]; compat: { pluginApi: string } };
};

describe("openclaw.plugin.json", () => {
  it("is exactly what buildManifest generates (run npm run manifest after changing the config)", () => {
    expect(manifest).toEqual(buildManifest(pkg.version));
  });

  it("carries the configSchema generated from the zod config", () => {
    expect(manifest.configSchema).toEqual(configJsonSchema());
  });

  it("lists every registered tool in contracts.tools", () => {
    expect(manifest.contracts).toEqual({ tools: [...TOOL_NAMES] });
  });

  it("points package.json at the TypeScript entry and the built one, with what ClawHub requires of a code plugin", () => {
    // ClawHub refuses an external code plugin without openclaw.compat.pluginApi and
    // openclaw.build.openclawVersion; the build is the OpenClaw release the tests run against.
    const built = pkg.devDependencies.openclaw;
    expect(pkg.openclaw).toEqual({
      extensions: ["./plugin/index.ts"],
      runtimeExtensions: ["./dist/index.js"],
      compat: { pluginApi: ">=2026.9.2", minGatewayVersion: "2026.9.2" },
      build: { openclawVersion: built, pluginSdkVersion: built },
    });
  });
});
