import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { CachedState, CachedStates } from "../../plugin/store/cached-state.ts";
import { JsonState } from "../../plugin/store/state.ts";

const Counter = z.object({ version: z.literal(1), log: z.array(z.string()), pending: z.string().nullable() });
type Counter = z.infer<typeof Counter>;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "big-memory-cached-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const path = () => join(dir, "state", "s.json");
/** One process's view of the file: two of them on one path behave as two processes do. */
function cached(onChange: () => void = () => {}): CachedState<Counter> {
  const file = new JsonState<Counter>(path(), Counter, () => ({ version: 1, log: [], pending: null }), {
    warn: () => {},
  });
  return new CachedState(file, onChange);
}
const onDisk = (): Counter => JSON.parse(readFileSync(path(), "utf8"));
const add = (entry: string) => (c: Counter) => ({ ...c, log: [...c.log, entry] });

describe("CachedState", () => {
  it("applies a change in memory at once and writes it only when flushed", async () => {
    const calls: number[] = [];
    const s = cached(() => calls.push(1));
    await s.read();
    s.change(add("a"));
    s.change(add("b"));
    expect(await s.read()).toEqual({ version: 1, log: ["a", "b"], pending: null });
    expect(s.dirty).toBe(true);
    expect(calls).toHaveLength(2);
    expect(() => readFileSync(path())).toThrow(/ENOENT/);
    await s.flush();
    expect(s.dirty).toBe(false);
    expect(onDisk()).toEqual({ version: 1, log: ["a", "b"], pending: null });
  });

  it("replays its changes onto what another process wrote, keeping that process's pending restore", async () => {
    const mine = cached();
    const other = cached();
    mine.change(add("mine"));
    await other.update((c) => ({ ...add("other")(c), pending: "2026-11-22-01" }));
    await mine.flush();
    expect(onDisk()).toEqual({ version: 1, log: ["other", "mine"], pending: "2026-11-22-01" });
  });

  it("applies each change once when the file is still the one it wrote, and replays them onto another's", async () => {
    const mine = cached();
    const applied: string[] = [];
    const counted = (entry: string) => (c: Counter) => {
      applied.push(entry);
      return add(entry)(c);
    };
    await mine.update((c) => c);
    await mine.flush();
    mine.change(counted("a"));
    mine.change(counted("b"));
    await mine.update((c) => ({ ...c, pending: "2026-11-22-03" }));
    expect(applied).toEqual(["a", "b"]);
    expect(onDisk()).toEqual({ version: 1, log: ["a", "b"], pending: "2026-11-22-03" });
    // Another process wrote meanwhile: the change is replayed onto its file.
    mine.change(counted("c"));
    await cached().update((c) => add("other")(c));
    await mine.flush();
    expect(applied).toEqual(["a", "b", "c", "c"]);
    expect(onDisk()).toEqual({ version: 1, log: ["a", "b", "other", "c"], pending: "2026-11-22-03" });
  });

  it("reloads when another process changed the file, with its own changes still on top", async () => {
    const mine = cached();
    const other = cached();
    expect((await mine.read()).pending).toBeNull();
    mine.change(add("mine"));
    await other.update((c) => ({ ...c, pending: "2026-11-22-02" }));
    expect(await mine.read()).toEqual({ version: 1, log: ["mine"], pending: "2026-11-22-02" });
  });

  it("lets exactly one of two processes take a pending value", async () => {
    const a = cached();
    const b = cached();
    await a.update((c) => ({ ...c, pending: "2026-11-22-03" }));
    const taken: string[] = [];
    const take = (s: CachedState<Counter>) =>
      s.update((c) => {
        if (c.pending !== null) taken.push(c.pending);
        return { ...c, pending: null };
      });
    await Promise.all([take(a), take(b)]);
    expect(taken).toEqual(["2026-11-22-03"]);
  });

  it("writes the changes and the update's own result together, and keeps the changes when the write fails", async () => {
    const s = cached();
    s.change(add("a"));
    await expect(
      s.update(() => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(s.dirty).toBe(true);
    expect(await s.update((c) => ({ ...c, pending: "2026-11-22-04" }))).toEqual({
      version: 1,
      log: ["a"],
      pending: "2026-11-22-04",
    });
    expect(s.dirty).toBe(false);
    expect(onDisk()).toEqual({ version: 1, log: ["a"], pending: "2026-11-22-04" });
  });

  it("writes synchronously at exit, creating the folder, unless another process holds the lock", () => {
    const s = cached();
    s.change(add("a"));
    expect(s.flushSync()).toBe(true);
    expect(onDisk().log).toEqual(["a"]);
    s.change(add("b"));
    const lock = `${path()}.lock`;
    const owner = {
      version: 1,
      pid: process.ppid,
      hostname: hostname(),
      createdAt: Date.now(),
      nonce: "ab12",
    };
    mkdirSync(lock);
    writeFileSync(join(lock, "owner.ab12.json"), JSON.stringify(owner));
    expect(s.flushSync()).toBe(false);
    expect(s.dirty).toBe(true);
    rmSync(lock, { recursive: true });
    expect(s.flushSync()).toBe(true);
    expect(onDisk().log).toEqual(["a", "b"]);
  });

  it("writes at exit the changes of its own write caught in the middle, exactly once", async () => {
    const s = cached();
    s.change(add("a"));
    let atExit: boolean | null = null;
    // The exit comes after the write read the file under its lock and before it wrote.
    await s.update((c) => {
      atExit = s.flushSync();
      return c;
    });
    expect(atExit).toBe(true);
    expect(onDisk().log).toEqual(["a"]);
  });

  it("writes at exit nothing twice when a flush is queued but not started", async () => {
    const s = cached();
    s.change(add("a"));
    const flushing = s.flush();
    expect(s.flushSync()).toBe(true);
    await flushing;
    expect(onDisk().log).toEqual(["a"]);
  });
});

describe("CachedStates", () => {
  const group = (delayMs: number, warnings: string[] = []) =>
    new CachedStates<Counter>({ root: dir, delayMs, logger: { warn: (m) => warnings.push(m) } });
  const file = () =>
    new JsonState<Counter>(path(), Counter, () => ({ version: 1, log: [], pending: null }), {
      warn: () => {},
    });

  it("writes a change on its own after the delay, and listens to the process only while a change waits", async () => {
    const states = group(20);
    const listeners = () => process.listenerCount("exit");
    const before = listeners();
    states.get("s", file).change(add("a"));
    expect(listeners()).toBe(before + 1);
    await vi.waitFor(() => expect(onDisk().log).toEqual(["a"]), { timeout: 5000 });
    await vi.waitFor(() => expect(listeners()).toBe(before));
  });

  it("writes what waits when closed, and nothing into a folder removed meanwhile", async () => {
    const states = group(60_000);
    states.get("s", file).change(add("a"));
    await states.close();
    expect(onDisk().log).toEqual(["a"]);
    const again = group(60_000);
    again.get("s", file).change(add("b"));
    rmSync(dir, { recursive: true, force: true });
    await again.close();
    expect(() => readFileSync(path())).toThrow(/ENOENT/);
  });
});

describe("CachedState updates that take the file as this process wrote it", () => {
  it("loses no update of another process: a file replaced since this process wrote it is read again", async () => {
    const a = cached();
    const b = cached();
    await a.update(add("a1"));
    await b.update(add("b1"));
    // a wrote last before b: its own copy is stale now, and its next update must build on b's.
    await a.update(add("a2"), { durable: false });
    await b.update(add("b2"));
    await a.update(add("a3"));
    expect(onDisk().log).toEqual(["a1", "b1", "a2", "b2", "a3"]);
  });

  it("never keeps a torn file as the previous good copy, after reading around it", async () => {
    const a = cached();
    await a.update(add("good"));
    await a.update(add("better"));
    writeFileSync(path(), '{"version":1,"log":["tor');
    const fresh = cached();
    expect((await fresh.read()).log).toEqual(["good"]);
    await fresh.update(add("next"));
    expect(onDisk().log).toEqual(["good", "next"]);
    expect(JSON.parse(readFileSync(`${path()}.bak`, "utf8")).log).toEqual(["good"]);
    // The process that wrote before the file was torn sees its stamp changed: it reads, not trusts, its copy.
    await a.update(add("after"));
    expect(onDisk().log).toEqual(["good", "next", "after"]);
  });
});
