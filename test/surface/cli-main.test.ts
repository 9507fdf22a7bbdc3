import { spawn } from "node:child_process";
import { once } from "node:events";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { snapshot } from "../builders.ts";
import { CLI_MAIN, processCli, SAVE_INPUT, SKILL_LOG, workspaces } from "./cli-harness.ts";

const workspace = workspaces();

describe("cli-main", () => {
  it("saves JSON read from the real stdin and exits 0", () => {
    const dir = workspace();
    const saved = processCli(["save", "--dir", dir, "--json"], { stdin: JSON.stringify(SAVE_INPUT) });
    expect([saved.code, saved.stderr, JSON.parse(saved.stdout)]).toEqual([
      0,
      "",
      expect.objectContaining({
        id: expect.stringMatching(/^\d{4}-\d{2}-\d{2}-01$/),
        redacted: { total: 0, kinds: {} },
      }),
    ]);
  });

  it("exits 1 when nothing is found and 2 on a usage error", () => {
    const dir = workspace();
    expect(processCli(["show", "no-such-checkpoint", "--dir", dir]).code).toBe(1);
    const unknown = processCli(["frobnicate"]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      expect.stringContaining("unknown command 'frobnicate'"),
    ]);
  });

  it("exits 2 when stdin is not UTF-8, checking the bytes as they arrive", () => {
    const bad = Buffer.concat([Buffer.from('{"goal":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const r = processCli(["save", "--dir", workspace()], { stdin: bad });
    expect([r.code, r.stderr]).toEqual([
      2,
      "big-memory: stdin is not valid UTF-8 text: invalid UTF-8 at byte 12 (nothing was saved)\n",
    ]);
  });

  it("exits 3 when the disk fails it", () => {
    const dir = workspace();
    rmSync(join(dir, "memory"), { recursive: true });
    writeFileSync(join(dir, "memory"), "a file where the daily logs' folder should be");
    const r = processCli(["save", "--dir", dir], { stdin: JSON.stringify(SAVE_INPUT) });
    expect([r.code, r.stdout]).toEqual([3, ""]);
    expect(r.stderr).toBe(
      `big-memory: ${join(dir, "memory")} is not a folder: the daily logs cannot be read or written (a file stands where a folder is expected: move the file away)\n`,
    );
  });

  it("prints no colour when stdout is not a terminal, even without NO_COLOR", () => {
    const dir = workspace({ "memory/2026-11-20.md": SKILL_LOG });
    const env = { ...process.env };
    delete env.NO_COLOR;
    const r = processCli(["list", "--dir", dir], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("ID ");
    expect(r.stdout).not.toContain("\u001b[");
  });

  it("ends quietly with its exit code when the reader closes the pipe early", async () => {
    const blocks = Array.from({ length: 600 }, (_, i) =>
      renderSnapshot(snapshot(`2026-11-22-${String(i + 1).padStart(3, "0")}`)),
    );
    const dir = workspace({ "memory/2026-11-22.md": blocks.join("\n") });
    const child = spawn(process.execPath, [CLI_MAIN, "list", "--dir", dir, "--json"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    // Like `big-memory list | head -1`: read the first chunk, then close the pipe while output remains.
    await once(child.stdout, "data");
    child.stdout.destroy();
    const [code] = await once(child, "close");
    // Indexing that takes over a second prints progress lines on stderr (by design, off a terminal too):
    // on a loaded machine they come; nothing else may (no EPIPE, no stack).
    const other = stderr.split("\n").filter((line) => line !== "" && !/^big-memory: indexing /.test(line));
    expect([code, other]).toEqual([0, []]);
  });
});
