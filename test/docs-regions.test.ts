import { describe, expect, it } from "vitest";
import { DOC_FILES, REGIONS, regionsIn, saveSchemaMarkdown, withRegions } from "../plugin/docs-regions.ts";

const open = (name: string) => `<!-- generated:${name} (npm run docs) -->\n`;
const close = (name: string) => `<!-- /generated:${name} -->`;

describe("regionsIn", () => {
  it("finds each region with its name, its body as written and the line of its opening marker", () => {
    const text = `# Title\n\n${open("save-schema")}old\nbody\n${close("save-schema")}\n\n${open("other")}x\n${close("other")}\n`;
    expect(regionsIn(text)).toEqual([
      { name: "save-schema", body: "old\nbody\n", line: 3 },
      { name: "other", body: "x\n", line: 8 },
    ]);
  });

  it("ignores a region whose closing marker names another region or is missing", () => {
    expect(regionsIn(`${open("a")}x\n${close("b")}\n${open("c")}y\n`)).toEqual([]);
  });

  it("finds nothing in text without markers", () => {
    expect(regionsIn("# README\n\nno regions here\n")).toEqual([]);
  });
});

describe("withRegions", () => {
  it("replaces the body of every known region with what the code generates now, and keeps the markers", () => {
    const text = `before\n${open("save-schema")}stale\n${close("save-schema")}\nafter\n`;
    expect(withRegions(text)).toBe(
      `before\n${open("save-schema")}${saveSchemaMarkdown()}\n${close("save-schema")}\nafter\n`,
    );
  });

  it("leaves an unknown region as it is", () => {
    const text = `${open("no-such-region")}kept\n${close("no-such-region")}\n`;
    expect(withRegions(text)).toBe(text);
  });

  it("is idempotent", () => {
    const once = withRegions(`${open("save-schema")}\n${close("save-schema")}\n`);
    expect(withRegions(once)).toBe(once);
  });
});

describe("saveSchemaMarkdown", () => {
  const lines = saveSchemaMarkdown().split("\n");

  it("starts with a padded table of every content field and the state's sub-fields, with types and limits", () => {
    expect(lines.slice(0, 2)).toEqual([
      expect.stringMatching(/^\| field +\| type +\| what it holds +\|$/),
      expect.stringMatching(/^\| -+ \| -+ \| -+ \|$/),
    ]);
    const rows = lines.filter((l) => l.startsWith("| `")).map((l) => l.split("|").map((c) => c.trim()));
    expect(rows.map((r) => r[1])).toEqual([
      "`goal`",
      "`state`",
      "`state.phase`",
      "`state.branch`",
      "`state.blocked`",
      "`state.progress`",
      "`files`",
      "`decisions`",
      "`code`",
      "`names`",
      "`blockers`",
      "`next`",
      "`extra`",
    ]);
    expect(rows.find((r) => r[1] === "`files`")?.[2]).toBe(
      "list of { `path`: string (≤ 1000 chars), `note?`: string (≤ 2000 chars) } (≤ 200)",
    );
    expect(new Set(lines.slice(0, rows.length + 2).map((l) => l.length)).size).toBe(1);
  });

  it("names the ignored reference fields and ends with a save example", () => {
    const text = saveSchemaMarkdown();
    expect(text).toContain(
      "(`id`, `timestamp`, `file`, `line`, `session`, `agent`, `trigger`, `name`, `verified`, `score`, `version`, `parent`, `tombstone`)",
    );
    expect(lines.slice(-3)).toEqual([
      "```sh",
      expect.stringMatching(/^echo '\{"goal":.*\}' \| big-memory save --name billing-export-v2 --json$/),
      "```",
    ]);
  });
});

describe("REGIONS and DOC_FILES", () => {
  it("generate the save schema for the README and the CLI contract", () => {
    expect(Object.keys(REGIONS)).toEqual(["save-schema"]);
    expect(REGIONS["save-schema"]?.()).toBe(saveSchemaMarkdown());
    expect(DOC_FILES).toEqual(["README.md", "references/cli-contract.md"]);
  });
});
