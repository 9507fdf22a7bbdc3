import { z } from "zod";
import type { SnapshotContent } from "./snapshot.ts";

/**
 * What a caller hands in to save a snapshot (CLI stdin, agent tool, chat command): the content
 * sections, each optional. Reference fields a caller may copy from `show --json` output (`id`,
 * `file`, `line`, ...) are accepted and ignored, since the store fills them; any other key is an
 * error, so a typo such as `nextSteps` is caught instead of silently dropped.
 */

const text = (max: number) => z.string().max(max, `expected at most ${max} characters`);
const list = <T extends z.ZodType>(item: T) => z.array(item).max(200, "expected at most 200 items");

export const SnapshotInput = z.strictObject({
  goal: text(4000).optional().describe("what the user is trying to accomplish, and why"),
  state: z
    .strictObject({
      phase: text(200)
        .optional()
        .describe("planning, implementing, debugging, testing, reviewing or deploying"),
      branch: text(400).optional().describe("the git branch"),
      blocked: text(2000).optional().describe('"no", or "yes -- what would unblock it"'),
      progress: text(2000).optional().describe("how far along, concretely"),
    })
    .optional()
    .describe("where the work stands"),
  files: list(z.strictObject({ path: text(1000), note: text(2000).optional() }))
    .optional()
    .describe("files being changed or relied on, each with what is happening in it"),
  decisions: list(z.strictObject({ text: text(2000), rationale: text(4000).optional() }))
    .optional()
    .describe("decisions made and why"),
  code: text(20_000).optional().describe("code or error text that cannot be re-read from files"),
  names: list(z.strictObject({ label: text(200).optional(), value: text(2000) }))
    .optional()
    .describe("exact identifiers: endpoints, tables, env vars, error codes, tickets"),
  blockers: list(text(2000)).optional().describe("blockers and open questions"),
  next: list(text(2000)).optional().describe("the next concrete actions, in order"),
  extra: list(z.strictObject({ heading: text(200), body: text(8000) }))
    .optional()
    .describe("further sections, kept as they are"),
  // Reference fields, filled by the store; accepted so `show --json` output can be saved again.
  id: z.unknown().optional(),
  timestamp: z.unknown().optional(),
  file: z.unknown().optional(),
  line: z.unknown().optional(),
  session: z.unknown().optional(),
  agent: z.unknown().optional(),
  trigger: z.unknown().optional(),
  name: z.unknown().optional(),
  verified: z.unknown().optional(),
  score: z.unknown().optional(),
  version: z.unknown().optional(),
  parent: z.unknown().optional(),
  tombstone: z.unknown().optional(),
});
export type SnapshotInput = z.infer<typeof SnapshotInput>;

const CONTENT_KEYS = ["goal", "state", "files", "decisions", "code", "names", "blockers", "next", "extra"];

/** The keys an object at `path` of the input takes: the content sections at the top, a nested object's own. */
function keysAt(path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return CONTENT_KEYS;
  let schema: unknown = SnapshotInput;
  for (const step of [...path, undefined]) {
    while (schema instanceof z.ZodOptional) schema = schema.unwrap();
    if (step === undefined) break;
    if (schema instanceof z.ZodObject) schema = schema.shape[String(step)];
    else if (schema instanceof z.ZodArray) schema = schema.element;
    else return CONTENT_KEYS;
  }
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : CONTENT_KEYS;
}

/** `files[0].path: expected string, received number`: every issue, one per line. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path
        .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
        .join("");
      const message =
        issue.code === "unrecognized_keys"
          ? `unknown key${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((k) => `"${k}"`).join(", ")} (expected ${keysAt(issue.path).join(", ")})`
          : issue.message.replace(/^Invalid input: /, "");
      return path === "" ? message : `${path}: ${message}`;
    })
    .join("\n");
}

function hasContent(c: SnapshotContent): boolean {
  return (
    c.goal !== "" ||
    Object.values(c.state).some((v) => v !== "") ||
    c.files.length +
      c.decisions.length +
      c.names.length +
      c.blockers.length +
      c.next.length +
      c.extra.length >
      0 ||
    c.code !== ""
  );
}

/**
 * Validates caller input into snapshot content: `{ ok: true, content }` or `{ ok: false, error }`
 * with a message naming each bad field and what was expected. Empty input is refused.
 */
export function contentFromInput(
  input: unknown,
): { ok: true; content: SnapshotContent } | { ok: false; error: string } {
  const parsed = SnapshotInput.safeParse(input);
  if (!parsed.success) return { ok: false, error: formatIssues(parsed.error) };
  const i = parsed.data;
  const content: SnapshotContent = {
    goal: i.goal ?? "",
    state: {
      phase: i.state?.phase ?? "",
      branch: i.state?.branch ?? "",
      blocked: i.state?.blocked ?? "",
      progress: i.state?.progress ?? "",
    },
    files: (i.files ?? []).map((f) => ({ path: f.path, note: f.note ?? "" })),
    decisions: (i.decisions ?? []).map((d) => ({ text: d.text, rationale: d.rationale ?? "" })),
    code: i.code ?? "",
    names: (i.names ?? []).map((n) => ({ label: n.label ?? "", value: n.value })),
    blockers: i.blockers ?? [],
    next: i.next ?? [],
    extra: i.extra ?? [],
  };
  if (!hasContent(content)) {
    return {
      ok: false,
      error: "the snapshot is empty (expected at least a goal, a next step or another section)",
    };
  }
  return { ok: true, content };
}
