import { describe, expect, it } from "vitest";
import { convertPi } from "./convert-pi.ts";
import { toolEvents } from "./session.ts";

/** Lines in the shape of a pi session file (pi-mono `large-session.jsonl`): header, messages, other entries. */
const lines = [
  {
    type: "session",
    id: "d703a1a9",
    timestamp: "2025-11-20T23:33:50.805Z",
    cwd: "/Users/dev/pi-mono",
    provider: "anthropic",
    modelId: "claude-sonnet-4-5",
  },
  {
    type: "message",
    message: { role: "user", content: [{ type: "text", text: "/mode" }], timestamp: 1763681581544 },
  },
  { type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" },
  {
    type: "message",
    message: {
      role: "user",
      content: [{ type: "text", text: "port user-message-selector.ts to the theme tokens" }],
    },
  },
  {
    type: "message",
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "…" },
        { type: "text", text: "Reading the selectors first." },
        {
          type: "toolCall",
          id: "t1",
          name: "read",
          arguments: { path: "packages/coding-agent/src/tui/theme.ts" },
        },
        { type: "toolCall", id: "t2", name: "bash", arguments: { command: "npm run check" } },
      ],
    },
  },
  {
    type: "message",
    message: {
      role: "toolResult",
      toolCallId: "t1",
      toolName: "read",
      content: [{ type: "text", text: "export const theme = {};" }],
      isError: false,
    },
  },
  {
    type: "message",
    message: {
      role: "toolResult",
      toolCallId: "t2",
      toolName: "bash",
      content: [
        {
          type: "text",
          text: "src/tui/a.ts(28,2): error TS2739: Type is missing\n\nCommand exited with code 2",
        },
      ],
      isError: true,
    },
  },
  { type: "compaction", summary: "…", firstKeptEntryIndex: 3 },
  {
    type: "message",
    message: {
      role: "assistant",
      content: [
        {
          type: "toolCall",
          id: "t3",
          name: "edit",
          arguments: { path: "src/a.ts", oldText: "x", newText: "y" },
        },
      ],
    },
  },
  {
    type: "message",
    message: {
      role: "toolResult",
      toolCallId: "t3",
      toolName: "edit",
      content: [{ type: "text", text: "Could not find the exact text" }],
      isError: true,
    },
  },
];
const TEXT = lines.map((l) => JSON.stringify(l)).join("\n");

describe("convertPi", () => {
  it("reads the header's cwd, user and assistant texts, and each tool call when its result arrives", () => {
    const s = convertPi(TEXT, { id: "pi-x", source: "pi-mono" });
    expect(s).toMatchObject({ id: "pi-x", source: "pi-mono", format: "pi", cwd: "/Users/dev/pi-mono" });
    expect(s.events.map((e) => (e.kind === "tool" ? `tool:${e.tool}` : e.kind))).toEqual([
      "user",
      "user",
      "assistant",
      "tool:read",
      "tool:exec",
      "tool:edit",
    ]);
    expect(toolEvents(s)).toHaveLength(3);
  });

  it("maps bash to exec with its command and reads the exit code a failed run ends with", () => {
    const exec = toolEvents(convertPi(TEXT, { id: "pi-x", source: "pi-mono" }))[1];
    expect(exec).toMatchObject({
      tool: "exec",
      params: { command: "npm run check" },
      failed: true,
      exitCode: 2,
    });
  });

  it("marks a tool the agent reported as an error as failed, with no exit code", () => {
    const edit = toolEvents(convertPi(TEXT, { id: "pi-x", source: "pi-mono" }))[2];
    expect(edit).toMatchObject({ tool: "edit", params: { path: "src/a.ts" }, failed: true, exitCode: null });
  });

  it("names the line that is not JSON", () => {
    expect(() => convertPi(`${TEXT}\n{"type":`, { id: "pi-x", source: "pi-mono" })).toThrow(
      "pi-x:11: pi session line is not JSON (expected one object a line)",
    );
  });
});
