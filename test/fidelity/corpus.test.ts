import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { corpusCandidates, findCorpus, loadCorpus, readManifest } from "./corpus.ts";

const dirs: string[] = [];
function corpus(manifest: unknown, sessions: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "big-memory-fidelity-"));
  dirs.push(dir);
  mkdirSync(join(dir, "sessions"));
  writeFileSync(
    join(dir, "manifest.json"),
    typeof manifest === "string" ? manifest : JSON.stringify(manifest),
  );
  for (const [file, text] of Object.entries(sessions))
    writeFileSync(join(dir, "sessions", file), gzipSync(text));
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ENTRY = {
  id: "pi-a",
  source: "pi-mono",
  format: "pi",
  file: "pi-a.jsonl.gz",
  repo: "badlogic/pi-mono",
  path: "session.jsonl",
  commit: "d5dde00d288fb959362e2c590fb685af3d08b19f",
  license: "MIT",
  author: "Mario Zechner",
};
const PI = [
  { type: "session", cwd: "/w" },
  { type: "message", message: { role: "user", content: [{ type: "text", text: "fix the parser" }] } },
]
  .map((l) => JSON.stringify(l))
  .join("\n");

describe("findCorpus", () => {
  it("takes the folder BIG_MEMORY_FIDELITY_CORPUS names first", () => {
    const dir = corpus({ version: 1, sessions: [ENTRY] });
    expect(corpusCandidates({ BIG_MEMORY_FIDELITY_CORPUS: dir })[0]).toBe(dir);
    expect(findCorpus({ BIG_MEMORY_FIDELITY_CORPUS: dir })).toBe(dir);
  });
});

describe("readManifest", () => {
  it("names the file and the field a manifest gets wrong", () => {
    const dir = corpus({ version: 1, sessions: [{ ...ENTRY, license: "GPL-3.0" }] });
    expect(() => readManifest(dir)).toThrow(`${join(dir, "manifest.json")}: sessions.0.license:`);
  });

  it("says when the manifest is not JSON", () => {
    const dir = corpus("{");
    expect(() => readManifest(dir)).toThrow(`${join(dir, "manifest.json")}: not readable JSON`);
  });
});

describe("loadCorpus", () => {
  it("converts each gzip'd transcript with its format's converter", () => {
    const dir = corpus({ version: 1, sessions: [ENTRY] }, { "pi-a.jsonl.gz": PI });
    const { sessions } = loadCorpus(dir);
    expect(sessions).toEqual([
      {
        id: "pi-a",
        source: "pi-mono",
        format: "pi",
        cwd: "/w",
        events: [{ kind: "user", text: "fix the parser" }],
      },
    ]);
  });
});
