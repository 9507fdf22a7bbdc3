import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { type CliIO, runCli } from "../../plugin/surface/cli.ts";
import { type DoctorReport, doctorText } from "../../plugin/surface/cli-doctor.ts";
import { styleFor } from "../../plugin/surface/cli-text.ts";
import { snapshot } from "../builders.ts";
import { cli, SAVE_INPUT, workspaces } from "./cli-harness.ts";

const workspace = workspaces();
const ENTRY = "plugins.entries.big-memory";
const HEALTHY = {
  agents: { defaults: { model: { primary: "openai/gpt-5.4" } } },
  plugins: { entries: { "big-memory": { enabled: true, hooks: { allowConversationAccess: true } } } },
};

/**
 * A workspace that is also HOME: OpenClaw's config `config` in `.openclaw/openclaw.json`, big-memory in its
 * extensions folder, memory/ beside them; the doctor runs in it. `config` null: no config file.
 */
function home(config: Record<string, unknown> | null = HEALTHY) {
  const dir = workspace({
    ".openclaw/extensions/big-memory/openclaw.plugin.json": '{ "id": "big-memory" }',
    ...(config === null ? {} : { ".openclaw/openclaw.json": JSON.stringify(config) }),
  });
  const at = { cwd: dir, env: { HOME: dir } };
  return { dir, at, doctor: (...flags: string[]) => cli(["doctor", ...flags], at) };
}

