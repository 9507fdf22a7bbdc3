import { describe, expect, it } from "vitest";
import { flushPrompt } from "../../plugin/capture/flush-prompt.ts";
import { parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { followFlushPrompt } from "./scripted-model.ts";

const INPUT = {
  file: "memory/2026-11-22.md",
  id: "2026-11-22-02",
  timestamp: "2026-11-22T14:05:00+01:00",
  clock: "14:05",
  session: "agent:main:main",
  agent: "main",
};

describe("followFlushPrompt", () => {
  it("writes back the draft the prompt carries as a block the parser reads, for the prompt's file and id", () => {
    const prompt = flushPrompt({
      ...INPUT,
      draft: {
        goal: "Fix ERR_DUPLICATE_KEY on second login",
        state: { phase: "debugging", branch: "fix/oauth", blocked: "no", progress: "root cause found" },
        files: [{ path: "src/auth/oauth-callback.ts", note: "edited" }],
        decisions: [{ text: "Dedupe in the callback", rationale: "the index alone races" }],
        code: "$ npm test\nError: duplicate key (ERR_DUPLICATE_KEY)\n(exit code 1)",
        names: [{ label: "error", value: "ERR_DUPLICATE_KEY" }],
        blockers: ["`npm test` failed: ERR_DUPLICATE_KEY"],
        next: ["Re-run `npm test`"],
        extra: [
          {
            heading: "Recent Activity",
            body: "ran `npm test` (exit 1); changed `src/auth/oauth-callback.ts`",
          },
        ],
      },
    });
    const write = followFlushPrompt(prompt);
    expect(write.file).toBe("memory/2026-11-22.md");
    const [located] = parseDailyLog(write.block, write.file).snapshots;
    expect(located?.snapshot).toMatchObject({
      id: "2026-11-22-02",
      session: "agent:main:main",
      agent: "main",
      trigger: "flush",
      goal: "Fix ERR_DUPLICATE_KEY on second login",
      state: { phase: "debugging", branch: "fix/oauth", blocked: "no", progress: "root cause found" },
      files: [{ path: "src/auth/oauth-callback.ts", note: "edited" }],
      names: [{ label: "error", value: "ERR_DUPLICATE_KEY" }],
      decisions: [{ text: "Dedupe in the callback", rationale: "the index alone races" }],
      code: "$ npm test\nError: duplicate key (ERR_DUPLICATE_KEY)\n(exit code 1)",
      blockers: ["`npm test` failed: ERR_DUPLICATE_KEY"],
      next: ["Re-run `npm test`"],
      extra: [
        { heading: "Recent Activity", body: "ran `npm test` (exit 1); changed `src/auth/oauth-callback.ts`" },
      ],
    });
  });

  it("writes none in every section when the prompt carries no draft", () => {
    const write = followFlushPrompt(flushPrompt({ ...INPUT, draft: null }));
    const [located] = parseDailyLog(write.block, write.file).snapshots;
    expect(located?.snapshot).toMatchObject({ goal: "", files: [], next: [] });
  });

  it("says what it expected when the text is no flush prompt", () => {
    expect(() => followFlushPrompt("hello")).toThrow(
      "flush prompt: expected a daily log path and a ```markdown template, found neither",
    );
  });
});
