/**
 * Publishable on ClawHub, the plugin registry OpenClaw users browse: its own CLI (`clawhub`, a
 * devDependency) validates the package with its bundled Plugin Inspector against the newest OpenClaw on
 * the npm registry (0 breakages, 0 warnings), and a dry-run publish of the `npm pack` tarball as a code
 * plugin passes its checks (`openclaw.compat.pluginApi` and `openclaw.build.openclawVersion` in
 * package.json, a semver version, a GitHub source repository and commit) without uploading anything.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { cliJson, PackJson } from "./harness/big-memory-json.ts";
import { projectNode, repoRoot } from "./harness/openclaw-install.ts";
import { type RunResult, runToCompletion } from "./harness/processes.ts";

const TEST_TIMEOUT_MS = 600_000;
const CLAWHUB = path.join(repoRoot, "node_modules", "clawhub", "bin", "clawdhub.js");
const ValidateJson = z.object({
  status: z.string(),
  targetOpenClaw: z.object({ status: z.string(), version: z.string() }),
  summary: z.object({ breakageCount: z.number(), warningCount: z.number(), issueCount: z.number() }),
  issues: z.array(z.unknown()),
});
const DryRunJson = z.object({
  source: z.string(),
  name: z.string(),
  family: z.string(),
  version: z.string(),
  commit: z.string(),
  files: z.number(),
});

let work: string;
let tarball: string;

/** Runs `clawhub ARGS` on the project's Node 24 (its commander needs Node 22.12 or newer). */
async function clawhub(args: string[]): Promise<RunResult> {
  return runToCompletion(await projectNode(), [CLAWHUB, ...args], {
    env: { ...process.env, NO_COLOR: "1", CI: "1" },
    cwd: work,
    children: new Set(),
    timeoutMs: 300_000,
  });
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "big-memory-clawhub-"));
  // `npm pack` runs the package's prepare (tsc into dist/): the tarball holds the runtime entry.
  const pack = await runToCompletion("npm", ["pack", "--pack-destination", work, "--json"], {
    env: process.env,
    cwd: repoRoot,
    children: new Set(),
    timeoutMs: 240_000,
  });
  tarball = path.join(work, cliJson(PackJson, pack, "npm pack")[0]?.filename ?? "(none)");
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("clawhub, ClawHub's own CLI", () => {
  it(
    "package validate: the Plugin Inspector passes against the newest OpenClaw, 0 breakages and 0 warnings",
    async () => {
      const run = await clawhub([
        "package",
        "validate",
        repoRoot,
        "--out",
        path.join(work, "reports"),
        "--json",
      ]);
      expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
      const report = cliJson(ValidateJson, run, "clawhub package validate");
      expect(report).toMatchObject({
        status: "pass",
        targetOpenClaw: { status: "ok" },
        summary: { breakageCount: 0, warningCount: 0, issueCount: 0 },
        issues: [],
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "package publish --dry-run --family code-plugin: the packed tarball passes every check and nothing is uploaded",
    async () => {
      const pkg = JSON.parse(await readFile(path.join(repoRoot, "package.json"), "utf8")) as {
        version: string;
        repository: { url: string };
      };
      const head = await runToCompletion("git", ["rev-parse", "HEAD"], {
        env: process.env,
        cwd: repoRoot,
        children: new Set(),
        timeoutMs: 30_000,
      });
      const commit = head.stdout.trim();
      const run = await clawhub([
        "package",
        "publish",
        tarball,
        "--dry-run",
        "--family",
        "code-plugin",
        "--source-repo",
        pkg.repository.url,
        "--source-commit",
        commit,
        "--json",
      ]);
      expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
      const plan = cliJson(DryRunJson, run, "clawhub package publish --dry-run");
      expect(plan).toMatchObject({ name: "big-memory", family: "code-plugin", version: pkg.version, commit });
      expect(plan.source).toBe(`github:big-memory/big-memory@${commit}`);
      expect(plan.files).toBeGreaterThan(0);
    },
    TEST_TIMEOUT_MS,
  );
});
