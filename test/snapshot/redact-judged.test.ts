import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LogText, textSpan } from "../../plugin/snapshot/block-span.ts";
import { checksumOf } from "../../plugin/snapshot/checksum.ts";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { REDACTION_RULES_VERSION } from "../../plugin/snapshot/redact.ts";
import { rule } from "../../plugin/snapshot/redact-engine.ts";
import { JudgedBlocks, rulesVersion } from "../../plugin/snapshot/redact-judged.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { snapshot as snap } from "../builders.ts";
import { snapshotArb } from "./arbitraries.ts";

const FILE = "memory/2026-11-20.md";
const token = `ghp_${"Pr5e".repeat(9)}`;
const clean = renderSnapshot(snap("2026-11-20-01", { goal: "ship the parser" }));
const secret = renderSnapshot(snap("2026-11-20-02", { goal: `push with ${token}` }));

describe("rulesVersion", () => {
  const a = rule("service-token", "tok_[a-z]+", { triggers: ["tok_"] });
  it("is the same for the same rules and changes with a pattern, a trigger or a pick", () => {
    expect(rulesVersion([a])).toBe(
      rulesVersion([rule("service-token", "tok_[a-z]+", { triggers: ["tok_"] })]),
    );
    expect(rulesVersion([a])).not.toBe(
      rulesVersion([rule("service-token", "tok_[a-z]{2,}", { triggers: ["tok_"] })]),
    );
    expect(rulesVersion([a])).not.toBe(
      rulesVersion([rule("service-token", "tok_[a-z]+", { triggers: ["tok"] })]),
    );
    expect(rulesVersion([a])).not.toBe(
      rulesVersion([rule("service-token", "tok_[a-z]+", { triggers: ["tok_"], pick: () => undefined })]),
    );
  });
});

describe("JudgedBlocks", () => {
  it("round-trips through its JSON form, and forgets everything judged under other rules", () => {
    const judged = new JudgedBlocks("v1", ["sha256:a", "sha256:b"]);
    expect(JudgedBlocks.from(judged.toJSON(), "v1").toJSON()).toEqual({
      version: "v1",
      checksums: ["sha256:a", "sha256:b"],
    });
    expect(JudgedBlocks.from(judged.toJSON(), "v2").size).toBe(0);
  });

  it("keeps a checksum or block text given as a slice of a larger text as an equal string of its own", () => {
    const log = `${"x".repeat(100_000)}sha256:${"ab".repeat(32)}\n`;
    const slice = log.slice(100_000, -1);
    const judged = new JudgedBlocks("v1");
    judged.add(slice);
    expect([judged.has(slice), judged.has(`sha256:${"ab".repeat(32)}`), judged.size]).toEqual([
      true,
      true,
      1,
    ]);
    expect(judged.toJSON().checksums).toEqual([slice]);
  });

  it("forgets the oldest checksum past its limit", () => {
    const judged = new JudgedBlocks("v1", ["a", "b"], 2);
    judged.add("c");
    expect([judged.has("a"), judged.has("b"), judged.has("c")]).toEqual([false, true, true]);
  });
});

describe("parseDailyLog with a memory of judged blocks", () => {
  it("remembers a verified block found clean, and never one that held a secret", () => {
    const judged = new JudgedBlocks(REDACTION_RULES_VERSION);
    const first = parseDailyLog(`${clean}\n${secret}`, FILE, { judged });
    expect(first.snapshots.map((s) => judged.has(s.checksum ?? ""))).toEqual([true, false]);
    const again = parseDailyLog(`${clean}\n${secret}`, FILE, { judged });
    expect(again).toEqual(first);
    expect(JSON.stringify(again)).not.toContain(token);
  });

  it("does not redact a block it remembers: the checksum names the content that was judged", () => {
    const checksum = parseDailyLog(secret, FILE).snapshots[0]?.checksum ?? "";
    const judged = new JudgedBlocks(REDACTION_RULES_VERSION, [checksum]);
    expect(parseDailyLog(secret, FILE, { judged }).snapshots[0]?.snapshot.goal).toBe(`push with ${token}`);
  });

  it("redacts again every block remembered under other rules", () => {
    const checksum = parseDailyLog(secret, FILE).snapshots[0]?.checksum ?? "";
    const judged = new JudgedBlocks("older rules", [checksum]);
    expect(parseDailyLog(secret, FILE, { judged }).snapshots[0]?.snapshot.goal).toBe(
      "push with [REDACTED:github-token]",
    );
  });

  it("never remembers a block whose checksum does not verify", () => {
    const judged = new JudgedBlocks(REDACTION_RULES_VERSION);
    const edited = clean.replace("ship the parser", "ship the reader");
    const { snapshots } = parseDailyLog(edited, FILE, { judged });
    expect([snapshots[0]?.verified, judged.size]).toEqual([false, 0]);
  });
});

