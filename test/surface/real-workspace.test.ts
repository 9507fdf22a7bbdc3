import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { handSnapshot, snapshot } from "../builders.ts";
import { POSITIVES } from "../snapshot/fixtures/secret-corpus.ts";
import { type HandStyle, handWritten } from "../snapshot/hand-written.ts";
import { CLI_MAIN } from "./cli-harness.ts";
import { createDriver } from "./plugin-driver.ts";

/**
 * A workspace shaped like the public OpenClaw workspaces (`MEMORY.md`, `AGENTS.md`, `memory/YYYY-MM-DD.md`
 * with people's own notes in several languages around big-memory blocks), whose blocks hold every
 * single-line secret of the labelled corpus in every field: canonical blocks (checksums that verify, as an
 * older rule set wrote them) and hand-written ones, and labels split from their values in Key Names
 * (`- пароль: \`…\``). Every read command runs as a real process, twice (the second run reads the memory
 * of judged blocks the first one wrote), and the plugin's recall tool answers too: no output holds a secret.
 */

const single = POSITIVES.filter((p) => !p.text.includes("\n") && !p.text.includes("`"));
const SECRETS = [...new Set(single.flatMap((p) => p.secrets))];
const style: HandStyle = {
  bullet: "-",
  fence: "```",
  bold: false,
  blankAfterHeading: false,
  crlf: false,
  order: [0, 1, 2, 3, 4, 5, 6, 7],
};
/** Labels people put in Key Names, apart from the value, in the languages of public workspaces. */
const LABELS = [
  "пароль",
  "密码",
  "senha",
  "Passwort",
  "mot de passe",
  "contraseña",
  "password",
  "パスワード",
  "heslo",
  "סיסמה",
  "รหัสผ่าน",
  "κωδικός πρόσβασης",
];
/** Notes people write around the blocks, with credentials of their own (never printed by a read command). */
const NOTES = [
  "## Notizen\n\n- Rückruf mit Anna wegen der Rechnung; WLAN-Passwort fürs Büro steht auf dem Zettel\n- Kopfrechnen mit Lea: pass: 32×4=128\n",
  "## 笔记\n\n- 周五前把季度报告发给王经理\n- 服务器密码：Qw7!zR2#kP9m（别外传）\n",
  "## Заметки\n\n- Созвон с Ильёй в 15:00, пароль от VPN: Hx8#mQ2!vL\n- Session: agent:main:telegram:dm:5123456789\n",
  "## Notas\n\n- la contraseña del router es Tr4!nQ8#sW\n- Feishu: img_v3_02ab_0f1c3d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5g\n",
];

