import { z } from "zod";

/**
 * The plugin's configuration (`plugins.entries.big-memory.config` in openclaw.json). The manifest's
 * `configSchema` is generated from this schema (`npm run manifest`) and a test keeps them equal.
 */
export const PluginConfig = z
  .strictObject({
    enabled: z.boolean().default(true).describe("Turn capture and restore on or off without uninstalling."),
    timeZone: z
      .string()
      .optional()
      .describe("IANA time zone naming the daily log of a snapshot (default: the gateway's zone)."),
    capture: z
      .strictObject({
        flushPrompt: z
          .boolean()
          .default(true)
          .describe("Ask the model to write a snapshot during OpenClaw's pre-compaction memory flush."),
        safetyNet: z
          .boolean()
          .default(true)
          .describe(
            "Draft a snapshot from the session trail when the model wrote none before compaction or reset.",
          ),
        thresholds: z
          .array(z.number().gt(0).lt(1))
          .max(5)
          .default([0.7])
          .describe(
            "Context-use fractions at which a threshold snapshot is written once per compaction cycle.",
          ),
      })
      .prefault({})
      .describe("How snapshots are captured."),
    restore: z
      .strictObject({
        afterCompaction: z
          .boolean()
          .default(true)
          .describe("Restore the latest snapshot on the first turn after compaction."),
        afterReset: z
          .boolean()
          .default(true)
          .describe("Restore the snapshot written before a reset on the next turn."),
        onAmnesia: z
          .boolean()
          .default(true)
          .describe('Restore when the user says "you forgot", "where were we" and the like.'),
        tokenBudget: z
          .number()
          .int()
          .min(300)
          .max(20_000)
          .default(1500)
          .describe("Upper bound, in tokens, of what a restore puts in front of the model."),
        amnesiaPhrases: z
          .array(z.string().min(3).max(200))
          .max(50)
          .default([])
          .describe("Extra phrases that mean the user thinks the agent lost its place."),
      })
      .prefault({})
      .describe("How snapshots are restored."),
    scope: z
      .enum(["session", "agent", "workspace"])
      .default("session")
      .describe("Whose snapshots a session may restore: its own, its agent's, or the whole workspace's."),
    retentionDays: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        "Snapshots older than this are no longer offered for restore and leave the index (default: keep all).",
      ),
  })
  .prefault({});
export type PluginConfig = z.infer<typeof PluginConfig>;

/**
 * Validates the raw plugin config. Throws an Error naming each bad key and what was expected; a
 * configuration error is a programmer error, so it is loud.
 */
export function parsePluginConfig(raw: unknown): PluginConfig {
  const parsed = PluginConfig.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
  throw new Error(`big-memory: invalid plugin config: ${issues}`);
}

/** The JSON Schema of the config, as written into openclaw.plugin.json. */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PluginConfig, { io: "input", target: "draft-07" });
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}
