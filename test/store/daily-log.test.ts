import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  appendSnapshotBlock,
  dailyLogDate,
  dailyLogLockPath,
  dailyLogPath,
  dailyLogRelative,
  isDailyLogDate,
  listDailyLogs,
  nextSnapshotId,
  readDailyLog,
  readFailure,
} from "../../plugin/store/daily-log.ts";
import { LockTimeoutError, readLockOwner } from "../../plugin/store/lock.ts";
import { renderTestBlock } from "./fixtures/render-block.ts";
import { FixtureProcess } from "./fixtures/spawn.ts";

const DATE = "2026-11-22";
const FILE = "memory/2026-11-22.md";
const START = "<!-- BIG-MEMORY-SNAPSHOT v1 -->";

/** What `fixtures/append-child.ts` prints: the append's result plus what it wrote. */
const ChildResult = z.object({
  id: z.string(),
  line: z.number(),
  offset: z.number(),
  bytes: z.number(),
  writer: z.string(),
  payload: z.string(),
});

let workspace: string;
let logPath: string;
const children: FixtureProcess[] = [];

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "big-memory-log-"));
  logPath = join(workspace, "memory", `${DATE}.md`);
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
  await rm(workspace, { recursive: true, force: true });
});

function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** Copies a fixture in as today's daily log and returns its text. */
async function seed(name: string): Promise<string> {
  await mkdir(join(workspace, "memory"), { recursive: true });
  await copyFile(fixture(name), logPath);
  return readFile(logPath, "utf8");
}

function append(writer: string, payload = `payload of ${writer}`) {
  return appendSnapshotBlock({
    workspaceDir: workspace,
    date: DATE,
    render: (id) => renderTestBlock(id, writer, payload),
  });
}

function lineAt(text: string, line: number): string | undefined {
  return text.split(/\r\n|\r|\n/)[line - 1];
}

describe("dailyLogRelative", () => {
  it("names the log memory/<date>.md with forward slashes", () => {
    expect(dailyLogRelative(DATE)).toBe(FILE);
  });

  it.each(["2026-11-22.md", "../2026-11-22", "2026-1-22", "2026-02-30", "2026-13-01", ""])(
    "throws on the malformed date %j",
    (date) => {
      expect(() => dailyLogRelative(date)).toThrow(
        `big-memory: invalid daily log date ${JSON.stringify(date)} (expected YYYY-MM-DD)`,
      );
    },
  );
});

describe("dailyLogPath", () => {
  it("puts the log under the workspace's memory folder", () => {
    expect(dailyLogPath("/ws", DATE)).toBe(join("/ws", "memory", "2026-11-22.md"));
    expect(dailyLogLockPath("/ws")).toBe(join("/ws", "memory", ".big-memory.lock"));
  });
});

describe("isDailyLogDate", () => {
  it("accepts real calendar dates only", () => {
    expect(["2026-11-22", "2024-02-29", "0099-01-01", "9999-12-31"].map(isDailyLogDate)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["2026-02-29", "2026-00-10", "2026-11-31", "26-11-22", "2026-11-22 "].map(isDailyLogDate)).toEqual(
      [false, false, false, false, false],
    );
  });
});

describe("dailyLogDate", () => {
  it("uses the local calendar date", () => {
    expect(dailyLogDate(new Date(2026, 10, 22, 23, 59, 59))).toBe("2026-11-22");
    expect(dailyLogDate(new Date(2026, 0, 1, 0, 0, 0))).toBe("2026-01-01");
  });
});

