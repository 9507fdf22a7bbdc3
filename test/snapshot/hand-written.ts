/** Blocks and notes written the way people and models write them, for the tolerant reader's tests. */
import fc from "fast-check";
import { SECTIONS } from "../../plugin/snapshot/format.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";
import { nastyString, snapshotArb } from "./arbitraries.ts";

/** How a person may write the parts of a block. */
export interface HandStyle {
  bullet: "-" | "*" | "1.";
  fence: "```" | "~~~" | "````";
  bold: boolean;
  blankAfterHeading: boolean;
  crlf: boolean;
  order: readonly number[];
}

export const handStyleArb: fc.Arbitrary<HandStyle> = fc.record({
  bullet: fc.constantFrom("-", "*", "1."),
  fence: fc.constantFrom("```", "~~~", "````"),
  bold: fc.boolean(),
  blankAfterHeading: fc.boolean(),
  crlf: fc.boolean(),
  order: fc.shuffledSubarray([0, 1, 2, 3, 4, 5, 6, 7], { minLength: 8, maxLength: 8 }),
});

/** A snapshot written by hand: no checksum, the skill's headings, the given style. */
export function handWritten(s: Snapshot, style: HandStyle): string {
  const list = (items: string[]) =>
    items.length === 0 ? ["none"] : items.map((i) => `${style.bullet} ${i.replace(/\n/g, " ")}`);
  const label = (l: string) => (style.bold ? `**${l}**` : l);
  const sections: [string, string[]][] = [
    [SECTIONS.goal, [s.goal === "" ? "none" : s.goal]],
    [
      SECTIONS.state,
      [
        `- ${label("Phase")}: ${s.state.phase}`,
        `- ${label("Branch")}: ${s.state.branch}`,
        `- ${label("Blocked")}: ${s.state.blocked}`,
      ],
    ],
    [SECTIONS.files, list(s.files.map((f) => `\`${f.path}\` -- ${f.note}`))],
    [SECTIONS.decisions, list(s.decisions.map((d) => `${d.text} -- ${d.rationale}`))],
    [SECTIONS.code, s.code === "" ? ["none"] : [`${style.fence}ts`, ...s.code.split("\n"), style.fence]],
    [SECTIONS.names, list(s.names.map((n) => `${n.label}: \`${n.value}\``))],
    [SECTIONS.blockers, list(s.blockers)],
    [SECTIONS.next, list(s.next)],
  ];
  const lines = [
    "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
    `<!-- timestamp: ${s.timestamp} -->`,
    `<!-- snapshot-id: ${s.id} -->`,
    ...(s.session === null ? [] : [`<!-- session: ${s.session} -->`]),
    "",
    ...style.order.flatMap((i) => {
      const [heading, body] = sections[i] ?? ["", []];
      return [`### [SNAPSHOT] ${heading}`, ...(style.blankAfterHeading ? [""] : []), ...body, ""];
    }),
    "<!-- /BIG-MEMORY-SNAPSHOT -->",
    "",
  ];
  return lines.join(style.crlf ? "\r\n" : "\n");
}

/** A tidy value: words, identifiers and punctuation people use, nothing that changes markdown structure. */
export const tidyString: fc.Arbitrary<string> = fc
  .array(
    fc.constantFrom(
      "fix",
      "the",
      "ERR_DB_TIMEOUT",
      "src/auth/oauth.ts",
      "INV-2026-00417",
      "parseDailyLog",
      "v2.4",
      "yes -- waiting",
      "(see PR #12)",
      "`code`",
      "数据库",
      "über",
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((w) => w.join(" "));

/** Snapshots with tidy values and a session line (as a model in the flush writes them), unique ids. */
export const tidySnapshotArb: fc.Arbitrary<Snapshot> = snapshotArb.chain((s) =>
  fc
    .record({
      goal: tidyString,
      phase: tidyString,
      path: tidyString,
      next: fc.array(tidyString, { maxLength: 3 }),
      code: fc.array(tidyString, { maxLength: 3 }),
    })
    .map((t) => ({
      ...s,
      session: s.session === null ? null : "agent:main:main",
      agent: null,
      trigger: null,
      name: null,
      parent: null,
      tombstone: false,
      goal: t.goal,
      state: { phase: t.phase, branch: "", blocked: "", progress: "" },
      files: [{ path: t.path.replace(/`/g, ""), note: "" }],
      decisions: [],
      code: t.code.join("\n"),
      names: [],
      blockers: [],
      next: t.next,
      extra: [],
    })),
);

/** Lines of notes: paragraphs, lists, headings, fenced code (which may show a block as an example). */
export const notesArb: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      tidyString,
      tidyString.map((t) => `- ${t}`),
      tidyString.map((t) => `## ${t}`),
      fc.constant(""),
      fc
        .tuple(
          fc.constantFrom("```", "~~~"),
          fc.array(
            fc.oneof(
              tidyString,
              fc.constant("<!-- BIG-MEMORY-SNAPSHOT v1 -->"),
              fc.constant("<!-- /BIG-MEMORY-SNAPSHOT -->"),
              fc.constant("### [SNAPSHOT] Active Goal"),
            ),
            { maxLength: 4 },
          ),
        )
        .map(([f, body]) => [f, ...body, f].join("\n")),
    ),
    { maxLength: 8 },
  )
  .map((lines) => lines.join("\n"));

/** Any block body as written: nasty values through the hand style (for reader-against-reader checks). */
export const nastyHandBlockArb: fc.Arbitrary<string> = fc
  .tuple(
    snapshotArb,
    handStyleArb,
    fc.array(
      nastyString(4).map((t) => t.replace(/BIG-MEMORY-SNAPSHOT/g, "")),
      { maxLength: 3 },
    ),
  )
  .map(([s, style, inserts]) => {
    const text = handWritten(s, style);
    const lines = text.split("\n");
    // Stray lines anywhere in the body (never before the start marker or after the end marker).
    inserts.forEach((line, i) => {
      lines.splice(1 + ((i * 7) % Math.max(1, lines.length - 2)), 0, line);
    });
    // Values are written raw: only the first and the last line may be markers.
    const end = lines.length - 2;
    return lines
      .map((l, k) => (k === 0 || k >= end ? l : l.replace(/BIG-MEMORY-SNAPSHOT/g, "")))
      .join("\n")
      .replace(/\r(?!\n)/g, ""); // a lone CR is a line break to remark, and to nobody else
  });
