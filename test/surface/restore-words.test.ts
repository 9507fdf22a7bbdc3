import { describe, expect, it } from "vitest";
import type { RestoreLogEntry } from "../../plugin/session/state-files.ts";
import {
  injectedTokens,
  reasonText,
  restoreReceipt,
  tokensText,
} from "../../plugin/surface/restore-words.ts";

const entry = (over: Partial<RestoreLogEntry>): RestoreLogEntry => ({
  at: "2026-11-20T10:00:00.000Z",
  id: "bm-2026-11-20-001",
  session: "agent:main:main",
  reason: "compaction",
  tokens: 100,
  ...over,
});

describe("injectedTokens", () => {
  it("sums the tokens in all and per session, a line without a session under (none)", () => {
    const t = injectedTokens([
      entry({ tokens: 120 }),
      entry({ session: null, tokens: 30 }),
      entry({ id: "bm-2026-11-20-002", tokens: 50, reason: "resume" }),
    ]);
    expect(t.total).toBe(200);
    expect(t.sessions).toEqual({ "agent:main:main": 170, "(none)": 30 });
    expect(t.last).toEqual({
      id: "bm-2026-11-20-002",
      at: "2026-11-20T10:00:00.000Z",
      reason: "resume",
      session: "agent:main:main",
      tokens: 50,
    });
  });

  it("counts a line without a token count as none, and reports its count as unknown", () => {
    const { tokens: _, ...withoutCount } = entry({});
    const t = injectedTokens([withoutCount]);
    expect(t.total).toBe(0);
    expect(t.last?.tokens).toBeNull();
  });

  it("has no last restore when there is none", () => {
    expect(injectedTokens([])).toEqual({ total: 0, sessions: {}, last: null });
  });
});

describe("restore wording", () => {
  it("names each reason in words and passes an unknown one through", () => {
    expect(reasonText("compaction")).toBe("after compaction");
    expect(reasonText("reset")).toBe("after reset");
    expect(reasonText("amnesia")).toBe('"you forgot"');
    expect(reasonText("resume")).toBe("resume");
    expect(reasonText("recall")).toBe("recall tool");
    expect(reasonText("later-kind")).toBe("later-kind");
  });

  it("counts tokens for people, singular and unknown included", () => {
    expect(tokensText(1)).toBe("1 token");
    expect(tokensText(1234)).toBe("1,234 tokens");
    expect(tokensText(null)).toBe("? tokens");
  });

  it("writes the gateway log's receipt with the snapshot, reason, tokens and session", () => {
    expect(restoreReceipt("restored bm-2026-11-20-001", "amnesia", 880, "agent:main:main")).toBe(
      'big-memory: restored bm-2026-11-20-001 ("you forgot", 880 tokens, agent:main:main)',
    );
  });
});