describe("nextSnapshotId", () => {
  it("starts a day at 01", () => {
    expect(nextSnapshotId("", DATE)).toBe("2026-11-22-01");
    expect(nextSnapshotId("# 2026-11-22\n\nNo snapshots yet.\n", DATE)).toBe("2026-11-22-01");
  });

  it("continues after the highest id of the day, wherever it is", () => {
    const text = [7, 3, 5].map((n) => `<!-- snapshot-id: 2026-11-22-0${n} -->`).join("\nprose\n");
    expect(nextSnapshotId(text, DATE)).toBe("2026-11-22-08");
  });

  it("ignores the ids of other dates", () => {
    const text = "<!-- snapshot-id: 2026-11-21-40 -->\n<!-- snapshot-id: 2026-11-23-09 -->\n";
    expect(nextSnapshotId(text, DATE)).toBe("2026-11-22-01");
  });

  it("grows past 99 without wrapping", () => {
    expect(nextSnapshotId("<!-- snapshot-id: 2026-11-22-99 -->", DATE)).toBe("2026-11-22-100");
    expect(nextSnapshotId("<!-- snapshot-id: 2026-11-22-100 -->", DATE)).toBe("2026-11-22-101");
    expect(nextSnapshotId("<!-- snapshot-id: 2026-11-22-12345678901234567890 -->", DATE)).toBe(
      "2026-11-22-12345678901234567891",
    );
  });

  it("counts the id of a torn block so that it is never reused", async () => {
    expect(nextSnapshotId(await readFile(fixture("torn-block.md"), "utf8"), DATE)).toBe("2026-11-22-03");
  });

  it("counts hand-written spellings of the id comment", () => {
    expect(nextSnapshotId("<!--snapshot-id:2026-11-22-4-->", DATE)).toBe("2026-11-22-05");
    expect(nextSnapshotId("<!--   SNAPSHOT-ID: 2026-11-22-06   -->", DATE)).toBe("2026-11-22-07");
  });

  it("returns an id above every id of the day and ignores other days (property)", () => {
    const entry = fc.record({ day: fc.constantFrom("2026-11-21", DATE, "2026-11-23"), n: fc.nat(500) });
    fc.assert(
      fc.property(fc.array(entry), (entries) => {
        const text = entries.map(({ day, n }) => `<!-- snapshot-id: ${day}-${n} -->`).join("\n");
        const next = nextSnapshotId(text, DATE);
        const n = Number(next.slice(DATE.length + 1));
        expect(next).toMatch(/^2026-11-22-\d{2,}$/);
        expect(entries.every((entry) => entry.day !== DATE || entry.n < n)).toBe(true);
        expect(nextSnapshotId(`${text}\n<!-- snapshot-id: ${next} -->`, DATE)).not.toBe(next);
      }),
    );
  });

  it("throws on a malformed date", () => {
    expect(() => nextSnapshotId("", "22.11.2026")).toThrow(
      'big-memory: invalid daily log date "22.11.2026" (expected YYYY-MM-DD)',
    );
  });
});

