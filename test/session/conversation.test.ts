import { describe, expect, it } from "vitest";
import {
  COMPACTION_SUMMARY_START,
  countConversation,
  providerMarkOf,
  providerMarks,
  showsCompaction,
} from "../../plugin/session/conversation.ts";

// Shapes as OpenClaw hands them to before_prompt_build / agent_end (pi-agent messages).
const user = (text: string) => ({
  role: "user",
  content: [{ type: "text", text }],
  timestamp: 1764064800000,
});
const assistant = (text: string, providerReplay?: Record<string, unknown>) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  ...(providerReplay === undefined ? {} : { providerReplay }),
});
const summary = {
  role: "user",
  content: `${COMPACTION_SUMMARY_START} into the following summary:\n## Goal\n...`,
};
const internal = user("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nruntime\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>");

describe("countConversation", () => {
  it("counts the user's own turns and the summaries, leaving out internal context and other shapes", () => {
    const messages = [
      summary,
      user("[Wed 2026-11-25 10:00 UTC] Fix ERR_DUPLICATE_KEY"),
      internal,
      assistant("On it."),
      { role: "toolResult", toolCallId: "c1", content: "ok" },
      user("and the logout page"),
      "not a message",
      null,
    ];
    expect(countConversation(messages)).toEqual({ asks: 2, summaries: 1 });
  });

  it("counts a summary carried by a compactionSummary message", () => {
    expect(countConversation([{ role: "compactionSummary", summary: "..." }])).toEqual({
      asks: 0,
      summaries: 1,
    });
  });
});

describe("showsCompaction", () => {
  it("is true for fewer user turns or more summaries than were seen, false for the same or more turns", () => {
    const seen = { asks: 5, summaries: 0 };
    expect(showsCompaction({ asks: 2, summaries: 1 }, seen, summary)).toBe(true);
    expect(showsCompaction({ asks: 3, summaries: 0 }, seen, user("x"))).toBe(true);
    expect(showsCompaction({ asks: 5, summaries: 0 }, seen, user("x"))).toBe(false);
    expect(showsCompaction({ asks: 6, summaries: 0 }, seen, user("x"))).toBe(false);
  });

  it("with nothing counted before, takes a conversation that opens with a summary as the proof", () => {
    expect(showsCompaction({ asks: 1, summaries: 1 }, null, summary)).toBe(true);
    expect(showsCompaction({ asks: 4, summaries: 0 }, null, user("x"))).toBe(false);
  });
});

describe("providerMarkOf", () => {
  it("keys an OpenAI Responses compaction by its id, and Anthropic's block by a hash of its data", () => {
    const openai = {
      v: 1,
      type: "openai-responses-compaction",
      id: "cmp_68a1",
      data: "gAAAA...",
      replayIndex: 3,
    };
    expect(providerMarkOf(assistant("done", openai))).toBe("openai-responses-compaction:cmp_68a1");
    const anthropic = {
      v: 1,
      type: "anthropic-compaction",
      data: "Summary of the work so far",
      replayIndex: 0,
    };
    const key = providerMarkOf(assistant("done", anthropic));
    expect(key).toMatch(/^anthropic-compaction:[0-9a-f]{24}$/);
    expect(providerMarkOf(assistant("again", anthropic))).toBe(key);
  });

  it("ignores OpenClaw's own compaction (retained), suppressions, other roles and malformed markers", () => {
    const retained = { v: 1, type: "openai-responses-retained-compaction", id: "cmp_1", data: "x" };
    const suppressed = { v: 1, type: "openai-responses-compaction-suppression", data: "rejected" };
    expect(providerMarkOf(assistant("x", retained))).toBeNull();
    expect(providerMarkOf(assistant("x", suppressed))).toBeNull();
    expect(
      providerMarkOf({ ...user("x"), providerReplay: { type: "openai-responses-compaction", id: "a" } }),
    ).toBeNull();
    expect(providerMarkOf(assistant("x", { type: "anthropic-compaction", data: "" }))).toBeNull();
    expect(providerMarkOf(undefined)).toBeNull();
  });

  it("lists the markers of a conversation in order", () => {
    const mark = (id: string) => assistant("x", { type: "openai-responses-compaction", id, data: "d" });
    expect(providerMarks([user("a"), mark("c1"), user("b"), mark("c2")])).toEqual([
      "openai-responses-compaction:c1",
      "openai-responses-compaction:c2",
    ]);
  });
});
