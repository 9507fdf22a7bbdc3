/**
 * Claims: the plugin's own, append-only record of whose snapshot a block is, for the blocks a model writes
 * in OpenClaw's pre-compaction flush. That run has an internal session key, so a block it writes may carry
 * no session line, or a wrong one; when `before_compaction` arrives with the real session, the plugin
 * appends a claim (`.big-memory/claims.jsonl`, one JSON line each) instead of rewriting the model's block.
 * Every reader (index, list, search, status, recall scope, verify) lays the newest claim of a block over
 * its session, agent and trigger (`flush`). A claim names its block by file, line and id: the block at
 * that line with that id, or, when lines above it were added or removed since, the block of that id in
 * that file. A line that cannot be read is a problem named by line, never fatal.
 */
import { join } from "node:path";
import type { Diagnostic, LocatedSnapshot } from "../snapshot/snapshot.ts";
import { errorCode } from "../store/fs-durable.ts";
import { RefusedFileError, readStateFile } from "../store/log-open.ts";
import type { Claim } from "./claim-schema.ts";
import type { Entry } from "./document.ts";
import { monthOf } from "./shard.ts";

export type { Claim } from "./claim-schema.ts";

/** The claims file, relative to the workspace (inside the state folder, gate.ts `STATE_DIR_NAME`). */
export const CLAIMS_FILE = ".big-memory/claims.jsonl";

/** Claims by `file:line` and by `file#id`, the newest one of a block winning under each key. */
export type Claims = ReadonlyMap<string, Claim>;

const keyOf = (file: string, line: number) => `${file}:${line}`;
const idKeyOf = (file: string, id: string) => `${file}#${id}`;

/** Reads the claims of a workspace; lines that are not claims are reported and skipped. */
export async function readClaims(workspaceDir: string): Promise<{ claims: Claims; problems: Diagnostic[] }> {
  let text = "";
  try {
    text = (await readStateFile(join(workspaceDir, CLAIMS_FILE), CLAIMS_FILE)).toString("utf8");
  } catch (error) {
    // A FIFO or a link put in its place: told, and no claim is laid over (blocks read as written).
    if (error instanceof RefusedFileError)
      return {
        claims: new Map(),
        problems: [{ file: CLAIMS_FILE, line: 0, message: error.message.replace(/^big-memory: /, "") }],
      };
    if (errorCode(error) !== "ENOENT") throw error;
  }
  const claims = new Map<string, Claim>();
  const problems: Diagnostic[] = [];
  if (text.trim() === "") return { claims, problems };
  // The schema (and zod) load only when there are claims to check: most workspaces have none.
  const { Claim } = await import("./claim-schema.ts");
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let parsed: ReturnType<typeof Claim.safeParse>;
    try {
      parsed = Claim.safeParse(JSON.parse(line));
    } catch {
      parsed = Claim.safeParse(undefined);
    }
    if (parsed.success) {
      claims.set(keyOf(parsed.data.file, parsed.data.line), parsed.data);
      claims.set(idKeyOf(parsed.data.file, parsed.data.id), parsed.data);
    } else
      problems.push({
        file: CLAIMS_FILE,
        line: i + 1,
        message:
          "not a claim (expected a JSON object with v, at, file, line, id, session, agent, trigger); skipped",
      });
  });
  return { claims, problems };
}

/** Appends a claim through the persistence gate (private file, redacted). */
export async function appendClaim(workspaceDir: string, claim: Omit<Claim, "v" | "trigger">): Promise<Claim> {
  const full: Claim = { v: 1, ...claim, trigger: "flush" };
  const { appendPrivateJsonLine } = await import("../store/gate.ts");
  await appendPrivateJsonLine(join(workspaceDir, CLAIMS_FILE), full);
  return full;
}

/** The claim of a block: the one of its file, line and id, else the newest of its file and id. */
export function claimOf(claims: Claims, file: string, line: number, id: string): Claim | undefined {
  const claim = claims.get(keyOf(file, line));
  return claim?.id === id ? claim : claims.get(idKeyOf(file, id));
}

/** `located` with its claim laid over its session, agent and trigger; itself when unclaimed. */
export function claimed(claims: Claims, located: LocatedSnapshot): LocatedSnapshot {
  const claim = claimOf(claims, located.file, located.line, located.snapshot.id);
  if (claim === undefined) return located;
  return {
    ...located,
    snapshot: {
      ...located.snapshot,
      session: claim.session,
      agent: claim.agent ?? located.snapshot.agent,
      trigger: "flush",
    },
  };
}

/** Lays claims over index entries in place (entries are the index's own records of each block). */
export function claimEntries(claims: Claims, entries: Iterable<Entry | [number, Entry]>): void {
  if (claims.size === 0) return;
  for (const item of entries) {
    const entry = Array.isArray(item) ? item[1] : item;
    const claim = claimOf(claims, entry.file, entry.line, entry.id);
    if (claim === undefined) continue;
    entry.session = claim.session;
    entry.agent = claim.agent ?? entry.agent;
    entry.trigger = "flush";
    entry.claimed = true;
  }
}

/**
 * Lays the claims over the entries of the months holding a claimed log (of `month` alone, when given), and
 * of no other: a month whose rows are read when asked (saved-rows.ts) is not read whole for nothing.
 */
export function claimMonths(
  claims: Claims,
  documentsOf: (month: string) => Iterable<Entry | [number, Entry]>,
  month?: string,
): void {
  const months = new Set([...claims.values()].map((claim) => monthOf(claim.file)));
  for (const m of months) if (month === undefined || m === month) claimEntries(claims, documentsOf(m));
}

/** Claims whose block is not among `snapshots` (no block of its id in its file any more): for verify. */
export function danglingClaims(claims: Claims, snapshots: readonly LocatedSnapshot[]): Diagnostic[] {
  const blocks = new Set(snapshots.map((s) => idKeyOf(s.file, s.snapshot.id)));
  return [...new Set(claims.values())]
    .filter((c) => !blocks.has(idKeyOf(c.file, c.id)))
    .map((c) => ({
      file: c.file,
      line: c.line,
      id: c.id,
      message: `a claim gives snapshot ${c.id} to session ${c.session}, but its file holds no block with that id (see ${CLAIMS_FILE})`,
    }));
}