describe("appendSnapshotBlock", () => {
  it("creates memory/ and the log in a fresh workspace and reports where the block landed", async () => {
    const result = await append("a");
    const block = renderTestBlock("2026-11-22-01", "a", "payload of a");
    expect(result).toEqual({
      id: "2026-11-22-01",
      file: FILE,
      path: logPath,
      line: 3,
      offset: 0,
      bytes: Buffer.byteLength(block),
      journalProblem: null,
    });
    expect(await readFile(logPath, "utf8")).toBe(block);
    // The block's private copy (store/journal.ts) is the only other file written.
    expect((await readdir(workspace)).sort()).toEqual([".big-memory", "memory"]);
    expect(await readdir(join(workspace, ".big-memory", "journal"))).toEqual(["2026-11-22.jsonl"]);
    expect(await readdir(join(workspace, "memory"))).toEqual(["2026-11-22.md"]);
  });

  it("creates memory/ 0700 and the log 0600; an existing log keeps its mode", async () => {
    await append("a");
    expect((await stat(join(workspace, "memory"))).mode & 0o777).toBe(0o700);
    expect((await stat(logPath)).mode & 0o777).toBe(0o600);
    const other = dailyLogPath(workspace, "2026-11-23");
    await writeFile(other, "# notes\n", { mode: 0o644 });
    await chmod(other, 0o644);
    await appendSnapshotBlock({
      workspaceDir: workspace,
      date: "2026-11-23",
      render: (id) => renderTestBlock(id, "b", "p"),
    });
    expect((await stat(other)).mode & 0o777).toBe(0o644);
  });

  it("redacts the rendered block before it reaches the disk", async () => {
    const token = `ghp_${"Zz90".repeat(9)}`;
    await append("a", `GITHUB_TOKEN=${token}`);
    const text = await readFile(logPath, "utf8");
    expect(text).not.toContain(token);
    expect(text).toContain("GITHUB_TOKEN=[REDACTED:github-token]");
  });

  it("refuses a daily log or a memory/ linked out of the workspace, writing nothing through it", async () => {
    const outside = await mkdtemp(join(tmpdir(), "big-memory-outside-"));
    try {
      await mkdir(join(workspace, "memory"), { recursive: true });
      await writeFile(join(outside, "target.md"), "outside\n");
      await symlink(join(outside, "target.md"), logPath);
      await expect(append("a")).rejects.toThrow(
        /refusing to write through .*memory\/2026-11-22\.md: it resolves to .*target\.md, outside the workspace/,
      );
      expect(await readFile(join(outside, "target.md"), "utf8")).toBe("outside\n");
      await rm(join(workspace, "memory"), { recursive: true });
      await symlink(outside, join(workspace, "memory"));
      await expect(append("b")).rejects.toThrow(/outside the workspace/);
      expect(await readdir(outside)).toEqual(["target.md"]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("separates consecutive blocks by one blank line and numbers them in order", async () => {
    const first = await append("a");
    const second = await append("b");
    const blocks = [
      renderTestBlock("2026-11-22-01", "a", "payload of a"),
      renderTestBlock("2026-11-22-02", "b", "payload of b"),
    ];
    const text = await readFile(logPath, "utf8");
    expect(text).toBe(`${blocks[0]}\n${blocks[1]}`);
    expect(second).toMatchObject({
      id: "2026-11-22-02",
      offset: first.bytes,
      bytes: 1 + Buffer.byteLength(blocks[1] ?? ""),
    });
    expect(second.line).toBe(first.line + (blocks[0]?.split("\n").length ?? 0));
    expect(lineAt(text, second.line)).toBe(START);
    expect(lineAt(text, second.line + 1)).toBe("<!-- snapshot-id: 2026-11-22-02 -->");
  });

  it("starts on a fresh line after a blank one when the log ends mid-line", async () => {
    const before = await seed("mid-line.md");
    const result = await append("a");
    const text = await readFile(logPath, "utf8");
    expect(text).toBe(`${before}\n\n${renderTestBlock("2026-11-22-01", "a", "payload of a")}`);
    expect(result).toMatchObject({ id: "2026-11-22-01", line: 7, offset: Buffer.byteLength(before) });
    expect(lineAt(text, 7)).toBe(START);
  });

  it("starts on a fresh line after a torn block, skips the torn block's id, and keeps the new block intact", async () => {
    const before = await seed("torn-block.md");
    const result = await append("a");
    const text = await readFile(logPath, "utf8");
    const block = renderTestBlock("2026-11-22-03", "a", "payload of a");
    expect(text).toBe(`${before}\n\n${block}`);
    expect(text.startsWith(before)).toBe(true);
    expect(result).toMatchObject({ id: "2026-11-22-03", line: 22 });
    expect(lineAt(text, 22)).toBe(START);
    expect(lineAt(text, 18)).toBe("Make the tokenizer keep dotted identif");
  });

  it("adds no separator after a log that already ends with a blank line", async () => {
    await mkdir(join(workspace, "memory"));
    await writeFile(logPath, "# notes\n\n");
    const result = await append("a");
    expect(await readFile(logPath, "utf8")).toBe(
      `# notes\n\n${renderTestBlock("2026-11-22-01", "a", "payload of a")}`,
    );
    expect(result).toMatchObject({ line: 5, offset: 9 });
  });

  it("counts CRLF line endings like markdown does when it reports the line", async () => {
    await mkdir(join(workspace, "memory"));
    await writeFile(logPath, "# notes\r\nwritten on Windows\r\n");
    const result = await append("a");
    const text = await readFile(logPath, "utf8");
    expect(text).toBe(
      `# notes\r\nwritten on Windows\r\n\n${renderTestBlock("2026-11-22-01", "a", "payload of a")}`,
    );
    expect(result.line).toBe(6);
    expect(lineAt(text, 6)).toBe(START);
  });

  it("continues past id 99 with 100 and 101", async () => {
    const before = await seed("id-99.md");
    expect((await append("a")).id).toBe("2026-11-22-100");
    expect((await append("b")).id).toBe("2026-11-22-101");
    expect((await readFile(logPath, "utf8")).startsWith(before)).toBe(true);
  });

  it("adds the final line feed a rendered block lacks", async () => {
    await appendSnapshotBlock({
      workspaceDir: workspace,
      date: DATE,
      render: (id) => renderTestBlock(id, "a", "p").trimEnd(),
    });
    expect(await readFile(logPath, "utf8")).toBe(renderTestBlock("2026-11-22-01", "a", "p"));
  });

  it("writes nothing, not even the file, when render throws, and leaves the lock free", async () => {
    const boom = new Error("renderer exploded");
    const attempt = appendSnapshotBlock({
      workspaceDir: workspace,
      date: DATE,
      render: () => {
        throw boom;
      },
    });
    await expect(attempt).rejects.toThrow(`big-memory: cannot append to ${FILE}: renderer exploded`);
    await expect(attempt.catch((error: Error) => error.cause)).resolves.toBe(boom);
    expect(await readdir(join(workspace, "memory"))).toEqual([]);
    expect((await append("a")).id).toBe("2026-11-22-01");
  });

  it.each([
    [
      "no start marker",
      (id: string) => `<!-- snapshot-id: ${id} -->\n`,
      "rendered block has 0 start marker lines",
    ],
    [
      "two start markers",
      (id: string) => `${START}\n${renderTestBlock(id, "a", "p")}`,
      "rendered block has 2 start marker lines",
    ],
  ])("refuses a block with %s and leaves the log unchanged", async (_, render, reason) => {
    const before = await seed("mid-line.md");
    await expect(appendSnapshotBlock({ workspaceDir: workspace, date: DATE, render })).rejects.toThrow(
      `big-memory: cannot append to ${FILE}: ${reason} (expected exactly one <!-- BIG-MEMORY-SNAPSHOT v1 -->)`,
    );
    expect(await readFile(logPath, "utf8")).toBe(before);
  });

  it("refuses a block without an end marker", async () => {
    const render = (id: string) => renderTestBlock(id, "a", "p").replace("<!-- /BIG-MEMORY-SNAPSHOT -->", "");
    await expect(appendSnapshotBlock({ workspaceDir: workspace, date: DATE, render })).rejects.toThrow(
      `big-memory: cannot append to ${FILE}: rendered block has no end marker after its start marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)`,
    );
    expect(await readdir(join(workspace, "memory"))).toEqual([]);
  });

  it("refuses a block that does not carry the allocated id", async () => {
    await seed("torn-block.md");
    const render = () => renderTestBlock("2026-11-22-02", "a", "p");
    await expect(appendSnapshotBlock({ workspaceDir: workspace, date: DATE, render })).rejects.toThrow(
      `big-memory: cannot append to ${FILE}: rendered block does not carry its id (expected <!-- snapshot-id: 2026-11-22-03 --> inside the block)`,
    );
  });

  it("names the file and the system error when the log cannot be opened", async () => {
    await mkdir(logPath, { recursive: true });
    await expect(append("a")).rejects.toThrow(
      `big-memory: cannot append to ${FILE}: EISDIR: illegal operation on a directory, open '${logPath}'`,
    );
  });

  it("rejects an invalid date before touching the disk", async () => {
    await expect(
      appendSnapshotBlock({ workspaceDir: workspace, date: "2026-11-31", render: () => "" }),
    ).rejects.toThrow('big-memory: invalid daily log date "2026-11-31" (expected YYYY-MM-DD)');
    expect(await readdir(workspace)).toEqual([]);
  });

  it("times out with the lock path and holder pid while another live process holds the workspace lock", async () => {
    await mkdir(join(workspace, "memory"));
    const lockPath = dailyLogLockPath(workspace);
    const holder = new FixtureProcess("./lock-child.ts", ["hold", lockPath]);
    children.push(holder);
    await holder.waitForLine("locked");
    const since = new Date((await readLockOwner(lockPath))?.createdAt ?? 0).toISOString();
    const attempt = appendSnapshotBlock({
      workspaceDir: workspace,
      date: DATE,
      render: (id) => renderTestBlock(id, "a", "p"),
      lockTimeoutMs: 200,
    });
    await expect(attempt).rejects.toThrow(
      `big-memory: cannot append to ${FILE}: timed out after 200 ms waiting for lock ${lockPath} held by pid ${holder.pid} on ${hostname()} since ${since}`,
    );
    await expect(attempt.catch((error: Error) => error.cause)).resolves.toBeInstanceOf(LockTimeoutError);
    await expect(readDailyLog(workspace, DATE)).resolves.toBeNull();
  });

  it("never touches other workspace files", async () => {
    await mkdir(join(workspace, "memory"));
    const others = ["MEMORY.md", "AGENTS.md", "memory/notes.md", "memory/2026-11-21.md"];
    for (const name of others) await writeFile(join(workspace, name), `# ${name}\n`);
    const statsBefore = await Promise.all(others.map((name) => stat(join(workspace, name))));
    await append("a");
    await append("b");
    const statsAfter = await Promise.all(others.map((name) => stat(join(workspace, name))));
    expect(statsAfter.map((s) => [s.size, s.mtimeMs, s.ino])).toEqual(
      statsBefore.map((s) => [s.size, s.mtimeMs, s.ino]),
    );
    for (const name of others) expect(await readFile(join(workspace, name), "utf8")).toBe(`# ${name}\n`);
    expect((await readdir(workspace)).sort()).toEqual([".big-memory", "AGENTS.md", "MEMORY.md", "memory"]);
    expect((await readdir(join(workspace, "memory"))).sort()).toEqual([
      "2026-11-21.md",
      "2026-11-22.md",
      "notes.md",
    ]);
  });

  it("gives distinct ids to concurrent appends from one process", async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, index) => append(`w${index}`)));
    const text = await readFile(logPath, "utf8");
    expect(results.map((result) => result.id).sort()).toEqual(
      Array.from({ length: 10 }, (_, index) => `2026-11-22-${String(index + 1).padStart(2, "0")}`),
    );
    for (const [index, result] of results.entries()) {
      expect(text).toContain(renderTestBlock(result.id, `w${index}`, `payload of w${index}`));
      expect(lineAt(text, result.line)).toBe(START);
    }
  });

  it("keeps 50 blocks from 50 concurrent processes intact, contiguous and uniquely numbered", async () => {
    const writers = Array.from(
      { length: 50 },
      (_, index) => new FixtureProcess("./append-child.ts", [workspace, DATE, `w${index}`, "64"]),
    );
    children.push(...writers);
    await Promise.all(writers.map((writer) => writer.waitForLine("ready")));
    for (const writer of writers) writer.send("go");
    const exits = await Promise.all(writers.map((writer) => writer.exited));
    expect(exits).toEqual(writers.map(() => ({ code: 0, signal: null })));

    const bytes = await readFile(logPath);
    const text = bytes.toString("utf8");
    const results = writers.map((writer) => ChildResult.parse(writer.lastJson()));
    const ids = Array.from({ length: 50 }, (_, index) => `2026-11-22-${String(index + 1).padStart(2, "0")}`);
    expect(text.split("\n").filter((line) => line === START)).toHaveLength(50);
    expect(text.split("\n").filter((line) => line === "<!-- /BIG-MEMORY-SNAPSHOT -->")).toHaveLength(50);
    expect(results.map((result) => result.id).sort()).toEqual(ids);

    // The appends tile the file exactly, in id order, each one the separator plus the writer's whole block.
    const byOffset = results.toSorted((a, b) => a.offset - b.offset);
    expect(byOffset.map((result) => result.id)).toEqual(ids);
    let expectedOffset = 0;
    for (const result of byOffset) {
      expect(result.offset).toBe(expectedOffset);
      const separator = result.offset === 0 ? "" : "\n";
      const written = bytes.subarray(result.offset, result.offset + result.bytes).toString("utf8");
      expect(written).toBe(separator + renderTestBlock(result.id, result.writer, result.payload));
      expect(lineAt(text, result.line)).toBe(START);
      expect(lineAt(text, result.line + 1)).toBe(`<!-- snapshot-id: ${result.id} -->`);
      expectedOffset += result.bytes;
    }
    expect(bytes.length).toBe(expectedOffset);
    expect(await readdir(join(workspace, "memory"))).toEqual(["2026-11-22.md"]);
  }, 180_000);
});

