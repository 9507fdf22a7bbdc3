import { describe, expect, it } from "vitest";
import { REDACTION_KINDS, type RedactionKind, redact } from "../../plugin/snapshot/redact.ts";
import { NEGATIVES, POSITIVES } from "./fixtures/secret-corpus.ts";

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
