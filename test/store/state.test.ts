import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { BACKUP_SUFFIX, JsonState } from "../../plugin/store/state.ts";

const Counter = z.object({ version: z.literal(1), n: z.number().int(), pending: z.string().nullable() });
type Counter = z.infer<typeof Counter>;

let dir: string;
let warnings: string[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "big-memory-state-"));
  warnings = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function state(name = "s.json"): JsonState<Counter> {
  return new JsonState(join(dir, name), Counter, () => ({ version: 1, n: 0, pending: null }), {
    warn: (m) => warnings.push(m),
  });
}

describe("JsonState", () => {
  it("starts from the initial value, silently, when the file does not exist", async () => {
    expect(await state().read()).toEqual({ version: 1, n: 0, pending: null });
    expect(warnings).toEqual([]);
  });

  it("keeps the previous good copy beside the file, written 0600", async () => {
    const s = state();
    await s.update((v) => ({ ...v, n: 1, pending: "2026-11-22-01" }));
    await s.update((v) => ({ ...v, n: 2 }));
    expect(JSON.parse(await readFile(join(dir, "s.json"), "utf8"))).toEqual({
      version: 1,
      n: 2,
      pending: "2026-11-22-01",
    });
    expect(JSON.parse(await readFile(join(dir, `s.json${BACKUP_SUFFIX}`), "utf8"))).toEqual({
      version: 1,
      n: 1,
      pending: "2026-11-22-01",
    });
    expect((await stat(join(dir, "s.json"))).mode & 0o777).toBe(0o600);
  });

  it("reads the previous copy when the file is torn, so a pending restore is never lost, and warns once", async () => {
    const s = state();
    await s.update((v) => ({ ...v, n: 1, pending: "2026-11-22-01" }));
    await s.update((v) => ({ ...v, n: 2 }));
    await writeFile(join(dir, "s.json"), '{"version":1,"n":');
    expect(await s.read()).toEqual({ version: 1, n: 1, pending: "2026-11-22-01" });
    expect(await s.read()).toEqual({ version: 1, n: 1, pending: "2026-11-22-01" });
    expect(warnings).toEqual([
      `big-memory: ${join(dir, "s.json")} is not valid JSON (corrupt or torn); using the previous copy ${join(dir, "s.json.bak")}`,
    ]);
    // The next write starts from the good copy and does not keep the torn file as the previous copy.
    await s.update((v) => ({ ...v, n: v.n + 10 }));
    expect(await s.read()).toEqual({ version: 1, n: 11, pending: "2026-11-22-01" });
    expect(JSON.parse(await readFile(join(dir, "s.json.bak"), "utf8"))).toMatchObject({ n: 1 });
  });

  it("starts fresh with one warning when neither the file nor its copy can be read as state", async () => {
    await writeFile(join(dir, "s.json"), '{"version":9}');
    expect(await state().read()).toEqual({ version: 1, n: 0, pending: null });
    expect(warnings).toEqual([
      `big-memory: ${join(dir, "s.json")} has an unknown version or shape (version: Invalid input: expected 1); no previous copy either, starting fresh`,
    ]);
  });

  it("affects only its own file: another state in the same folder reads as written", async () => {
    const good = state("a.json");
    await good.update((v) => ({ ...v, n: 5 }));
    await writeFile(join(dir, "b.json"), "garbage");
    expect(await state("b.json").read()).toMatchObject({ n: 0 });
    expect(await good.read()).toMatchObject({ n: 5 });
  });

  it("throws, naming the file, when the environment fails rather than the content", async () => {
    await writeFile(join(dir, "blocker"), "a file where a folder should be");
    const s = new JsonState<Counter>(
      join(dir, "blocker", "s.json"),
      Counter,
      () => ({ version: 1, n: 0, pending: null }),
      { warn: (m) => warnings.push(m) },
    );
    await expect(s.read()).rejects.toThrow(
      `big-memory: cannot read ${join(dir, "blocker", "s.json")}: ENOTDIR`,
    );
  });
});

describe("JsonState update with a known value", () => {
  it("uses the known value and tells fn the stamp while the file is unchanged, else reads it and tells null", async () => {
    const s = state();
    const written = await s.update((v) => ({ ...v, n: 1 }));
    const stamp = s.stamp();
    const seen: [Counter, string | null][] = [];
    const known = { stamp, value: { ...written, pending: "from memory" } };
    await s.update(
      (v, at) => {
        seen.push([v, at]);
        return v;
      },
      { known: () => known },
    );
    // Another process's write: the stamp changes, the file is read again.
    await state().update((v) => ({ ...v, n: 2 }));
    await s.update(
      (v, at) => {
        seen.push([v, at]);
        return v;
      },
      { known: () => known },
    );
    expect(seen).toEqual([
      [known.value, stamp],
      [{ version: 1, n: 2, pending: null }, null],
    ]);
  });
});

describe("JsonState readCached", () => {
  it("answers as read does, and sees every write since, of this process or another", async () => {
    const mine = state();
    expect(await mine.readCached()).toEqual({ version: 1, n: 0, pending: null });
    await mine.update((v) => ({ ...v, n: 1 }));
    expect((await mine.readCached()).n).toBe(1);
    expect((await mine.readCached()).n).toBe(1);
    await state().update((v) => ({ ...v, n: 2 }));
    expect((await mine.readCached()).n).toBe(2);
    await rm(join(dir, "s.json"));
    await rm(join(dir, `s.json${BACKUP_SUFFIX}`));
    expect((await mine.readCached()).n).toBe(0);
  });
});

describe("JsonState with a FIFO in its file's place", () => {
  it("reads the initial value without blocking, warns naming the FIFO, and its next write replaces it", async () => {
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [join(dir, "s.json")]);
    const s = state();
    expect(await s.read()).toEqual({ version: 1, n: 0, pending: null });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      `${join(dir, "s.json")} is not read: it is a FIFO (named pipe), not a regular file`,
    );
    expect(s.updateSync((v) => ({ ...v, n: 5 }))?.value.n).toBe(5);
    expect((await stat(join(dir, "s.json"))).isFile()).toBe(true);
    expect(await s.read()).toEqual({ version: 1, n: 5, pending: null });
  });
});

describe("JsonState written with durable: false (fsynced behind)", () => {
  it("is in place for every reader when update resolves, keeps the previous copy, and settles its fsyncs", async () => {
    const s = state();
    await s.update((v) => ({ ...v, n: 1 }));
    await s.update((v) => ({ ...v, n: 2, pending: "2026-11-22-03" }), { durable: false });
    // Another reader (another process's state object) sees the new value at once.
    expect(await state().read()).toEqual({ version: 1, n: 2, pending: "2026-11-22-03" });
    expect(JSON.parse(await readFile(join(dir, `s.json${BACKUP_SUFFIX}`), "utf8")).n).toBe(1);
    expect(((await stat(join(dir, "s.json"))).mode & 0o777).toString(8)).toBe("600");
    await s.settled();
    expect(warnings).toEqual([]);
  });

  it("settles quietly when the file or its folder is gone before the fsyncs run", async () => {
    const s = state();
    const written = s.update((v) => ({ ...v, n: 7 }), { durable: false });
    await written;
    await rm(dir, { recursive: true, force: true });
    await s.settled();
    expect(warnings).toEqual([]);
  });
});
