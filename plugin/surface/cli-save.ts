import type { Command } from "commander";
import { saveSnapshot } from "../session/maintenance.ts";
import { contentFromInput } from "../snapshot/input.ts";
import { nameProblem } from "../snapshot/naming.ts";
import { Trigger } from "../snapshot/snapshot.ts";
import { timeZoneProblem } from "../snapshot/time.ts";
import { decodeUtf8Strict } from "../snapshot/utf8.ts";
import type { CommandContext } from "./cli.ts";
import { type CommonOptions, EXIT, UsageError } from "./cli-args.ts";
import { kindsText } from "./cli-text.ts";
import { resolveWorkspace } from "./cli-workspace.ts";

/**
 * `big-memory save`: one snapshot read as JSON from stdin, appended to today's daily log. Scripts run many
 * at once, so this module loads only the write path (no markdown parser, no search index).
 */
export function defineSave(root: Command, { io, setExit, common, style, out }: CommandContext): void {
  common(root.command("save"))
    .description("save a snapshot read as JSON from stdin")
    .option("--name <name>", "checkpoint name (kebab-case, 3-64 characters)")
    .option("--session <key>", "session key to attribute the snapshot to")
    .option("--agent <id>", "agent id to attribute the snapshot to")
    .option("--trigger <trigger>", `what caused it: ${Trigger.options.join(", ")}`, "manual")
    .option("--time-zone <zone>", "IANA time zone for the daily log's date (default: this machine's)")
    .action(
      async (
        o: CommonOptions & {
          name?: string;
          session?: string;
          agent?: string;
          trigger: string;
          timeZone?: string;
        },
      ) => {
        const workspaceDir = resolveWorkspace(o.dir, io);
        const trigger = Trigger.safeParse(o.trigger);
        if (!trigger.success)
          throw new UsageError(
            (quote) => `--trigger expects one of ${Trigger.options.join(", ")}, received ${quote(o.trigger)}`,
          );
        if (o.timeZone !== undefined) {
          const problem = timeZoneProblem(o.timeZone);
          if (problem !== null) throw new UsageError(`--time-zone: ${problem}`);
        }
        const bytes = await io.readStdin();
        const decoded = decodeUtf8Strict(typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes);
        if (!decoded.ok) {
          throw new UsageError(`stdin is not valid UTF-8 text: ${decoded.problem} (nothing was saved)`);
        }
        const raw = decoded.text;
        let input: unknown;
        try {
          input = JSON.parse(raw);
        } catch (error) {
          throw new UsageError(
            `stdin is not valid JSON (${error instanceof Error ? error.message : String(error)}); expected one snapshot object such as {"goal": "...", "next": ["..."]}`,
          );
        }
        const content = contentFromInput(input);
        if (!content.ok) throw new UsageError(`invalid snapshot on stdin:\n${content.error}`);
        if (o.name !== undefined) {
          const problem = nameProblem(o.name, content.content.goal);
          if (problem !== null) throw new UsageError(problem);
        }
        const saved = await saveSnapshot({
          workspaceDir,
          content: content.content,
          meta: {
            trigger: trigger.data,
            session: o.session ?? null,
            agent: o.agent ?? null,
            name: o.name ?? null,
          },
          now: io.now(),
          ...(o.timeZone === undefined ? {} : { timeZone: o.timeZone }),
        });
        const redacted = { total: saved.redacted, kinds: saved.redactions };
        out(o.json, { id: saved.id, file: saved.file, line: saved.line, redacted }, () =>
          [
            `saved ${saved.id} to ${saved.file}:${saved.line}`,
            ...(saved.redacted > 0
              ? [
                  style.yellow(
                    `redacted ${saved.redacted} value${saved.redacted === 1 ? "" : "s"} before writing (${kindsText(saved.redactions)})`,
                  ),
                ]
              : []),
          ].join("\n"),
        );
        setExit(EXIT.ok);
      },
    );
}
