import { type Check, check, count, type DoctorFacts, rec } from "./doctor-checks.ts";

/**
 * The doctor's compaction lines: what the compaction ledger says of the newest compactions and resets,
 * and which compactions this configuration keeps from big-memory (a context engine that compacts by
 * itself, CLI backends with native compaction).
 */

/** How many of the newest compactions the doctor judges. */
export const DOCTOR_COMPACTIONS = 5;

/**
 * What the ledger says of the newest compactions and resets: how many were captured (a snapshot covered
 * them) and for how many the flush ran; a warning when one was not captured.
 */
export function ledgerCheck(f: DoctorFacts): Check {
  const ledger = f.compactions ?? { records: [], problem: null };
  if (ledger.problem !== null)
    return check("compactions", "warn", ledger.problem, "move the file away; a new ledger starts");
  const last = ledger.records.filter((r) => r.outcome !== "open").slice(-DOCTOR_COMPACTIONS);
  if (last.length === 0) return check("compactions", "ok", "none observed yet");
  const captured = last.filter((r) => r.cover !== "none").length;
  const flushed = last.filter((r) => r.flush).length;
  const failed = last.filter((r) => r.outcome === "failed").length;
  const restored = last.filter((r) => r.restore !== null).length;
  const detail = `the last ${count(last.length, "compaction")}${captured === last.length ? " were all captured" : `: ${captured} captured`}; the flush ran for ${flushed}; ${restored} restored${failed === 0 ? "" : `; ${failed} did not happen (nothing restored)`}`;
  return captured === last.length
    ? check("compactions", "ok", detail)
    : check(
        "compactions",
        "warn",
        detail,
        "nothing had been observed in the session before those compactions: see `big-memory status` for which, and turn on capture.safetyNet",
      );
}

/** The CLI backends whose compaction OpenClaw hands to the CLI itself (no hook, no flush). */
const CLI_BACKEND = /^(?:claude-cli|gemini-cli|codex-cli)$/;

/**
 * What the configuration says OpenClaw will not announce: a context engine that compacts by itself, CLI
 * backends whose native compaction fires no hook. Pure: reads the config value only.
 */
export function unobservedCompactions(config: Record<string, unknown>): {
  engine: string | null;
  cliBackends: string[];
} {
  const slot = rec(rec(config.plugins).slots).contextEngine;
  const engine = typeof slot === "string" && slot !== "" && slot !== "legacy" ? slot : null;
  const backends = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8) return;
    if (typeof v === "string") {
      const prefix = /^([a-z0-9-]+)\//.exec(v)?.[1];
      if (prefix !== undefined && CLI_BACKEND.test(prefix)) backends.add(prefix);
      return;
    }
    if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        const key = /^([a-z0-9-]+)\//.exec(k)?.[1];
        if (key !== undefined && CLI_BACKEND.test(key)) backends.add(key);
        if (k === "agentRuntime" && typeof rec(x).id === "string" && CLI_BACKEND.test(String(rec(x).id)))
          backends.add(String(rec(x).id));
        walk(x, depth + 1);
      }
    }
  };
  walk(config.agents, 0);
  walk(config.models, 0);
  return { engine, cliBackends: [...backends].sort() };
}

/** Says plainly which compactions big-memory cannot observe with this configuration, and what covers them. */
export function unobservedChecks(f: DoctorFacts): Check[] {
  const { engine, cliBackends } = unobservedCompactions(f.config.value);
  const checks: Check[] = [];
  if (engine !== null)
    checks.push(
      check(
        "context engine",
        "warn",
        `plugins.slots.contextEngine is "${engine}": compactions the engine runs by itself fire no hook and are not observed; those OpenClaw starts for it are (no conversation reaches the hook, so the snapshot is drafted from the trail)`,
        "keep capture.thresholds on (autosave by context use), or save checkpoints with /big-memory save",
      ),
    );
  if (cliBackends.length > 0)
    checks.push(
      check(
        "CLI backends",
        "warn",
        `${cliBackends.join(", ")} compact natively: no hook fires, the flush is skipped, and /compact goes to the CLI, so those compactions are not observed`,
        "keep capture.thresholds on (autosave by context use where usage is reported), or save checkpoints with /big-memory save",
      ),
    );
  return checks;
}
