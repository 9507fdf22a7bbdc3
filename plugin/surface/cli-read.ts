import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { readClaims } from "../search/claims.ts";
import { indexDir, listShardFiles } from "../search/persist.ts";
import { scanSearch } from "../search/scan.ts";
import type { SearchService } from "../search/search-service.ts";
import type { QueryResult, SnapshotRef } from "../search/snapshot-index.ts";
import { snapshotJson } from "../snapshot/json.ts";
import { live } from "../snapshot/lifecycle.ts";
import { formatDiagnostic } from "../snapshot/parse.ts";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { listDailyLogs } from "../store/daily-log.ts";
import type { CliIO } from "./cli.ts";
import { type CommonOptions, EXIT, parsePositiveInt, resolveWorkspace } from "./cli-args.ts";
import { progress } from "./cli-progress.ts";
import { statusDoc, statusText } from "./cli-status.ts";
import { oneLine, refTable, relativeAge, snapshotText, styleFor } from "./cli-text.ts";

/**
 * The CLI's read commands: list, show, recall and search, and reindex. They read through the search
 * index, the plugin's own read path: list, show and recall from the refs its saved months keep (no log
 * is parsed unless it changed since it was indexed), search from the whole index. The index's warnings
 * and the problems found in the logs go to stderr for people and into `diagnostics` in JSON. Work that
 * takes over a second shows its progress on stderr.
 */

/** What a command found, and what went wrong along the way. */
interface IndexRun {
  index: SearchService;
  /** Problems in the logs and the index's own warnings (index files rebuilt, unknown versions...). */
  diagnostics(): Diagnostic[];
}

/**
 * Opens the workspace's index (no watcher) for one command, waits for every month, runs `fn`, then saves
 * and closes it. `entriesOnly` loads refs without postings (see SearchServiceOptions). Warnings are
 * printed to stderr as they come unless `json` (then they join the diagnostics).
 */
export async function withIndex<T>(
  workspaceDir: string,
  io: CliIO,
  opts: { entriesOnly: boolean; json: boolean; skipLoad?: boolean },
  fn: (run: IndexRun) => Promise<T>,
): Promise<T> {
  const warnings: Diagnostic[] = [];
  const shown = progress({ stderr: io.stderr, terminal: io.color && process.stderr.isTTY === true });
  // Loaded on use, so that a short command such as `save` does not pay for the search engine's start-up.
  const { SearchService } = await import("../search/search-service.ts");
  const index = await SearchService.open(workspaceDir, {
    logger: {
      warn: (message) => {
        warnings.push({ file: ".big-memory/search", line: 0, message: message.replace(/^big-memory: /, "") });
        if (!opts.json) io.stderr(`${message}\n`);
      },
    },
    watch: false,
    entriesOnly: opts.entriesOnly,
    skipLoad: opts.skipLoad === true,
    onProgress: (p) =>
      shown.update(`indexing memory/: ${p.months} of ${p.of} months, ${p.snapshots} snapshots so far`),
  });
  try {
    await index.ready();
    shown.done();
    return await fn({ index, diagnostics: () => [...index.diagnostics(), ...warnings] });
  } finally {
    shown.done();
    await index.close();
  }
}

/** `memory/2026-11-22.md:14` as a file and a line, or null. */
function location(text: string): { file: string; line: number } | null {
  const m = /^(.+\.md):(\d+)$/.exec(text);
  return m?.[1] === undefined || m[2] === undefined ? null : { file: m[1], line: Number(m[2]) };
}

/**
 * The snapshot `what` names: `file:line`, an id (when blocks share it, the one in its own day's log,
 * with a warning naming the others), or a checkpoint name (its newest live version).
 */
