import stringWidth from "fast-string-width";
import type { SnapshotJson, SnapshotRef } from "../snapshot/json.ts";
import type { RedactionCounts } from "../snapshot/redact.ts";
import { relativeAge } from "../snapshot/time.ts";

/** Human output of the CLI: aligned tables, relative ages, colour only when asked (a TTY). */

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

/** ANSI colours when `color` is true, plain text otherwise. */
export function styleFor(color: boolean): Style {
  if (!color) {
    const id = (text: string) => text;
    return { bold: id, dim: id, red: id, green: id, yellow: id };
  }
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
  };
}

/**
 * Columns on a terminal: `fast-string-width` (Fabio Spampinato's, maintained, one small dependency)
 * counts display width, with colour codes as nothing and East Asian wide characters and emoji as two.
 * Cutting is done here, between graphemes (its sibling `fast-string-truncated-width` can cut a string
 * past the width asked when a wide character follows another non-Latin one).
 */
const WIDTHS = { controlWidth: 0, tabWidth: 8, emojiWidth: 2, regularWidth: 1, wideWidth: 2 };
/** Printable ASCII (and the ellipsis oneLine adds), one column a character: most cells, measured here. */
const NARROW = /^[\x20-\x7e…]*$/;

function widthOf(text: string): number {
  return NARROW.test(text) ? text.length : stringWidth(text, WIDTHS);
}

let graphemes: Intl.Segmenter | undefined;

/**
 * The end index of the longest start of `text` that fits `columns` with `ellipsis` after it, when `text`
 * does not fit whole; cut between graphemes, so an emoji or an accented letter is never split.
 */
function fitIndex(text: string, columns: number, ellipsis: string): { index: number; truncated: boolean } {
  const room = columns - ellipsis.length;
  if (NARROW.test(text)) {
    return text.length > columns
      ? { index: Math.max(0, room), truncated: true }
      : { index: text.length, truncated: false };
  }
  if (widthOf(text) <= columns) return { index: text.length, truncated: false };
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let width = 0;
  let index = 0;
  for (const { segment } of graphemes.segment(text)) {
    width += widthOf(segment);
    if (width > room) break;
    index += segment.length;
  }
  return { index, truncated: true };
}

/** How a table fits a terminal: its width, the columns that give way, and those left out when even that is not enough. */
export interface Fit {
  /** The terminal's width in columns; undefined (output piped to a file) leaves every cell whole. */
  columns?: number | undefined;
  /**
   * Steps that narrow a column, in order, each `[index, narrowest]`: the column's cells are cut (with an
   * ellipsis) down to `narrowest` columns at most, only as far as the table is too wide.
   */
  shrink: readonly (readonly [number, number])[];
  /**
   * Columns left out, in order, while the table cannot fit with each column cut to its first step: columns
   * are left out before any is cut further.
   */
  drop?: readonly number[];
}

/** `text` cut to `columns` display columns, with an ellipsis when it was longer. */
export function cut(text: string, columns: number): string {
  const fit = fitIndex(text, columns, "…");
  return fit.truncated ? `${text.slice(0, fit.index)}…` : text;
}

/** The widest cell of each column. */
function columnWidths(rows: readonly string[][]): number[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, widthOf(cell));
    });
  }
  return widths;
}

/** The width of a table with these column widths: two spaces between columns. */
const spanOf = (widths: readonly number[]): number =>
  widths.reduce((a, w) => a + w, 0) + 2 * Math.max(0, widths.length - 1);

