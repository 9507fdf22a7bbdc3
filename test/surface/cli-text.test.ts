import { describe, expect, it } from "vitest";
import { refJson, snapshotJson } from "../../plugin/snapshot/json.ts";
import {
  counted,
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

  it("measures colour escapes as nothing and an emoji as one character", () => {
    const red = styleFor(true).red("ab");
    expect(
      table([
        [red, "x"],
        ["😀", "y"],
        ["abc", "z"],
      ]).split("\n"),
    ).toEqual([`${red}   x`, "😀    y", "abc  z"]);
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

  it("counts characters, not UTF-16 units, so it never splits an emoji", () => {
    expect(oneLine("😀😀😀😀", 3)).toBe("😀😀…");
  });
});

describe("verifiedLabel", () => {
  it("says verified, MODIFIED or unverified", () => {
    expect([true, false, null].map((v) => verifiedLabel(v, plain))).toEqual([
      "verified",
      "MODIFIED",
      "unverified",
    ]);
  });
});

describe("refTable", () => {
  it("lists id, age, trigger, name, session, check and goal, with - for absent values", () => {
    const refs = [
      refJson(located(snapshot("2026-11-22-02", { name: "auth-fix", goal: "" }))),
      refJson(located(snapshot("2026-11-20-01", { session: null, trigger: null }), 1, { verified: null })),
    ];
    expect(refTable(refs, NOW, plain).split("\n")).toEqual([
      "ID             AGE     TRIGGER  NAME      SESSION          CHECK       GOAL",
      "2026-11-22-02  2h ago  manual   auth-fix  agent:main:main  verified    (no goal)",
      "2026-11-20-01  2d ago  -        -         -                unverified  goal of 2026-11-20-01",
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
      "2026-11-22-01  2026-11-22T10:00:00+00:00 (2h ago)  verified",
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
