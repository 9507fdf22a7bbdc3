import yoctoSpinner, { type Spinner } from "yocto-spinner";

/**
 * Progress of long CLI work (building or loading the index) on stderr, shown only once the work has
 * taken a second: a spinner on a terminal, a plain line at most once a second elsewhere (a log, a pipe,
 * CI). The spinner is yocto-spinner: sindresorhus's maintained, dependency-light spinner, which hides and
 * restores the cursor, clears its line and redraws correctly when other output interleaves, and stops
 * cleanly on exit signals, things a hand-rolled `\r` loop gets wrong.
 */

export interface ProgressSink {
  /** Plain text for stderr, one line at a time. */
  stderr(text: string): void;
  /** Whether stderr is a terminal that can show a spinner. */
  terminal: boolean;
  /** Milliseconds since some origin (injected so tests control time). Default `performance.now`. */
  clock?: () => number;
}

export interface Progress {
  /** Reports where the work stands (`indexing memory/: 12 of 90 months, 10,300 snapshots`). */
  update(text: string): void;
  /** Ends the display (the spinner's line is cleared; plain lines stay). */
  done(): void;
}

/** Shows progress after `afterMs` (default 1000 ms) of work, as described above. */
export function progress(sink: ProgressSink, afterMs = 1000): Progress {
  const clock = sink.clock ?? (() => performance.now());
  const started = clock();
  let spinner: Spinner | undefined;
  let lastLine = Number.NEGATIVE_INFINITY;
  return {
    update(text) {
      const now = clock();
      if (now - started < afterMs) return;
      const line = `big-memory: ${text} (${Math.round((now - started) / 1000)} s)`;
      if (sink.terminal) {
        if (spinner === undefined) spinner = yoctoSpinner({ text: line, stream: process.stderr }).start();
        else spinner.text = line;
        return;
      }
      if (now - lastLine < 1000) return;
      lastLine = now;
      sink.stderr(`${line}\n`);
    },
    done() {
      spinner?.stop();
      spinner = undefined;
    },
  };
}
