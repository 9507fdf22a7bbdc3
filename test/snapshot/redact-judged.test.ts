import { describe, expect, it } from "vitest";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { REDACTION_RULES_VERSION } from "../../plugin/snapshot/redact.ts";
import { rule } from "../../plugin/snapshot/redact-engine.ts";
import { JudgedBlocks, rulesVersion } from "../../plugin/snapshot/redact-judged.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { snapshot as snap } from "../builders.ts";

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
