import { configJsonSchema } from "./config.ts";
import { TOOL_NAMES } from "./surface/tools.ts";

/**
 * The contents of `openclaw.plugin.json`, built from the code it describes (config schema, tool
 * names, CLI command). `npm run manifest` writes it; a test keeps the file equal to this.
 */
export function buildManifest(version: string): Record<string, unknown> {
  return {
    id: "big-memory",
    name: "big-memory",
    description:
      "An agent never loses its place: a structured task snapshot before every compaction and reset, instant BM25 recall, and restore after.",
    version,
    activation: { onStartup: true },
    skills: ["./skills"],
    contracts: { tools: [...TOOL_NAMES] },
    cliCommands: [
      {
        name: "big-memory",
        description: "Task snapshots: list, search, show, verify, save, status",
        hasSubcommands: true,
      },
    ],
    configSchema: configJsonSchema(),
  };
}

/** `node plugin/manifest.ts`: writes openclaw.plugin.json next to package.json. */
async function writeManifest(): Promise<void> {
  const { readFileSync, writeFileSync } = await import("node:fs");
  const root = new URL("../", import.meta.url);
  const { version } = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { version: string };
  writeFileSync(
    new URL("openclaw.plugin.json", root),
    `${JSON.stringify(buildManifest(version), null, 2)}\n`,
  );
}

if (
  process.argv[1] !== undefined &&
  import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href
) {
  await writeManifest();
}
