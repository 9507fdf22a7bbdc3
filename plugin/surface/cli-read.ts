import type { Command } from "commander";
import type { CliIO } from "./cli.ts";
import type { ReadOutput } from "./cli-answer.ts";
import { type CommonOptions, parseLimitOrAll } from "./cli-args.ts";
import { styleFor } from "./cli-text.ts";
import { resolveWorkspace } from "./cli-workspace.ts";

/**
 * The CLI's read commands: list, show, recall, status, search and reindex, declared here; each action
 * loads its runtime on use. List, show, recall and status read the refs the index has saved, only as many
 * months as their answer needs (cli-refs.ts; no search engine, no log parsed unless it changed since it
 * was indexed), and fall back to the search index when refs are missing; search and reindex open the
 * index (cli-index.ts). The index's warnings and the problems found in the logs go to stderr for people
 * and into `diagnostics` in JSON. Work that takes over a second shows its progress on stderr.
 */

/** How many snapshots `list` shows people when no `--limit` is given (with `--json` it lists every one). */
export const LIST_SHOWN = 50;

/** Attaches list, show, recall, status, search and reindex to `root`. */
export function defineReadCommands(
  root: Command,
  io: CliIO,
  setExit: (code: number) => void,
  common: (cmd: Command) => Command,
): void {
  const style = styleFor(io.color);
  const output = (o: CommonOptions): ReadOutput => ({ io, style, json: o.json === true, setExit });
  const refs = () => import("./cli-refs.ts");

  common(root.command("list"))
    .description("list snapshots, newest first")
    .option("--session <key>", "only this session's snapshots")
    .option("--agent <id>", "only this agent's snapshots")
    .option("--limit <n>", `at most N snapshots, or all (default: ${LIST_SHOWN} for people, all with --json)`)
    .option("--all", "include deleted checkpoints")
    .action(
      async (o: CommonOptions & { session?: string; agent?: string; limit?: string; all?: boolean }) => {
        const limit =
          o.limit === undefined
            ? o.json === true
              ? Number.POSITIVE_INFINITY
              : LIST_SHOWN
            : parseLimitOrAll(o.limit, "--limit");
        await (await refs()).list(output(o), {
          dir: resolveWorkspace(o.dir, io),
          limit,
          all: o.all === true,
          ...(o.session === undefined ? {} : { session: o.session }),
          ...(o.agent === undefined ? {} : { agent: o.agent }),
        });
      },
    );

  common(root.command("show"))
    .description("show one snapshot by id, file:line or checkpoint name, with stale-file warnings")
    .argument("<what>", "a snapshot id (2026-11-22-03), its block's file:line, or a checkpoint name")
    .action(async (what: string, o: CommonOptions) => {
      const dir = resolveWorkspace(o.dir, io);
      const { shownArgument } = await import("./cli-answer.ts");
      await (await refs()).show(output(o), dir, shownArgument(what, dir));
    });

  common(root.command("recall"))
    .description("the latest snapshot in scope, whole, with stale-file warnings")
    .option("--session <key>", "the session whose latest snapshot to recall")
    .option("--name <name>", "the checkpoint name to recall")
    .action(async (o: CommonOptions & { session?: string; name?: string }) => {
      await (await refs()).recall(output(o), resolveWorkspace(o.dir, io), {
        ...(o.session === undefined ? {} : { session: o.session }),
        ...(o.name === undefined ? {} : { name: o.name }),
      });
    });

  common(root.command("status"))
    .description(
      "counts, sizes, autosaves, last capture and last restore per session, the tokens restores injected",
    )
    .action(async (o: CommonOptions) => {
      await (await refs()).status(output(o), resolveWorkspace(o.dir, io));
    });

  common(root.command("search"))
    .description("find snapshots by identifiers, file names, error codes or phrases, best first")
    .argument("<query...>", "what to look for")
    .option("--limit <n>", "at most N hits (default 10)")
    .option("--session <key>", "only this session's snapshots")
    .option("--agent <id>", "only this agent's snapshots")
    .action(
      async (words: string[], o: CommonOptions & { limit?: string; session?: string; agent?: string }) => {
        const limit = o.limit === undefined ? 10 : parseLimitOrAll(o.limit, "--limit");
        const filter = {
          ...(o.session === undefined ? {} : { session: o.session }),
          ...(o.agent === undefined ? {} : { agent: o.agent }),
        };
        const workspaceDir = resolveWorkspace(o.dir, io);
        const { searchIndexed } = await import("./cli-index.ts");
        await searchIndexed(output(o), workspaceDir, words.join(" "), { limit, filter });
      },
    );

  common(root.command("reindex"))
    .description("rebuild the search index from the daily logs")
    .action(async (o: CommonOptions) => {
      const workspaceDir = resolveWorkspace(o.dir, io);
      await (await import("./cli-index.ts")).reindex(output(o), workspaceDir);
    });
}
