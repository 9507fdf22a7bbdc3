/**
 * A built copy of the big-memory package in a temp directory, for loading through `plugins.load.paths`.
 *
 * The repository itself cannot be that path: OpenClaw captures a local plugin's whole directory as its
 * package boundary, and the OpenClaw running the tests lives inside the repository (`node_modules/openclaw`,
 * `.cache/openclaw/*`), so the host's own bundled files resolve as plugin sources and every agent turn fails
 * with "Plugin entry is outside its captured source package". And since package.json declares
 * `openclaw.runtimeExtensions`, a local path loads `dist/index.js` (whatever build is lying there), never
 * `plugin/index.ts`.
 *
 * So the stage copies the package files and the current `plugin/` sources, compiles them into its own
 * `dist/` with the project's build config (`tsc --noCheck`: emit only, type errors are `npm run typecheck`'s
 * business, and edits in progress elsewhere do not stop the e2e run), and links `node_modules` to the
 * repository's for the runtime dependencies. Nothing in the repository is written.
 */
import { cp, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { projectNode, repoRoot } from "./openclaw-install.ts";
import { type RunResult, runToCompletion } from "./processes.ts";

/** A staged, built copy of the package. */
export interface PluginStage {
  /** The plugin directory for `plugins.load.paths` (holds package.json, openclaw.plugin.json and dist/). */
  dir: string;
  /** The staged `bin/big-memory.js` (runs the staged `dist/surface/cli-main.js`). */
  bin: string;
  /** Milliseconds the copy and the build took. */
  buildMs: number;
  /**
   * Runs `bin/big-memory.js ARGS` with the project's Node, in `env` (an instance's environment, so no test
   * runner variables leak in) and `cwd`; 60 s timeout.
   */
  cli(args: readonly string[], options: { env: NodeJS.ProcessEnv; cwd: string }): Promise<RunResult>;
  dispose(): Promise<void>;
}

/** What is copied: the package's files except the build, package.json, and the build's tsconfig files. */
const PACKAGE_FILES = [
  "package.json",
  "openclaw.plugin.json",
  "plugin",
  "skills",
  "references",
  "bin",
  "tsconfig.json",
  "tsconfig.build.json",
] as const;

/** Stages and builds the repository's big-memory package in a new temp directory (see the module comment). */
export async function stageBigMemory(): Promise<PluginStage> {
  const started = Date.now();
  const root = await mkdtemp(path.join(tmpdir(), "big-memory-stage-"));
  const dir = path.join(root, "big-memory");
  const dispose = () => rm(root, { recursive: true, force: true, maxRetries: 3 });
  try {
    await Promise.all(
      PACKAGE_FILES.map((name) => cp(path.join(repoRoot, name), path.join(dir, name), { recursive: true })),
    );
    await symlink(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"), "dir");
    const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
    const build = await runToCompletion(
      await projectNode(),
      [tsc, "-p", path.join(dir, "tsconfig.build.json"), "--noCheck"],
      { env: process.env, cwd: dir, children: new Set(), timeoutMs: 120_000 },
    );
    if (build.code !== 0) {
      throw new Error(
        `plugin-stage: tsc exited ${build.code}: ${build.stdout.slice(-2000)}${build.stderr.slice(-2000)}`,
      );
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  const bin = path.join(dir, "bin", "big-memory.js");
  const node = await projectNode();
  return {
    dir,
    bin,
    buildMs: Date.now() - started,
    cli: (args, options) =>
      runToCompletion(node, [bin, ...args], { ...options, children: new Set(), timeoutMs: 60_000 }),
    dispose,
  };
}
