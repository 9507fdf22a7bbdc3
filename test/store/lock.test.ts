import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { breakLock, LockTimeoutError, readLockOwner, withLock } from "../../plugin/store/lock.ts";
import { FixtureProcess } from "./fixtures/spawn.ts";

let dir: string;
let lockPath: string;
const children: FixtureProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "big-memory-lock-"));
  lockPath = join(dir, ".big-memory.lock");
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
  await rm(dir, { recursive: true, force: true });
});

function start(args: string[]): FixtureProcess {
  const child = new FixtureProcess("./lock-child.ts", args);
  children.push(child);
  return child;
}

/** A lock left behind by a process that was killed while holding it. */
async function leaveStaleLock(): Promise<number> {
  const holder = start(["hold", lockPath]);
  await holder.waitForLine("locked");
  await holder.kill("SIGKILL");
  return holder.pid;
}

interface Interval {
  pid: number;
  enter: number;
  exit: number;
}

/**
 * Reads the journal the `critical` fixtures wrote: one interval per process, plus any violations. An interval is
 * the pair of line numbers of a process's enter and exit: lines appended with O_APPEND are ordered as they
 * happened, while time stamps taken in different processes need not be (each has its own clock origin).
 */
async function readJournal(path: string): Promise<{ intervals: Interval[]; violations: string[] }> {
  const lines = (await readFile(path, "utf8")).split("\n").filter((line) => line !== "");
  const violations = lines.filter((line) => line.startsWith("violation"));
  const times = new Map<number, Partial<Interval>>();
  lines.forEach((line, index) => {
    const [event, pid] = line.split(" ");
    if (event !== "enter" && event !== "exit") return;
    const entry = times.get(Number(pid)) ?? { pid: Number(pid) };
    entry[event] = index;
    times.set(Number(pid), entry);
  });
  const intervals = [...times.values()].map(({ pid = 0, enter = Number.NaN, exit = Number.NaN }) => ({
    pid,
    enter,
    exit,
  }));
  return { intervals: intervals.sort((a, b) => a.enter - b.enter), violations };
}

/** The pairs of processes whose intervals interleave: another process entered before one exited. */
function overlaps(intervals: Interval[]): string[] {
  return intervals.flatMap((current, index) => {
    const next = intervals[index + 1];
    return next !== undefined && !(current.exit < next.enter) ? [`${current.pid} and ${next.pid}`] : [];
  });
}

/** Starts `count` `critical` fixtures, releases them at once, and returns the journal once all are done. */
async function race(count: number, round: number) {
  const journal = join(dir, `journal-${round}.log`);
  const racers = Array.from({ length: count }, () =>
    start(["critical", lockPath, journal, join(dir, `inside-${round}`), "40"]),
  );
  await Promise.all(racers.map((racer) => racer.waitForLine("ready")));
  for (const racer of racers) racer.send("go");
  const exits = await Promise.all(racers.map((racer) => racer.exited));
  expect(exits).toEqual(racers.map(() => ({ code: 0, signal: null })));
  return readJournal(journal);
}