/** `rows` fitted to `fit.columns`: columns left out (fit.drop) while needed, then cells cut (fit.shrink). */
function fitted(rows: string[][], fit: Fit & { columns: number }): string[][] {
  const natural = columnWidths(rows);
  const narrowest = (kept: number[]) =>
    spanOf(
      kept.map((i) => {
        // A column's first (gentlest) step: columns are left out before any is cut further.
        const first = fit.shrink.find(([c]) => c === i);
        return Math.min(natural[i] ?? 0, first === undefined ? Number.POSITIVE_INFINITY : first[1]);
      }),
    );
  let kept = natural.map((_, i) => i);
  for (const d of fit.drop ?? []) {
    if (narrowest(kept) <= fit.columns) break;
    kept = kept.filter((i) => i !== d);
  }
  const out = rows.map((row) => kept.map((i) => row[i] ?? ""));
  const widths = kept.map((i) => natural[i] ?? 0);
  let excess = spanOf(widths) - fit.columns;
  for (const [column, least] of fit.shrink) {
    const at = kept.indexOf(column);
    if (excess <= 0 || at < 0) continue;
    const width = widths[at] ?? 0;
    const narrower = Math.max(Math.min(width, least), width - excess);
    excess -= width - narrower;
    widths[at] = narrower;
    for (const row of out) if (widthOf(row[at] ?? "") > narrower) row[at] = cut(row[at] ?? "", narrower);
  }
  return out;
}

/**
 * Left-aligned columns separated by two spaces, aligned by display width; the last column is not padded.
 * With `fit.columns`, columns are left out and cut as `fit` says until every line fits that width (cells
 * that may be cut must carry no colour); without, every cell is whole.
 */
export function table(rows: string[][], fit?: Fit): string {
  const shown = fit?.columns === undefined ? rows : fitted(rows, { ...fit, columns: fit.columns });
  const widths = columnWidths(shown);
  return shown
    .map((row) => {
      const last = row.length - 1;
      return row
        .map((cell, i) => (i === last ? cell : `${cell}${" ".repeat((widths[i] ?? 0) - widthOf(cell))}  `))
        .join("")
        .trimEnd();
    })
    .join("\n");
}

/**
 * `label  value` lines with the values aligned after the widest label (labels in bold); with `columns`,
 * a plain value (no colour) is cut to fit, line by line.
 */
export function fields(
  pairs: readonly (readonly [string, string])[],
  style: Style,
  columns?: number,
): string[] {
  const width = Math.max(0, ...pairs.map(([label]) => widthOf(label)));
  const room = columns === undefined ? undefined : Math.max(8, columns - width - 2);
  return pairs.map(([label, value]) => {
    const shown =
      room === undefined || value.includes("\u001b")
        ? value
        : value
            .split("\n")
            .map((l) => cut(l, room))
            .join("\n");
    return `${style.bold(label)}${" ".repeat(width - widthOf(label) + 2)}${shown}`.trimEnd();
  });
}

/** White space that is not one space between words. */
const LOOSE_SPACE = /\s\s|[^\S ]|^\s|\s$/;

/**
 * Shortens to `max` columns on one line (each run of white space one space), with an ellipsis. Reads
 * only as much of `text` as it can show, so a long goal costs no more than a short one.
 */
export function oneLine(text: string, max = 72): string {
  // A column takes at least one UTF-16 unit, so this much text without its white space is enough.
  const enough = 2 * max + 2;
  let flat = text.length > enough ? text.slice(0, enough) : text;
  let more = flat.length < text.length;
  if (LOOSE_SPACE.test(flat) || (more && /\s/.test(text[enough] ?? ""))) {
    // White space to fold: take words until there are enough of them.
    const word = /\S+/g;
    flat = "";
    more = false;
    for (let m = word.exec(text); m !== null; m = word.exec(text)) {
      if (flat.length >= enough) {
        more = true;
        break;
      }
      flat += (flat === "" ? "" : " ") + m[0].slice(0, enough);
      if (m[0].length > enough) more = true;
    }
  }
  const fit = fitIndex(flat, max, "…");
  if (fit.truncated) return `${flat.slice(0, fit.index)}…`;
  if (!more) return flat;
  return `${flat.slice(0, fitIndex(flat, max - 1, "").index)}…`;
}

/**
 * Who wrote a snapshot, in words a person knows: `big-memory` (its checksum holds), `model or person`
 * (a block with no checksum: the model's flush block or one written by hand), `CHANGED since` (edited
 * after big-memory wrote it: its checksum no longer matches).
 */
export function verifiedLabel(verified: boolean | null, style: Style): string {
  return verified === true
    ? style.green("big-memory")
    : verified === false
      ? style.red("CHANGED since")
      : style.dim("model or person");
}