describe("big-memory doctor", () => {
  it("exits 0 for a fresh, configured workspace: one line per check, a fix under each warning, the verdict", async () => {
    const { dir, doctor } = home();
    const r = await doctor();
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe(
      [
        `ok    config: ${dir}/.openclaw/openclaw.json`,
        "ok    model: openai/gpt-5.4 (agents.defaults.model)",
        `ok    plugin enabled: ${ENTRY}.enabled is true`,
        `ok    plugin config: ${ENTRY}.config: capture and restore on, scope session`,
        `ok    plugin installed: ${dir}/.openclaw/extensions/big-memory`,
        `ok    conversation access: ${ENTRY}.hooks.allowConversationAccess is true`,
        `ok    prompt injection: ${ENTRY}.hooks.allowPromptInjection is not false`,
        "ok    memory flush: on (runs 4000 tokens before compaction, or when the transcript reaches 2mb)",
        "ok    compaction: when the model's context fills (OpenClaw's default)",
        `ok    workspace: ${dir} (the current folder, which has memory/), writable`,
        `warn  hooks seen: no session observed in ${dir} yet`,
        "      fix: have a conversation with the agent, then run doctor again",
        "ok    last capture and restore: capture none yet; restore none yet",
        "ok    index: 0 months indexed",
        "ok    daily logs: 0 snapshots in 0 daily logs, no problems",
        "ok    compactions: none observed yet",
        "ok    daily logs vs journal: 0 blocks kept in .big-memory/journal/ for 0 days; every daily log holds them",
        "big-memory will capture and restore in this workspace.",
        "",
      ].join("\n"),
    );
  });

  it("says that no model is configured instead of promising capture and restore", async () => {
    const { doctor } = home({ plugins: HEALTHY.plugins });
    const r = await doctor();
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.slice(1, 3)).toEqual([
      "warn  model: no model is configured (agents.defaults.model is not set): no turn runs, so big-memory has nothing to capture or restore yet",
      `      fix: run \`openclaw onboard\`, or \`openclaw config set agents.defaults.model.primary '"provider/model"' --strict-json\``,
    ]);
    expect(lines.at(-1)).toBe(
      "big-memory is set up here, but OpenClaw has no model: it captures and restores once a model runs turns.",
    );
  });

  it("prints the same checks as one JSON document with --json", async () => {
    const { dir, doctor } = home();
    const [text, json] = [await doctor(), await doctor("--json")];
    expect([json.code, json.stderr, json.stdout.endsWith("}\n")]).toEqual([0, "", true]);
    const report = json.json() as DoctorReport;
    expect(report).toMatchObject({
      ok: true,
      workspace: dir,
      config: join(dir, ".openclaw", "openclaw.json"),
    });
    expect(`${doctorText(report)}\n`).toBe(text.stdout);
  });

  it("still exits 0 with a torn block in a daily log, warning with its file and line and the command that lists them", async () => {
    const { at, dir, doctor } = home();
    await cli(["save"], { ...at, stdin: JSON.stringify(SAVE_INPUT) });
    writeFileSync(
      join(dir, "memory", "2026-11-21.md"),
      renderSnapshot(snapshot("2026-11-21-01")).slice(0, 300),
    );
    const r = await doctor();
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(
      lines.slice(
        lines.indexOf("ok    last capture and restore: capture 2026-11-22-01 just now; restore none yet"),
      ),
    ).toEqual([
      "ok    last capture and restore: capture 2026-11-22-01 just now; restore none yet",
      "warn  index: not indexed yet: 2026-11",
      "      fix: nothing is lost (the index is rebuilt from the logs); `big-memory reindex` rebuilds it now",
      "warn  daily logs: 1 problem in 2 daily logs (first: memory/2026-11-21.md:5: snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->))",
      "      fix: `big-memory verify` lists them with file and line",
      "ok    compactions: none observed yet",
      "ok    daily logs vs journal: 1 block kept in .big-memory/journal/ for 1 day; every daily log holds them",
      "big-memory will capture and restore in this workspace.",
      "",
    ]);
    const json = (await doctor("--json")).json() as DoctorReport;
    expect([json.ok, json.checks.find((c) => c.name === "daily logs")?.status]).toEqual([true, "warn"]);
  });

  it("exits 1 when OpenClaw's config has no entry for big-memory, with a FAIL line and its fix for each problem", async () => {
    const { doctor } = home({ agents: {} });
    const r = await doctor();
    expect(r.code).toBe(1);
    const lines = r.stdout.split("\n");
    expect(lines.filter((l) => /^FAIL|^ {6}fix: openclaw/.test(l))).toEqual([
      `FAIL  plugin enabled: ${ENTRY}.enabled is not set`,
      `      fix: openclaw plugins enable big-memory (or openclaw config set ${ENTRY}.enabled true --strict-json)`,
      `FAIL  conversation access: ${ENTRY}.hooks.allowConversationAccess is not set: OpenClaw drops before_prompt_build and llm_output, so nothing is restored and no turn is observed`,
      `      fix: openclaw config set ${ENTRY}.hooks.allowConversationAccess true --strict-json`,
    ]);
    expect(lines.at(-2)).toBe("big-memory will NOT capture or restore until the FAIL lines are fixed.");
    const json = await doctor("--json");
    const report = json.json() as DoctorReport;
    expect([
      json.code,
      report.ok,
      report.checks.filter((c) => c.status === "fail").map((c) => c.name),
    ]).toEqual([1, false, ["plugin enabled", "conversation access"]]);
  });

  it("exits 1 without a config file, naming where it looked", async () => {
    const { dir, doctor } = home(null);
    const r = await doctor("--json");
    expect(r.code).toBe(1);
    expect((r.json() as DoctorReport).checks[0]).toEqual({
      name: "config",
      status: "fail",
      detail: `no OpenClaw config at ${join(dir, ".openclaw", "openclaw.json")}`,
      fix: "run `openclaw onboard`, or point OPENCLAW_CONFIG_PATH (or OPENCLAW_STATE_DIR) at your config",
    });
  });

  it("exits 2 on an agent the config does not know, printing no report", async () => {
    const { dir, doctor } = home();
    expect(await doctor("--agent", "nobody")).toMatchObject({
      code: 2,
      stdout: "",
      stderr: `big-memory: unknown agent "nobody" in ${join(dir, ".openclaw", "openclaw.json")} (configured: main)\n`,
    });
  });

  it("inside OpenClaw, checks the config OpenClaw gave and counts the plugin as loaded", async () => {
    const { dir } = home(null);
    let stdout = "";
    const io: CliIO & { openclawConfig: unknown } = {
      stdout: (t) => {
        stdout += t;
      },
      stderr: () => undefined,
      readStdin: async () => "",
      color: false,
      cwd: dir,
      env: { HOME: dir },
      now: () => new Date("2026-11-22T12:00:00Z"),
      defaultWorkspace: dir,
      openclawConfig: HEALTHY,
    };
    expect(await runCli(["doctor", "--json"], io)).toBe(0);
    const report = JSON.parse(stdout) as DoctorReport;
    expect(report.checks.slice(0, 5).map((c) => [c.name, c.status, c.detail])).toEqual([
      ["config", "ok", join(dir, ".openclaw", "openclaw.json")],
      ["model", "ok", "openai/gpt-5.4 (agents.defaults.model)"],
      ["plugin enabled", "ok", `${ENTRY}.enabled is true`],
      ["plugin config", "ok", `${ENTRY}.config: capture and restore on, scope session`],
      ["plugin installed", "ok", "loaded by OpenClaw (this command runs inside it)"],
    ]);
  });
});

describe("doctorText", () => {
  it("colours only each line's label: ok green, warn yellow, FAIL red", () => {
    const report: DoctorReport = {
      ok: false,
      workspace: "/w",
      config: "/c",
      checks: [
        { name: "config", status: "ok", detail: "/c", fix: null },
        { name: "index", status: "warn", detail: "stale", fix: "reindex" },
        { name: "workspace", status: "fail", detail: "read-only", fix: "make it writable" },
      ],
    };
    expect(doctorText(report, styleFor(true)).split("\n")).toEqual([
      "\u001b[32mok  \u001b[39m  config: /c",
      "\u001b[33mwarn\u001b[39m  index: stale",
      "      fix: reindex",
      "\u001b[31mFAIL\u001b[39m  workspace: read-only",
      "      fix: make it writable",
      "big-memory will NOT capture or restore until the FAIL lines are fixed.",
    ]);
  });
});
