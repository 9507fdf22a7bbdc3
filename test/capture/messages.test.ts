import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { draftSnapshot } from "../../plugin/capture/draft.ts";
import { eventsFromMessages, trailForDraft, trailFromMessages } from "../../plugin/capture/messages.ts";
import { emptyTrail, reduceTrail, Trail } from "../../plugin/capture/trail.ts";
import agentEnd from "./fixtures/agent-end-messages.json" with { type: "json" };

const AT = "2026-11-22T10:00:00.000Z";
const iso = (ms: number) => new Date(ms).toISOString();

describe("eventsFromMessages", () => {
  it("reads the pi-agent transcript OpenClaw passes to agent_end", () => {
    const events = eventsFromMessages(agentEnd, AT);
    expect(events.map((e) => (e.type === "tool" ? `tool:${e.tool}` : e.type))).toEqual([
      "ask",
      "ask",
      "assistant",
      "tool:read",
      "tool:edit",
      "tool:exec",
      "assistant",
    ]);
    expect(events[3]).toEqual({
      type: "tool",
      tool: "read",
      params: { path: "src/db/users.ts" },
      result: {
        content: [
          {
            type: "text",
            text: "export async function createUser(db, input) {\n  return db.insert('users', input);\n}",
          },
        ],
        details: undefined,
      },
      error: undefined,
      at: iso(1795168803000),
    });
    expect(events[2]).toEqual({
      type: "assistant",
      texts: ["I'll start with the users repository."],
      at: iso(1795168802000),
    });
  });

  it("pairs OpenAI tool_calls with role tool results and parses their JSON arguments", () => {
    const events = eventsFromMessages(
      [
        { role: "user", content: "Rename the config loader" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "a", type: "function", function: { name: "read", arguments: '{"path":"src/config.ts"}' } },
            { id: "b", type: "function", function: { name: "exec", arguments: "{not json" } },
          ],
        },
        { role: "tool", tool_call_id: "b", content: "done" },
        { role: "tool", tool_call_id: "a", content: "export const x = 1" },
      ],
      AT,
    );
    expect(events).toEqual([
      { type: "ask", text: "Rename the config loader", at: AT },
      { type: "tool", tool: "exec", params: {}, result: { content: "done" }, error: undefined, at: AT },
      {
        type: "tool",
        tool: "read",
        params: { path: "src/config.ts" },
        result: { content: "export const x = 1" },
        error: undefined,
        at: AT,
      },
    ]);
  });

  it("pairs Anthropic tool_use parts with tool_result parts", () => {
    const events = eventsFromMessages(
      [
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "t1", name: "bash", input: { command: "make" } }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: "make: *** No rule", is_error: true }],
        },
      ],
      AT,
    );
    expect(events).toEqual([
      {
        type: "tool",
        tool: "bash",
        params: { command: "make" },
        result: { content: "make: *** No rule" },
        error: "make: *** No rule",
        at: AT,
      },
    ]);
  });

  it("reads a bashExecution message as a bash command", () => {
    const events = eventsFromMessages(
      [
        {
          role: "bashExecution",
          command: "ls",
          output: "a",
          exitCode: 2,
          cancelled: false,
          truncated: false,
        },
      ],
      AT,
    );
    expect(events).toEqual([
      {
        type: "tool",
        tool: "bash",
        params: { command: "ls" },
        result: { exitCode: 2, output: "a" },
        error: undefined,
        at: AT,
      },
    ]);
  });

  it("emits a call that got no result before the next ask, and a result without a call as it is", () => {
    const events = eventsFromMessages(
      [
        {
          role: "assistant",
          content: [{ type: "toolCall", id: "x", name: "write", arguments: { path: "a.md" } }],
        },
        { role: "user", content: "stop" },
        { role: "toolResult", toolName: "read", content: [], isError: true },
      ],
      AT,
    );
    expect(events).toEqual([
      { type: "tool", tool: "write", params: { path: "a.md" }, at: AT },
      { type: "ask", text: "stop", at: AT },
      {
        type: "tool",
        tool: "read",
        params: {},
        result: { content: [], details: undefined },
        error: "error",
        at: AT,
      },
    ]);
  });

  it("skips messages of unknown shape and runtime-context carriers", () => {
    expect(
      eventsFromMessages(
        [
          null,
          42,
          "text",
          { role: "system", content: "x" },
          { role: "user" },
          { role: "user", content: "ctx", runtimeContextCarrier: true },
          { role: "compactionSummary", summary: "s", tokensBefore: 1, timestamp: 1 },
          { role: "assistant", content: [{ type: "thinking", thinking: "hmm" }] },
        ],
        AT,
      ),
    ).toEqual([]);
  });

  it("uses string timestamps as they are and `at` for invalid ones", () => {
    const events = eventsFromMessages(
      [
        { role: "user", content: "one", timestamp: "2026-01-01T00:00:00Z" },
        { role: "user", content: "two", timestamp: Number.NaN },
        { role: "user", content: "three", timestamp: 1e20 },
      ],
      AT,
    );
    expect(events.map((e) => e.at)).toEqual(["2026-01-01T00:00:00Z", AT, AT]);
  });
});

