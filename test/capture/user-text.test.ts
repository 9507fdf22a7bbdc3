import { describe, expect, it } from "vitest";
import {
  cleanUserText,
  firstTask,
  isSubstantialAsk,
  isThinAsk,
  taskText,
  userMessages,
} from "../../plugin/capture/user-text.ts";

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

describe("userMessages", () => {
  it("splits OpenClaw's batch of queued messages, senders and separators removed", () => {
    const batch =
      "[Queued messages while agent was busy]\n\n---\nQueued #1 (from Ana)\nFix the header\n\n---\nQueued #2\nand the footer too";
    expect(userMessages(batch)).toEqual(["Fix the header", "and the footer too"]);
  });

  it("separates a message left over from an interrupted turn from the new prompt", () => {
    const text =
      "[Queued user message from a previous active turn; preserved as context only. Continue with the active prompt below.]\nold ask\n\nnew ask";
    expect(userMessages(text)).toEqual(["old ask", "new ask"]);
  });

  it("keeps any other text as one message", () => {
    expect(userMessages("line one\n\nline two")).toEqual(["line one\n\nline two"]);
    expect(userMessages("  ")).toEqual([]);
  });
});

describe("taskText", () => {
  it.each([
    ["Fix the login bug on Safari", "Fix the login bug on Safari"],
    ["you forgot what we were doing", null],
    ["Continue: you forgot what we were doing", null],
    ["¿en qué estábamos? sigue", null],
    ["/big-memory resume auth-refactor please", null],
    ["You forgot. We were adding OAuth to the login page.", "We were adding OAuth to the login page."],
    ["Please continue with the database migration for invoices", "the database migration for invoices"],
    ["ok thanks", null],
  ])("reads %j as %j", (text, expected) => {
    expect(taskText(text)).toBe(expected);
  });
});

describe("isThinAsk and firstTask", () => {
  it("tells an ask that names the work only by a handle from one that states it", () => {
    expect(isThinAsk("go ahead and start working on #004")).toBe(true);
    expect(isThinAsk("continue working on #001, check the current state of the task first")).toBe(true);
    expect(isThinAsk("Add a unique index on users.email in the migration")).toBe(false);
  });

  it("joins the next task to a thin first one, and keeps a first task that states the work", () => {
    const thin = firstTask(null, "start working on task 002");
    expect(thin).toBe("start working on task 002");
    const stated = firstTask(thin, "lets reconstruct the session db from the `session create` logic");
    expect(stated).toBe(
      "start working on task 002. lets reconstruct the session db from the `session create` logic",
    );
    expect(firstTask(stated, "also migrate the session repos")).toBe(stated);
    expect(firstTask(thin, "continue")).toBe(thin);
  });
});
