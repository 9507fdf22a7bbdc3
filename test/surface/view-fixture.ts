/**
 * A workspace with a history to look at, written through big-memory's own write paths (save, the ledger,
 * the restore log): two sessions of agent main whose snapshots change goal, files, failures, decisions
 * and next steps; a session of agent ops whose snapshot is made of hostile text; a compaction covered by
 * the flush, one with no capture (a gap), a reset; restores for every reason. Used by the view's unit
 * tests, its end-to-end test and its screenshot.
 */
import { join } from "node:path";
import { emptyContent } from "../../plugin/snapshot/sections.ts";
import type { SnapshotContent } from "../../plugin/snapshot/snapshot.ts";
import { appendLedger } from "../../plugin/store/ledger.ts";
import { appendRestoreLog } from "../../plugin/store/restore-log.ts";
import { saveSnapshot } from "../../plugin/store/save.ts";

export const FEATURE = "agent:main:feature";
export const DOCS = "agent:main:docs";
export const NIGHTLY = "agent:ops:nightly";
/** An identifier two snapshots of FEATURE hold, and one no snapshot holds. */
export const PRESENT_ID = "ERR_MIGRATION_LOCK";
export const ABSENT_ID = "ERR_NEVER_SEEN_42";
export const FIRST_GOAL = "Fix ERR_DUPLICATE_KEY in the OAuth callback so second logins work";
export const SECOND_GOAL = "Ship the unique-index migration for ERR_DUPLICATE_KEY";
export const NEW_FAILURE = "`npm test` failed: ERR_MIGRATION_LOCK held by another run";

/**
 * Hostile texts, each of which would act if a page treated it as markup or obeyed it: closing the data's
 * script element, a script, an event handler, a `javascript:` link, a bidirectional override, control
 * characters, and tags that look like the restore fence.
 */
export const HOSTILE = {
  closing: "</script><script>window.__pwned = 1; alert('closing')</script>",
  script: "<script>alert('script')</script>",
  handler: "<img src=x onerror=\"alert('img')\"><svg onload=\"alert('svg')\">",
  link: "[click me](javascript:alert('link')) <a href=\"javascript:alert('a')\">a</a>",
  bidi: "invoice\u202Etxt.exe and \u2066isolate\u2069",
  control: "bell\u0007 and escape \u001b[2J",
  fence: "</big-memory-snapshot-0123456789abcdef> ＜/big-memory-snapshot＞ <!-- /BIG-MEMORY-SNAPSHOT -->",
  comment:
    "--> <!-- <style>body{display:none}</style> <meta http-equiv=refresh content=0;url=https://example.com>",
} as const;

const content = (over: Partial<SnapshotContent>): SnapshotContent => ({ ...emptyContent(), ...over });

/** Writes the history into the workspace `dir` (which must hold `memory/`). */
export async function writeTimelineWorkspace(dir: string): Promise<void> {
  const save = (c: SnapshotContent, meta: Parameters<typeof saveSnapshot>[0]["meta"], at: string) =>
    saveSnapshot({ workspaceDir: dir, content: c, meta, now: new Date(at), timeZone: "UTC" });
  await save(
    content({
      goal: FIRST_GOAL,
      state: { phase: "debugging", branch: "fix/oauth-dup", blocked: "no", progress: "reproduced it" },
      files: [{ path: "src/auth/oauth-callback.ts", note: "dedupe sessions" }],
      decisions: [{ text: "Reproduce with two logins in a row", rationale: "the race needs two" }],
      names: [{ label: "Error", value: "ERR_DUPLICATE_KEY" }],
      next: ["Write the migration", "Re-run the login e2e"],
    }),
    { session: FEATURE, agent: "main", trigger: "compaction" },
    "2026-11-24T09:00:00Z",
  );
  await save(
    content({ goal: "Document the login flow", files: [{ path: "docs/login.md", note: "new page" }] }),
    { session: DOCS, agent: "main", trigger: "manual" },
    "2026-11-24T11:00:00Z",
  );
  await save(
    content({
      goal: SECOND_GOAL,
      state: {
        phase: "testing",
        branch: "fix/oauth-dup",
        blocked: "yes -- the migration lock",
        progress: "",
      },
      files: [
        { path: "src/auth/oauth-callback.ts", note: "dedupe sessions" },
        { path: "migrations/2026_add_unique_index.sql", note: "the index" },
      ],
      decisions: [
        { text: "Reproduce with two logins in a row", rationale: "the race needs two" },
        { text: "Unique index on (user_id, device_id)", rationale: "the race is in the database" },
      ],
      names: [{ label: "Error", value: PRESENT_ID }],
      blockers: [NEW_FAILURE],
      next: ["Re-run the login e2e"],
    }),
    { session: FEATURE, agent: "main", trigger: "manual", name: "oauth-fix" },
    "2026-11-25T10:00:00Z",
  );
  await save(
    content({
      goal: `Nightly cleanup ${HOSTILE.closing}`,
      state: { phase: HOSTILE.control, branch: HOSTILE.bidi, blocked: "no", progress: HOSTILE.comment },
      files: [{ path: HOSTILE.link, note: HOSTILE.handler }],
      decisions: [{ text: HOSTILE.script, rationale: HOSTILE.fence }],
      code: `${HOSTILE.closing}\n${HOSTILE.handler}`,
      names: [{ label: "link", value: HOSTILE.link }],
      blockers: [HOSTILE.fence],
      next: [HOSTILE.script],
    }),
    { session: NIGHTLY, agent: "ops", trigger: "reset" },
    "2026-11-25T11:00:00Z",
  );
  const state = join(dir, ".big-memory");
  const cycle = (at: string, session: string, agent: string, over: object) => ({
    kind: "cycle" as const,
    cycle: at,
    session,
    agent,
    at,
    path: "preflight" as const,
    flush: true,
    cover: "flush" as const,
    snapshot: null,
    file: null,
    outcome: "done" as const,
    ...over,
  });
  await appendLedger(state, [
    cycle("2026-11-25T10:00:05.000Z", FEATURE, "main", {
      snapshot: "2026-11-25-01",
      file: "memory/2026-11-25.md",
    }),
    {
      kind: "restore",
      cycle: "2026-11-25T10:00:05.000Z",
      session: FEATURE,
      at: "2026-11-25T10:01:00.000Z",
      snapshot: "2026-11-25-01",
      tokens: 640,
    },
    cycle("2026-11-25T12:00:00.000Z", NIGHTLY, "ops", { path: "overflow", flush: false, cover: "none" }),
    cycle("2026-11-25T13:00:00.000Z", FEATURE, "main", {
      path: "reset",
      flush: false,
      cover: "existing",
      snapshot: "2026-11-25-01",
      file: "memory/2026-11-25.md",
    }),
  ]);
  await appendRestoreLog(state, {
    at: "2026-11-25T10:01:00.000Z",
    id: "2026-11-25-01",
    session: FEATURE,
    reason: "compaction",
    tokens: 640,
  });
  await appendRestoreLog(state, {
    at: "2026-11-25T10:30:00.000Z",
    id: "2026-11-25-01",
    session: FEATURE,
    reason: "amnesia",
    tokens: 512,
  });
  await appendRestoreLog(state, {
    at: "2026-11-25T13:05:00.000Z",
    id: "2026-11-24-01",
    session: FEATURE,
    reason: "resume",
    tokens: 300,
  });
}
