import fc from "fast-check";
import stringWidth from "fast-string-width";
import { describe, expect, it } from "vitest";
import { refJson, snapshotJson } from "../../plugin/snapshot/json.ts";
import {
  counted,
  fields,
  kindsText,
  oneLine,
  refTable,
  snapshotText,
  styleFor,
  table,
  verifiedLabel,
} from "../../plugin/surface/cli-text.ts";
import { located, snapshot } from "../builders.ts";

const plain = styleFor(false);
const NOW = new Date("2026-11-22T12:00:00Z");

describe("styleFor", () => {
  it("wraps text in ANSI colours when asked and leaves it alone otherwise", () => {
    const color = styleFor(true);
    expect([color.bold("a"), color.red("b"), color.green("c"), color.yellow("d"), color.dim("e")]).toEqual([
      "\u001b[1ma\u001b[22m",
      "\u001b[31mb\u001b[39m",
      "\u001b[32mc\u001b[39m",
      "\u001b[33md\u001b[39m",
      "\u001b[2me\u001b[22m",
    ]);
    expect([plain.bold("a"), plain.red("b")]).toEqual(["a", "b"]);
  });
});

describe("table", () => {
  it("aligns columns two spaces apart and does not pad the last column", () => {
    expect(
      table([
        ["ID", "GOAL"],
        ["2026-11-22-01", "ship"],
        ["x", "y"],
      ]),
    ).toBe("ID             GOAL\n2026-11-22-01  ship\nx              y");
  });

  it("aligns by display width: colour escapes take none, emoji and East Asian wide characters two", () => {
    const red = styleFor(true).red("ab");
    expect(
      table([
        [red, "x"],
        ["😀", "y"],
        ["abc", "z"],
        ["日本", "w"],
      ]).split("\n"),
    ).toEqual([`${red}    x`, "😀    y", "abc   z", "日本  w"]);
  });

  it("drops white space a row ends with", () => {
    expect(
      table([
        ["a", ""],
        ["bb", "c"],
      ]),
    ).toBe("a\nbb  c");
  });
});

describe("oneLine", () => {
  it("folds white space and shortens to max characters with an ellipsis", () => {
    expect(oneLine("  a\n b\t c  ")).toBe("a b c");
    expect(oneLine("abcdefgh", 5)).toBe("abcd…");
    expect(oneLine("abcde", 5)).toBe("abcde");
  });

  it("counts display columns, never splitting an emoji or a wide character", () => {
    expect(oneLine("😀😀😀😀", 5)).toBe("😀😀…");
    expect(oneLine("😀😀😀😀", 4)).toBe("😀…");
    expect(oneLine("日本語のメモ", 7)).toBe("日本語…");
  });

  it("fits any text in max columns: its words in order, then an ellipsis when some are left out", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.string({ unit: "grapheme", maxLength: 60 }),
      fc
        .array(fc.constantFrom("word", " ", "\n", "日本", "😀", "é", "ERR_X", "\t"), { maxLength: 80 })
        .map((a) => a.join("")),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 2, max: 40 }), (t, max) => {
        const shown = oneLine(t, max);
        const flat = t.replace(/\s+/g, " ").trim();
        expect(stringWidth(shown)).toBeLessThanOrEqual(max);
        if (shown.endsWith("…") && shown !== flat) expect(flat.startsWith(shown.slice(0, -1))).toBe(true);
        else expect(shown).toBe(flat);
      }),
      { numRuns: 500 },
    );
  });

  it("reads no more of a long text than it shows, whatever white space it holds", () => {
    expect(oneLine(`${"word ".repeat(100_000)}end`, 12)).toBe("word word w…");
    expect(oneLine(`${" ".repeat(2_000)}late`, 12)).toBe("late");
    expect(oneLine(`${"\u0301".repeat(40)}${"x".repeat(40)}`, 12)).toMatch(/…$/);
    expect(oneLine(`a${" \n".repeat(200)}b`, 12)).toBe("a b");
  });
});

describe("table with a width to fit", () => {
  const rows = () => [
    ["ID", "KIND", "GOAL"],
    ["2026-11-22-01", "compaction", "Fix ERR_DUPLICATE_KEY in the OAuth callback"],
    ["2026-11-22-02", "manual", "Ship the docs"],
  ];

  it("cuts the columns that give way, in order, only as far as needed", () => {
    expect(table(rows(), { columns: 40, shrink: [[2, 8]] }).split("\n")).toEqual([
      "ID             KIND        GOAL",
      "2026-11-22-01  compaction  Fix ERR_DUPL…",
      "2026-11-22-02  manual      Ship the docs",
    ]);
  });

  it("leaves a column out before cutting past a column's first step, and keeps every cell whole without a width", () => {
    expect(table(rows(), { columns: 40, shrink: [[2, 20]], drop: [1] }).split("\n")).toEqual([
      "ID             GOAL",
      "2026-11-22-01  Fix ERR_DUPLICATE_KEY in…",
      "2026-11-22-02  Ship the docs",
    ]);
    expect(table(rows(), { columns: undefined, shrink: [[2, 8]], drop: [1] })).toBe(table(rows()));
  });
});

