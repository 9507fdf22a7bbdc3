import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe("bin/big-memory.js", () => {
  it("names the Node it needs and exits 3 when the running Node is older than package.json's engines", () => {
    const root = mkdtempSync(join(tmpdir(), "big-memory-bin-"));
    roots.push(root);
    mkdirSync(join(root, "bin"));
    copyFileSync(new URL("../../bin/big-memory.js", import.meta.url), join(root, "bin", "big-memory.js"));
    writeFileSync(
      join(root, "package.json"),
      JSON.stringify({ type: "module", engines: { node: ">=99.1.2" } }),
    );
    const r = spawnSync(process.execPath, [join(root, "bin", "big-memory.js"), "list"], { encoding: "utf8" });
    expect([r.status, r.stdout, r.stderr]).toEqual([
      3,
      "",
      `big-memory: needs Node 99.1.2 or newer; this is Node ${process.versions.node} (${process.execPath}). Install a newer Node (for example \`nvm install 24\`, or https://nodejs.org) and run big-memory with it.\n`,
    ]);
  });
});
