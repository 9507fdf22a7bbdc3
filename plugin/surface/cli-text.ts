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

/** Left-aligned columns separated by two spaces, aligned by display width; the last column is not padded. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  const cellWidths = rows.map((row) =>
    row.map((cell, i) => {
      const width = widthOf(cell);
      if (width > (widths[i] ?? 0)) widths[i] = width;
      return width;
    }),
  );
  const lines: string[] = new Array(rows.length);
  rows.forEach((row, r) => {
    let line = "";
    const last = row.length - 1;
    row.forEach((cell, i) => {
      line += i === last ? cell : `${cell}${" ".repeat((widths[i] ?? 0) - (cellWidths[r]?.[i] ?? 0))}  `;
    });
    lines[r] = line.trimEnd();
  });
  return lines.join("\n");
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

/** `verified`, `unverified` (no checksum) or `MODIFIED` (checksum mismatch). */
export function verifiedLabel(verified: boolean | null, style: Style): string {
  return verified === true
    ? style.green("verified")
    : verified === false
      ? style.red("MODIFIED")
      : style.dim("unverified");
}

/** The `list` table: id, age, trigger, name, session, verified, goal. */
export function refTable(refs: SnapshotRef[], now: Date, style: Style): string {
  const head = ["ID", "AGE", "TRIGGER", "NAME", "SESSION", "CHECK", "GOAL"].map(style.bold);
  return table([
    head,
    ...refs.map((r) => [
      r.id,
      relativeAge(r.timestamp, now),
      r.trigger ?? "-",
      r.name ?? "-",
      r.session ?? "-",
      verifiedLabel(r.verified, style),
      oneLine(r.goal === "" ? "(no goal)" : r.goal, 60),
    ]),
  ]);
}

function bullets(items: string[]): string[] {
  return items.length === 0 ? ["  none"] : items.map((i) => `  - ${i.replace(/\n/g, "\n    ")}`);
}

/** A whole snapshot for a person: header line, then each section. */
export function snapshotText(s: SnapshotJson, warnings: string[], now: Date, style: Style): string {
  const lines = [
    `${style.bold(s.id)}  ${s.timestamp} (${relativeAge(s.timestamp, now)})  ${verifiedLabel(s.verified, style)}`,
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