describe("fields", () => {
  it("aligns values after the widest label and cuts plain values to the width", () => {
    const pairs = [
      ["workspace", "/home/me/.openclaw/workspace"],
      ["last restore", "2026-11-22-02 after compaction, 812 tokens, 5m ago"],
    ] as const;
    expect(fields(pairs, plain)).toEqual([
      "workspace     /home/me/.openclaw/workspace",
      "last restore  2026-11-22-02 after compaction, 812 tokens, 5m ago",
    ]);
    expect(fields(pairs, plain, 40)).toEqual([
      "workspace     /home/me/.openclaw/worksp…",
      "last restore  2026-11-22-02 after compa…",
    ]);
  });
});

describe("verifiedLabel", () => {
  it("says who wrote it: big-memory (checksum holds), the model or a person (none), or changed since (mismatch)", () => {
    expect([true, false, null].map((v) => verifiedLabel(v, plain))).toEqual([
      "big-memory",
      "CHANGED since",
      "model or person",
    ]);
  });
});

describe("refTable", () => {
  it("lists id, age, trigger, name, session, who wrote it and goal, with - for absent values", () => {
    const refs = [
      refJson(located(snapshot("2026-11-22-02", { name: "auth-fix", goal: "" }))),
      refJson(located(snapshot("2026-11-20-01", { session: null, trigger: null }), 1, { verified: null })),
    ];
    expect(refTable(refs, NOW, plain).split("\n")).toEqual([
      "ID             AGE     TRIGGER  NAME      SESSION          WRITTEN BY       GOAL",
      "2026-11-22-02  2h ago  manual   auth-fix  agent:main:main  big-memory       (no goal)",
      "2026-11-20-01  2d ago  -        -         -                model or person  goal of 2026-11-20-01",
    ]);
  });
});

describe("snapshotText", () => {
  it("prints the header, warnings and every section, none for empty ones", () => {
    const s = snapshotJson(
      located(
        snapshot("2026-11-22-01", {
          name: "auth-fix",
          state: { phase: "debugging", branch: "", blocked: "no", progress: "" },
          files: [
            { path: "src/a.ts", note: "the race" },
            { path: "src/b.ts", note: "" },
          ],
          decisions: [{ text: "retry once", rationale: "flaky network" }],
          code: "line one\nline two",
          names: [
            { label: "Error", value: "ERR_X" },
            { label: "", value: "ADR-016" },
          ],
          next: ["first\nsecond line"],
          extra: [{ heading: "Notes", body: "kept" }],
        }),
        5,
      ),
    );
    expect(snapshotText(s, ["src/b.ts does not exist (any more, or yet)"], NOW, plain).split("\n")).toEqual([
      "2026-11-22-01  2026-11-22T10:00:00+00:00 (2h ago)  written by big-memory",
      "memory/2026-11-22.md:5  trigger manual  session agent:main:main  agent main  name auth-fix",
      "warning: src/b.ts does not exist (any more, or yet)",
      "",
      "Goal",
      "  goal of 2026-11-22-01",
      "State",
      "  phase debugging, branch -, blocked no, progress -",
      "Files",
      "  - src/a.ts -- the race",
      "  - src/b.ts",
      "Decisions",
      "  - retry once -- flaky network",
      "Code",
      "  line one",
      "  line two",
      "Names",
      "  - Error: ERR_X",
      "  - ADR-016",
      "Blockers",
      "  none",
      "Next",
      "  - first",
      "    second line",
      "Notes",
      "  kept",
    ]);
  });
});

describe("kindsText", () => {
  it("lists kinds by count, most first, then by name", () => {
    expect(kindsText({ "stripe-key": 1, "github-token": 2, bearer: 1 })).toBe(
      "github-token 2, bearer 1, stripe-key 1",
    );
    expect(kindsText({})).toBe("");
  });
});

describe("counted", () => {
  it("puts the noun in the plural unless the count is one", () => {
    expect([counted(0, "daily log"), counted(1, "daily log"), counted(2, "snapshot")]).toEqual([
      "0 daily logs",
      "1 daily log",
      "2 snapshots",
    ]);
  });
});
