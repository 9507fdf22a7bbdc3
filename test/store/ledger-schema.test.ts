import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LEDGER_COVERS, LEDGER_OUTCOMES, LEDGER_PATHS, ledgerLineOf } from "../../plugin/store/ledger.ts";
import { LedgerLine } from "../../plugin/store/ledger-schema.ts";

/** Values near the ledger's lines: right and wrong kinds, fields of every type, extra fields. */
const near = fc.record(
  {
    v: fc.constantFrom(1, 2, "1"),
    kind: fc.constantFrom("cycle", "outcome", "restore", "other"),
    cycle: fc.oneof(fc.string(), fc.integer()),
    session: fc.oneof(fc.string(), fc.constant(null)),
    at: fc.string(),
    agent: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
    path: fc.constantFrom(...LEDGER_PATHS, "teleport"),
    flush: fc.oneof(fc.boolean(), fc.constant("yes")),
    cover: fc.constantFrom(...LEDGER_COVERS, "magic"),
    snapshot: fc.oneof(fc.string(), fc.constant(null)),
    file: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
    outcome: fc.constantFrom(...LEDGER_OUTCOMES, "maybe"),
    note: fc.oneof(fc.string(), fc.integer()),
    tokens: fc.oneof(fc.nat(), fc.integer({ min: -5, max: -1 }), fc.double()),
    marks: fc.oneof(
      fc.array(fc.string(), { maxLength: 22 }),
      fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
      fc.string(),
    ),
    extra: fc.string(),
  },
  { requiredKeys: ["v", "kind", "cycle", "session", "at"] },
);

describe("LedgerLine", () => {
  it("accepts exactly what the hand-written reader accepts, and both keep the same fields", () => {
    fc.assert(
      fc.property(near, (value) => {
        const parsed = LedgerLine.safeParse(value);
        expect(ledgerLineOf(value)).toEqual(parsed.success ? parsed.data : null);
      }),
      { numRuns: 2000 },
    );
  });

  it("names what is wrong with a line that is not one", () => {
    const r = LedgerLine.safeParse({
      v: 1,
      kind: "cycle",
      cycle: "c",
      session: "s",
      at: "a",
      path: "teleport",
    });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join("."))).toContain("path");
  });
});

describe("references/LEDGER.md", () => {
  it("lists every path, cover and outcome the schema knows", async () => {
    const { readFile } = await import("node:fs/promises");
    const doc = await readFile(new URL("../../references/LEDGER.md", import.meta.url), "utf8");
    for (const word of [...LEDGER_PATHS, ...LEDGER_COVERS, ...LEDGER_OUTCOMES])
      expect(doc).toContain(`\`${word}\``);
  });
});