let root: string;
let ws: string;
let env: NodeJS.ProcessEnv;
const ids: string[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "big-memory-real-"));
  ws = join(root, "ws");
  mkdirSync(join(ws, "memory"), { recursive: true });
  mkdirSync(join(ws, ".big-memory"), { mode: 0o700 });
  env = { ...process.env, NO_COLOR: "1", HOME: join(root, "home"), XDG_STATE_HOME: join(root, "state") };
  writeFileSync(
    join(ws, "MEMORY.md"),
    "# MEMORY.md — Long-Term Memory\n\n## Key Facts\n- Anna — Buchhaltung\n- SMTP: smtp.example.org:587, la password è Zq8!mV2#pL\n",
  );
  writeFileSync(join(ws, "AGENTS.md"), "## Memory\n\n- **Daily notes:** `memory/YYYY-MM-DD.md`\n");
  const days = ["2026-02-05", "2026-02-06", "2026-02-07"];
  const logs = new Map<string, string[]>(days.map((d) => [d, [`# ${d}`, ""]]));
  const blocks = Math.ceil(single.length / 8);
  for (let i = 0; i < blocks; i++) {
    const at = (k: number) => single[(i * 8 + k) % single.length]?.text ?? "";
    const day = days[i % days.length] ?? "";
    const id = `${day}-${String(Math.floor(i / days.length) + 1).padStart(2, "0")}`;
    ids.push(id);
    const content = {
      goal: at(0),
      state: { phase: "deploy", branch: "main", blocked: at(1), progress: "half" },
      files: [{ path: "ops/notes.md", note: at(2) }],
      decisions: [{ text: at(3), rationale: "the vault was down" }],
      code: at(4),
      // A label apart from its value: the value alone is a random string the reader must judge with it.
      names: [
        { label: "note", value: at(5) },
        { label: LABELS[i % LABELS.length] ?? "password", value: `Vq${i}x!Lm8#Zr2` },
      ],
      blockers: [at(6)],
      next: [at(7)],
    };
    const block =
      i % 2 === 0 ? handWritten(handSnapshot(id, content), style) : renderSnapshot(snapshot(id, content));
    // Blocks without a secret too: the ones the memory of judged blocks remembers.
    const clean = renderSnapshot(
      snapshot(`${day}-${String(60 + i).padStart(2, "0")}`, { goal: `Plan the rota, week ${i}` }),
    );
    logs.get(day)?.push(NOTES[i % NOTES.length] ?? "", block, "", clean, "");
  }
  for (const [day, lines] of logs) writeFileSync(join(ws, "memory", `${day}.md`), lines.join("\n"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every secret the fixture holds, the split-label passwords included. */
const allSecrets = () => [...SECRETS, ...ids.map((_, i) => `Vq${i}x!Lm8#Zr2`)];
const leaks = (output: string) => allSecrets().filter((s) => output.includes(s));

function run(argv: string[]): string {
  const r = runProcess(argv);
  return `${r.stdout}\n${r.stderr}`;
}

function runProcess(argv: string[]): { stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI_MAIN, ...argv, "--dir", ws], {
    encoding: "utf8",
    env,
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error !== undefined)
    throw new Error(`big-memory ${argv.join(" ")} did not finish: ${r.error.message}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

describe("a real-workspace-shaped workspace full of secrets, through every read command", () => {
  const commands = [
    ["list"],
    ["list", "--json"],
    ["status"],
    ["status", "--json"],
    ["verify", "--json"],
    ["doctor", "--json"],
    ["search", "password", "--json"],
    ["search", "token key secret", "--json"],
    ["search", "пароль 密码 senha", "--json"],
    ["recall"],
    ["recall", "deploy", "--json"],
    ...ids.filter((_, i) => i % 20 === 0 || i % 20 === 1).map((id) => ["show", id, "--json"]),
    ...ids.filter((_, i) => i % 60 === 7).map((id) => ["show", id]),
  ];
  const again = [
    ["list", "--json"],
    ["status"],
    ["search", "password", "--json"],
    ["show", ids[1] ?? "", "--json"],
  ];

  // About thirty whole processes, one after the other: a minute on a loaded machine.
  it("prints no secret, on a first run and on a run that reads the memory of judged blocks", {
    timeout: 300_000,
  }, () => {
    const found = [
      ...commands.flatMap((argv) => leaks(run(argv)).map((s) => `first: ${argv.join(" ")}: ${s}`)),
      ...again.flatMap((argv) => leaks(run(argv)).map((s) => `again: ${argv.join(" ")}: ${s}`)),
    ];
    expect(found).toEqual([]);
    expect(existsSync(join(ws, ".big-memory", "judged.json"))).toBe(true);
  });

  it("finds no snapshot that holds a secret when the secret itself is searched for", {
    timeout: 300_000,
  }, () => {
    // The words of the query come back as the query (`missing`, `suggestions`): they are the user's own.
    const found = SECRETS.filter((_, i) => i % 211 === 0).flatMap((secret) => {
      const r = runProcess(["search", secret, "--json"]);
      const doc = JSON.parse(r.stdout) as Record<string, unknown>;
      return leaks(JSON.stringify([doc.snapshots, doc.fuzzy, doc.diagnostics, r.stderr])).map(
        (s) => `${secret}: ${s}`,
      );
    });
    expect(found).toEqual([]);
  });

  it("the plugin's recall tool returns no secret, by id, by query and by default", async () => {
    const d = createDriver({ scope: "workspace" }, { workspace: ws });
    try {
      const calls: Record<string, unknown>[] = [
        {},
        { query: "password" },
        { query: "пароль senha 密码" },
        ...ids.filter((_, i) => i % 7 === 0).map((id) => ({ id })),
      ];
      const found: string[] = [];
      for (const params of calls) {
        const r = await d.callTool("big_memory_recall", params);
        found.push(
          ...leaks(`${r.text}\n${JSON.stringify(r.details)}`).map((s) => `${JSON.stringify(params)}: ${s}`),
        );
      }
      expect(found).toEqual([]);
    } finally {
      await d.dispose();
    }
  });
});