describe("trailFromMessages", () => {
  it("builds the trail a draft needs from an agent_end transcript", () => {
    const trail = trailFromMessages(agentEnd, AT);
    expect(trail.firstAsk).toBe(
      "Users can sign up twice with the same email. Make signup reject duplicates (ticket INV-2026-00417).",
    );
    expect(trail.turns).toBe(1);
    expect(trail.toolCalls).toBe(3);
    expect(trail.files).toEqual([
      {
        path: "src/db/users.ts",
        reads: 1,
        writes: 1,
        created: false,
        lastAction: "edit",
        lastSeen: iso(1795168805000),
      },
    ]);
    expect(trail.commands).toEqual([
      {
        command: "npm test",
        status: "failed",
        exitCode: 1,
        error:
          "FAIL  test/users.test.ts > createUser > rejects duplicates\nError: insertUnique is not a function (ERR_DB_METHOD)",
        at: iso(1795168808000),
      },
    ]);
    expect(trail.decisions).toEqual([
      "We'll use a unique index instead of an application-side check because two signups can race.",
    ]);
    expect(draftSnapshot(trail).next).toEqual([
      "Fix `ERR_DB_METHOD` in `src/db/users.ts`, then re-run `npm test`",
      "Add a migration creating a unique index on `users.email`",
      "Map the driver's unique violation to ERR_DUPLICATE_KEY",
      "Rerun `npm test`",
    ]);
  });

  it("makes paths under workspaceDir relative", () => {
    const trail = trailFromMessages(
      [
        {
          role: "assistant",
          content: [{ type: "toolCall", id: "1", name: "read", arguments: { path: "/ws/a.ts" } }],
        },
        {
          role: "toolResult",
          toolCallId: "1",
          toolName: "read",
          content: [{ type: "text", text: "" }],
          isError: false,
        },
      ],
      AT,
      { workspaceDir: "/ws" },
    );
    expect(trail.files.map((f) => f.path)).toEqual(["a.ts"]);
  });

  it("returns an empty trail for an empty transcript", () => {
    expect(trailFromMessages([], AT)).toEqual(emptyTrail());
  });

  it("never throws and returns a valid trail for any array", () => {
    const part = fc.oneof(
      fc.record({ type: fc.constant("text"), text: fc.string() }),
      fc.record({
        type: fc.constant("toolCall"),
        id: fc.string(),
        name: fc.string(),
        arguments: fc.anything(),
      }),
      fc.anything(),
    );
    const message = fc.oneof(
      fc.record({
        role: fc.constantFrom("user", "assistant", "toolResult", "tool", "bashExecution"),
        content: fc.oneof(fc.string(), fc.array(part, { maxLength: 4 })),
        toolCallId: fc.string({ maxLength: 2 }),
        toolName: fc.constantFrom("read", "exec", "edit"),
        details: fc.anything(),
        isError: fc.boolean(),
        command: fc.string(),
        timestamp: fc.oneof(fc.integer(), fc.double(), fc.string()),
      }),
      fc.anything(),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 30 }), (messages) => {
        const trail = trailFromMessages(messages, AT);
        expect(Trail.parse(trail)).toEqual(trail);
      }),
      { numRuns: 200 },
    );
  });
});

