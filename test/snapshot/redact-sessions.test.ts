import { describe, expect, it } from "vitest";
import { redact } from "../../plugin/snapshot/redact.ts";
import { findCorpus, readManifest, transcriptText } from "../fidelity/corpus.ts";

/**
 * Real agent sessions nobody on this project wrote (the fidelity corpus, test/fidelity/fixtures): Go and
 * pytest output, grep and regex patterns about passwords, code that reads a password from a data bag,
 * f-string templates. The redactor must change only the credentials their authors left in them, each listed
 * below with the session it is in and the start of the value it replaces: an API key a user pasted, and the values a
 * secret scanner printed after `Secret:` in bold italics (its ANSI colour code starts the value).
 */
const CREDENTIALS: ReadonlyArray<readonly [session: string, valueStart: string]> = [
  ["mc-abc757d1-3da3", "sk[REDACTED_PHONE]"],
  ["mc-c76e5be5-ffd2", "\u001b[1;3;m"],
  ["mc-72dfed17-b6d2", "\u001b[1;3;m"],
];

/** The texts of a transcript as the hooks see them: every string of a JSON line, or the line, split in lines. */
function texts(transcript: string): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(...value.split("\n"));
    else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value !== null && typeof value === "object") for (const item of Object.values(value)) walk(item);
  };
  for (const line of transcript.split("\n")) {
    try {
      walk(JSON.parse(line));
    } catch {
      out.push(line);
    }
  }
  return out;
}

/** The values the redactor replaced in `text`: for each marker, the original text it stands for (its first 40 characters). */
function replaced(text: string, redacted: string): string[] {
  const parts = redacted.split(/\[REDACTED:[a-z-]+\]/);
  const values: string[] = [];
  let at = 0;
  for (let i = 0; i < parts.length - 1; i++) {
    const start = text.indexOf(parts[i] ?? "", at) + (parts[i] ?? "").length;
    const next = parts[i + 1] ?? "";
    const end = next === "" ? text.length : text.indexOf(next, start);
    values.push(text.slice(start, end).slice(0, 40));
    at = end;
  }
  return values;
}

const dir = findCorpus();

describe("redact on real agent sessions", () => {
  it("finds the corpus in the repository", () => {
    expect(dir).not.toBeNull();
  });

  // Seven megabytes of transcripts through the whole redactor: seconds, more on a loaded machine.
  it("changes only the credentials the sessions hold", { timeout: 300_000 }, () => {
    if (dir === null) throw new Error("no fidelity corpus");
    const found: string[] = [];
    for (const entry of readManifest(dir).sessions) {
      for (const text of texts(transcriptText(dir, entry))) {
        const result = redact(text);
        if (result.total === 0) continue;
        for (const value of replaced(text, result.text)) found.push(`${entry.id}: ${value}`);
      }
    }
    const unexpected = found.filter(
      (f) => !CREDENTIALS.some(([session, start]) => f.startsWith(`${session}: ${start}`)),
    );
    expect(unexpected).toEqual([]);
    for (const [session, start] of CREDENTIALS) {
      expect(
        found.some((f) => f.startsWith(`${session}: ${start}`)),
        `${session}: ${start}`,
      ).toBe(true);
    }
  });
});
