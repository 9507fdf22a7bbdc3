import { readdirSync, readFileSync } from "node:fs";
import type { Code, Heading, Root } from "mdast";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { describe, expect, it } from "vitest";
import { DOC_FILES, REGIONS, regionsIn, SAVE_EXAMPLE, saveSchemaMarkdown } from "../plugin/docs-regions.ts";
import { contentFromInput } from "../plugin/snapshot/input.ts";

const root = new URL("../", import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), "utf8");

/** The markdown files users get: the README, references/ and the skill. */
const SHIPPED = [
  "README.md",
  ...readdirSync(new URL("references/", root)).map((f) => `references/${f}`),
  "skills/big-memory/SKILL.md",
].filter((f) => f.endsWith(".md"));

/** Line of each code fence left open at the end of a markdown text (CommonMark fences, ``` and ~~~). */
function unclosedFences(text: string): number[] {
  let open: { marker: string; line: number } | null = null;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[i] ?? "");
    if (m === null) continue;
    const marker = m[1] ?? "";
    if (open === null) open = { marker, line: i + 1 };
    else if (
      marker[0] === open.marker[0] &&
      marker.length >= open.marker.length &&
      (m[2] ?? "").trim() === ""
    )
      open = null;
  }
  return open === null ? [] : [open.line];
}

describe("generated documentation regions", () => {
  it("references/cli-contract.md carries the save schema generated from zod (run npm run docs after a change)", () => {
    expect(regionsIn(read("references/cli-contract.md"))).toEqual([
      { name: "save-schema", body: `${saveSchemaMarkdown()}\n`, line: expect.any(Number) },
    ]);
  });

  it("every generated region in the documentation equals what the code generates now", () => {
    for (const file of DOC_FILES) {
      for (const region of regionsIn(read(file))) {
        expect(`${file}:${region.line} ${region.body}`).toBe(
          `${file}:${region.line} ${REGIONS[region.name]?.()}\n`,
        );
      }
    }
  });

  it("the save example validates against the schema it documents", () => {
    expect(contentFromInput(SAVE_EXAMPLE).ok).toBe(true);
  });
});

describe("shipped markdown", () => {
  it("closes every code fence it opens", () => {
    expect(Object.fromEntries(SHIPPED.map((f) => [f, unclosedFences(read(f))]))).toEqual(
      Object.fromEntries(SHIPPED.map((f) => [f, []])),
    );
  });
});

describe("references/TASK-SNAPSHOT.md", () => {
  const tree = unified().use(remarkParse).parse(read("references/TASK-SNAPSHOT.md")) as Root;

  it("holds the whole template in one markdown fence, from the --- rule to the end marker", () => {
    const template = tree.children.find((n): n is Code => n.type === "code");
    expect(template?.lang).toBe("markdown");
    expect(template?.value.split("\n")[0]).toBe("---");
    expect(template?.value.trimEnd().split("\n").at(-1)).toBe("<!-- /BIG-MEMORY-SNAPSHOT -->");
    expect(template?.value).toContain("### [SNAPSHOT] Next Steps");
  });

  it("reads the field guide as headings, not as code", () => {
    const headings = tree.children
      .filter((n): n is Heading => n.type === "heading" && n.depth === 3)
      .map((h) => (h.children[0]?.type === "text" ? h.children[0].value : ""));
    expect(headings).toEqual([
      "Active Goal",
      "Current State",
      "Files In Play",
      "Decisions Made",
      "Code Context",
      "Key Names & Values",
      "Blockers & Open Questions",
      "Next Steps",
    ]);
  });
});
