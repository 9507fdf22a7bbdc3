/**
 * The JSON documents of the big-memory CLI (`list`, `show`, `status` with `--json`), validated at the test
 * boundary so the e2e tests assert on typed data. Only the fields the tests read are declared; the rest of
 * each document passes through unchecked.
 */
import { z } from "zod";
import type { RunResult } from "./processes.ts";

/** One row of `list --json`. */
export const SnapshotRefJson = z.object({
  id: z.string(),
  timestamp: z.string(),
  file: z.string(),
  line: z.number(),
  session: z.string().nullable(),
  agent: z.string().nullable(),
  trigger: z.string().nullable(),
  name: z.string().nullable(),
  goal: z.string(),
  verified: z.boolean().nullable(),
});
export type SnapshotRefJson = z.infer<typeof SnapshotRefJson>;

/** `big-memory list --json`. */
export const ListJson = z.object({ snapshots: z.array(SnapshotRefJson), diagnostics: z.array(z.unknown()) });
export type ListJson = z.infer<typeof ListJson>;

/** `big-memory show ID --json`. */
export const ShowJson = z.object({
  snapshot: SnapshotRefJson.extend({
    files: z.array(z.object({ path: z.string(), note: z.string() })),
    names: z.array(z.object({ label: z.string(), value: z.string() })),
    next: z.array(z.string()),
    blockers: z.array(z.string()),
  }).nullable(),
  warnings: z.array(z.string()),
});
export type ShowJson = z.infer<typeof ShowJson>;

const CaptureJson = z.object({ id: z.string(), timestamp: z.string(), trigger: z.string().nullable() });

/** `big-memory status --json`. */
export const StatusJson = z.object({
  workspace: z.string(),
  snapshots: z.number(),
  verified: z.number(),
  unverified: z.number(),
  restores: z.number(),
  problems: z.number(),
  sessions: z.array(
    z.object({
      session: z.string(),
      snapshots: z.number(),
      autosaves: z.number(),
      lastCapture: CaptureJson.nullable(),
      lastRestore: z.object({ id: z.string(), at: z.string(), reason: z.string() }).nullable(),
    }),
  ),
});
export type StatusJson = z.infer<typeof StatusJson>;

/**
 * The JSON a CLI run printed, validated by `schema`; throws naming the command's exit code, what was
 * expected and what was printed when it is not there or not of that shape.
 */
export function cliJson<T>(schema: z.ZodType<T>, result: RunResult, what: string): T {
  const parsed = schema.safeParse(result.json);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
  throw new Error(
    `${what}: expected a JSON document (${issues}); exit ${result.code}, stdout: ${result.stdout.slice(0, 1500)} stderr: ${result.stderr.slice(-1500)}`,
  );
}

/** `openclaw plugins inspect <id> --runtime --json`: the parts the tests read. */
export const InspectJson = z.object({
  plugin: z.object({
    id: z.string(),
    status: z.string(),
    source: z.string(),
    origin: z.string(),
    toolNames: z.array(z.string()),
    commands: z.array(z.string()),
    cliCommands: z.array(z.string()),
  }),
  typedHooks: z.array(z.object({ name: z.string() })),
  diagnostics: z.array(z.object({ level: z.string(), message: z.string() })),
  install: z.object({ artifactKind: z.string(), resolvedSpec: z.string() }).optional(),
});
export type InspectJson = z.infer<typeof InspectJson>;

/** `openclaw skills list --json`: the parts the tests read. */
export const SkillsJson = z.object({
  skills: z.array(
    z.object({ name: z.string(), description: z.string(), eligible: z.boolean(), bundled: z.boolean() }),
  ),
});
export type SkillsJson = z.infer<typeof SkillsJson>;

/** `npm pack --json`: one entry per packed package. */
export const PackJson = z
  .array(z.object({ filename: z.string(), files: z.array(z.object({ path: z.string() })) }))
  .min(1);
export type PackJson = z.infer<typeof PackJson>;
