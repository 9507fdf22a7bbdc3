import { describe, expect, it } from "vitest";
import type { LedgerRecord } from "../../plugin/store/ledger.ts";
import type { DoctorFacts } from "../../plugin/surface/doctor-checks.ts";
import {
  ledgerCheck,
  unobservedChecks,
  unobservedCompactions,
} from "../../plugin/surface/doctor-compactions.ts";

const record = (over: Partial<LedgerRecord> = {}): LedgerRecord => ({
  cycle: "2026-11-25T10:00:00.000Z",
  session: "agent:main:main",
  agent: "main",
  path: "preflight",
  flush: true,
  cover: "flush",
  snapshot: "2026-11-25-01",
  file: "memory/2026-11-25.md",
  outcome: "done",
  note: null,
  restore: { at: "2026-11-25T10:00:05.000Z", snapshot: "2026-11-25-01", tokens: 600 },
  ...over,
});
const facts = (compactions: DoctorFacts["compactions"], config: Record<string, unknown> = {}) =>
  ({ compactions, config: { path: "/c", exists: true, problem: null, value: config } }) as DoctorFacts;

describe("ledgerCheck", () => {
  it("says how many of the last five compactions were captured and for how many the flush ran", () => {
    const records = [
      record({ cover: "none", snapshot: null, cycle: "2026-11-25T09:00:00.000Z" }),
      record(),
      record({ path: "overflow", flush: false, cover: "safety-net" }),
      record({ path: "manual", flush: false, cover: "existing" }),
      record({ path: "overflow", flush: false, cover: "safety-net", outcome: "failed", restore: null }),
      record({ path: "reset", flush: false, cover: "safety-net" }),
      record({ outcome: "open", restore: null }),
    ];
    expect(ledgerCheck(facts({ records, problem: null }))).toEqual({
      name: "compactions",
      status: "ok",
      detail:
        "the last 5 compactions were all captured; the flush ran for 1; 4 restored; 1 did not happen (nothing restored)",
      fix: null,
    });
  });

  it("warns when one of them was not captured, and names a ledger it cannot read", () => {
    const warn = ledgerCheck(
      facts({ records: [record(), record({ cover: "none", snapshot: null })], problem: null }),
    );
    expect([warn.status, warn.detail]).toEqual([
      "warn",
      "the last 2 compactions: 1 captured; the flush ran for 2; 2 restored",
    ]);
    expect(ledgerCheck(facts({ records: [], problem: ".big-memory/ledger.jsonl is a folder" })).status).toBe(
      "warn",
    );
    expect(ledgerCheck(facts(undefined)).detail).toBe("none observed yet");
  });
});

describe("unobservedCompactions", () => {
  it("finds a context engine in the slot and CLI backends in model refs and runtime policy", () => {
    expect(
      unobservedCompactions({
        plugins: { slots: { contextEngine: "lossless-claw" } },
        agents: {
          defaults: {
            model: { primary: "anthropic/claude-opus-5", fallbacks: ["gemini-cli/gemini-3-pro"] },
            models: { "anthropic/claude-opus-5": { agentRuntime: { id: "claude-cli" } } },
          },
        },
      }),
    ).toEqual({ engine: "lossless-claw", cliBackends: ["claude-cli", "gemini-cli"] });
    expect(unobservedCompactions({ plugins: { slots: { contextEngine: "legacy" } }, agents: {} })).toEqual({
      engine: null,
      cliBackends: [],
    });
  });

  it("says plainly which compactions are not observed", () => {
    const checks = unobservedChecks(
      facts(undefined, {
        plugins: { slots: { contextEngine: "lossless-claw" } },
        agents: { defaults: { model: { primary: "claude-cli/claude-sonnet-5" } } },
      }),
    );
    expect(checks.map((c) => [c.name, c.status])).toEqual([
      ["context engine", "warn"],
      ["CLI backends", "warn"],
    ]);
    expect(checks[1]?.detail).toContain("claude-cli compact natively: no hook fires");
  });
});
