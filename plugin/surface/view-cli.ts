import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { writePrivateFile } from "../session/maintenance.ts";
import { PRIVATE_FILE_MODE, STATE_DIR_NAME } from "../session/state-files.ts";
import type { CommandContext } from "./cli.ts";
import { type CommonOptions, UsageError } from "./cli-args.ts";
import { counted } from "./cli-text.ts";
import { resolveWorkspace } from "./cli-workspace.ts";

/**
 * `big-memory view [--dir WORKSPACE] [--out FILE] [--open]`: writes the memory timeline of a workspace as
 * one self-contained HTML file (view-page.ts: no server, no network, no external asset; it works from
 * `file://`), by default `.big-memory/view.html` in the workspace (mode 0600 in the private folder: it
 * holds the snapshots, redacted as every read is). `--open` hands the file to the system browser. It
 * reads as `list` and `status` do and writes nothing but the page.
 */

/** The file written when `--out` is not given, relative to the workspace. */
export const DEFAULT_VIEW_FILE = `${STATE_DIR_NAME}/view.html`;

/** The command that hands a file to the system browser on `platform`, as program and arguments. */
export function opener(platform: NodeJS.Platform, file: string): { command: string; args: string[] } {
  const url = pathToFileURL(file).href;
  if (platform === "darwin") return { command: "open", args: [url] };
  if (platform === "win32") return { command: "cmd", args: ["/c", "start", '""', url] };
  return { command: "xdg-open", args: [url] };
}

/** Starts the system browser on `file` and resolves once it started (or failed to), not when it ends. */
export function openInBrowser(file: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const { command, args } = opener(process.platform, file);
  return new Promise((done) => {
    const child = spawn(command, args, { detached: true, stdio: "ignore", env });
    child.once("error", (error) => done(`could not start ${command}: ${error.message}`));
    child.once("spawn", () => {
      child.unref();
      done(null);
    });
  });
}

/** Attaches `view` to `root`. */
export function defineView(root: Command, { io, setExit, common, out }: CommandContext): void {
  common(root.command("view"))
    .description("write the memory timeline as one HTML file (works offline, from file://)")
    .option("--out <file>", `where to write it (default: ${DEFAULT_VIEW_FILE} in the workspace)`)
    .option("--open", "open it in the system browser")
    .action(async (o: CommonOptions & { out?: string; open?: boolean }) => {
      const workspace = resolveWorkspace(o.dir, io);
      if (o.out !== undefined && o.out.trim() === "") throw new UsageError("--out needs a file name");
      const [{ readWholeView }, { renderPage }] = await Promise.all([
        import("./view-read.ts"),
        import("./view-page.ts"),
      ]);
      const data = await readWholeView(workspace, io.now());
      const page = Buffer.from(renderPage(data), "utf8");
      const file =
        o.out === undefined
          ? join(workspace, DEFAULT_VIEW_FILE)
          : isAbsolute(o.out)
            ? o.out
            : resolve(io.cwd, o.out);
      // The page holds only what reads handed over (redacted): its bytes are written as they are, since a
      // second redaction could take the script's own hash in the policy for a secret.
      if (o.out === undefined) await writePrivateFile(file, page);
      else await writeFile(file, page, { mode: PRIVATE_FILE_MODE });
      const opened = o.open === true ? await openInBrowser(file, io.env) : null;
      const gaps = data.compactions.filter((c) => c.c === "none").length;
      out(
        o.json,
        {
          file,
          bytes: page.length,
          snapshots: data.snapshots.length,
          compactions: data.compactions.length,
          gaps,
          restores: data.restores.length,
          problems: data.problems.length,
          opened: o.open === true && opened === null,
        },
        () =>
          [
            `Wrote ${file} (${(page.length / 1024).toFixed(1)} KiB): ${counted(data.snapshots.length, "snapshot")}, ${data.compactions.length} ${data.compactions.length === 1 ? "compaction or reset" : "compactions and resets"}${gaps > 0 ? ` (${gaps} with no capture)` : ""}, ${counted(data.restores.length, "restore")}.`,
            o.open === true
              ? (opened ?? "Opened in the system browser.")
              : `Open it in a browser: ${pathToFileURL(file).href}`,
          ].join("\n"),
      );
      if (opened !== null) {
        io.stderr(`big-memory: ${opened}; open ${pathToFileURL(file).href} by hand\n`);
        setExit(3);
      }
    });
}
