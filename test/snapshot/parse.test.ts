import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { duplicateId, formatDiagnostic, parseDailyLog } from "../../plugin/snapshot/parse.ts";
import { renderSnapshot } from "../../plugin/snapshot/render.ts";
import { located, snapshot as snap } from "../builders.ts";
import { nastyString, snapshotArb } from "./arbitraries.ts";

const FILE = "memory/2026-11-20.md";
const skillLog = readFileSync(new URL("./fixtures/skill-format.md", import.meta.url), "utf8");

describe("parseDailyLog", () => {
  it("redacts every snapshot it returns, after verifying the checksum on the text as written", () => {
    const token = `ghp_${"Pr5e".repeat(9)}`;
    const canonical = renderSnapshot(snap("2026-11-20-01", { goal: `push with ${token}` }));
    const handWritten = [
      "<!-- BIG-MEMORY-SNAPSHOT v1 -->",
      "<!-- snapshot-id: 2026-11-20-02 -->",
      "### [SNAPSHOT] Active Goal",
      "Deploy",
      "### [SNAPSHOT] Key Names & Values",
      "- 服务器密码: `Xk9mP2vLq7`",
      `- token: \`${token}\``,
      "<!-- /BIG-MEMORY-SNAPSHOT -->",
      "",
    ].join("\n");
    const { snapshots } = parseDailyLog(`${canonical}\n${handWritten}`, FILE);
    expect(snapshots.map((s) => [s.snapshot.id, s.verified])).toEqual([
      ["2026-11-20-01", true],
      ["2026-11-20-02", null],
    ]);
    expect(snapshots[0]?.snapshot.goal).toBe("push with [REDACTED:github-token]");
    expect(JSON.stringify(snapshots)).not.toContain(token);
    expect(snapshots[1]?.snapshot.names.find((n) => n.label === "token")?.value).toBe(
      "[REDACTED:github-token]",
    );
  });

  it("redacts with the memory of clean texts (remember) exactly as without it, first and second time", () => {
    const token = `ghp_${"Pr5e".repeat(9)}`;
    const value = fc.constantFrom(
      "src/auth/a.ts",
      `push with ${token}`,
      token,
      "password",
      "API_KEY",
      "Tr0ub4dor&3-horse-Battery9",
      "X9f!kq2Lm#Pz7",
      "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
      "",
    );
    const pair = fc.record({ label: value, value });
    fc.assert(
      fc.property(snapshotArb, value, fc.array(pair, { maxLength: 3 }), value, (s, goal, names, note) => {
        const text = renderSnapshot({ ...s, goal, names, files: [{ path: "src/a.ts", note }] });
        const plain = parseDailyLog(text, FILE);
        expect(parseDailyLog(text, FILE, { remember: true })).toEqual(plain);
        expect(parseDailyLog(text, FILE, { remember: true })).toEqual(plain);
      }),
      { numRuns: 500 },
    );
  });

  it("reads a log written by hand in the original skill's format", () => {
    const { snapshots, diagnostics } = parseDailyLog(skillLog, FILE);
    expect(diagnostics).toEqual([]);
    expect(snapshots.map((s) => [s.snapshot.id, s.line, s.verified])).toEqual([
      ["2026-11-20-01", 9, null],
      ["2026-11-20-02", 68, null],
    ]);
    const first = snapshots[0]?.snapshot;
    expect(first?.goal).toBe(
      "Implement user authentication with JWT so the app can support multi-tenant access",
    );
    expect(first?.timestamp).toBe("2026-11-20T14:05:00");
    expect(first?.state).toEqual({
      phase: "implementing",
      branch: "feat/jwt-auth",
      blocked: "no",
      progress: "3 of 5 endpoints done",
    });
    expect(first?.files).toEqual([
      { path: "/home/dev/app/src/auth/oauth-callback.ts", note: "token exchange and session creation" },
      { path: "/home/dev/app/src/middleware/tenant.ts", note: "resolves the tenant from the JWT claims" },
    ]);
    expect(first?.decisions).toEqual([
      { text: "Using Drizzle ORM over Prisma", rationale: "the project needs raw SQL escape hatches" },
      { text: "Refresh tokens in an httpOnly cookie", rationale: "keeps them out of JavaScript" },
    ]);
    expect(first?.code).toBe(
      "export async function exchangeCode(code: string): Promise<Session>\n// fails with ERR_DUPLICATE_KEY on the second login",
    );
    expect(first?.names).toEqual([
      { label: "API endpoint", value: "POST /api/v1/users" },
      { label: "Table name", value: "user_sessions" },
      { label: "Env var", value: "DATABASE_URL" },
      { label: "Error", value: "ERR_DUPLICATE_KEY" },
    ]);
    expect(first?.blockers).toEqual([
      "Question: UUID v4 vs v7 for user IDs -- v7 is time-sortable which helps with pagination",
    ]);
    expect(first?.next).toEqual([
      "Add a unique index on user_sessions(user_id, device_id)",
      "Write tests for POST /api/v1/users: success (201), duplicate (409), missing fields (400)",
      "Update config to include the JWT issuer",
    ]);
    expect(first?.session).toBeNull();
    expect(first?.trigger).toBeNull();
  });

  it("accepts sections out of order, missing, unknown, bold labels, * lists and none", () => {
    const second = parseDailyLog(skillLog, FILE).snapshots[1]?.snapshot;
    expect(second?.goal).toBe("Fix the duplicate-session bug before the release\n(blocking the 2.4 release)");
    expect(second?.next).toEqual(["Ship the migration", "Tell the team"]);
    expect(second?.state).toEqual({
      phase: "debugging",
      branch: "",
      blocked: "yes -- waiting for database access",
      progress: "",
    });
    expect(second?.blockers).toEqual([]);
    expect(second?.files).toEqual([]);
    expect(second?.code).toBe("");
    expect(second?.extra).toEqual([
      { heading: "Notes from the call", body: "Product wants SSO next quarter." },
    ]);
  });

  it("treats markers inside fenced code as code", () => {
    const ids = parseDailyLog(skillLog, FILE).snapshots.map((s) => s.snapshot.id);
    expect(ids).not.toContain("2026-11-20-99");
  });

  it("reads CRLF logs with extra blank lines the same as LF ones", () => {
    const crlf = skillLog
      .replace(/\n/g, "\r\n")
      .replace(/### \[SNAPSHOT\] Files In Play\r\n/, "### [SNAPSHOT] Files In Play\r\n\r\n\r\n");
    const a = parseDailyLog(skillLog, FILE).snapshots.map((s) => s.snapshot);
    const b = parseDailyLog(crlf, FILE).snapshots.map((s) => s.snapshot);
    expect(b).toEqual(a);
  });

  it("reads a canonical block that an editor converted to CRLF, still verified", () => {
    const s = snap("2026-11-20-05", { code: "a\n  b", next: ["one", "two"] });
    const parsed = parseDailyLog(renderSnapshot(s).replace(/\n/g, "\r\n"), FILE);
    expect(parsed.snapshots.map((p) => [p.snapshot, p.verified])).toEqual([[s, true]]);
  });

  it("skips a torn block with a diagnostic and still reads the blocks around it", () => {
    const a = renderSnapshot(snap("2026-11-20-01"));
    const torn = renderSnapshot(snap("2026-11-20-02")).slice(0, 300);
    const c = renderSnapshot(snap("2026-11-20-03"));
    const text = `${a}${torn}\n${c}`;
    const { snapshots, diagnostics } = parseDailyLog(text, FILE);
    expect(snapshots.map((s) => s.snapshot.id)).toEqual(["2026-11-20-01", "2026-11-20-03"]);
    const tornLine = text.slice(0, text.indexOf("<!-- BIG-MEMORY-SNAPSHOT", a.length)).split("\n").length;
    expect(diagnostics).toEqual([
      {
        file: FILE,
        line: tornLine,
        id: "2026-11-20-02",
        message: "snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)",
      },
    ]);
    expect(formatDiagnostic(diagnostics[0] ?? { file: "", line: 0, message: "" })).toBe(
      `big-memory: ${FILE}:${tornLine}: snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)`,
    );
  });

  it("skips a torn block at the end of the file", () => {
    const a = renderSnapshot(snap("2026-11-20-01"));
    const { snapshots, diagnostics } = parseDailyLog(
      `${a}${renderSnapshot(snap("2026-11-20-02")).slice(0, 200)}`,
      FILE,
    );
    expect(snapshots).toHaveLength(1);
    expect(diagnostics.map((d) => d.message)).toEqual([
      "snapshot block has no end marker (expected <!-- /BIG-MEMORY-SNAPSHOT -->)",
    ]);
  });

  it("skips an unknown version with a diagnostic", () => {
    const v2 = renderSnapshot(snap("2026-11-20-02")).replace(
      "BIG-MEMORY-SNAPSHOT v1",
      "BIG-MEMORY-SNAPSHOT v2",
    );
    const { snapshots, diagnostics } = parseDailyLog(`${v2}${renderSnapshot(snap("2026-11-20-03"))}`, FILE);
    expect(snapshots.map((s) => s.snapshot.id)).toEqual(["2026-11-20-03"]);
    expect(diagnostics).toEqual([
      { file: FILE, line: 5, message: "unknown snapshot version v2 (expected v1)" },
    ]);
  });

  it("keeps both of two blocks with the same id and reports the second with both locations", () => {
    const first = renderSnapshot(snap("2026-11-20-04", { goal: "first" }));
    const second = renderSnapshot(snap("2026-11-20-04", { goal: "second" }));
    const { snapshots, diagnostics } = parseDailyLog(first + second, FILE);
    const line = 5 + first.split("\n").length - 1;
    expect(snapshots.map((s) => [s.snapshot.goal, s.line])).toEqual([
      ["first", 5],
      ["second", line],
    ]);
    expect(diagnostics).toEqual([
      {
        file: FILE,
        line,
        id: "2026-11-20-04",
        message: `duplicate snapshot id 2026-11-20-04 (also at ${FILE}:5); both blocks are kept, address this one as ${FILE}:${line}`,
      },
    ]);
  });

  it("flags a canonical block edited by hand as unverified-modified but still reads it", () => {
    const text = renderSnapshot(snap("2026-11-20-06", { goal: "ship it" })).replace(
      "ship it",
      "ship it today",
    );
    const { snapshots } = parseDailyLog(text, FILE);
    expect(snapshots.map((s) => [s.snapshot.goal, s.verified])).toEqual([["ship it today", false]]);
  });

  it("reports a block without a snapshot-id", () => {
    const text =
      "<!-- BIG-MEMORY-SNAPSHOT v1 -->\n### [SNAPSHOT] Active Goal\nx\n<!-- /BIG-MEMORY-SNAPSHOT -->\n";
    expect(parseDailyLog(text, FILE)).toEqual({
      snapshots: [],
      diagnostics: [
        {
          file: FILE,
          line: 1,
          message: "snapshot block has no snapshot-id (expected <!-- snapshot-id: YYYY-MM-DD-NN -->)",
        },
      ],
    });
  });

  it("returns nothing and parses no markdown for a log without markers", () => {
    expect(parseDailyLog("# notes\n\n- did things\n", FILE)).toEqual({ snapshots: [], diagnostics: [] });
  });

  it("reads every block of a log mixing canonical blocks, hand-written notes and a hand-written block", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(snapshotArb, nastyString(4)), { minLength: 1, maxLength: 4 }),
        (parts) => {
          const unique = parts.map(([s], i) => ({ ...s, id: `2026-11-20-${i + 10}` }));
          const notes = parts.map(([, note]) => note.replace(/<!--|BIG-MEMORY|```|~~~|\r/g, ""));
          const text = `${unique.map((s, i) => `${notes[i]}\n\n${renderSnapshot(s)}`).join("\n")}${skillLog}`;
          const parsed = parseDailyLog(text, FILE);
          expect(parsed.diagnostics).toEqual([]);
          expect(parsed.snapshots.map((p) => p.snapshot.id)).toEqual([
            ...unique.map((s) => s.id),
            "2026-11-20-01",
            "2026-11-20-02",
          ]);
          expect(parsed.snapshots.slice(0, unique.length).map((p) => p.snapshot)).toEqual(unique);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("duplicateId", () => {
  it("names both places and how to address the repeated block", () => {
    const first = located(snap("2026-11-22-01"), 5);
    const again = located(snap("2026-11-22-01"), 9, { file: "memory/2026-11-23.md" });
    expect(duplicateId(again, first)).toEqual({
      file: "memory/2026-11-23.md",
      line: 9,
      id: "2026-11-22-01",
      message:
        "duplicate snapshot id 2026-11-22-01 (also at memory/2026-11-22.md:5); both blocks are kept, address this one as memory/2026-11-23.md:9",
    });
  });
});
