import { describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { REDACTION_KINDS, type RedactionKind, redact } from "../../plugin/snapshot/redact.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { handSnapshot, snapshot } from "../builders.ts";
import { NEGATIVES, POSITIVES } from "./fixtures/secret-corpus.ts";
import { type HandStyle, handWritten } from "./hand-written.ts";

describe("redact on the labelled corpus", () => {
  it("holds hundreds of positives and at least as many hard negatives", () => {
    expect(POSITIVES.length).toBeGreaterThanOrEqual(500);
    expect(NEGATIVES.length).toBeGreaterThanOrEqual(POSITIVES.length);
  });

  it.each(POSITIVES)(
    "removes every secret of $name and reports it as $kind",
    ({ text, secrets, kind, also }) => {
      const result = redact(text);
      expect(secrets.filter((s) => result.text.includes(s))).toEqual([]);
      expect(result.counts[kind]).toBeGreaterThan(0);
      const allowed = new Set<RedactionKind>([kind, ...(also ?? [])]);
      expect(REDACTION_KINDS.filter((k) => result.counts[k] !== undefined && !allowed.has(k))).toEqual([]);
    },
  );

  it.each(POSITIVES.filter((p) => p.expected !== undefined))(
    "keeps the context around the secret of $name",
    ({ text, expected }) => {
      expect(redact(text).text).toBe(expected);
    },
  );

  it.each(NEGATIVES)("leaves $name unchanged", ({ text }) => {
    expect(redact(text)).toEqual({ text, counts: {}, total: 0 });
  });

  it.each(POSITIVES)("finds nothing more when it runs again on the output for $name", ({ text }) => {
    const once = redact(text).text;
    expect(redact(once)).toEqual({ text: once, counts: {}, total: 0 });
  });

  it("exercises every kind", () => {
    expect(new Set(POSITIVES.map((p) => p.kind))).toEqual(new Set(REDACTION_KINDS));
  });
});

describe("parseDailyLog on a workspace-shaped log holding every corpus secret", () => {
  const single = POSITIVES.filter((p) => !p.text.includes("\n") && !p.text.includes("`"));
  const style: HandStyle = {
    bullet: "-",
    fence: "```",
    bold: false,
    blankAfterHeading: false,
    crlf: false,
    order: [0, 1, 2, 3, 4, 5, 6, 7],
  };
  /** Blocks of 8 positives each, one in every field, alternately written by hand and by the plugin. */
  const blocks = Array.from({ length: Math.ceil(single.length / 8) }, (_, i) => {
    const at = (k: number) => single[(i * 8 + k) % single.length]?.text ?? "";
    const id = `2026-11-20-${String(i + 1).padStart(2, "0")}`;
    const content = {
      goal: at(0),
      state: { phase: "deploy", branch: "main", blocked: at(1), progress: "half" },
      files: [{ path: "ops/notes.md", note: at(2) }],
      decisions: [{ text: at(3), rationale: "the vault was down" }],
      code: at(4),
      names: [{ label: "note", value: at(5) }],
      blockers: [at(6)],
      next: [at(7)],
    };
    const notes = `\n## ${["Mardi", "火曜日", "Вторник", "Martes"][i % 4]}\n\nNotes of the day, nothing secret here.\n\n`;
    return (
      notes +
      (i % 2 === 0 ? handWritten(handSnapshot(id, content), style) : renderSnapshot(snapshot(id, content)))
    );
  });
  const log = blocks.join("\n");

  it("returns no secret of the corpus from any field of any block, canonical or hand-written", () => {
    const { snapshots } = parseDailyLog(log, "memory/2026-11-20.md");
    expect(snapshots).toHaveLength(blocks.length);
    const out = JSON.stringify(snapshots);
    expect(single.flatMap((p) => p.secrets).filter((s) => out.includes(s))).toEqual([]);
  });
});