describe("withLock", () => {
  it("runs fn while holding the lock and removes every trace afterwards", async () => {
    const result = await withLock(lockPath, async () => {
      const owner = await readLockOwner(lockPath);
      return { pid: owner?.pid, hostname: owner?.hostname, version: owner?.version };
    });
    expect(result).toEqual({ pid: process.pid, hostname: hostname(), version: 1 });
    expect(await readLockOwner(lockPath)).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });

  it("gives every acquisition a nonce of its own, in this process and in another", async () => {
    const nonces: string[] = [];
    for (let i = 0; i < 3; i++) {
      nonces.push(await withLock(lockPath, async () => (await readLockOwner(lockPath))?.nonce ?? ""));
    }
    const other = start(["hold", lockPath]);
    await other.waitForLine("locked");
    nonces.push((await readLockOwner(lockPath))?.nonce ?? "");
    await other.kill("SIGKILL");
    expect(nonces.every((n) => /^[0-9a-f]+$/.test(n))).toBe(true);
    expect(new Set(nonces).size).toBe(4);
  });

  it("takes a free lock without a ticket when nobody is queued", async () => {
    const inside = await withLock(lockPath, () => readdir(dir));
    expect(inside).toEqual([lockPath.slice(dir.length + 1)]);
  });

  it("does not pass a live waiter already queued, even when the lock is free", async () => {
    const queue = `${lockPath}.queue`;
    await mkdir(queue);
    const waiter = `${String(1).padStart(18, "0")}-${process.pid}-0000abcd`;
    await writeFile(join(queue, waiter), "");
    await expect(withLock(lockPath, () => "barged", { timeoutMs: 300 })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    await rm(join(queue, waiter));
    await expect(withLock(lockPath, () => "in turn", { timeoutMs: 1000 })).resolves.toBe("in turn");
  });

  it("releases the lock when fn throws and rethrows the error unchanged", async () => {
    const error = new Error("boom");
    await expect(withLock(lockPath, () => Promise.reject(error))).rejects.toBe(error);
    expect(await readdir(dir)).toEqual([]);
    await expect(withLock(lockPath, () => "again", { timeoutMs: 0 })).resolves.toBe("again");
  });

  it("serialises concurrent callers in the same process", async () => {
    let inside = 0;
    let maxInside = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        withLock(lockPath, async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await sleep(1);
          order.push(index);
          inside--;
        }),
      ),
    );
    expect(maxInside).toBe(1);
    expect(order.toSorted((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index));
    expect(await readdir(dir)).toEqual([]);
  });

  it("rejects with a message naming the path when the parent folder is missing", async () => {
    const missing = join(dir, "missing", ".big-memory.lock");
    await expect(withLock(missing, () => "never")).rejects.toThrow(
      `big-memory: cannot take lock ${missing}: ENOENT: no such file or directory, mkdir '${missing}.`,
    );
  });

  it("times out naming the lock path and the holder pid while a live process holds the lock", async () => {
    const holder = start(["hold", lockPath]);
    await holder.waitForLine("locked");
    const owner = await readLockOwner(lockPath);
    expect(owner?.pid).toBe(holder.pid);
    const since = new Date(owner?.createdAt ?? 0).toISOString();
    const attempt = withLock(lockPath, () => "never", { timeoutMs: 300, staleMs: 3_600_000 });
    await expect(attempt).rejects.toThrow(
      `big-memory: timed out after 300 ms waiting for lock ${lockPath} held by pid ${holder.pid} on ${hostname()} since ${since}`,
    );
    await expect(attempt).rejects.toBeInstanceOf(LockTimeoutError);
    holder.send("release");
    await holder.waitForLine("released");
    expect(await holder.exited).toEqual({ code: 0, signal: null });
    expect(await readdir(dir)).toEqual([]);
  });

  it("recovers a lock left by a dead process without waiting for it to age", async () => {
    const deadPid = await leaveStaleLock();
    expect((await readLockOwner(lockPath))?.pid).toBe(deadPid);
    const owner = await withLock(lockPath, () => readLockOwner(lockPath), {
      timeoutMs: 2_000,
      staleMs: 3_600_000,
    });
    expect(owner?.pid).toBe(process.pid);
    expect(await readdir(dir)).toEqual([]);
  });

  it("breaks a lock older than staleMs, and the old holder's late release leaves the new lock alone", async () => {
    const holder = start(["hold", lockPath]);
    await holder.waitForLine("locked");
    const ownerAfterLateRelease = await withLock(
      lockPath,
      async () => {
        holder.send("release");
        await holder.waitForLine("released");
        return readLockOwner(lockPath);
      },
      { timeoutMs: 5_000, staleMs: 200 },
    );
    expect(ownerAfterLateRelease?.pid).toBe(process.pid);
    expect(await holder.exited).toEqual({ code: 0, signal: null });
    expect(await readdir(dir)).toEqual([]);
  });

  it("breaks a lock whose owner record is unreadable once it is older than staleMs", async () => {
    await leaveStaleLock();
    const [ownerFile] = await readdir(lockPath);
    await writeFile(join(lockPath, ownerFile ?? "missing"), "{ torn");
    expect(await readLockOwner(lockPath)).toBeNull();
    await expect(withLock(lockPath, () => "never", { timeoutMs: 100, staleMs: 3_600_000 })).rejects.toThrow(
      `big-memory: timed out after 100 ms waiting for lock ${lockPath} held by an owner whose record cannot be read`,
    );
    await expect(withLock(lockPath, () => "entered", { timeoutMs: 2_000, staleMs: 0 })).resolves.toBe(
      "entered",
    );
  });

  it("breakLock removes a lock still held under the given owner, once", async () => {
    await leaveStaleLock();
    const stale = await readLockOwner(lockPath);
    if (stale === null) throw new Error("expected a stale owner record");
    expect(await breakLock(lockPath, stale)).toBe(true);
    expect(await breakLock(lockPath, stale)).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });

  it("lets a late breaker of a stale lock leave the lock taken after it alone", async () => {
    await leaveStaleLock();
    const stale = await readLockOwner(lockPath);
    if (stale === null) throw new Error("expected a stale owner record");
    const ownerAfterLateBreak = await withLock(
      lockPath,
      async () => {
        expect(await breakLock(lockPath, stale)).toBe(false);
        return readLockOwner(lockPath);
      },
      { timeoutMs: 2_000, staleMs: 3_600_000 },
    );
    expect(ownerAfterLateBreak?.pid).toBe(process.pid);
    expect(await readdir(dir)).toEqual([]);
  });

  it("lets only one of two waiters in when both race to break the same stale lock (real processes)", async () => {
    for (let round = 0; round < 4; round++) {
      await leaveStaleLock();
      const { intervals, violations } = await race(2, round);
      expect(violations).toEqual([]);
      expect(intervals).toHaveLength(2);
      expect(overlaps(intervals)).toEqual([]);
    }
  });

  it("keeps eight processes racing on a stale lock strictly one at a time", async () => {
    await leaveStaleLock();
    const { intervals, violations } = await race(8, 0);
    expect(violations).toEqual([]);
    expect(intervals).toHaveLength(8);
    expect(overlaps(intervals)).toEqual([]);
    expect((await readdir(dir)).filter((name) => name.startsWith(".big-memory.lock"))).toEqual([]);
  });

  it("recovers a lock folder holding stray files and folders but no owner, whatever they are", async () => {
    await mkdir(join(lockPath, "sync-conflict"), { recursive: true });
    await writeFile(join(lockPath, ".DS_Store"), "finder");
    await writeFile(join(lockPath, "sync-conflict", "owner.json"), "{}");
    await expect(withLock(lockPath, () => "entered", { timeoutMs: 2_000 })).resolves.toBe("entered");
    expect(await readdir(dir)).toEqual([]);
  });

  it("lets the next waiter in once a holder with a stray file beside its owner file releases", async () => {
    const holder = start(["hold", lockPath]);
    await holder.waitForLine("locked");
    await writeFile(join(lockPath, "desktop.ini"), "stray");
    const waiter = withLock(lockPath, () => "entered", { timeoutMs: 10_000 });
    holder.send("release");
    await expect(waiter).resolves.toBe("entered");
    expect(await readdir(dir)).toEqual([]);
  });

  it("never breaks a live holder whose heartbeat is fresh, however long it holds", async () => {
    let holderDone = false;
    let enteredWhileHeld = true;
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holding = withLock(
      lockPath,
      async () => {
        entered();
        // Held for more than four times staleMs: only the heartbeat keeps the lock from looking stale.
        await sleep(900);
        holderDone = true;
      },
      { staleMs: 200 },
    );
    await inside;
    await withLock(
      lockPath,
      () => {
        enteredWhileHeld = !holderDone;
      },
      { staleMs: 200 },
    );
    await holding;
    expect(enteredWhileHeld).toBe(false);
  });

  it("lets waiters in in the order they came", async () => {
    const order: number[] = [];
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const held = withLock(lockPath, () => {
      entered();
      return new Promise<void>((resolve) => (release = resolve));
    });
    await inside;
    const waiters: Promise<void>[] = [];
    for (let i = 0; i < 6; i++) {
      waiters.push(withLock(lockPath, async () => void order.push(i)));
      // Time for the waiter to take its ticket (its arrival) before the next one comes.
      await sleep(15);
    }
    release();
    await Promise.all([held, ...waiters]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await readdir(dir)).toEqual([]);
  });
});
