import { describe, expect, it } from "vitest";
import { cleanUserText, isSubstantialAsk } from "../../plugin/capture/user-text.ts";

describe("cleanUserText", () => {
  it.each([
    ["plain text", "  Fix it  ", "Fix it"],
    ["an envelope", "[Telegram Ana Mon 2026-01-05 16:26] Deploy now", "Deploy now"],
    ["a System line", "System: [2026-01-12 12:19:17 PST] Model switched.\nAdd tests", "Add tests"],
    [
      "an inline runtime block",
      "Ship it\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nx\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>",
      "Ship it",
    ],
    ["a runtime context message", "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nx", null],
    ["a compaction summary", "The conversation history before this point was compacted into ...", null],
    ["only metadata", 'Sender (untrusted metadata):\n```json\n{"a":1}\n```', null],
  ])("cleans %s", (_, input, expected) => {
    expect(cleanUserText(input)).toBe(expected);
  });
});

describe("isSubstantialAsk", () => {
  it.each([
    ["Fix the login bug on Safari", true],
    ["please continue with that", false],
    ["ok thanks a lot!", false],
    ["/big-memory save auth-refactor", false],
    ["fix it", false],
  ])("says %j is %s", (text, expected) => {
    expect(isSubstantialAsk(text)).toBe(expected);
  });
});