async function resolve(
  index: SearchService,
  what: string,
): Promise<{ found: LocatedSnapshot | null; warnings: string[] }> {
  const at = location(what);
  if (at !== null) return { found: await index.getAt(at.file, at.line), warnings: [] };
  const same = index.findAll(what);
  if (same.length > 0) {
    const own =
      same.find((r) => r.file.startsWith(`memory/${what.slice(0, 10)}`)) ?? (same[0] as SnapshotRef);
    const others = same.filter((r) => r !== own);
    return {
      found: await index.getAt(own.file, own.line),
      warnings: others.map(
        (r) =>
          `snapshot id ${what} is also used by the block at ${r.file}:${r.line} (show it with "show ${r.file}:${r.line}")`,
      ),
    };
  }
  const named = index.latest({ name: what });
  return { found: named === null ? null : await index.getAt(named.file, named.line), warnings: [] };
}

/** Attaches list, show, recall, search and reindex to `root`. */
export function defineReadCommands(
  root: Command,
  io: CliIO,
  setExit: (code: number) => void,
  common: (cmd: Command) => Command,
): void {
  const style = styleFor(io.color);
  const out = (json: boolean | undefined, doc: unknown, text: () => string) =>
    io.stdout(json === true ? `${JSON.stringify(doc, null, 2)}\n` : `${text()}\n`);
  /** Problems of the logs, on stderr for people (JSON documents carry them instead). */
  const report = (json: boolean | undefined, diagnostics: readonly Diagnostic[]) => {
    if (json === true) return;
    for (const d of diagnostics) if (d.line > 0) io.stderr(`${style.yellow(formatDiagnostic(d))}\n`);
  };

  common(root.command("list"))
    .description("list snapshots, newest first")
    .option("--session <key>", "only this session's snapshots")
    .option("--agent <id>", "only this agent's snapshots")
    .option("--limit <n>", "at most N snapshots")
    .option("--all", "include deleted checkpoints")
    .action(
      async (o: CommonOptions & { session?: string; agent?: string; limit?: string; all?: boolean }) => {
        const limit = o.limit === undefined ? Number.POSITIVE_INFINITY : parsePositiveInt(o.limit, "--limit");
        const json = o.json === true;
        await withIndex(resolveWorkspace(o.dir, io), io, { entriesOnly: true, json }, async (run) => {
          const all = run.index.all();
          const kept = o.all === true ? all : live([...all].reverse(), (r) => r).reverse();
          const refs = kept
            .filter((r) => o.session === undefined || r.session === o.session)
            .filter((r) => o.agent === undefined || r.agent === o.agent)
            .slice(0, limit)
            .map(({ tombstone: _t, ...ref }) => ref);
          const diagnostics = run.diagnostics();
          out(o.json, { snapshots: refs, diagnostics }, () =>
            refs.length === 0 ? "No snapshots found." : refTable(refs, io.now(), style),
          );
          report(o.json, diagnostics);
          setExit(refs.length === 0 ? EXIT.notFound : EXIT.ok);
        });
      },
    );

  common(root.command("show"))
    .description("show one snapshot by id, file:line or checkpoint name, with stale-file warnings")
    .argument("<what>", "a snapshot id (2026-11-22-03), its block's file:line, or a checkpoint name")
    .action(async (what: string, o: CommonOptions) => {
      const workspaceDir = resolveWorkspace(o.dir, io);
      await withIndex(workspaceDir, io, { entriesOnly: true, json: o.json === true }, async (run) => {
        const { found, warnings } = await resolve(run.index, what);
        warnings.push(
          ...(found === null
            ? []
            : await (await import("../recover/restore-service.ts")).staleWarnings(workspaceDir, found)),
        );
        const diagnostics = run.diagnostics();
        out(o.json, { snapshot: found === null ? null : snapshotJson(found), warnings, diagnostics }, () =>
          found === null
            ? `No snapshot with id, location or name "${what}".`
            : snapshotText(snapshotJson(found), warnings, io.now(), style),
        );
        report(o.json, diagnostics);
        setExit(found === null ? EXIT.notFound : EXIT.ok);
      });
    });

  common(root.command("recall"))
    .description("the latest snapshot in scope, whole, with stale-file warnings")
    .option("--session <key>", "the session whose latest snapshot to recall")
    .option("--name <name>", "the checkpoint name to recall")
    .action(async (o: CommonOptions & { session?: string; name?: string }) => {
      const workspaceDir = resolveWorkspace(o.dir, io);
      await withIndex(workspaceDir, io, { entriesOnly: true, json: o.json === true }, async (run) => {
        const ref = run.index.latest({
          ...(o.session === undefined ? {} : { session: o.session }),
          ...(o.name === undefined ? {} : { name: o.name }),
        });
        const found = ref === null ? null : await run.index.getAt(ref.file, ref.line);
        const warnings =
          found === null
            ? []
            : await (await import("../recover/restore-service.ts")).staleWarnings(workspaceDir, found);
        const diagnostics = run.diagnostics();
        out(o.json, { snapshot: found === null ? null : snapshotJson(found), warnings, diagnostics }, () =>
          found === null
            ? "No snapshot in that scope."
            : snapshotText(snapshotJson(found), warnings, io.now(), style),
        );
        report(o.json, diagnostics);
        setExit(found === null ? EXIT.notFound : EXIT.ok);
      });
    });

  common(root.command("status"))
    .description("counts, sizes, autosaves, last capture and last restore per session")
    .action(async (o: CommonOptions) => {
      const workspaceDir = resolveWorkspace(o.dir, io);
      await withIndex(workspaceDir, io, { entriesOnly: true, json: o.json === true }, async (run) => {
        const logs = run.index.logs();
        const diagnostics = run.diagnostics();
        const refs = run.index.all().reverse();
        const doc = await statusDoc(workspaceDir, { refs, problems: diagnostics.length, ...logs });
        out(o.json, { ...doc, diagnostics }, () => statusText(doc, io.now(), style));
        report(o.json, diagnostics);
        setExit(EXIT.ok);
      });
    });

  common(root.command("search"))
    .description("find snapshots by identifiers, file names, error codes or phrases, best first")
    .argument("<query...>", "what to look for")
    .option("--limit <n>", "at most N hits (default 10)")
    .option("--session <key>", "only this session's snapshots")
    .option("--agent <id>", "only this agent's snapshots")
    .action(
      async (words: string[], o: CommonOptions & { limit?: string; session?: string; agent?: string }) => {
        const limit = o.limit === undefined ? 10 : parsePositiveInt(o.limit, "--limit");
        const query = words.join(" ");
        const json = o.json === true;
        const workspaceDir = resolveWorkspace(o.dir, io);
        const filter = {
          ...(o.session === undefined ? {} : { session: o.session }),
          ...(o.agent === undefined ? {} : { agent: o.agent }),
        };
        const first = await firstAnswer(workspaceDir, io, query, { limit, filter, json });
        const answer = (result: QueryResult, diagnostics: Diagnostic[]) => {
          const snapshots = result.hits.map(({ snippet: _s, field: _f, ...ref }) => ref);
          const { match, missing, suggestions } = result;
          out(o.json, { snapshots, match, missing, suggestions, diagnostics }, () =>
            [
              ...(match === "fuzzy" || result.hits.length === 0
                ? [absentText(query, missing, suggestions, result.hits.length > 0)]
                : []),
              ...result.hits.map(
                (h) =>
                  `${style.bold(h.id)}  ${relativeAge(h.timestamp, io.now())}  ${oneLine(h.goal || "(no goal)", 70)}\n    ${style.dim(`${h.field}: ${oneLine(h.snippet, 90)}  (${h.file}:${h.line})`)}`,
              ),
            ].join("\n"),
          );
          report(o.json, diagnostics);
          // "Have we seen X?": only a hit holding every identifier as typed says yes.
          setExit(result.hits.length > 0 && match === "exact" ? EXIT.ok : EXIT.notFound);
        };
        if (first !== null) {
          answer(first, first.diagnostics);
          return;
        }
        await withIndex(workspaceDir, io, { entriesOnly: false, json }, async (run) => {
          answer(run.index.search(query, { limit, filter, suggest: true }), run.diagnostics());
        });
      },
    );

  common(root.command("reindex"))
    .description("rebuild the search index from the daily logs")
    .action(async (o: CommonOptions) => {
      const json = o.json === true;
      await withIndex(
        resolveWorkspace(o.dir, io),
        io,
        { entriesOnly: true, json, skipLoad: true },
        async (run) => {
          // Progress comes from the index, month by month (see withIndex).
          const result = await run.index.reindex();
          const diagnostics = run.diagnostics();
          out(
            o.json,
            { ...result, diagnostics },
            () =>
              `reindexed ${result.snapshots} snapshots from ${result.logs} daily logs in ${Math.round(result.ms)} ms`,
          );
          report(o.json, diagnostics);
          setExit(EXIT.ok);
        },
      );
    });
}