describe("readDailyLog", () => {
  it("returns the log's text, or null when there is none", async () => {
    await expect(readDailyLog(workspace, DATE)).resolves.toBeNull();
    const before = await seed("torn-block.md");
    await expect(readDailyLog(workspace, DATE)).resolves.toBe(before);
  });
});

describe("readFailure", () => {
  /** The error reading `path` fails with. */
  const failureOf = async (path: string) => {
    try {
      await readFile(path);
    } catch (error) {
      return error;
    }
    throw new Error(`${path} could be read`);
  };

  it("is null for a log that is gone", async () => {
    expect(readFailure(FILE, await failureOf(logPath))).toBeNull();
  });

  it("names the log, the system's reason without the path, and the fix, as a problem of the whole file", async () => {
    // /proc/self/mem stats as a regular file and fails a read from its start with EIO, even for root.
    expect(readFailure(FILE, await failureOf("/proc/self/mem"))).toEqual({
      file: FILE,
      line: 0,
      message:
        "memory/2026-11-22.md cannot be read (EIO: i/o error): check the disk it is on; its snapshots are left out until it can be read",
    });
    await mkdir(logPath, { recursive: true });
    expect(readFailure(FILE, await failureOf(logPath))?.message).toBe(
      "memory/2026-11-22.md cannot be read (EISDIR: illegal operation on a directory): move the folder away; its snapshots are left out until it can be read",
    );
  });

  it("tells an owner or mode that forbids reading (as an unprivileged user meets it)", () => {
    const denied = Object.assign(new Error(`EACCES: permission denied, open '${logPath}'`), {
      code: "EACCES",
    });
    expect(readFailure(FILE, denied)?.message).toBe(
      "memory/2026-11-22.md cannot be read (EACCES: permission denied): check its owner and mode; its snapshots are left out until it can be read",
    );
  });

  it("rethrows a failure of the machine, which reading the other logs would meet too", () => {
    const tooMany = Object.assign(new Error("EMFILE: too many open files, open 'x'"), { code: "EMFILE" });
    expect(() => readFailure(FILE, tooMany)).toThrow(tooMany);
  });
});

