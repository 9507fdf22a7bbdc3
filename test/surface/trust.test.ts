import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "./cli-harness.ts";
import { ASSISTANT_TEXTS, SECRET_VALUES, SECRETS, TOOL_CALLS, USER_PROMPTS } from "./fixtures/secrets.ts";
import { createDriver, type Driver } from "./plugin-driver.ts";

/**
 * Trust, end to end through the real hook handlers: a session whose prompts, tool arguments, tool results
 * and model texts carry secrets of every class, then a compaction, a restore, "you forgot", the tools, the
 * chat command and the CLI. No secret reaches a file big-memory writes or a text it returns or injects;
 * every file and folder it writes is private; git stages none of its state.
 */

const drivers: Driver[] = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.dispose();
});

/** Every file under `dir`, workspace-relative, with its bytes. */
function filesUnder(dir: string, root = dir): { rel: string; bytes: Buffer }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return filesUnder(path, root);
    return e.isFile() ? [{ rel: relative(root, path), bytes: readFileSync(path) }] : [];
  });
}

function foldersUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? [join(dir, e.name), ...foldersUnder(join(dir, e.name))] : [],
  );
}

/** The secrets found in `text`, as the names of their values' positions (never empty on a leak). */
const leaks = (text: string) => SECRET_VALUES.filter((s) => text.includes(s));
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

async function secretSession(d: Driver): Promise<string[]> {
  const seen: string[] = [];
  const [first, second] = USER_PROMPTS;
  await d.userTurn(first ?? "");
  for (const [tool, params, extra] of TOOL_CALLS) await d.tool(tool, params, extra);
  await d.userTurn(second ?? "");
  await d.fire(
    "llm_output",
    { runId: "r1", sessionId: "s-1", provider: "fake", model: "fake", assistantTexts: ASSISTANT_TEXTS },
    { trigger: "user" },
  );
  await d.fire(
    "agent_end",
    { messages: [{ role: "assistant", content: ASSISTANT_TEXTS[0] }], success: true },
    { trigger: "user" },
  );
  await d.restart();
  await d.fire("before_compaction", { messageCount: 30, tokenCount: 90_000 });
  await d.fire("after_compaction", { messageCount: 3, tokenCount: 900, compactedCount: 27 });
  await d.restart();
  seen.push((await d.userTurn("ok, go on")) ?? "");
  seen.push((await d.userTurn("you forgot what we were doing")) ?? "");
  seen.push((await d.callTool("big_memory_recall", {})).text);
  seen.push((await d.callTool("big_memory_recall", { query: "ERR_BILLING_SYNC" })).text);
  seen.push(await d.command("save billing-sync-fix"));
  seen.push(await d.command("recall billing-sync-fix"));
  seen.push(await d.command("search ERR_BILLING_SYNC"));
  seen.push(await d.command("list"));
  seen.push(await d.command("status"));
  return seen;
}

describe("a session full of secrets", () => {
  it("leaves no secret in any file, any injected or returned text, and no state for git", async () => {
    const d = createDriver();
    drivers.push(d);
    const seen = await secretSession(d);
    for (const args of [["list"], ["search", "ERR_BILLING_SYNC"], ["recall"], ["status"], ["verify"]]) {
      const r = await cli([...args, "--dir", d.workspace, "--json"]);
      seen.push(r.stdout, r.stderr);
    }
    const shown = await cli(["show", "billing-sync-fix", "--dir", d.workspace]);
    seen.push(shown.stdout);

    // The session was captured and restored: the texts are real, not empty.
    expect(seen[0]).toContain("ERR_BILLING_SYNC");
    expect(seen[0]).toContain("[REDACTED:");
    expect(shown.code).toBe(0);
    for (const text of seen) expect(leaks(text)).toEqual([]);

    const files = filesUnder(d.workspace);
    expect(files.map((f) => f.rel)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^memory\/\d{4}-\d{2}-\d{2}\.md$/),
        ".big-memory/.gitignore",
      ]),
    );
    expect(files.some((f) => f.rel.startsWith(".big-memory/search/"))).toBe(true);
    expect(files.some((f) => f.rel.startsWith(".big-memory/sessions/"))).toBe(true);
    for (const f of files)
      expect({ file: f.rel, leaks: leaks(f.bytes.toString("latin1")) }).toEqual({ file: f.rel, leaks: [] });
    for (const f of files)
      expect({ file: f.rel, leaks: leaks(f.bytes.toString("utf8")) }).toEqual({ file: f.rel, leaks: [] });

    // Private: folders 0700, files 0600 (the daily log was created by big-memory).
    for (const folder of foldersUnder(d.workspace)) {
      expect({ folder: relative(d.workspace, folder), mode: mode(folder) }).toEqual({
        folder: relative(d.workspace, folder),
        mode: "700",
      });
    }
    for (const f of files)
      expect({ file: f.rel, mode: mode(join(d.workspace, f.rel)) }).toEqual({ file: f.rel, mode: "600" });

    // git add -A stages the daily log and nothing of big-memory's state.
    const git = (...args: string[]) =>
      spawnSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
        cwd: d.workspace,
        encoding: "utf8",
      });
    expect(git("init", "-q").status).toBe(0);
    expect(git("add", "-A").status).toBe(0);
    const staged = git("diff", "--cached", "--name-only").stdout.trim().split("\n");
    expect(staged.filter((p) => p.startsWith(".big-memory"))).toEqual([]);
    expect(staged.some((p) => p.startsWith("memory/"))).toBe(true);
  });
});

