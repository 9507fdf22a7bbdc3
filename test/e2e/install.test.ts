/**
 * Installing from a clone, as the README says, into a throwaway OpenClaw 2026.9.6 home: a clone (the files git
 * tracks, as the work tree has them, so uncommitted work is tested as pack.test.ts tests it), `npm install` (simulated: the repository's node_modules copied as hard links, the tree
 * the same lockfile gives, without a minute of downloads and 1 GB of disk; then the `prepare` script npm
 * runs after installing, which builds dist/), `openclaw plugins install -l`, then `openclaw config validate`,
 * `plugins inspect`, and `openclaw big-memory doctor` before and after the consent flag. A symbolic link
 * would not do: the install's safety scan refuses a node_modules link that leaves the plugin folder.
 * Then from npm, before the package is published: the clone's `npm pack`, served by a stand-in registry
 * (harness/npm-registry.ts), installed with `openclaw plugins install npm:big-memory` as the README says.
 * The packed tarball itself is pack.test.ts's.
 */
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { cliJson, InspectJson } from "./harness/big-memory-json.ts";
import { type FakeModel, startFakeModel } from "./harness/fake-model.ts";
import { createInstance, type Instance } from "./harness/instance.ts";
import { type NpmRegistry, startNpmRegistry } from "./harness/npm-registry.ts";
import { ensureOpenClaw, type OpenClawInstall, projectNode, repoRoot } from "./harness/openclaw-install.ts";
import { type RunResult, runToCompletion } from "./harness/processes.ts";

const TEST_TIMEOUT_MS = 600_000;
/** A linked install's record has no artifact kind or resolved spec. */
const LinkedInspectJson = InspectJson.extend({ install: z.unknown() });
/** An npm install's record: what was resolved and the integrity npm checked. */
const NpmInspectJson = InspectJson.extend({
  install: z.object({ resolvedSpec: z.string(), integrity: z.string() }),
});
const DoctorJson = z.object({
  ok: z.boolean(),
  workspace: z.string(),
  checks: z.array(
    z.object({ name: z.string(), status: z.string(), detail: z.string(), fix: z.string().nullable() }),
  ),
});

let root: string;
let clone: string;
let prepare: RunResult;
let model: FakeModel;
let openclaw: OpenClawInstall;
let instance: Instance;

async function run(command: string, args: string[], cwd: string): Promise<RunResult> {
  const bin = path.dirname(await projectNode());
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
  return runToCompletion(command, args, { env, cwd, children: new Set(), timeoutMs: 240_000 });
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "big-memory-clone-"));
  clone = path.join(root, "big-memory");
  // A clone of the current tree: the files git tracks, as they are in the work tree (no dist/, no node_modules).
  const tracked = await run("git", ["ls-files", "-z"], repoRoot);
  if (tracked.code !== 0) throw new Error(`git ls-files exited ${tracked.code}: ${tracked.stderr}`);
  for (const file of tracked.stdout
    .split("\0")
    .filter((f) => f !== "" && existsSync(path.join(repoRoot, f)))) {
    await mkdir(path.dirname(path.join(clone, file)), { recursive: true });
    await copyFile(path.join(repoRoot, file), path.join(clone, file));
  }
  // A repository of its own, as `git clone` gives: what npm install changes shows in `git status`.
  for (const args of [
    ["init", "-q"],
    ["add", "-A"],
    ["-c", "user.name=clone", "-c", "user.email=clone@example.invalid", "commit", "-q", "-m", "clone"],
  ]) {
    const git = await run("git", args, clone);
    if (git.code !== 0) throw new Error(`git ${args.join(" ")} exited ${git.code}: ${git.stderr}`);
  }
  const copied = await run(
    "cp",
    ["-al", path.join(repoRoot, "node_modules"), path.join(clone, "node_modules")],
    root,
  );
  if (copied.code !== 0) throw new Error(`cp -al exited ${copied.code}: ${copied.stderr}`);
  prepare = await run("npm", ["run", "prepare"], clone);
  const [install, started] = await Promise.all([ensureOpenClaw("2026.9.6"), startFakeModel(() => undefined)]);
  model = started;
  openclaw = install;
  instance = await createInstance({ install, modelUrl: model.url });
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await instance?.dispose();
  await model?.close();
  await rm(root, { recursive: true, force: true });
});

