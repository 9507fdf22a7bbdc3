import { describe, expect, it } from "vitest";
import { hookCalls, movedParams, toolOutcome } from "./hook-stream.ts";
import type { RealSession, ToolEvent } from "./session.ts";

const tool = (t: Partial<ToolEvent>): ToolEvent => ({
  kind: "tool",
  tool: "exec",
  params: {},
  output: "",
  failed: false,
  exitCode: null,
  ...t,
});

describe("toolOutcome", () => {
  it("gives a failed command OpenClaw's exec result: exit code in details, suffix at the end of the text", () => {
    const e = tool({
      params: { command: "npm test" },
      output: "FAIL x\nCommand exited with code 1",
      failed: true,
      exitCode: 1,
    });
    expect(toolOutcome(e)).toEqual({
      result: {
        content: [{ type: "text", text: "FAIL x\n\n(Command exited with code 1)" }],
        details: { status: "completed", exitCode: 1, aggregated: "FAIL x" },
      },
    });
  });

  it("gives a failed call of another tool as an error", () => {
    expect(
      toolOutcome(tool({ tool: "edit", output: "Could not find the exact text", failed: true })),
    ).toEqual({
      error: "Could not find the exact text",
    });
  });
});

describe("movedParams", () => {
  it("moves absolute paths under the session's directory into the workspace and keeps others", () => {
    expect(
      movedParams({ path: "/Users/dev/app/src/a.ts", content: "x" }, "/Users/dev/app", "/tmp/ws"),
    ).toEqual({
      path: "/tmp/ws/src/a.ts",
      content: "x",
    });
    expect(movedParams({ path: "/etc/hosts" }, "/Users/dev/app", "/tmp/ws")).toEqual({ path: "/etc/hosts" });
  });
});

describe("hookCalls", () => {
  it("opens a turn per user message, ends the previous one, and ends the last", () => {
    const s: RealSession = {
      id: "s",
      source: "src",
      format: "pi",
      cwd: null,
      events: [
        { kind: "user", text: "fix the login test" },
        { kind: "assistant", text: "Running it." },
        tool({ params: { command: "pytest" }, exitCode: 0 }),
        { kind: "user", text: "now the docs" },
      ],
    };
    const calls = hookCalls(s, s.events, "/tmp/ws");
    expect(calls.map((c) => c.hook)).toEqual([
      "before_prompt_build",
      "llm_output",
      "before_tool_call",
      "after_tool_call",
      "agent_end",
      "before_prompt_build",
      "agent_end",
    ]);
    expect(calls[0]).toEqual({
      hook: "before_prompt_build",
      event: { prompt: "fix the login test", messages: [] },
      ctx: { trigger: "user" },
    });
    expect(calls[1]?.event).toMatchObject({ assistantTexts: ["Running it."] });
  });
});
