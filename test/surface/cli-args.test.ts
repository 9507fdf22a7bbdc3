import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseLimitOrAll, parsePositiveInt, UNQUOTED, UsageError } from "../../plugin/surface/cli-args.ts";
import { cli, thrownUsage } from "./cli-harness.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe("parsePositiveInt and parseLimitOrAll", () => {
  it("take a whole number of at least 1; parseLimitOrAll also all, as no limit", async () => {
    expect(parsePositiveInt("7", "--limit")).toBe(7);
    expect(parseLimitOrAll("7", "--limit")).toBe(7);
    expect(parseLimitOrAll("all", "--limit")).toBe(Number.POSITIVE_INFINITY);
    expect(() => parsePositiveInt("all", "--limit")).toThrow(UsageError);
    expect(parsePositiveInt("007", "--limit")).toBe(7);
    for (const bad of [
      "0",
      "-2",
      "1.5",
      "",
      "ten",
      "All",
      "0x10",
      "1e3",
      "+3",
      " 3",
      "3 ",
      "99999999999999999999",
    ]) {
      expect((await thrownUsage(() => parsePositiveInt(bad, "--limit"))).text, bad).toBe(
        `--limit expects a whole number of at least 1, received ${JSON.stringify(bad.trim())}`,
      );
      expect((await thrownUsage(() => parseLimitOrAll(bad, "--limit"))).text, bad).toBe(
        `--limit expects a whole number of at least 1, or all, received ${JSON.stringify(bad.trim())}`,
      );
    }
  });
});

describe("UsageError", () => {
  it("quotes what was typed only when printed, redacted, and never holds it verbatim in its message", async () => {
    const token = `ghp_${"Qd5v".repeat(9)}`;
    const error = new UsageError(
      (quote) => `--limit expects a number, received ${quote(`x ${token} \u202Ey`)}`,
    );
    expect(error.message).toBe(`--limit expects a number, received ${UNQUOTED}`);
    expect(await error.text()).toBe('--limit expects a number, received "x [REDACTED:github-token] y"');
    expect(`${error.message}${await error.text()}`).not.toContain(token);
  });

  it("prints a message that quotes nothing as it is", async () => {
    const error = new UsageError("--out needs a file name");
    expect([error.message, await error.text()]).toEqual([
      "--out needs a file name",
      "--out needs a file name",
    ]);
  });

  it("reaches the CLI's stderr quoted and redacted, exit 2, for an option parsed before any command runs", async () => {
    const token = `ghp_${"Qd5v".repeat(9)}`;
    const dir = mkdtempSync(join(tmpdir(), "big-memory-args-"));
    roots.push(dir);
    const r = await cli(["list", "--limit", token, "--dir", dir]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      "",
      'big-memory: --limit expects a whole number of at least 1, or all, received "[REDACTED:github-token]"\n',
    ]);
  });
});