describe("parseDailyLog with a memory of blocks' texts", () => {
  const START = "<!-- BIG-MEMORY-SNAPSHOT v1 -->";
  const keyOf = (text: string) => textSpan(text, text.indexOf(START))?.key ?? "";

  it("remembers the text of a verified block found clean, from a string or from bytes, and never a secret's", () => {
    for (const log of [`${clean}\n${secret}`, new LogText(Buffer.from(`${clean}\n${secret}`))]) {
      const judged = new JudgedBlocks(REDACTION_RULES_VERSION);
      const first = parseDailyLog(log, FILE, { judged });
      expect([judged.has(keyOf(clean)), judged.has(keyOf(secret))]).toEqual([true, false]);
      expect(parseDailyLog(log, FILE, { judged })).toEqual(first);
      expect(JSON.stringify(first)).not.toContain(token);
    }
  });

  it("reads a remembered text as it was read when judged, without redacting it again", () => {
    const judged = new JudgedBlocks(REDACTION_RULES_VERSION, [keyOf(secret)]);
    const read = parseDailyLog(new LogText(Buffer.from(secret)), FILE, { judged }).snapshots[0];
    expect([read?.verified, read?.snapshot.goal]).toEqual([true, `push with ${token}`]);
  });

  it("trusts no other text: an edited block is checksummed again and fails, under the same memory", () => {
    const judged = new JudgedBlocks(REDACTION_RULES_VERSION, [keyOf(clean)]);
    const edited = clean.replace("ship the parser", `ship ${token}`);
    const read = parseDailyLog(new LogText(Buffer.from(edited)), FILE, { judged });
    expect([read.snapshots[0]?.verified, read.snapshots[0]?.snapshot.goal]).toEqual([
      false,
      "ship [REDACTED:github-token]",
    ]);
    expect(judged.size).toBe(1);
  });

  it("reads a text with a lone surrogate as a reader without a memory does (its UTF-8 is that of U+FFFD)", () => {
    const withReplacement = renderSnapshot(snap("2026-11-20-01", { goal: "ship \uFFFD parser" }));
    const judged = new JudgedBlocks(REDACTION_RULES_VERSION);
    parseDailyLog(withReplacement, FILE, { judged });
    expect(judged.has(keyOf(withReplacement))).toBe(true);
    const withSurrogate = withReplacement.replace("\uFFFD", "\uD800");
    expect(parseDailyLog(withSurrogate, FILE, { judged })).toEqual(parseDailyLog(withSurrogate, FILE));
  });

  it("does not remember the text of a block the fast reader read past its first end marker line", () => {
    // A block whose goal is an end marker line, with the checksum of that goal: it verifies, but its text
    // as the memory names it (to the first end marker line) is not what was read.
    const goal = "<!-- /BIG-MEMORY-SNAPSHOT -->";
    const s = snap("2026-11-20-05", { goal });
    const text = renderSnapshot(snap("2026-11-20-05", { goal: "GOAL" }))
      .replace("GOAL", goal)
      .replace(/<!-- checksum: .* -->/, `<!-- checksum: ${checksumOf(s)} -->`);
    const judged = new JudgedBlocks(REDACTION_RULES_VERSION);
    const read = parseDailyLog(text, FILE, { judged }).snapshots;
    expect(read.map((r) => [r.verified, r.snapshot.goal])).toEqual([[true, goal]]);
    expect([judged.size, judged.has(checksumOf(s))]).toEqual([1, true]);
    expect(parseDailyLog(text, FILE, { judged })).toEqual(parseDailyLog(text, FILE));
  });

  it("reads every log as a reader without a memory does, the first time and when remembered", () => {
    fc.assert(
      fc.property(fc.array(snapshotArb, { minLength: 1, maxLength: 4 }), (snaps) => {
        const text = snaps.map((x) => `notes\n\n${renderSnapshot(x)}`).join("\n");
        const alone = parseDailyLog(text, FILE);
        const judged = new JudgedBlocks(REDACTION_RULES_VERSION);
        expect(parseDailyLog(new LogText(Buffer.from(text)), FILE, { judged })).toEqual(alone);
        expect(parseDailyLog(new LogText(Buffer.from(text)), FILE, { judged })).toEqual(alone);
        expect(parseDailyLog(text, FILE, { judged })).toEqual(alone);
      }),
      { numRuns: 150 },
    );
  });
});

describe("parseDailyLog on a hand-written block whose labels stand apart from their values", () => {
  const values = ["Qx7-Prod-2024", "Xk9#mP2vL", "Banco!2026", "Berg-Tal-9x", "Kata-Sandi-77", "Gizli.2025"];
  const block = [
    "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
    "<!-- snapshot-id: 2026-11-20-03 -->",
    "### [SNAPSHOT] Active Goal",
    "Move the database",
    "### [SNAPSHOT] Key Names & Values",
    `- пароль: ${values[0]}`,
    `- 服务器密码: \`${values[1]}\``,
    `- senha do banco: ${values[2]}`,
    `- Passwort: ${values[3]}`,
    `- kata sandi: ${values[4]}`,
    `- şifre: ${values[5]}`,
    "- region: eu-west-1",
    "<!-- /BIG-MEMORY-SNAPSHOT -->",
    "",
  ].join("\n");

  it("judges each value with its label, in every language, and keeps the others", () => {
    const names = parseDailyLog(block, FILE).snapshots[0]?.snapshot.names ?? [];
    expect(names.map((n) => n.value)).toEqual([
      ...values.map(() => "[REDACTED:secret-assignment]"),
      "eu-west-1",
    ]);
    expect(values.filter((v) => JSON.stringify(names).includes(v))).toEqual([]);
  });
});
