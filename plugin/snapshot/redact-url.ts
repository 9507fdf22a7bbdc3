import { type Pick, type Rule, rule, secret } from "./redact-engine.ts";
import { isPlaceholder, isSpace, looksSecret } from "./redact-names.ts";

/**
 * Credentials in the userinfo of a URL: a token as the user name (`https://TOKEN@host`), a password after
 * the user (`scheme://user:password@host`), also JSON-escaped (`mysql:\/\/user:pass@host`).
 */

/** Whether `c` may stand in a password that runs over several `@` (not white space, `"`, `'`, `<`, `>`, `@`). */
function isRunChar(c: number): boolean {
  return !(c === 64 || c === 34 || c === 39 || c === 60 || c === 62 || isSpace(c));
}

/**
 * The first `@` at or after `from` in `input`, remembered: the rule asks at every `scheme://user:` in text
 * order, and a line of URLs with an `@` far away would otherwise be searched to it once per URL.
 */
const nextAt = { input: "", from: 0, at: -1 };
function firstAt(input: string, from: number): number {
  if (nextAt.input !== input || from < nextAt.from || (nextAt.at !== -1 && from > nextAt.at)) {
    nextAt.input = input;
    nextAt.at = input.indexOf("@", from);
  }
  nextAt.from = from;
  return nextAt.at;
}

/** The end of the run of at most 256 run characters from `from` that an `@` ends, or -1. */
function runToAt(input: string, from: number, at: number): number {
  if (at <= from || at - from > 256) return -1;
  for (let i = from; i < at; i++) if (!isRunChar(input.charCodeAt(i))) return -1;
  return at;
}

/**
 * Where a password with `@` in it ends, read from `start` (right after `user:`): a run of up to 256 run
 * characters then `@`, and up to three more such runs, each ending at an `@`; the password ends at the last
 * of those `@`. -1 when there is none. Read by hand: as a pattern tried at every `scheme://user:` of a line
 * whose `@` is far away, it read 256 characters ahead at each.
 */
export function passwordToAt(input: string, start: number): number {
  let end = runToAt(input, start, firstAt(input, start));
  if (end === -1) return -1;
  for (let more = 0; more < 3; more++) {
    const next = input.indexOf("@", end + 1);
    const after = next === -1 ? -1 : runToAt(input, end + 1, next);
    if (after === -1) break;
    end = after;
  }
  return end;
}

const isPassword = (value: string) => !isPlaceholder(value) && value !== "x-oauth-basic";

/**
 * The password of `scheme://user:password@host`. The pattern takes a password without `/`, `?`, `#` that
 * runs to the last `@` before them; otherwise it ends after `user:` and the password is read by hand
 * (`passwordToAt`).
 */
const userPassword: Pick = (m, at) => {
  const value = m.groups?.secret;
  if (value !== undefined) {
    const range = isPassword(value) ? at("secret") : undefined;
    return range === undefined ? undefined : { start: range[0], end: range[1] };
  }
  const start = m.index + m[0].length;
  const end = passwordToAt(m.input, start);
  if (end === -1 || !isPassword(m.input.slice(start, end))) return undefined;
  // The match goes on to the `@` after the password, as the pattern would have read it: the rule looks
  // for its next match after it (when the password is kept; otherwise one character after the match's start).
  USER_PASSWORD.pattern.lastIndex = end + 1;
  return { start, end };
};

// scheme://user:password@host: the password is the last stretch before the last `@` of the authority.
// scheme://user:password@host, also JSON-escaped (`mysql:\/\/user:pass@host`): the password runs to the
// last `@` before white space, whatever it holds (`#`, `/`, `?`), as people paste them unencoded.
const USER_PASSWORD = rule(
  "url-credentials",
  String.raw`(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*:(?:\/\/|\\\/\\\/)[^\s:@/?#"'<>\[\]\\]{0,256}:(?:(?<secret>[^\s/?#"'<>]+(?=@))@)?`,
  { triggers: ["://", ":\\/\\/"], endsWith: "@", pick: userPassword },
);

export const USERINFO_RULES: readonly Rule[] = [
  // scheme://TOKEN@host and scheme://TOKEN:x-oauth-basic@host: a random user name is a token.
  rule(
    "url-credentials",
    `(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://(?<secret>[A-Za-z0-9_.~-]{16,256})(?::x-oauth-basic)?@`,
    { triggers: ["://"], endsWith: "@", pick: secret((value) => looksSecret(value, "weak", 20)) },
  ),
  USER_PASSWORD,
];

/** The sources of the helpers the picks above call, for the rules version (`redact-judged.ts`). */
export const USERINFO_JUDGEMENT_SOURCES: readonly string[] = [
  isRunChar,
  firstAt,
  runToAt,
  passwordToAt,
  isPassword,
  userPassword,
].map(String);
