import { mkdtempSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gatedTextOf, gateTextOnce } from "../../plugin/store/gate.ts";
import {
  appendPrivateJsonLineUnsynced,
  appendPrivateTextUnsynced,
  ensurePrivateDirSync,
  writePrivateJsonSync,
} from "../../plugin/store/gate-sync.ts";

const mode = (path: string) => statSync(path).mode & 0o777;

describe("ensurePrivateDirSync", () => {
  it("creates the state folder 0700 with its .gitignore, and refuses one that is a link", () => {
    const root = mkdtempSync(join(tmpdir(), "bm-gate-sync-"));
    const state = join(root, ".big-memory", "sessions");
    ensurePrivateDirSync(state);
    expect(mode(state)).toBe(0o700);
    expect(mode(join(root, ".big-memory"))).toBe(0o700);
    expect(readFileSync(join(root, ".big-memory", ".gitignore"), "utf8")).toContain("*");
    const other = mkdtempSync(join(tmpdir(), "bm-gate-sync-out-"));
    const linked = mkdtempSync(join(tmpdir(), "bm-gate-sync-link-"));
    symlinkSync(other, join(linked, ".big-memory"));
    expect(() => ensurePrivateDirSync(join(linked, ".big-memory", "sessions"))).toThrow();
  });
});

describe("writePrivateJsonSync", () => {
  it("writes redacted JSON 0600 atomically and keeps the replaced file", () => {
    const dir = mkdtempSync(join(tmpdir(), "bm-gate-sync-"));
    ensurePrivateDirSync(dir);
    const path = join(dir, "state.json");
    const token = `ghp_${"S7nc".repeat(9)}`;
    writePrivateJsonSync(path, { n: 1 });
    const report = writePrivateJsonSync(
      path,
      { n: 2, note: `pushed with ${token}` },
      { keepPreviousAs: ".bak" },
    );
    expect(report.total).toBe(1);
    expect(readFileSync(path, "utf8")).not.toContain(token);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      n: 2,
      note: "pushed with [REDACTED:github-token]",
    });
    expect(JSON.parse(readFileSync(`${path}.bak`, "utf8"))).toEqual({ n: 1 });
    expect(mode(path)).toBe(0o600);
  });
});

describe("appendPrivateJsonLineUnsynced", () => {
  it("appends redacted JSON lines 0600 in a 0700 folder, and rotates the file past its bound", () => {
    const root = mkdtempSync(join(tmpdir(), "bm-gate-sync-"));
    const path = join(root, ".big-memory", "ledger.jsonl");
    const token = `ghp_${"L3dg".repeat(9)}`;
    const report = appendPrivateJsonLineUnsynced(path, { n: 1, note: `with ${token}` }, { rotateAt: 1000 });
    expect(report.total).toBe(1);
    appendPrivateJsonLineUnsynced(path, { n: 2 }, { rotateAt: 1000 });
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([{ n: 1, note: "with [REDACTED:github-token]" }, { n: 2 }]);
    expect(mode(path)).toBe(0o600);
    expect(mode(join(root, ".big-memory"))).toBe(0o700);
    appendPrivateJsonLineUnsynced(path, { pad: "x".repeat(1000) }, { rotateAt: 1000 });
    expect(readFileSync(`${path}.1`, "utf8")).toContain('"n":2');
    appendPrivateJsonLineUnsynced(path, { n: 4 }, { rotateAt: 1000 });
    expect(readFileSync(path, "utf8")).toBe('{"n":4}\n');
  });
});

describe("appendPrivateTextUnsynced", () => {
  it("appends redacted text 0600 in a private folder, a gated text as it is, and says which call created the file", () => {
    const root = mkdtempSync(join(tmpdir(), "bm-gate-sync-"));
    const path = join(root, ".big-memory", "journal", "2026-11-22.jsonl");
    const token = `ghp_${"S7nc".repeat(9)}`;
    const gated = gateTextOnce("two\n").gated;
    expect(appendPrivateTextUnsynced(path, `one ${token}\n`)).toEqual({
      counts: { "github-token": 1 },
      total: 1,
      created: true,
    });
    expect(appendPrivateTextUnsynced(path, gated)).toEqual({ counts: {}, total: 0, created: false });
    expect(readFileSync(path, "utf8")).toBe(`one [REDACTED:github-token]\n${gatedTextOf(gated)}`);
    expect(mode(path)).toBe(0o600);
    expect(mode(join(root, ".big-memory", "journal"))).toBe(0o700);
    expect(readFileSync(join(root, ".big-memory", ".gitignore"), "utf8")).toContain("*");
  });

  it("refuses a link to nowhere in the file's place, writing nothing through it", () => {
    const root = mkdtempSync(join(tmpdir(), "bm-gate-sync-"));
    ensurePrivateDirSync(join(root, ".big-memory"));
    const path = join(root, ".big-memory", "x.jsonl");
    symlinkSync(join(root, "elsewhere.jsonl"), path);
    expect(() => appendPrivateTextUnsynced(path, "one\n")).toThrow(/EEXIST/);
    expect(() => statSync(join(root, "elsewhere.jsonl"))).toThrow(/ENOENT/);
  });
});
