/**
 * Watches a workspace's `memory/` folder for daily logs that appear, change or vanish, whoever writes
 * them (the flush turn's `write` tool, a person, another process), and reports each log once per
 * burst of events: a change is reported `debounceMs` after the last event about that file. A missing
 * `memory/` is watched through its parent until it appears.
 */
import { basename, dirname, resolve } from "node:path";
import { type FSWatcher, watch } from "chokidar";

/** A daily log, or a date-prefixed variant (see daily-log.ts `listDailyLogs`). */
const DAILY_LOG = /^\d{4}-\d{2}-\d{2}(?:\D[^/\\]*)?\.md$/;

export interface LogWatcherOptions {
  /** Called with the workspace-relative path (`memory/2026-11-22.md`) of a log that may have changed. */
  onChange: (file: string) => void;
  /** Called once per watcher error (the watcher keeps running). */
  onError: (error: unknown) => void;
  /** Quiet time before a burst of events about one file is reported, in ms. Default 50. */
  debounceMs?: number;
}

/** A running watcher. */
export interface LogWatcher {
  /** Resolves once the initial scan is done and events are being delivered. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Starts watching `<workspaceDir>/memory/` (not recursive). */
export function watchLogs(workspaceDir: string, options: LogWatcherOptions): LogWatcher {
  const debounceMs = options.debounceMs ?? 50;
  const timers = new Map<string, NodeJS.Timeout>();
  const memoryDir = resolve(workspaceDir, "memory");
  const inMemoryDir = (path: string) => dirname(resolve(path)) === memoryDir;
  // Depth 1, not 0: a memory/ created after the watch started is otherwise not looked into.
  // Subfolders are ignored instead, and only dated `.md` files directly in memory/ count.
  const watcher: FSWatcher = watch(memoryDir, {
    ignoreInitial: true,
    depth: 1,
    ignored: (path, stats) => {
      if (resolve(path) === memoryDir || stats === undefined) return false;
      return (
        stats.isDirectory() || (stats.isFile() && !(inMemoryDir(path) && DAILY_LOG.test(basename(path))))
      );
    },
  });
  const report = (path: string) => {
    if (!inMemoryDir(path) || !DAILY_LOG.test(basename(path))) return;
    const file = `memory/${basename(path)}`;
    clearTimeout(timers.get(file));
    timers.set(
      file,
      setTimeout(() => {
        timers.delete(file);
        options.onChange(file);
      }, debounceMs),
    );
  };
  watcher.on("add", report).on("change", report).on("unlink", report);
  watcher.on("error", (error) => options.onError(error));
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  return {
    ready,
    async close() {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await watcher.close();
    },
  };
}