describe("listDailyLogs", () => {
  it("returns [] when the workspace has no memory folder", async () => {
    await expect(listDailyLogs(workspace)).resolves.toEqual([]);
  });

  it("lists only files named YYYY-MM-DD.md directly in memory/, oldest first", async () => {
    const memory = join(workspace, "memory");
    await mkdir(join(memory, "2026-11-20.md"), { recursive: true });
    await mkdir(join(memory, "archive"));
    const logs = { "2026-11-22.md": "b\n", "2025-12-31.md": "a\n", "2026-11-23.md": "c\n" };
    const noise = [
      "notes.md",
      "2026-11-22.md.bak",
      "2026-1-2.md",
      "2026-02-30.md",
      "2026-11-21.MD",
      "archive/2026-11-19.md",
    ];
    for (const [name, text] of Object.entries(logs)) await writeFile(join(memory, name), text);
    for (const name of noise) await writeFile(join(memory, name), "noise\n");
    await writeFile(join(workspace, "2026-11-24.md"), "outside memory/\n");

    const listed = await listDailyLogs(workspace);
    expect(listed.map(({ date, file, path, size }) => ({ date, file, path, size }))).toEqual(
      ["2025-12-31", "2026-11-22", "2026-11-23"].map((date) => ({
        date,
        file: `memory/${date}.md`,
        path: join(memory, `${date}.md`),
        size: 2,
      })),
    );
    const mtimes = await Promise.all(listed.map(async (log) => (await stat(log.path)).mtimeMs));
    expect(listed.map((log) => log.mtimeMs)).toEqual(mtimes);
  });
});
