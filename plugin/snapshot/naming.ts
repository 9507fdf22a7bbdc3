import { echoed, holdsSecret } from "./echo.ts";
import { CheckpointName } from "./snapshot.ts";

/** Names too generic to find a task by later. */
export const GENERIC_NAMES: ReadonlySet<string> = new Set([
  "task",
  "work",
  "save",
  "untitled",
  "backup",
  "temp",
  "test",
  "checkpoint",
  "snapshot",
  "wip",
  "todo",
  "misc",
  "stuff",
  "default",
  "new",
]);

/** A kebab-case suggestion built from free text: `Fix the OAuth callback!` -> `fix-the-oauth-callback`. */
export function suggestName(text: string): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .split("-")
    .slice(0, 6)
    .join("-")
    .slice(0, 64)
    .replace(/-+$/, "");
  return slug.length >= 3 && !GENERIC_NAMES.has(slug) ? slug : "billing-export-fix";
}

/**
 * Checks a checkpoint name: kebab-case, 3-64 characters, not generic, not path-like, not a secret. Returns
 * null when it is good, or a message that says what is wrong and suggests a better name (from `hint`,
 * free text such as the snapshot's goal, when given). The message quotes the name only as
 * `echo.ts` `echoed` does (redacted, cleaned, cut), and never suggests a name made from a secret.
 */
export function nameProblem(name: string, hint = ""): string | null {
  const secret = holdsSecret(name);
  const suggestion = suggestName(hint !== "" ? hint : secret ? "" : name);
  const tail = ` (try a name that says what the task is, like ${suggestion})`;
  const quoted = echoed(name);
  if (secret)
    return `checkpoint name ${quoted} holds what looks like a secret; a name is shown in lists and replies${tail}`;
  if (/[/\\]|\.\.|^\./.test(name))
    return `checkpoint name ${quoted} looks like a path; names never become files${tail}`;
  if (GENERIC_NAMES.has(name.toLowerCase()))
    return `checkpoint name ${quoted} is too generic to find again${tail}`;
  const parsed = CheckpointName.safeParse(name);
  if (!parsed.success) {
    return `checkpoint name ${quoted} is not valid: ${parsed.error.issues[0]?.message ?? "invalid"}${tail}`;
  }
  return null;
}
