/**
 * Quoting what a person typed back to them in a reply (a rejected name, a query that found nothing): never
 * verbatim. The text is redacted first, so a secret typed where a name was expected comes back as
 * `[REDACTED:<kind>]`; control, format (bidi, zero-width) and line-breaking characters are dropped, white
 * space is folded, and the result is cut to a few dozen characters and quoted as a JSON string.
 *
 * Importing this module loads the redactor (a dozen modules, tens of milliseconds at a CLI's start), so
 * the CLI imports it only on the paths that quote: a usage error as it is printed (surface/cli-args.ts
 * `UsageError.text`) and an answer that found nothing.
 */
import { redact } from "./redact.ts";

/** Control and format characters: C0/C1 controls, bidi overrides and isolates, zero-width characters. */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]+/gu;

/** How many characters of typed text a reply quotes by default. */
export const ECHO_MAX = 48;

/**
 * `text` fit to quote in a reply: redacted, cleaned, on one line, at most `max` characters (an ellipsis
 * marks a cut), in double quotes with `"` and `\` escaped: `"fix-[REDACTED:github-token]"`.
 */
export function echoed(text: string, max = ECHO_MAX): string {
  const clean = redact(text).text.replace(INVISIBLE, " ").replace(/\s+/g, " ").trim();
  const chars = [...clean];
  const cut = chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : clean;
  return JSON.stringify(cut);
}

/** Whether redaction changes `text`: it holds something that looks like a secret. */
export function holdsSecret(text: string): boolean {
  return redact(text).total > 0;
}