describe("trailForDraft", () => {
  const transcript = [
    {
      role: "user",
      content: "Add a unique index on users.email in migrations/0042_unique_email.sql",
      timestamp: 1795168800000,
    },
    {
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "exec", arguments: { command: "npm test" } }],
      timestamp: 1795168801000,
    },
    {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "exec",
      content: [
        { type: "text", text: "Error: duplicate key (ERR_DUPLICATE_KEY)\n\n(Command exited with code 1)" },
      ],
      details: { status: "completed", exitCode: 1 },
      timestamp: 1795168802000,
    },
  ];

  it("drafts from the conversation a hook hands over when it saw more than the session's trail", () => {
    const trail = trailForDraft(emptyTrail(), transcript, "2026-11-22T10:00:00.000Z");
    expect(trail.firstAsk).toBe("Add a unique index on users.email in migrations/0042_unique_email.sql");
    expect(trail.failing.map((f) => f.name)).toEqual(["ERR_DUPLICATE_KEY"]);
  });

  it("keeps the session's trail when no conversation was handed over, and adds nothing it already holds", () => {
    const own = trailFromMessages(transcript, "2026-11-22T10:00:00.000Z");
    expect(trailForDraft(own, undefined, "2026-11-22T10:00:00.000Z")).toBe(own);
    expect(trailForDraft(own, [], "2026-11-22T10:00:00.000Z")).toBe(own);
    expect(trailForDraft(own, transcript, "2026-11-22T10:00:00.000Z")).toEqual(own);
  });

  it("fills in the turns the trail missed, keeping what it observed first", () => {
    // The plugin loaded after the first turn: it saw a later ask, a read and a passing lint only.
    let own = emptyTrail();
    for (const event of [
      { type: "ask" as const, text: "also reject emails with a plus sign", at: "2026-11-22T10:05:00.000Z" },
      {
        type: "tool" as const,
        tool: "read",
        params: { path: "src/users.ts" },
        at: "2026-11-22T10:05:01.000Z",
      },
      {
        type: "tool" as const,
        tool: "exec",
        params: { command: "npm run lint" },
        result: { details: { exitCode: 0 } },
        at: "2026-11-22T10:05:02.000Z",
      },
    ])
      own = reduceTrail(own, event);
    const conversation = [
      ...transcript,
      { role: "user", content: "also reject emails with a plus sign", timestamp: 1795169100000 },
    ];
    const merged = trailForDraft(own, conversation, "2026-11-22T10:00:00.000Z");
    expect(merged.firstAsk).toBe("Add a unique index on users.email in migrations/0042_unique_email.sql");
    expect(merged.asks.map((a) => a.text)).toEqual([
      "Add a unique index on users.email in migrations/0042_unique_email.sql",
      "also reject emails with a plus sign",
    ]);
    expect(merged.failing.map((f) => f.name)).toEqual(["ERR_DUPLICATE_KEY"]);
    expect(merged.commands.map((c) => c.command)).toEqual(["npm test", "npm run lint"]);
    expect(merged.files.map((f) => f.path)).toEqual(["migrations/0042_unique_email.sql", "src/users.ts"]);
    expect(merged.toolCalls).toBe(2);
    expect(merged.last).toEqual(own.last);
    expect(Trail.parse(merged)).toEqual(merged);
  });

  it("leaves a failure the trail saw pass again healed", () => {
    const own = reduceTrail(emptyTrail(), {
      type: "tool",
      tool: "exec",
      params: { command: "npm test" },
      result: { details: { exitCode: 0 } },
      at: "2026-11-22T10:05:00.000Z",
    });
    expect(trailForDraft(own, transcript, "2026-11-22T10:00:00.000Z").failing).toEqual([]);
  });

  it("heals a conversation's failed chain only when the trail saw each of its steps pass", () => {
    const chain = "npm run lint && npm test";
    const failed = transcript.map((m) =>
      m.role === "assistant"
        ? { ...m, content: [{ type: "toolCall", id: "c1", name: "exec", arguments: { command: chain } }] }
        : m,
    );
    const ran = (command: string, at: string) =>
      ({
        type: "tool",
        tool: "exec",
        params: { command },
        result: { details: { exitCode: 0 } },
        at,
      }) as const;
    const testsOnly = reduceTrail(emptyTrail(), ran("npm test", "2026-11-22T10:05:00.000Z"));
    expect(
      trailForDraft(testsOnly, failed, "2026-11-22T10:00:00.000Z").failing.map((f) => f.command),
    ).toEqual([chain]);
    const both = reduceTrail(testsOnly, ran("npm run lint", "2026-11-22T10:06:00.000Z"));
    expect(trailForDraft(both, failed, "2026-11-22T10:00:00.000Z").failing).toEqual([]);
  });
});
