import { mkdtemp, open, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  appendDurably,
  errorCode,
  errorMessage,
  fsyncDirectory,
  SYNC_WRITE_BYTES,
  writeAll,
} from "../../plugin/store/fs-durable.ts";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "big-memory-fs-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("fsyncDirectory", () => {
  it("syncs an existing directory and rejects a missing one with ENOENT", async () => {
    await expect(fsyncDirectory(dir)).resolves.toBeUndefined();
    await expect(fsyncDirectory(join(dir, "missing")).catch(errorCode)).resolves.toBe("ENOENT");
  });
});

describe("writeAll", () => {
  it("appends every byte through an O_APPEND handle and returns the count", async () => {
    const path = join(dir, "log.md");
    const data = Buffer.from("x".repeat(1 << 20));
    const handle = await open(path, "a");
    try {
      expect(await writeAll(handle, Buffer.from("head\n"))).toBe(5);
      expect(await writeAll(handle, data)).toBe(data.length);
    } finally {
      await handle.close();
    }
    expect(await readFile(path, "utf8")).toBe(`head\n${data.toString()}`);
  });

  it("writes every byte on either side of the size it writes synchronously", async () => {
    const path = join(dir, "state.json");
    const small = Buffer.alloc(SYNC_WRITE_BYTES, "a");
    const large = Buffer.alloc(SYNC_WRITE_BYTES + 1, "b");
    const handle = await open(path, "a");
    try {
      expect([await writeAll(handle, small), await writeAll(handle, large)]).toEqual([
        small.length,
        large.length,
      ]);
    } finally {
      await handle.close();
    }
    expect(await readFile(path)).toEqual(Buffer.concat([small, large]));
  });
});

describe("appendDurably", () => {
  it("appends after what the file holds and counts the bytes, creating or not", async () => {
    const path = join(dir, "log.md");
    for (const [text, created] of [
      ["one\n", true],
      ["two ünïcode\n", false],
    ] as const) {
      const handle = await open(path, "a");
      try {
        expect(await appendDurably(handle, Buffer.from(text), { dir, created })).toBe(
          Buffer.byteLength(text),
        );
      } finally {
        await handle.close();
      }
    }
    expect(await readFile(path, "utf8")).toBe("one\ntwo ünïcode\n");
  });

  it("throws what the write threw, for the caller to undo (a handle opened read-only)", async () => {
    const path = join(dir, "log.md");
    await (await open(path, "w")).close();
    const handle = await open(path, "r");
    try {
      await expect(
        appendDurably(handle, Buffer.from("x"), { dir, created: false }).catch(errorCode),
      ).resolves.toBe("EBADF");
    } finally {
      await handle.close();
    }
  });
});

describe("errorCode", () => {
  it("returns the code of a system error and undefined otherwise", () => {
    expect(errorCode(Object.assign(new Error("x"), { code: "EEXIST" }))).toBe("EEXIST");
    expect([errorCode(new Error("x")), errorCode("ENOENT"), errorCode(null), errorCode({ code: 5 })]).toEqual(
      [undefined, undefined, undefined, undefined],
    );
  });
});

describe("errorMessage", () => {
  it("drops a leading big-memory: so that messages nest", () => {
    expect(errorMessage(new Error("big-memory: lock is busy"))).toBe("lock is busy");
    expect(errorMessage("plain")).toBe("plain");
  });
});
