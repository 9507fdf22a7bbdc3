import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  memoryRelative,
  openMemoryFile,
  RefusedFileError,
  readMemoryFile,
  readMemoryFileSync,
  statMemoryFileSync,
} from "../../plugin/store/log-open.ts";

const NOTE = "# 2026-02-07\n\n- Rückruf mit Anna wegen der Rechnung\n- 周五前把报告发给王经理\n";

let root: string;
let ws: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "big-memory-open-"));
  ws = join(root, "workspace");
  mkdirSync(join(ws, "memory"), { recursive: true });
  mkdirSync(join(root, "outside"));
  writeFileSync(join(root, "outside", "x.md"), "outside text\n");
  writeFileSync(join(ws, "memory", "2026-02-07.md"), NOTE);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** What reading `file` is refused for, as `[kind, message]`, or the text read. */
async function outcome(file: string): Promise<[string, string]> {
  try {
    return ["read", (await readMemoryFile(ws, file)).toString("utf8")];
  } catch (error) {
    if (error instanceof RefusedFileError) return [error.kind, error.message];
    throw error;
  }
}

describe("readMemoryFile", () => {
  it("reads a daily log of memory/, and a link to another file of memory/", async () => {
    symlinkSync("2026-02-07.md", join(ws, "memory", "2026-02-08.md"));
    expect(await outcome("memory/2026-02-07.md")).toEqual(["read", NOTE]);
    expect(await outcome("memory/2026-02-08.md")).toEqual(["read", NOTE]);
  });

  it("refuses a name that leads out of memory/, before touching the disk", async () => {
    expect(await outcome("memory/../../outside/x.md")).toEqual([
      "outside",
      "big-memory: memory/../../outside/x.md is not read: it is outside the workspace's memory/ folder; name a daily log in memory/ (memory/2026-11-22.md)",
    ]);
    expect((await outcome("/etc/hostname"))[0]).toBe("outside");
    expect((await outcome("notes.md"))[0]).toBe("outside");
  });

  it("refuses a log that is a link to a file outside memory/, naming the target", async () => {
    symlinkSync(join(root, "outside", "x.md"), join(ws, "memory", "2026-02-09.md"));
    const target = await realpath(join(root, "outside", "x.md"));
    expect(await outcome("memory/2026-02-09.md")).toEqual([
      "outside",
      `big-memory: memory/2026-02-09.md is not read: it is a link to ${target}, outside memory/; replace the link with the log itself`,
    ]);
  });

  it("refuses a link to /dev/zero without reading it", async () => {
    symlinkSync("/dev/zero", join(ws, "memory", "2026-02-10.md"));
    expect(await outcome("memory/2026-02-10.md")).toEqual([
      "outside",
      "big-memory: memory/2026-02-10.md is not read: it is a link to /dev/zero, outside memory/; replace the link with the log itself",
    ]);
  });

  it("refuses a FIFO in memory/ without blocking on it", async () => {
    execFileSync("mkfifo", [join(ws, "memory", "2026-02-11.md")]);
    const expected = [
      "special",
      "big-memory: memory/2026-02-11.md is not read: it is a FIFO (named pipe), not a regular file; move it out of memory/",
    ];
    expect(await outcome("memory/2026-02-11.md")).toEqual(expected);
    // A link to the FIFO, inside memory/, is checked on the open handle as well.
    symlinkSync("2026-02-11.md", join(ws, "memory", "2026-02-12.md"));
    expect((await outcome("memory/2026-02-12.md"))[1]).toBe(
      "big-memory: memory/2026-02-12.md is not read: it is a FIFO (named pipe), not a regular file; move it out of memory/",
    );
    expect(() => readMemoryFileSync(ws, "memory/2026-02-11.md")).toThrow(expected[1]);
  });

  it("refuses a loop of links as such", async () => {
    symlinkSync("2026-02-13.md", join(ws, "memory", "2026-02-13.md"));
    expect(await outcome("memory/2026-02-13.md")).toEqual([
      "loop",
      "big-memory: memory/2026-02-13.md is not read: it is a loop of links; replace the link with the log itself",
    ]);
  });

  it("refuses every file when memory/ itself is a link out of the workspace, and follows one inside it", async () => {
    const other = mkdtempSync(join(tmpdir(), "big-memory-open-ws-"));
    try {
      writeFileSync(join(root, "outside", "2026-02-07.md"), NOTE);
      symlinkSync(join(root, "outside"), join(other, "memory"));
      const target = await realpath(join(root, "outside"));
      await expect(readMemoryFile(other, "memory/2026-02-07.md")).rejects.toThrow(
        `big-memory: memory/2026-02-07.md is not read: memory/ is a link to ${target}, outside the workspace; replace the link with the folder itself`,
      );
      rmSync(join(other, "memory"));
      mkdirSync(join(other, "notes"));
      writeFileSync(join(other, "notes", "2026-02-07.md"), NOTE);
      symlinkSync("notes", join(other, "memory"));
      expect((await readMemoryFile(other, "memory/2026-02-07.md")).toString("utf8")).toBe(NOTE);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("rejects with ENOENT when the log, or the target of its link, is gone", async () => {
    await expect(readMemoryFile(ws, "memory/2026-03-01.md")).rejects.toMatchObject({ code: "ENOENT" });
    symlinkSync("2026-03-02.md", join(ws, "memory", "2026-03-03.md"));
    await expect(readMemoryFile(ws, "memory/2026-03-03.md")).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("openMemoryFile", () => {
  it("gives the handle's own stat, the one the bytes are read from", async () => {
    const { handle, info } = await openMemoryFile(ws, "memory/2026-02-07.md");
    try {
      expect([info.isFile(), info.size]).toEqual([true, Buffer.byteLength(NOTE)]);
    } finally {
      await handle.close();
    }
  });
});

describe("statMemoryFileSync", () => {
  it("stats a plain log, is null for a missing one, and returns the refusal of the others", () => {
    execFileSync("mkfifo", [join(ws, "memory", "2026-02-11.md")]);
    symlinkSync("/dev/zero", join(ws, "memory", "2026-02-10.md"));
    symlinkSync("2026-02-13.md", join(ws, "memory", "2026-02-13.md"));
    mkdirSync(join(ws, "memory", "2026-02-14.md"));
    const stat = statMemoryFileSync(ws, "memory/2026-02-07.md");
    expect(stat instanceof RefusedFileError ? null : stat?.size).toBe(Buffer.byteLength(NOTE));
    expect(statMemoryFileSync(ws, "memory/2026-03-01.md")).toBeNull();
    const kinds = ["2026-02-11.md", "2026-02-10.md", "2026-02-13.md", "2026-02-14.md"].map((n) => {
      const s = statMemoryFileSync(ws, `memory/${n}`);
      return s instanceof RefusedFileError ? s.kind : "stat";
    });
    expect(kinds).toEqual(["special", "outside", "loop", "folder"]);
  });
});

describe("memoryRelative", () => {
  it("normalises names inside memory/ and refuses those that lead out", () => {
    expect(
      ["memory/./2026-02-07.md", "memory\\2026-02-07.md", "memory/../x.md", "/abs/memory/x.md"].map(
        memoryRelative,
      ),
    ).toEqual(["memory/2026-02-07.md", "memory/2026-02-07.md", null, null]);
  });
});
