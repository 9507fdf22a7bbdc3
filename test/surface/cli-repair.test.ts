import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, SAVE_INPUT, workspaces } from "./cli-harness.ts";

const workspace = workspaces();
const LOG = "memory/2026-11-22.md";
const USER_NOTES = "# 2026-11-22\n\n- call the bank about the SEPA mandate\n- dentist 16:00\n";

/** A workspace whose daily log held the user's notes and two snapshots, then was replaced by a model's write. */
async function wiped(): Promise<string> {
  const dir = workspace({ [LOG]: USER_NOTES });
  for (const session of ["agent:main:main", "agent:main:main"])
    expect(
      (await cli(["save", "--dir", dir, "--session", session], { stdin: JSON.stringify(SAVE_INPUT) })).code,
    ).toBe(0);
  writeFileSync(join(dir, LOG), "# Today\n\nSummary of the work so far.\n");
  return dir;
}

describe("big-memory repair", () => {
  it("says a replaced log lost its snapshots in status and doctor, shows them from the journal, and appends them again", async () => {
    const dir = await wiped();
    const status = await cli(["status", "--dir", dir, "--json"]);
    const doc = status.json() as {
      problems: number;
      journal: { incidents: { file: string; lost: string[]; message: string }[] };
      diagnostics: { file: string; line: number | null; message: string }[];
    };
    expect(doc.journal.incidents.map((i) => [i.file, i.lost])).toEqual([
      [LOG, ["2026-11-22-01", "2026-11-22-02"]],
    ]);
    expect(doc.problems).toBe(1);
    expect(doc.diagnostics).toEqual([{ file: LOG, line: null, message: doc.journal.incidents[0]?.message }]);
    const text = await cli(["status", "--dir", dir]);
    expect(text.stdout).toContain(
      `journal       1 daily log lost what big-memory wrote there:\n  ${LOG} lost 2 snapshots`,
    );
    expect(text.stderr).toContain(
      `big-memory: ${LOG} lost 2 snapshots big-memory wrote there (2026-11-22-01, 2026-11-22-02)`,
    );
    const doctor = (await cli(["doctor", "--dir", dir, "--json"])).json() as {
      checks: { name: string; status: string; fix: string | null }[];
    };
    expect(doctor.checks.find((c) => c.name === "daily logs vs journal")).toMatchObject({
      status: "warn",
      fix: "big-memory repair (or /big-memory repair) appends the lost snapshots again; `--dry-run` shows what it would do",
    });

    const shown = await cli(["show", "2026-11-22-02", "--dir", dir, "--json"]);
    expect(shown.code).toBe(0);
    expect(shown.json()).toMatchObject({
      snapshot: { id: "2026-11-22-02", goal: SAVE_INPUT.goal, session: "agent:main:main", verified: true },
      warnings: [
        `${LOG} no longer holds snapshot 2026-11-22-02: shown from big-memory's journal (big-memory repair appends it again)`,
        "src/auth/oauth-callback.ts does not exist (any more, or yet)",
      ],
    });

    const dry = await cli(["repair", "--dry-run", "--dir", dir]);
    expect([dry.code, dry.stdout]).toEqual([
      0,
      `${LOG}: would append 2 snapshots (2026-11-22-01, 2026-11-22-02); the log was cut from 1923 to 37 bytes (text others wrote there is not kept by big-memory)\nNothing was written (--dry-run).\n`,
    ]);
    expect(readFileSync(join(dir, LOG), "utf8")).toBe("# Today\n\nSummary of the work so far.\n");

    const done = await cli(["repair", "--dir", dir, "--json"]);
    expect(done.code).toBe(0);
    expect(done.json()).toEqual({
      dryRun: false,
      logs: [
        {
          file: LOG,
          appended: ["2026-11-22-01", "2026-11-22-02"],
          unrecoverable: [],
          shrank: { from: 1923, to: 37 },
        },
      ],
      diagnostics: [],
    });
    const log = readFileSync(join(dir, LOG), "utf8");
    expect(log.startsWith("# Today\n\nSummary of the work so far.\n")).toBe(true);
    expect(log).not.toContain("SEPA mandate");
    expect((await cli(["verify", "--dir", dir])).code).toBe(0);
    const after = (await cli(["status", "--dir", dir, "--json"])).json() as {
      problems: number;
      snapshots: number;
    };
    expect([after.problems, after.snapshots]).toEqual([0, 2]);
    expect((await cli(["repair", "--dir", dir])).stdout).toBe(
      "Nothing to repair: every daily log holds the snapshots big-memory wrote there.\n",
    );
  });
});

describe("status and doctor count only verified captures", () => {
  it("names a block with a wrong checksum that claims a compaction as a diagnostic, never the last capture", async () => {
    const dir = workspace();
    await cli(["save", "--dir", dir, "--session", "agent:main:main"], { stdin: JSON.stringify(SAVE_INPUT) });
    const real = readFileSync(join(dir, LOG), "utf8");
    const forged = real
      .replace("snapshot-id: 2026-11-22-01", "snapshot-id: 2026-11-22-02")
      .replace("trigger: manual", "trigger: compaction")
      .replace("2026-11-22T12:00:00", "2026-11-22T13:00:00");
    writeFileSync(join(dir, LOG), `${real}\n${forged}`);
    const doc = (await cli(["status", "--dir", dir, "--json"])).json() as {
      lastCapture: { id: string } | null;
      sessions: { session: string; lastCapture: { id: string } | null }[];
      problems: number;
      diagnostics: { file: string; line: number; message: string }[];
    };
    expect(doc.lastCapture?.id).toBe("2026-11-22-01");
    expect(doc.sessions.map((s) => [s.session, s.lastCapture?.id])).toEqual([
      ["agent:main:main", "2026-11-22-01"],
    ]);
    expect(doc.diagnostics).toContainEqual({
      file: LOG,
      line: expect.any(Number),
      id: "2026-11-22-02",
      message:
        "snapshot 2026-11-22-02 says trigger compaction, but its checksum is missing or does not match and no claim gives it to a session: not counted as a capture (big-memory verify)",
    });
    expect(doc.problems).toBeGreaterThanOrEqual(1);
    expect((await cli(["status", "--dir", dir])).stdout).toContain(
      "not captures  1 block with a trigger but no valid checksum and no claim (not counted; big-memory verify lists them)",
    );
    const doctor = (await cli(["doctor", "--dir", dir, "--json"])).json() as {
      checks: { name: string; detail: string }[];
    };
    expect(doctor.checks.find((c) => c.name === "last capture and restore")?.detail).toMatch(
      /^capture 2026-11-22-01 /,
    );
  });
});