/**
 * How `list` gives way on a narrow terminal: the goal to 40 columns, the session to 20, the name to 12,
 * the session to 12, the goal to 20; the trigger, then who wrote it, are left out before the later steps.
 */
const LIST_SHRINK = [
  [6, 40],
  [4, 20],
  [3, 12],
  [4, 12],
  [6, 20],
] as const;

/** {@link verifiedLabel} as a phrase, for a snapshot shown whole. */
function writtenBy(verified: boolean | null, style: Style): string {
  return verified === false
    ? style.red("CHANGED since big-memory wrote it (checksum mismatch)")
    : `written by ${verified === true ? style.green("big-memory") : style.dim("the model or a person")}`;
}

/** How wide a goal is printed when the output goes to a file (no terminal width to fit). */
export const PIPED_GOAL = 500;

/**
 * The `list` table: id, age, trigger, name, session, who wrote it, goal; fitted to `columns` (the goal
 * gives way first, then the session and the name), whole when `columns` is undefined.
 */
export function refTable(refs: SnapshotRef[], now: Date, style: Style, columns?: number): string {
  const head = ["ID", "AGE", "TRIGGER", "NAME", "SESSION", "WRITTEN BY", "GOAL"].map(style.bold);
  return table(
    [
      head,
      ...refs.map((r) => [
        r.id,
        relativeAge(r.timestamp, now),
        r.trigger ?? "-",
        oneLine(r.name ?? "-", 64),
        oneLine(r.session ?? "-", 80),
        verifiedLabel(r.verified, style),
        oneLine(r.goal === "" ? "(no goal)" : r.goal, PIPED_GOAL),
      ]),
    ],
    { columns, shrink: LIST_SHRINK, drop: [2, 5] },
  );
}

function bullets(items: string[]): string[] {
  return items.length === 0 ? ["  none"] : items.map((i) => `  - ${i.replace(/\n/g, "\n    ")}`);
}

/** A whole snapshot for a person: header line, then each section. */
export function snapshotText(s: SnapshotJson, warnings: string[], now: Date, style: Style): string {
  const lines = [
    `${style.bold(s.id)}  ${s.timestamp} (${relativeAge(s.timestamp, now)})  ${writtenBy(s.verified, style)}`,
    style.dim(
      `${s.file}:${s.line}  trigger ${s.trigger ?? "-"}  session ${s.session ?? "-"}  agent ${s.agent ?? "-"}${s.name === null ? "" : `  name ${s.name}`}`,
    ),
    ...warnings.map((w) => style.yellow(`warning: ${w}`)),
    "",
    style.bold("Goal"),
    `  ${s.goal === "" ? "none" : s.goal}`,
    style.bold("State"),
    `  phase ${s.state.phase || "-"}, branch ${s.state.branch || "-"}, blocked ${s.state.blocked || "-"}, progress ${s.state.progress || "-"}`,
    style.bold("Files"),
    ...bullets(s.files.map((f) => (f.note === "" ? f.path : `${f.path} -- ${f.note}`))),
    style.bold("Decisions"),
    ...bullets(s.decisions.map((d) => (d.rationale === "" ? d.text : `${d.text} -- ${d.rationale}`))),
    style.bold("Code"),
    ...(s.code === "" ? ["  none"] : s.code.split("\n").map((l) => `  ${l}`)),
    style.bold("Names"),
    ...bullets(s.names.map((n) => (n.label === "" ? n.value : `${n.label}: ${n.value}`))),
    style.bold("Blockers"),
    ...bullets(s.blockers),
    style.bold("Next"),
    ...bullets(s.next),
    ...s.extra.flatMap((e) => [style.bold(e.heading), `  ${e.body}`]),
  ];
  return lines.join("\n");
}

/** `github-token 2, password 1`: redaction counts by kind, most first (never the values). */
export function kindsText(counts: RedactionCounts): string {
  return Object.entries(counts)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0) || (a[0] < b[0] ? -1 : 1))
    .map(([kind, n]) => `${kind} ${n}`)
    .join(", ");
}

/** `1 snapshot`, `2 snapshots`: a count and its noun, plural when the count is not one. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
