import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW_FILE, opener } from "../../plugin/surface/view-cli.ts";
import { cli, workspaces } from "./cli-harness.ts";
import { writeTimelineWorkspace } from "./view-fixture.ts";

const workspace = workspaces();

describe("big-memory view", () => {
  it("writes one page, private, into .big-memory/ by default, and says what it holds", async () => {
    const dir = workspace();
    await writeTimelineWorkspace(dir);
    const run = await cli(["view", "--dir", dir]);
    expect(run.code).toBe(0);
    const file = join(dir, DEFAULT_VIEW_FILE);
    expect(run.stdout).toMatch(
      new RegExp(
        `^Wrote ${file} \\(\\d+\\.\\d KiB\\): 4 snapshots, 3 compactions and resets \\(1 with no capture\\), 3 restores\\.\\nOpen it in a browser: file://${file}\\n$`,
      ),
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const page = readFileSync(file, "utf8");
    expect(page.startsWith("<!doctype html>")).toBe(true);
    // Nothing outside the data island (where a snapshot's text may name any address) loads or links out.
    const markup = page.replace(/<script type="application\/json" id="bm-data">[^<]*<\/script>/, "");
    expect(markup).not.toMatch(/<link|<script src|<img|<iframe|https?:\/\//);
  });

  it("writes where --out says, relative to the current folder, and answers in JSON", async () => {
    const dir = workspace();
    await writeTimelineWorkspace(dir);
    const run = await cli(["view", "--dir", dir, "--out", "timeline.html", "--json"], { cwd: dir });
    expect(run.json()).toEqual({
      file: join(dir, "timeline.html"),
      bytes: statSync(join(dir, "timeline.html")).size,
      snapshots: 4,
      compactions: 3,
      gaps: 1,
      restores: 3,
      problems: 0,
      opened: false,
    });
  });

  it("hands the page to the system browser with --open", async () => {
    const dir = workspace();
    const bin = join(dir, "bin");
    mkdirSync(bin);
    const seen = join(dir, "opened.txt");
    writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > '${seen}'\n`);
    chmodSync(join(bin, "xdg-open"), 0o755);
    const run = await cli(["view", "--dir", dir, "--open"], { env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Opened in the system browser.");
    for (let i = 0; i < 100 && !existsFile(seen); i++) await new Promise((r) => setTimeout(r, 20));
    expect(readFileSync(seen, "utf8")).toBe(`file://${join(dir, DEFAULT_VIEW_FILE)}`);
  });

  it("says so when no browser can be started, and exits 3", async () => {
    const dir = workspace();
    const run = await cli(["view", "--dir", dir, "--open"], { env: { PATH: join(dir, "nothing") } });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("big-memory: could not start xdg-open: spawn xdg-open ENOENT; open file://");
  });

  it("refuses an empty --out", async () => {
    const dir = workspace();
    const run = await cli(["view", "--dir", dir, "--out", " "]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("big-memory: --out needs a file name\n");
  });
});

describe("opener", () => {
  it("names each system's way of opening a file URL", () => {
    expect(opener("linux", "/tmp/a b.html")).toEqual({
      command: "xdg-open",
      args: ["file:///tmp/a%20b.html"],
    });
    expect(opener("darwin", "/tmp/a.html")).toEqual({ command: "open", args: ["file:///tmp/a.html"] });
    expect(opener("win32", "/tmp/a.html").command).toBe("cmd");
  });
});

function existsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
