import type { Command } from "commander";
import { EXIT } from "./cli-args.ts";
import type { Style } from "./cli-text.ts";
import { chooseWorkspace, type WorkspaceIO } from "./cli-workspace.ts";
import { type Check, doctorChecks, doctorOk } from "./doctor-checks.ts";
import { type DoctorInput, gatherFacts } from "./doctor-facts.ts";
import { readOpenClawConfig } from "./openclaw-config.ts";
import { configPath } from "./openclaw-paths.ts";
import { jsonDocument } from "./terminal.ts";

/**
 * `big-memory doctor` (also `openclaw big-memory doctor` and `/big-memory doctor`): is big-memory able to
 * capture and restore here, and if not, why and what to do. Exit 0 when it is, 1 otherwise.
 */

/** The `doctor --json` document. */
export interface DoctorReport {
  ok: boolean;
  workspace: string;
  config: string;
  checks: Check[];
}

/** Runs every check for `input` (see `gatherFacts` and `doctorChecks`). */
export async function runDoctor(input: DoctorInput): Promise<DoctorReport> {
  const checks = doctorChecks(await gatherFacts(input));
  return { ok: doctorOk(checks), workspace: input.workspace.dir, config: input.config.path, checks };
}

const LABEL = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const;

/** The report for people: one line per check, its fix on the next line, and a verdict. */
export function doctorText(report: DoctorReport, style?: Style): string {
  const paint = (c: Check, text: string) =>
    style === undefined
      ? text
      : c.status === "ok"
        ? style.green(text)
        : c.status === "warn"
          ? style.yellow(text)
          : style.red(text);
  const lines = report.checks.flatMap((c) => [
    `${paint(c, LABEL[c.status])}  ${c.name}: ${c.detail}`,
    ...(c.fix === null ? [] : [`      fix: ${c.fix}`]),
  ]);
  const noModel = report.checks.some((c) => c.name === "model" && c.status !== "ok");
  const verdict = !report.ok
    ? "big-memory will NOT capture or restore until the FAIL lines are fixed."
    : noModel
      ? "big-memory is set up here, but OpenClaw has no model: it captures and restores once a model runs turns."
      : "big-memory will capture and restore in this workspace.";
  return [...lines, verdict].join("\n");
}

/** A doctor's input for a standalone CLI run: the workspace as `chooseWorkspace` finds it. */
export function cliDoctorInput(
  opts: { dir?: string | undefined; agent?: string | undefined },
  io: WorkspaceIO & { now(): Date },
): DoctorInput {
  const paths = { env: io.env, cwd: io.cwd };
  const hosted = io.openclawConfig !== undefined;
  const choice = chooseWorkspace(opts, io);
  const config =
    choice.config ??
    (hosted
      ? {
          path: configPath(paths),
          exists: true,
          config: io.openclawConfig as Record<string, unknown>,
          problem: null,
          missingEnv: [],
        }
      : readOpenClawConfig(paths));
  return {
    host: hosted ? "openclaw" : "cli",
    config,
    agent: choice.agent,
    workspace: { dir: choice.dir, source: choice.source },
    paths,
    now: io.now(),
  };
}

/** Adds `doctor` to a `big-memory` program. */
export function defineDoctor(
  root: Command,
  io: WorkspaceIO & { now(): Date; stdout(text: string): void; columns?: number | undefined },
  style: Style,
  setExit: (code: number) => void,
): void {
  root
    .command("doctor")
    .description(
      "check that capture and restore will work here: config, consent flags, workspace, hooks seen, index",
    )
    .option("--dir <workspace>", "the workspace folder holding memory/")
    .option("--agent <id>", "the agent whose workspace to check (default: OpenClaw's default agent)")
    .option("--json", "print one JSON document")
    .action(async (o: { dir?: string; agent?: string; json?: boolean }) => {
      const report = await runDoctor(cliDoctorInput(o, io));
      io.stdout(
        o.json === true ? jsonDocument(report, io.columns !== undefined) : `${doctorText(report, style)}\n`,
      );
      setExit(report.ok ? EXIT.ok : EXIT.notFound);
    });
}
