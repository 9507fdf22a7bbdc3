import { writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { observe } from "../../plugin/session/capture-service.ts";
import { flushTarget } from "../../plugin/session/flush-target.ts";
import { sessionStatePath } from "../../plugin/session/session-state.ts";
import type { Workspace } from "../../plugin/session/workspace.ts";
import { NOW, useWorkspaces } from "./fixtures.ts";

const workspace = useWorkspaces();
const AT = NOW.toISOString();

describe("flushTarget", () => {
  const user = (text: string) => ({
    role: "user",
    content: [{ type: "text", text: `[Sun 2026-11-22 12:00 UTC] ${text}` }],
  });
  const ask = (ws: Workspace, key: string, text: string) =>
    observe(ws, { sessionKey: key, agentId: "main" }, { type: "ask", text, at: AT });

  it("takes the agent's only session when there is no conversation, and guesses none among several", async () => {
    const { ws } = await workspace();
    ask(ws, "agent:main:a", "Fix the login redirect");
    expect((await flushTarget(ws, "main", undefined))?.sessionKey).toBe("agent:main:a");
    expect((await flushTarget(ws, "main", []))?.sessionKey).toBe("agent:main:a");
    expect(await flushTarget(ws, "main", [user("something else entirely")])).toBeNull();
    ask(ws, "agent:main:b", "Migrate billing exports");
    expect(await flushTarget(ws, "main", undefined)).toBeNull();
  });

  it("finds the session whose asks the flush run's conversation holds, whichever was written last", async () => {
    const { ws } = await workspace();
    ask(ws, "agent:main:a", "Fix the login redirect in src/auth/callback.ts");
    ask(ws, "agent:main:b", "Migrate billing exports to the v2 API");
    ask(ws, "agent:ops:c", "Migrate billing exports to the v2 API");
    const convA = [
      user("Fix the login redirect in src/auth/callback.ts"),
      { role: "assistant", content: "ok" },
    ];
    const convB = [user("Migrate billing exports to the v2 API")];
    expect((await flushTarget(ws, "main", convA))?.sessionKey).toBe("agent:main:a");
    expect((await flushTarget(ws, "main", convB))?.sessionKey).toBe("agent:main:b");
    expect((await flushTarget(ws, "ops", convB))?.sessionKey).toBe("agent:ops:c");
    // Two agents' sessions hold the same asks: with no agent named, nothing is guessed.
    expect(await flushTarget(ws, null, convB)).toBeNull();
  });

  it("never takes another agent's session whose file name starts like the agent's (main, main-2)", async () => {
    const { ws } = await workspace();
    observe(
      ws,
      { sessionKey: "agent:main-2:main", agentId: "main-2" },
      { type: "ask", text: "Rotate the keys", at: AT },
    );
    expect(await flushTarget(ws, "main", [user("Rotate the keys")])).toBeNull();
    expect((await flushTarget(ws, "main-2", [user("Rotate the keys")]))?.sessionKey).toBe(
      "agent:main-2:main",
    );
  });

  it("passes over a torn state file", async () => {
    const { ws } = await workspace();
    ask(ws, "agent:main:good", "Fix the login redirect");
    await ws.flushSessions();
    await writeFile(sessionStatePath(ws.stateDir, "agent:main:torn"), '{"version":1,');
    expect((await flushTarget(ws, "main", [user("Fix the login redirect")]))?.sessionKey).toBe(
      "agent:main:good",
    );
  });
});
