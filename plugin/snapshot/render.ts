import { checksumOf } from "./checksum.ts";
import { encodeCodeLine, encodeInline } from "./escape.ts";
import { END_MARKER, SECTION_PREFIX, SECTIONS, STATE_LABELS, sectionOf, startMarker } from "./format.ts";
import type { Snapshot } from "./snapshot.ts";

const NONE = "none";

function inline(value: string, lineStart = false): string {
  return value === "" ? NONE : encodeInline(value, { lineStart });
}

function listOrNone(lines: string[]): string[] {
  return lines.length === 0 ? [NONE] : lines;
}

/** Backticks enough to fence `code`: one more than its longest run, at least three. */
function fenceFor(code: string): string {
  let longest = 0;
  for (const run of code.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(3, longest + 1));
}

function codeLines(code: string): string[] {
  if (code === "") return [NONE];
  const fence = fenceFor(code);
  return [fence, ...code.split("\n").map(encodeCodeLine), fence];
}

function metaLines(s: Snapshot, checksum: string): string[] {
  const meta: [string, string | null][] = [
    ["timestamp", s.timestamp],
    ["snapshot-id", s.id],
    ["session", s.session],
    ["agent", s.agent],
    ["trigger", s.trigger],
    ["name", s.name],
    ["parent", s.parent],
    ["tombstone", s.tombstone ? "yes" : null],
    ["checksum", checksum],
  ];
  return meta
    .filter((m): m is [string, string] => m[1] !== null)
    .map(([k, v]) => `<!-- ${k}: ${encodeInline(v)} -->`);
}

/** `HH:MM` of an ISO timestamp as written (its own offset), or `--:--` when it has none. */
export function clockOf(timestamp: string): string {
  const m = /T(\d{2}):(\d{2})/.exec(timestamp);
  return m === null ? "--:--" : `${m[1]}:${m[2]}`;
}

/**
 * Renders a snapshot as the markdown block appended to a daily log: `---`, the
 * `## Task Snapshot -- HH:MM` heading, the markers, metadata comments with a sha256 checksum, and the
 * eight `### [SNAPSHOT]` sections (plus extra sections kept from hand-written blocks). Values are
 * escaped (see escape.ts) so that `parseDailyLog(renderSnapshot(s))` gives back `s` exactly. Ends with
 * a newline.
 */
export function renderSnapshot(s: Snapshot): string {
  const section = (heading: string, body: string[]): string[] => [`${SECTION_PREFIX}${heading}`, ...body, ""];
  const lines = [
    "---",
    "",
    `## Task Snapshot -- ${clockOf(s.timestamp)}`,
    "",
    startMarker(s.version),
    ...metaLines(s, checksumOf(s)),
    "",
    ...section(SECTIONS.goal, [inline(s.goal, true)]),
    ...section(
      SECTIONS.state,
      (Object.keys(STATE_LABELS) as (keyof typeof STATE_LABELS)[]).map(
        (k) => `- ${STATE_LABELS[k]}: ${inline(s.state[k])}`,
      ),
    ),
    ...section(
      SECTIONS.files,
      listOrNone(
        s.files.map((f) => {
          const path = `\`${encodeInline(f.path, { backticks: true }) || "\\@"}\``;
          return f.note === "" ? `- ${path}` : `- ${path} -- ${encodeInline(f.note)}`;
        }),
      ),
    ),
    ...section(
      SECTIONS.decisions,
      listOrNone(
        s.decisions.map((d, i) => {
          const text = encodeInline(d.text, { noDoubleDash: true }) || "\\@";
          return d.rationale === ""
            ? `${i + 1}. ${text}`
            : `${i + 1}. ${text} -- ${encodeInline(d.rationale)}`;
        }),
      ),
    ),
    ...section(SECTIONS.code, codeLines(s.code)),
    ...section(
      SECTIONS.names,
      listOrNone(
        s.names.map((n) => {
          const value = `\`${encodeInline(n.value, { backticks: true }) || "\\@"}\``;
          return n.label === ""
            ? `- ${value}`
            : `- ${encodeInline(n.label, { noColon: true, lineStart: true })}: ${value}`;
        }),
      ),
    ),
    ...section(SECTIONS.blockers, listOrNone(s.blockers.map((b) => `- ${encodeInline(b) || "\\@"}`))),
    ...section(SECTIONS.next, listOrNone(s.next.map((n, i) => `${i + 1}. ${encodeInline(n) || "\\@"}`))),
    ...s.extra.flatMap((e) =>
      section(encodeInline(e.heading, { isReserved: (h) => sectionOf(h) !== undefined }) || "\\@", [
        inline(e.body, true),
      ]),
    ),
    END_MARKER,
  ];
  return `${lines.join("\n")}\n`;
}
