import { z } from "zod";
import { SnapshotInput } from "./snapshot/input.ts";

/**
 * Generated regions of the documentation, kept equal to the code by a test (test/docs.test.ts), as the
 * manifest is: a region is the text between `<!-- generated:NAME (npm run docs) -->` and
 * `<!-- /generated:NAME -->`. `npm run docs` rewrites every region of the files in `DOC_FILES`.
 */

/** The files whose generated regions `npm run docs` rewrites. */
export const DOC_FILES = ["README.md", "references/cli-contract.md"] as const;

type Json = { [key: string]: unknown };
const rec = (v: unknown): Json =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {};

function typeOf(schema: Json): string {
  if (schema.type === "string")
    return `string${typeof schema.maxLength === "number" ? ` (≤ ${schema.maxLength} chars)` : ""}`;
  if (schema.type === "array") {
    const items = rec(schema.items);
    const inner = items.type === "object" ? objectOf(items) : typeOf(items);
    return `list of ${inner}${typeof schema.maxItems === "number" ? ` (≤ ${schema.maxItems})` : ""}`;
  }
  if (schema.type === "object") return objectOf(schema);
  return String(schema.type ?? "any");
}

function objectOf(schema: Json): string {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = Object.entries(rec(schema.properties)).map(
    ([key, sub]) => `\`${key}${required.has(key) ? "" : "?"}\`: ${typeOf(rec(sub))}`,
  );
  return `{ ${fields.join(", ")} }`;
}

/** An example `big-memory save` input; the test checks that it validates. */
export const SAVE_EXAMPLE = {
  goal: "Ship the v2 billing export so finance can close October",
  state: {
    phase: "implementing",
    branch: "feat/export-v2",
    blocked: "no",
    progress: "writer done, backfill not run",
  },
  files: [{ path: "src/export/writer.ts", note: "streams rows; the CSV header is final" }],
  decisions: [{ text: "Stream instead of buffering", rationale: "October has 4M rows" }],
  names: [{ label: "Table", value: "billing_export_v2" }],
  next: ["Backfill October", "Tell finance the export is live"],
};

/**
 * The `save` input schema as a markdown table generated from the zod schema `SnapshotInput` (the same one
 * `big-memory save`, `big_memory_save` and the chat command validate with), and an example.
 */
/** A markdown table with its columns padded the way the project's formatter (Biome) pads them. */
function markdownTable(rows: readonly (readonly string[])[]): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(3, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  const [head = [], ...body] = rows;
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)];
}

export function saveSchemaMarkdown(): string {
  const schema = rec(z.toJSONSchema(SnapshotInput, { io: "input" }));
  const rows: string[][] = [];
  const ignored: string[] = [];
  for (const [key, raw] of Object.entries(rec(schema.properties))) {
    const field = rec(raw);
    if (field.type === undefined) {
      ignored.push(`\`${key}\``);
      continue;
    }
    const what = String(field.description ?? "");
    if (field.type === "object") {
      rows.push([`\`${key}\``, "object", what]);
      for (const [sub, s] of Object.entries(rec(field.properties))) {
        rows.push([`\`${key}.${sub}\``, typeOf(rec(s)), String(rec(s).description ?? "")]);
      }
    } else {
      rows.push([`\`${key}\``, typeOf(field), what]);
    }
  }
  return [
    ...markdownTable([["field", "type", "what it holds"], ...rows]),
    "",
    "Every field is optional, but a snapshot needs at least one that is not empty. Any other key is refused",
    "with exit 2, naming it (a typo such as `nextSteps` is caught, not dropped), except the reference fields",
    `of \`show --json\` output (${ignored.join(", ")}), which are ignored so that a shown snapshot can be`,
    "saved again. Secrets are redacted before anything is written. Example:",
    "",
    "```sh",
    `echo '${JSON.stringify(SAVE_EXAMPLE)}' | big-memory save --name billing-export-v2 --json`,
    "```",
  ].join("\n");
}

/** The generated regions by name. */
export const REGIONS: Readonly<Record<string, () => string>> = { "save-schema": saveSchemaMarkdown };

const REGION = /(<!-- generated:([a-z-]+) \(npm run docs\) -->\n)([\s\S]*?)(<!-- \/generated:\2 -->)/g;

/** The generated regions found in a text: name, body as written, and 1-based line of the opening marker. */
export function regionsIn(text: string): { name: string; body: string; line: number }[] {
  return [...text.matchAll(REGION)].map((m) => ({
    name: m[2] ?? "",
    body: m[3] ?? "",
    line: text.slice(0, m.index).split("\n").length,
  }));
}

/** The text with every known region's body replaced by what the code generates now. */
export function withRegions(text: string): string {
  return text.replace(REGION, (whole, open: string, name: string, _body: string, close: string) => {
    const render = REGIONS[name];
    return render === undefined ? whole : `${open}${render()}\n${close}`;
  });
}

/** `node plugin/docs-regions.ts`: rewrites the regions of `DOC_FILES`. */
async function writeRegions(): Promise<void> {
  const { readFileSync, writeFileSync } = await import("node:fs");
  for (const file of DOC_FILES) {
    const url = new URL(`../${file}`, import.meta.url);
    const text = readFileSync(url, "utf8");
    const next = withRegions(text);
    if (next !== text) writeFileSync(url, next);
  }
}

if (
  process.argv[1] !== undefined &&
  import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href
) {
  await writeRegions();
}
