import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runCli } from "../../plugin/surface/cli.ts";
import { styleFor } from "../../plugin/surface/cli-text.ts";
import { forTerminal, jsonDocument } from "../../plugin/surface/terminal.ts";
import { workspaces } from "./cli-harness.ts";

const workspace = workspaces();

/** What a terminal obeys or reorders by, as the module defines it. */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters under test
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The CLI's own colour codes (cli-text.ts `styleFor`). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character
const OWN = /\u001b\[(?:1|2|22|31|32|33|39)m/g;
/** Any escape at all (the CLI's own colours included). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character
const ESC = /\u001b/;

/** Sequences that would act on a terminal: clear, title, clipboard (OSC 52), C1 CSI, bell, bidi override. */
const ATTACKS = [
  "\u001b[2J\u001b[H",
  "\u001b]0;pwned\u0007",
  "\u001b]52;c;cm0gLXJmIH4=\u0007",
  "\u009b31m",
  "\u202eevil\u202c",
  "\u2066iso\u2069",
  "back\rspace\b",
  "\u001b[8mhidden\u001b[0m",
];

describe("forTerminal", () => {
  it("writes every unsafe character as its \\u escape and leaves the rest as it is", () => {
    expect(forTerminal("ship \u001b[2J it", false)).toBe("ship \\u001b[2J it");
    expect(forTerminal("a\u202eb\u0085c\u007fd", false)).toBe("a\\u202eb\\u0085c\\u007fd");
    expect(forTerminal("tab\tand\nnewline stay; é “quotes” — 日本 ✓", false)).toBe(
      "tab\tand\nnewline stay; é “quotes” — 日本 ✓",
    );
  });

  it("keeps the CLI's own colour codes only when colours are on, and no other escape", () => {
    const style = styleFor(true);
    const coloured = `${style.red("MODIFIED")} ${style.green("verified")} ${style.bold(style.dim("x"))}`;
    expect(forTerminal(coloured, true)).toBe(coloured);
    expect(ESC.test(forTerminal(coloured, false))).toBe(false);
    expect(forTerminal("\u001b]0;t\u0007\u001b[8m", true)).toBe("\\u001b]0;t\\u0007\\u001b[8m");
  });

  it("leaves no unsafe character in any text, and keeps a JSON document's value", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.boolean(), (text, colours) => {
        const shown = forTerminal(text, colours);
        expect(UNSAFE.test(shown.replace(OWN, ""))).toBe(false);
        const json = JSON.stringify({ text }, null, 2);
        expect(JSON.parse(forTerminal(json, colours))).toEqual({ text });
      }),
      { numRuns: 300 },
    );
  });
});

/** A hand-written log whose every field a person or model writes carries one of the attacks. */
function hostileLog(): string {
  const [clear, title, clip, c1, bidi, iso, back, hide] = ATTACKS;
  return [
    "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
    "<!-- snapshot-id: 2026-11-20-01 -->",
    `<!-- session: agent:main:${bidi} -->`,
    "<!-- name: hostile-notes -->",
    "### [SNAPSHOT] Active Goal",
    `Ship ERR_TERMINAL_FENCE ${clear}${title} now`,
    "### [SNAPSHOT] Files In Play",
    `- \`src/${iso}evil.ts\` -- ${clip}`,
    "### [SNAPSHOT] Key Names & Values",
    `- Error: \`ERR_TERMINAL_FENCE${c1}\``,
    "### [SNAPSHOT] Next Steps",
    `- ${back} ${hide}`,
    "<!-- /BIG-MEMORY-SNAPSHOT -->",
    "",
    "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
    `<!-- snapshot-id: 2026-11-20-9${clear} -->`,
    "<!-- /BIG-MEMORY-SNAPSHOT -->",
    "",
  ].join("\n");
}

describe("jsonDocument", () => {
  it("indents for a terminal, writes one line for a pipe, and both read back as the same value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const one = jsonDocument(value, false);
        const indented = jsonDocument(value, true);
        expect(one.endsWith("\n") && indented.endsWith("\n")).toBe(true);
        expect(one.slice(0, -1)).not.toContain("\n");
        expect(JSON.parse(one)).toEqual(JSON.parse(indented));
        expect(JSON.parse(one)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
    expect(jsonDocument({ a: [1] }, true)).toBe('{\n  "a": [\n    1\n  ]\n}\n');
  });
});

describe("the CLI's output", () => {
  it("never lets a snapshot's text act on the terminal, in every read command, for people and as JSON", async () => {
    const dir = workspace({
      "memory/2026-11-20.md": hostileLog(),
      [`memory/2026-11-21-notes${ATTACKS[0]}.md`]: hostileLog().replaceAll("2026-11-20", "2026-11-21"),
    });
    const commands = [
      ["list"],
      ["list", "--all"],
      ["show", "2026-11-20-01"],
      ["show", "hostile-notes"],
      ["recall"],
      ["search", "ERR_TERMINAL_FENCE"],
      ["search", `ERR_TERMINAL_FENCE${ATTACKS[1]}`],
      ["status"],
      ["verify"],
      ["reindex"],
      ["show", `nothing${ATTACKS[0]}`],
    ];
    let goals = 0;
    for (const colour of [false, true]) {
      for (const args of commands) {
        for (const json of [false, true]) {
          let stdout = "";
          let stderr = "";
          await runCli([...args, "--dir", dir, ...(json ? ["--json"] : [])], {
            stdout: (t) => {
              stdout += t;
            },
            stderr: (t) => {
              stderr += t;
            },
            readStdin: async () => "",
            color: colour,
            // A terminal gets indented JSON, a pipe one line: both forms are read here.
            columns: colour ? 100 : undefined,
            cwd: dir,
            env: { HOME: "/nonexistent-home", BIG_MEMORY_BACKGROUND_INDEX: "0" },
            now: () => new Date("2026-11-22T12:00:00Z"),
          });
          const what = `${args.join(" ")}${json ? " --json" : ""}${colour ? " (colour)" : ""}`;
          expect(UNSAFE.test(stdout.replace(OWN, "")), `stdout of ${what}`).toBe(false);
          expect(UNSAFE.test(stderr.replace(OWN, "")), `stderr of ${what}`).toBe(false);
          if (!colour) expect(ESC.test(stdout + stderr), what).toBe(false);
          if (json && stdout !== "") {
            // The document keeps the text as written: escaped, not lost.
            const doc = JSON.parse(stdout) as { snapshot?: { goal: string } | null };
            if (doc.snapshot) {
              expect(doc.snapshot.goal).toContain(`${ATTACKS[0]}${ATTACKS[1]}`);
              goals++;
            }
          }
        }
      }
    }
    expect(goals).toBeGreaterThanOrEqual(6);
  });
});
