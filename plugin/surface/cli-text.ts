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

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are control characters by definition
const ANSI = /\u001b\[[0-9;]*m/g;

function visibleLength(text: string): number {
  return [...text.replace(ANSI, "")].length;
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) =>
          i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - visibleLength(cell)),
        )
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** Shortens to `max` characters on one line, with an ellipsis. */
export function oneLine(text: string, max = 72): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join("")}…`;
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
