import { describe, expect, it } from "vitest";
import { codeIdentifiers, entryOf, fieldsOf, snippetLines } from "../../plugin/search/document.ts";
import { located, snap } from "./helpers.ts";

const s = snap("2026-11-22-03", {
  goal: "Fix the upsert",
  name: "upsert-fix",
  parent: "db-work",
  state: { phase: "testing", branch: "fix/upsert", blocked: "no", progress: "2/5 -- long prose" },
  files: [{ path: "src/db/upsert.ts", note: "the long explanation of the file" }],
  decisions: [{ text: "Use ON CONFLICT", rationale: "a rationale nobody searches" }],
  code: "// comment words\nawait db.query(sql); throw new AppError('ERR_DUPLICATE_KEY');",
  names: [{ label: "Error code", value: "ERR_DUPLICATE_KEY" }],
  blockers: ["Waiting for the DBA"],
  next: ["Run the migration", "Ask Ana"],
});

describe("fieldsOf", () => {
  it("indexes what people search by and leaves bulky prose and code comments out", () => {
    expect(fieldsOf(located(s))).toEqual({
      goal: "Fix the upsert",
      name: "upsert-fix db-work",
      names: "ERR_DUPLICATE_KEY",
      files: "src/db/upsert.ts",
      next: "Run the migration\nAsk Ana",
      blockers: "Waiting for the DBA",
      decisions: "Use ON CONFLICT",
      state: "fix/upsert",
      code: "db.query AppError ERR_DUPLICATE_KEY",
      extra: "",
    });
  });
});

describe("codeIdentifiers", () => {
  it("keeps identifier-looking words once each, in any script", () => {
    expect(codeIdentifiers("const x = parseDailyLog(file_name); parseDailyLog(v2) // über_alles")).toBe(
      "parseDailyLog file_name über_alles",
    );
  });
});

describe("entryOf and snippetLines", () => {
  it("store the ref fields and the indexed lines, key names with their label", () => {
    const entry = entryOf(located(s, 14));
    expect(entry).toMatchObject({
      id: "2026-11-22-03",
      file: "memory/2026-11-22.md",
      line: 14,
      name: "upsert-fix",
      parent: "db-work",
      verified: true,
      time: Date.parse("2026-11-22T10:00:00+00:00"),
    });
    expect(snippetLines(entry)).toEqual([
      { field: "goal", text: "Fix the upsert" },
      { field: "name", text: "upsert-fix" },
      { field: "names", text: "Error code: ERR_DUPLICATE_KEY" },
      { field: "files", text: "src/db/upsert.ts" },
      { field: "next", text: "Run the migration" },
      { field: "next", text: "Ask Ana" },
      { field: "blockers", text: "Waiting for the DBA" },
      { field: "decisions", text: "Use ON CONFLICT" },
      { field: "state", text: "fix/upsert" },
    ]);
  });
});