describe("big-memory installed from a clone into OpenClaw 2026.9.6", () => {
  it(
    "leaves a fresh clone clean: npm install rewrites neither package-lock.json nor any tracked file",
    async () => {
      // npm resolves the tree from package.json and the lockfile as a real install does (the registry's
      // metadata, every platform's optional packages), without downloading what the copy already holds.
      const install = await run(
        "npm",
        ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"],
        clone,
      );
      expect(install.code, install.stderr).toBe(0);
      const status = await run("git", ["status", "--porcelain"], clone);
      expect([status.code, status.stdout]).toEqual([0, ""]);
    },
    TEST_TIMEOUT_MS,
  );

  it("a fresh clone has no dist/; the prepare script npm install runs builds the runtime entry", () => {
    expect(prepare.code, prepare.stderr).toBe(0);
    expect(existsSync(path.join(clone, "dist", "index.js"))).toBe(true);
    expect(existsSync(path.join(clone, "dist", "surface", "cli-main.js"))).toBe(true);
  });

  it(
    "installs with plugins install -l, and doctor names the missing consent flag with its fix (exit 1)",
    async () => {
      const installed = await instance.cli([
        "plugins",
        "install",
        "-l",
        clone,
        "--force",
        "--accept-capabilities",
      ]);
      expect(installed.code, `${installed.stdout}${installed.stderr}`).toBe(0);
      const validate = await instance.validateConfig();
      expect(validate.code, `${validate.stdout}${validate.stderr}`).toBe(0);
      const doctor = await instance.cli(["big-memory", "doctor", "--json"]);
      expect(doctor.code).toBe(1);
      expect(cliJson(DoctorJson, doctor, "openclaw big-memory doctor").checks).toContainEqual({
        name: "conversation access",
        status: "fail",
        detail: expect.stringContaining("allowConversationAccess is not set"),
        fix: "openclaw config set plugins.entries.big-memory.hooks.allowConversationAccess true --strict-json",
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "with the consent flag set: the config validates, the built entry loads and doctor passes (exit 0)",
    async () => {
      const set = await instance.cli([
        "config",
        "set",
        "plugins.entries.big-memory.hooks.allowConversationAccess",
        "true",
        "--strict-json",
      ]);
      expect(set.code, `${set.stdout}${set.stderr}`).toBe(0);
      const validate = await instance.validateConfig();
      expect(validate.code, `${validate.stdout}${validate.stderr}`).toBe(0);
      const inspect = cliJson(
        LinkedInspectJson,
        await instance.cli(["plugins", "inspect", "big-memory", "--runtime", "--json"]),
        "plugins inspect",
      );
      expect(inspect.plugin.status).toBe("loaded");
      expect(inspect.plugin.source).toBe(path.join(clone, "dist", "index.js"));
      expect(inspect.diagnostics.filter((d) => /blocked/i.test(d.message))).toEqual([]);
      const doctor = await instance.cli(["big-memory", "doctor", "--json"]);
      const report = cliJson(DoctorJson, doctor, "openclaw big-memory doctor");
      expect([doctor.code, report.ok, report.workspace]).toEqual([0, true, instance.workspaceDir]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "openclaw big-memory keeps the CLI's conventions: --version, and exit 2 on a usage error",
    async () => {
      const version = await instance.cli(["big-memory", "--version"]);
      expect([version.code, version.stdout.trim()]).toEqual([0, "0.1.0"]);
      const usage = await instance.cli(["big-memory", "list", "--frobnicate"]);
      expect([usage.code, usage.stderr]).toEqual([
        2,
        expect.stringContaining("unknown option '--frobnicate'"),
      ]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("big-memory installed from npm (a stand-in registry serving the clone's npm pack)", () => {
  let registry: NpmRegistry;
  let npmInstance: Instance;

  beforeAll(async () => {
    const packed = await run("npm", ["pack", "--json", "--pack-destination", root], clone);
    const file = z
      .array(z.object({ filename: z.string() }))
      .min(1)
      .parse(JSON.parse(packed.stdout))[0]?.filename;
    registry = await startNpmRegistry(path.join(root, file ?? "(none)"));
    npmInstance = await createInstance({ install: openclaw, modelUrl: model.url });
    npmInstance.env.npm_config_registry = registry.url;
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await npmInstance?.dispose();
    await registry?.close();
  });

  it(
    "installs with plugins install npm:big-memory --force, validates and loads the built entry",
    async () => {
      const installed = await npmInstance.cli([
        "plugins",
        "install",
        "npm:big-memory",
        "--force",
        "--accept-capabilities",
      ]);
      expect(installed.code, `${installed.stdout}${installed.stderr}`).toBe(0);
      expect(installed.stdout).toContain("Installed plugin: big-memory");
      const set = await npmInstance.cli([
        "config",
        "set",
        "plugins.entries.big-memory.hooks.allowConversationAccess",
        "true",
        "--strict-json",
      ]);
      expect(set.code, `${set.stdout}${set.stderr}`).toBe(0);
      const validate = await npmInstance.validateConfig();
      expect(validate.code, `${validate.stdout}${validate.stderr}`).toBe(0);
      const inspect = cliJson(
        NpmInspectJson,
        await npmInstance.cli(["plugins", "inspect", "big-memory", "--runtime", "--json"]),
        "plugins inspect",
      );
      // The artifact installed is the one the stand-in registry published (npm may take it from its cache).
      expect([inspect.plugin.status, inspect.install]).toEqual([
        "loaded",
        { resolvedSpec: "big-memory@0.1.0", integrity: registry.integrity },
      ]);
      expect(inspect.plugin.source).toMatch(
        /\/npm\/projects\/big-memory\/node_modules\/big-memory\/dist\/index\.js$/,
      );
    },
    TEST_TIMEOUT_MS,
  );
});