/** A block a person wrote into a daily log, in the original skill's format, with secrets in four sections. */
function handWrittenLog(date: string): string {
  return [
    `# ${date}`,
    "",
    "## Task Snapshot -- 09:30",
    "",
    "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
    `<!-- timestamp: ${date}T09:30:00 -->`,
    `<!-- snapshot-id: ${date}-01 -->`,
    "<!-- name: payment-key-rotation -->",
    "",
    "### [SNAPSHOT] Active Goal",
    `Rotate the payment keys; the old one is ${SECRETS.stripe} until ERR_PAYMENT_ROTATE is fixed`,
    "",
    "### [SNAPSHOT] Current State",
    "- Phase: implementing",
    `- Progress: pushed with GITHUB_TOKEN=${SECRETS.github}`,
    "",
    "### [SNAPSHOT] Key Names & Values",
    `- DB password: \`${SECRETS.envPassword}\``,
    `- AWS key id: \`${SECRETS.awsKeyId}\``,
    "",
    "### [SNAPSHOT] Next Steps",
    `1. Call the API with Authorization: Bearer ${SECRETS.bearer}`,
    "",
    "<!-- /BIG-MEMORY-SNAPSHOT -->",
    "",
  ].join("\n");
}

describe("a secret in a hand-written block", () => {
  it("is never printed, returned, injected or indexed; the log itself is left as the person wrote it", async () => {
    const d = createDriver();
    drivers.push(d);
    const date = new Date().toISOString().slice(0, 10);
    const log = handWrittenLog(date);
    mkdirSync(join(d.workspace, "memory"), { recursive: true });
    writeFileSync(join(d.workspace, "memory", `${date}.md`), log);
    const id = `${date}-01`;

    const seen: string[] = [];
    for (const args of [
      ["list"],
      ["search", "ERR_PAYMENT_ROTATE"],
      ["recall"],
      ["show", id],
      ["verify"],
      ["status"],
    ]) {
      for (const json of [[], ["--json"]]) {
        const r = await cli([...args, "--dir", d.workspace, ...json]);
        expect({ args, code: r.code }).toEqual({ args, code: 0 });
        seen.push(r.stdout, r.stderr);
      }
    }
    seen.push((await d.callTool("big_memory_recall", { id })).text);
    seen.push((await d.callTool("big_memory_recall", { query: "ERR_PAYMENT_ROTATE" })).text);
    seen.push(await d.command(`recall ${id}`));
    seen.push(await d.command("search ERR_PAYMENT_ROTATE"));
    seen.push(await d.command("list"));
    seen.push(await d.command("resume payment-key-rotation"));
    const restored = (await d.userTurn("go on")) ?? "";
    seen.push(restored);

    expect(restored).toContain("ERR_PAYMENT_ROTATE");
    expect(seen.join("\n")).toContain("[REDACTED:stripe-key]");
    for (const text of seen) expect(leaks(text)).toEqual([]);
    const index = filesUnder(d.workspace).filter((f) => f.rel.startsWith(".big-memory/"));
    expect(index.some((f) => f.rel.startsWith(".big-memory/search/"))).toBe(true);
    for (const f of index)
      expect({ file: f.rel, leaks: leaks(f.bytes.toString("utf8")) }).toEqual({ file: f.rel, leaks: [] });
    expect(readFileSync(join(d.workspace, "memory", `${date}.md`), "utf8")).toBe(log);
  });
});