/**
 * Logs at least this large (in bytes) with no index yet get a first answer by reading them (scan.ts);
 * `BIG_MEMORY_SCAN_FIRST_BYTES` in the environment sets another size.
 */
export const SCAN_FIRST_BYTES = 20_000_000;

/**
 * The answer to a first search of a large workspace with no index yet: read the logs for it (scan.ts)
 * and build the index in a background process (`big-memory reindex`), instead of making the person wait
 * for the whole build. Null when an index exists or the logs are small (the index is built at once).
 */
async function firstAnswer(
  workspaceDir: string,
  io: CliIO,
  query: string,
  options: { limit: number; filter: { session?: string; agent?: string }; json: boolean },
): Promise<(QueryResult & { diagnostics: Diagnostic[] }) | null> {
  if ((await listShardFiles(indexDir(workspaceDir))).length > 0) return null;
  const logs = await listDailyLogs(workspaceDir);
  const threshold = Number(io.env.BIG_MEMORY_SCAN_FIRST_BYTES ?? SCAN_FIRST_BYTES);
  if (logs.reduce((n, l) => n + l.size, 0) < threshold) return null;
  const shown = progress({ stderr: io.stderr, terminal: io.color && process.stderr.isTTY === true });
  const { claims } = await readClaims(workspaceDir);
  const scan = await scanSearch(workspaceDir, query, {
    limit: options.limit,
    filter: options.filter,
    claims,
    onProgress: (done, of) =>
      shown.update(`no index yet, reading memory/ for this search: ${done} of ${of} logs`),
  });
  shown.done();
  // BIG_MEMORY_BACKGROUND_INDEX=0 leaves the build to the caller (a benchmark times it apart).
  if (io.env.BIG_MEMORY_BACKGROUND_INDEX !== "0") {
    const bin = fileURLToPath(new URL("../../bin/big-memory.js", import.meta.url));
    spawn(process.execPath, [bin, "reindex", "--dir", workspaceDir], {
      detached: true,
      stdio: "ignore",
    }).unref();
  }
  const note = `no search index yet: answered by reading ${scan.parsed} of ${scan.logs} logs; the index is being built in the background (typo and prefix matches need it)`;
  if (!options.json) io.stderr(`big-memory: ${note}\n`);
  return {
    ...scan,
    diagnostics: [...scan.diagnostics, { file: ".big-memory/search", line: 0, message: note }],
  };
}

/** For people: which identifiers no snapshot mentions, the closest that exist, and whether near matches follow. */
export function absentText(
  query: string,
  missing: readonly string[],
  suggestions: readonly { word: string; closest: string[] }[],
  nearFollow: boolean,
): string {
  const named = missing.length > 0 ? missing.join(", ") : query;
  const closest = suggestions.flatMap((s) => s.closest);
  return [
    `No snapshot mentions ${named}.`,
    ...(closest.length > 0 ? [`Did you mean ${closest.join(", ")}?`] : []),
    ...(nearFollow ? ["Closest matches (fuzzy):"] : []),
  ].join(" ");
}
