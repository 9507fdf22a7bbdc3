import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_PORT, fakeReply, ownWords, parsePort } from "./fake-model-server.ts";
import { classify } from "./harness/fake-model.ts";
import { projectNode, repoRoot } from "./harness/openclaw-install.ts";
import { spawnGrouped } from "./harness/processes.ts";

const FENCE = [
  '<big-memory-snapshot-0123456789abcdef id="2026-11-23-01" taken="2026-11-23T16:38:37+00:00" source="memory/2026-11-23.md:5">',
  "## Goal",
  "Fix ERR_DUPLICATE_KEY in src/auth/oauth-callback.ts",
  "## Next steps",
  "1. Write the migration",
  "</big-memory-snapshot-0123456789abcdef>",
  "Tell the user in one line that you restored snapshot 2026-11-23-01 (saved 2026-11-23 16:38) and what its goal is.",
].join("\n");

/** A turn request as OpenClaw sends it: a system prompt, the user's message, tools offered. */
function turn(userText: string, index = 0) {
  return classify(
    {
      messages: [
        { role: "system", content: "You are a personal assistant." },
        { role: "user", content: userText },
      ],
      tools: [{ type: "function", function: { name: "read" } }],
    },
    index,
  );
}

describe("parsePort", () => {
  it("uses the README's port without arguments and the one given with --port", () => {
    expect([parsePort([]), parsePort(["--port", "4010"]), parsePort(["--port", "0"])]).toEqual([
      DEFAULT_PORT,
      4010,
      0,
    ]);
  });

  it("names the usage, what was received and what was expected otherwise", () => {
    expect(parsePort(["--port", "http"])).toBe(
      "usage: npm run fake-model [-- --port N] (received: --port http; expected a port from 0 to 65535, 0 for any free one)",
    );
    expect([parsePort(["--port"]), parsePort(["--port", "70000"]), parsePort(["-p", "1"])]).toEqual([
      expect.stringContaining("received: --port;"),
      expect.stringContaining("received: --port 70000;"),
      expect.stringContaining("received: -p 1;"),
    ]);
  });
});

describe("ownWords", () => {
  it("drops OpenClaw's timestamp prefix, its runtime line and a restore before the user's words", () => {
    expect(ownWords("[Mon 2026-11-23 16:33 UTC] Fix the login\n\nRuntime: agent=main | session=x")).toBe(
      "Fix the login",
    );
    expect(ownWords(`[Mon 2026-11-23 16:40 UTC] ${FENCE}\n\nGo ahead with the migration.`)).toBe(
      "Go ahead with the migration.",
    );
  });
});

describe("fakeReply", () => {
  it("says in one line which snapshot a turn restored, when it saved it and its goal", () => {
    expect(fakeReply(turn(`[Mon 2026-11-23 16:40 UTC] ${FENCE}\n\nGo ahead.`))).toEqual({
      text: "Restored snapshot 2026-11-23-01 (saved 2026-11-23T16:38:37+00:00): Fix ERR_DUPLICATE_KEY in src/auth/oauth-callback.ts",
    });
  });

  it("notes a turn without a restore, cut at 100 characters", () => {
    expect(fakeReply(turn("[Mon 2026-11-23 16:33 UTC] Fix the login"))).toEqual({
      text: "Noted: Fix the login",
    });
    const long = fakeReply(turn(`[Mon 2026-11-23 16:33 UTC] ${"x".repeat(150)}`));
    expect(long).toEqual({ text: `Noted: ${"x".repeat(99)}…` });
  });

  it("answers the flush with NO_REPLY and the summarizer with every heading it asks for", () => {
    const flush = classify(
      {
        messages: [{ role: "user", content: "Pre-compaction memory flush. Write notes." }],
        tools: [{ type: "function", function: { name: "write" } }],
      },
      0,
    );
    expect(fakeReply(flush)).toEqual({ text: "NO_REPLY" });
    const summarizer = classify(
      {
        messages: [
          { role: "system", content: "You summarize conversations." },
          { role: "user", content: "<conversation>...</conversation>\n## Goal\n## Progress" },
        ],
      },
      1,
    );
    expect(fakeReply(summarizer)).toEqual({
      text: "## Goal\nSummary written by the fake model.\n\n## Progress\nSummary written by the fake model.",
    });
  });
});

describe("npm run fake-model", () => {
  it("is the script package.json declares, on the port and model the README's try-out configures", () => {
    const pkg: unknown = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8"));
    expect(pkg).toMatchObject({ scripts: { "fake-model": "node test/e2e/fake-model-server.ts" } });
    const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    expect(readme).toContain(`"baseUrl":"http://127.0.0.1:${DEFAULT_PORT}/v1"`);
    expect(readme).toContain("openclaw config set agents.defaults.model.primary fake/fake-model");
  });

  const children = new Set<import("node:child_process").ChildProcess>();
  afterEach(() => {
    for (const child of children) child.kill("SIGKILL");
  });

  it("serves OpenAI-compatible streamed completions on the port printed, and stops on SIGTERM with exit 0", async () => {
    const child = spawnGrouped(
      await projectNode(),
      [path.join(repoRoot, "test/e2e/fake-model-server.ts"), "--port", "0"],
      { env: { PATH: process.env.PATH ?? "" }, cwd: repoRoot, children },
    );
    let stdout = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`fake-model exited ${code}: ${stdout}`)));
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (\S+)/.exec(stdout);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
    });
    const response = await fetch(`${url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ stream: true, messages: [{ role: "user", content: "Fix the login" }] }),
    });
    const body = await response.text();
    expect(body).toContain('"content":"Noted: Fix the login"');
    expect(body.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(stdout).toMatch(/\d{2}:\d{2}:\d{2} {2}turn {8}Noted: Fix the login\n/);
  });
});
