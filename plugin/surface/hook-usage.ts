/** The context use the hooks read from `llm_output`, to capture by threshold. */

/**
 * The fraction of the context window in use after a model call: prompt (with cache reads and
 * writes) plus the output that joins the context, over the budget OpenClaw reports. Null when either
 * is unknown.
 */
export function contextUse(
  usage: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } | undefined,
  budget: number | undefined,
): number | null {
  if (usage === undefined || budget === undefined || budget <= 0) return null;
  const used = (usage.input ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0) + (usage.output ?? 0);
  return used > 0 ? used / budget : null;
}

/** The usage of the run's last model call (`llm_output.lastAssistant.usage`), or undefined. */
export function lastCallUsage(
  lastAssistant: unknown,
): { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } | undefined {
  if (typeof lastAssistant !== "object" || lastAssistant === null) return undefined;
  const usage: unknown = Reflect.get(lastAssistant, "usage");
  if (typeof usage !== "object" || usage === null) return undefined;
  const out: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } = {};
  for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) {
    const v: unknown = Reflect.get(usage, key);
    if (typeof v === "number" && Number.isFinite(v)) out[key] = v;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
