import { Buffer } from "node:buffer";

/**
 * Secret redaction: the pure pass every string goes through before the store writes it to disk.
 *
 * Each secret is replaced by `[REDACTED:<kind>]` and counted by kind. Rules run from the most specific
 * (provider token formats) to the most generic (`KEY=value` assignments), so a GitHub token assigned to
 * `GITHUB_TOKEN=` is reported as `github-token`. Context around a secret is kept: the name of an
 * assignment, the scheme, user, host and path of a URL, the `Authorization: Bearer ` of a header.
 *
 * Markers already in the text are never matched again, and `redact` applies its rules until a pass finds
 * nothing, so `redact(redact(x).text)` returns the same text with a total of 0. Every pattern is free of
 * nested ambiguous quantifiers and assignment values are capped at 512 characters, so time stays
 * near-linear in the length of the text.
 */

/** Every kind of secret, in the order the rules run. */
export const REDACTION_KINDS = [
  "private-key",
  "jwt",
  "anthropic-key",
  "openai-key",
  "github-token",
  "gitlab-token",
  "slack-token",
  "stripe-key",
  "npm-token",
  "google-api-key",
  "aws-access-key",
  "aws-secret",
  "url-credentials",
  "bearer",
  "basic-auth",
  "secret-assignment",
] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];

/** Number of replacements per kind; kinds that did not occur are absent. */
export type RedactionCounts = Partial<Record<RedactionKind, number>>;

/** The redacted text, the replacements per kind and their sum. */
export interface Redaction {
  text: string;
  counts: RedactionCounts;
  total: number;
}

/** The text that replaces a secret of `kind`: `[REDACTED:github-token]`. */
export function redactionMarker(kind: RedactionKind): string {
  return `[REDACTED:${kind}]`;
}

interface Span {
  readonly start: number;
  readonly end: number;
}

interface Rule {
  readonly kind: RedactionKind;
  /** Compiled with the `g` and `d` flags; cloned before use so no state is shared between calls. */
  readonly pattern: RegExp;
  /** The part of a match to replace, or `undefined` when the match is not a secret after all. */
  readonly pick: (match: RegExpExecArray) => Span | undefined;
}

type Strength = "strong" | "weak";

/** Name words whose value is a secret whatever it looks like (numbers and identifiers aside). */
const STRONG_WORDS = new Set(["password", "passwd", "pwd", "pass", "passphrase", "secret"]);
/** Name words whose value is a secret only when it looks random. */
const WEAK_WORDS = new Set([
  "token",
  "key",
  "apikey",
  "accesskey",
  "secretkey",
  "privatekey",
  "signingkey",
  "masterkey",
  "auth",
  "credential",
  "credentials",
  "sig",
  "signature",
]);
/** Words before `key` that make it an ordinary key (`sort_key`, `public_key`), not a secret. */
const PLAIN_KEY_QUALIFIERS = new Set([
  "public",
  "pub",
  "sort",
  "cache",
  "primary",
  "foreign",
  "partition",
  "range",
  "idempotency",
  "dedup",
  "dedupe",
  "lookup",
  "row",
  "shard",
  "unique",
  "object",
  "translation",
  "i18n",
  "message",
  "group",
  "routing",
  "index",
  "map",
  "hash",
]);
/** Last words that make a name describe a secret (its name, length, file) rather than hold it. */
const META_WORDS = new Set(
  (
    "name names id ids length len size count limit budget max min file filename path dir env var type kind " +
    "field header prefix suffix format url uri endpoint ttl expiry expires expiration timeout version label " +
    "hint policy arn ref source provider mode enabled required rotation days hours minutes seconds ms usage " +
    "encoding algorithm alg scheme location"
  ).split(" "),
);

/**
 * Classify an assignment name: `strong` when a word says password/secret, `weak` when it says
 * token/key/auth/credential/signature, `undefined` when no word does or the last word is a meta word
 * (`KEY_NAME`, `TOKEN_BUDGET`, `password_min_length`, `apiKeyEnvVar`). Words come from `_ - .` and camelCase
 * boundaries; plurals (`max_tokens`) and longer words (`tokenizer`, `keyboard`) are not secret words.
 */
function classifyName(name: string): Strength | undefined {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  const last = words.at(-1);
  if (last === undefined || META_WORDS.has(last)) return undefined;
  let strength: Strength | undefined;
  let previous: string | undefined;
  for (const word of words) {
    if (STRONG_WORDS.has(word) || /(?:password|passwd|secret)$/.test(word)) return "strong";
    if (isWeakWord(word, previous)) strength = "weak";
    previous = word;
  }
  return strength;
}

function isWeakWord(word: string, previous: string | undefined): boolean {
  if (word === "key") return previous === undefined || !PLAIN_KEY_QUALIFIERS.has(previous);
  return WEAK_WORDS.has(word) || word.endsWith("token");
}

const PLACEHOLDER =
  /^(?:\$\{[^}]*\}|\$\(.*\)|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|<[^>]*>|\{\{.*\}\}|[*•]+|x+|X+|\.\.\.|…)$/;
/** Numbers, versions, times and ratios: `4096`, `1.5`, `30s`, `10:30`, `118/120`, `98%`. */
const NUMBER = /^[-+]?\d[\d_,.:/]*(?:e[-+]?\d+)?[a-zA-Z%]{0,3}$/;
/** Letters with `_ $ . -` only: a code identifier, an English word or a kebab name. */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z_$.-]*$/;
const ENV_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
/** `process.env.API_KEY`: segments are letters with at most trailing digits, unlike random tokens. */
const MEMBER_PATH = /^[A-Za-z_$][A-Za-z_$]*\d*(?:\.[A-Za-z_$][A-Za-z_$]*\d*)+$/;
const FILE_PATH =
  /^(?:(?:~|\.{1,2})?\/[\w.@~-]*(?:\/[\w.@~-]*)*|[\w.-]+(?:\/[\w.-]+)*\.[A-Za-z0-9]{1,8}|[A-Za-z]:\\.*)$/;
const URL_VALUE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * Whether an assigned value looks like a secret. Never: values with whitespace or shorter than
 * `minLength`, placeholders (`${TOKEN}`, `<token>`, `***`), numbers (`4096`, `1.5`, `30s`), identifiers made
 * of letters (`getToken`, `string`, `my-deploy-key`), env var names (`OPENAI_API_KEY`), member paths
 * (`process.env.TOKEN`), file paths and URLs. A weak value must also mix at least two of lower case,
 * upper case and digits, and not be lowercase words and numbers joined by punctuation (`user:42:profile`).
 */
function looksSecret(value: string, strength: Strength, minLength: number): boolean {
  if (value.length < minLength || /\s/.test(value) || value.includes("[REDACTED:")) return false;
  if (
    [PLACEHOLDER, NUMBER, IDENTIFIER, ENV_NAME, MEMBER_PATH, FILE_PATH, URL_VALUE].some((re) =>
      re.test(value),
    )
  ) {
    return false;
  }
  if (strength === "strong") return true;
  return classCount(value) >= 2 && !isWordsAndNumbers(value);
}

function classCount(value: string): number {
  return [/[a-z]/, /[A-Z]/, /\d/].filter((re) => re.test(value)).length;
}

function isWordsAndNumbers(value: string): boolean {
  const parts = value.split(/[-_.:/@+]/);
  return parts.length > 1 && parts.every((part) => /^(?:[a-z]*|\d*)$/.test(part));
}

/** `Basic` credentials: base64 that decodes to printable `user:password`. */
function isBasicCredentials(value: string): boolean {
  const bytes = Buffer.from(value, "base64");
  const decoded = bytes.toString("latin1");
  return (
    bytes.toString("base64").replace(/=+$/, "") === value.replace(/=+$/, "") &&
    /^[\x20-\x7e]{3,}$/.test(decoded) &&
    decoded.includes(":")
  );
}

function rule(kind: RedactionKind, source: string, flags: string, pick: Rule["pick"]): Rule {
  return { kind, pattern: new RegExp(source, `gd${flags}`), pick };
}

/** Replace the whole match when `accept` (default: always) holds for its `tail` group or the match. */
function whole(accept: (value: string) => boolean = () => true): Rule["pick"] {
  return (m) => (accept(m.groups?.tail ?? m[0]) ? { start: m.index, end: m.index + m[0].length } : undefined);
}

/** Replace the first `secret*` group that took part in the match, when `accept` holds for it. */
function secret(accept: (value: string, m: RegExpExecArray) => boolean): Rule["pick"] {
  return (m) => {
    for (const [name, range] of Object.entries(m.indices?.groups ?? {})) {
      if (name.startsWith("secret") && range !== undefined) {
        const value = m.groups?.[name] ?? "";
        return accept(value, m) ? { start: range[0], end: range[1] } : undefined;
      }
    }
    return undefined;
  };
}

const notPlaceholder = (value: string) => !PLACEHOLDER.test(value);
const mixed = (value: string) => classCount(value) >= 2;
/** A token must not continue into these characters, nor start right after them. */
const TB = `(?<![A-Za-z0-9_-])`;
const TE = `(?![A-Za-z0-9_-])`;
const NL = String.raw`(?:\r?\n|\\r?\\n)`;
const AUTHORIZATION = String.raw`(?<![A-Za-z0-9-])(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*(?:["'][ \t]*)?`;
const NAME = String.raw`(?<![A-Za-z0-9_.:/=@\\-])(?:--?)?(?<nq>["'\`]?)(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,127})\k<nq>(?:\*{1,2})?[ \t]*(?::=|=>?|:)[ \t]*(?:\*{1,2}[ \t]*)?`;
const UNQUOTED = String.raw`[^\s"'\`,;()\[\]{}<>]`;

function assignment(value: string, m: RegExpExecArray): boolean {
  const strength = classifyName(m.groups?.name ?? "");
  return strength !== undefined && looksSecret(value, strength, strength === "strong" ? 6 : 16);
}

const RULES: readonly Rule[] = [
  // A whole PEM block; a block cut short loses its BEGIN line and every base64 or header line after it.
  rule(
    "private-key",
    String.raw`-----BEGIN (?<label>[A-Z0-9]+(?: [A-Z0-9]+)* )?PRIVATE KEY(?<block> BLOCK)?-----(?:(?:(?!-----BEGIN )[\s\S])*?-----END \k<label>PRIVATE KEY\k<block>-----|(?:(?:${NL}[ \t]*)+(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info|Comment): [^\r\n\\]*)(?=[ \t]*(?:${NL}|$|["'\`])))*)`,
    "",
    whole(),
  ),
  rule("jwt", String.raw`${TB}eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*${TE}`, "", whole()),
  rule("anthropic-key", String.raw`${TB}sk-ant-[a-z]{2,10}\d{0,3}-[A-Za-z0-9_-]{20,}${TE}`, "", whole()),
  rule(
    "openai-key",
    `${TB}sk-(?:(?:proj|svcacct|admin|None)-(?<tail>[A-Za-z0-9_-]{20,})|[A-Za-z0-9]{32,})${TE}`,
    "",
    whole(mixed),
  ),
  rule(
    "github-token",
    `(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})(?![A-Za-z0-9_])`,
    "",
    whole(),
  ),
  rule(
    "gitlab-token",
    String.raw`${TB}(?:(?:glpat|gldt|glrt|glptt|glcbt|glimt|glft|glsoat|gloas|glagent|glwt|glffct)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+){0,2}|GR1348941[A-Za-z0-9_-]{20,})${TE}`,
    "",
    whole(),
  ),
  rule(
    "slack-token",
    String.raw`${TB}(?:(?:xoxe\.)?xox[abeprs]-\d[A-Za-z0-9-]{8,}|xapp-\d-[A-Za-z0-9-]{10,})${TE}`,
    "",
    whole(),
  ),
  rule(
    "slack-token",
    String.raw`hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/(?<secret>[A-Za-z0-9]{16,})`,
    "",
    secret(() => true),
  ),
  rule(
    "stripe-key",
    `(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})(?![A-Za-z0-9_])`,
    "",
    whole(),
  ),
  rule("npm-token", `(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])`, "", whole()),
  // .npmrc: `//registry.npmjs.org/:_authToken=<token>`; legacy tokens are UUIDs.
  rule(
    "npm-token",
    String.raw`:_(?:authToken|auth|password)[ \t]*=[ \t]*(?<secret>[^\s"'\`]+)`,
    "",
    secret(notPlaceholder),
  ),
  rule("google-api-key", `${TB}AIza[A-Za-z0-9_-]{35}${TE}`, "", whole()),
  rule("aws-access-key", `(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])`, "", whole()),
  // A 40-character secret access key is only recognisable by its name.
  rule(
    "aws-secret",
    String.raw`(?<![A-Za-z0-9])(?<q>["']?)(?:aws[_-]?)?secret[_-]?access[_-]?key\k<q>[ \t]*[:=][ \t]*["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
    "i",
    secret(notPlaceholder),
  ),
  // scheme://user:password@host: the password is the last stretch before the last `@` of the authority.
  rule(
    "url-credentials",
    String.raw`(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s:@/?#"'<>\[\]]*:(?<secret>[^\s/?#"'<>]+)@`,
    "",
    secret(notPlaceholder),
  ),
  rule(
    "url-credentials",
    String.raw`(?<=[?&])(?<name>[A-Za-z0-9_.-]{1,64})=(?<secret>[^\s&#"'<>\`]{1,1024})`,
    "",
    secret((value, m) => {
      const strength = classifyName(m.groups?.name ?? "");
      return strength !== undefined && looksSecret(value, strength, strength === "strong" ? 6 : 8);
    }),
  ),
  rule(
    "bearer",
    String.raw`${AUTHORIZATION}(?:bearer|token)[ \t]+(?<secret>[A-Za-z0-9._~+/-]+=*)(?![A-Za-z0-9._~+/=-])`,
    "i",
    // After the header any 8+ characters are a credential, unless a placeholder or a word (`undefined`).
    secret((value) => value.length >= 8 && !PLACEHOLDER.test(value) && !/^[A-Za-z]+$/.test(value)),
  ),
  rule(
    "bearer",
    String.raw`(?<![A-Za-z0-9_-])Bearer[ \t]+(?<secret>[A-Za-z0-9._~+/-]+=*)(?![A-Za-z0-9._~+/=-])`,
    "",
    secret((value) => looksSecret(value, "weak", 16)),
  ),
  rule(
    "basic-auth",
    String.raw`${AUTHORIZATION}basic[ \t]+(?<secret>[A-Za-z0-9+/]+={0,2})(?![A-Za-z0-9+/=])`,
    "i",
    secret((value) => isBasicCredentials(value) || looksSecret(value, "weak", 16)),
  ),
  rule(
    "basic-auth",
    String.raw`(?<![A-Za-z0-9_-])Basic[ \t]+(?<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])`,
    "",
    secret(isBasicCredentials),
  ),
  rule(
    "secret-assignment",
    String.raw`${NAME}(?:"(?<secret>(?:[^"\\\r\n]|\\.){1,512})"|'(?<secret2>(?:[^'\\\r\n]|\\.){1,512})'|\`(?<secret3>[^\`\r\n]{1,512})\`)`,
    "",
    secret(assignment),
  ),
  rule("secret-assignment", `${NAME}(?<secret>${UNQUOTED}{1,512})(?!${UNQUOTED})`, "", (m) => {
    const range = m.indices?.groups?.secret;
    const value = (m.groups?.secret ?? "").replace(/\.+$/, "");
    if (range === undefined || value === "" || !assignment(value, m)) return undefined;
    return { start: range[0], end: range[0] + value.length };
  }),
];

const MARKER = String.raw`\[REDACTED:[a-z0-9-]+\]`;

/** Spans of markers already in `text`, in order. */
function markerSpans(text: string): Span[] {
  return Array.from(text.matchAll(new RegExp(MARKER, "g")), (m) => ({
    start: m.index,
    end: m.index + m[0].length,
  }));
}

function overlapsAny(sorted: readonly Span[], span: Span): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const probe = sorted[mid];
    if (probe !== undefined && probe.end <= span.start) lo = mid + 1;
    else hi = mid;
  }
  const first = sorted[lo];
  return first !== undefined && first.start < span.end;
}

/** One rule over `text`. A rejected match resumes one character later, so a secret inside it is still found. */
function applyRule(text: string, { kind, pattern, pick }: Rule): { text: string; found: number } {
  const markers = markerSpans(text);
  const re = new RegExp(pattern);
  let out = "";
  let copied = 0;
  let found = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const span = pick(m);
    if (span === undefined || span.end <= span.start || overlapsAny(markers, span)) {
      re.lastIndex = m.index + 1;
      continue;
    }
    out += text.slice(copied, span.start) + redactionMarker(kind);
    copied = span.end;
    found += 1;
    if (m[0].length === 0) re.lastIndex += 1;
  }
  return found === 0 ? { text, found } : { text: out + text.slice(copied), found };
}

/**
 * Replace every secret in `text` by `[REDACTED:<kind>]`. Pure.
 *
 * Recognised: provider tokens by their published formats (OpenAI `sk-`/`sk-proj-`, Anthropic `sk-ant-`,
 * GitHub `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_`/`github_pat_`, GitLab `glpat-` and kin, Slack `xox?-`, `xapp-` and
 * webhook paths, Stripe `sk_`/`rk_` live and test keys and `whsec_`, npm `npm_` and `.npmrc` `_authToken`,
 * Google `AIza`, AWS `AKIA`/`ASIA` key ids and named 40-character secret keys), JWTs (`eyJ….eyJ….sig`), PEM
 * private keys (the whole block, or what there is of a cut-off one), `Authorization: Bearer|Token|Basic`
 * credentials (bare `Bearer <random>` and `Basic <base64 user:password>` too), URL passwords
 * (`scheme://user:PASSWORD@host`) and secret query parameters (`?access_token=…`).
 *
 * Generic assignments (`NAME=value`, `NAME: value`, `"name": "value"`, `export NAME=value`, `--name=value`)
 * are redacted when the name has a secret word and the value looks secret. Password/secret names take any
 * value of 6+ characters that is not a number, placeholder, identifier, env var name, path or URL;
 * token/key/auth/credential/signature names also need 16+ characters mixing two of lower, upper and digits.
 * Values with whitespace are never secrets: quoted prose, error messages, passphrases with spaces.
 */
export function redact(text: string): Redaction {
  const counts: RedactionCounts = {};
  let total = 0;
  let current = text;
  // Each productive pass turns at least one unmarked character into a marker, so this terminates.
  for (;;) {
    let found = 0;
    for (const r of RULES) {
      const result = applyRule(current, r);
      current = result.text;
      if (result.found > 0) {
        counts[r.kind] = (counts[r.kind] ?? 0) + result.found;
        found += result.found;
      }
    }
    total += found;
    if (found === 0) return { text: current, counts, total };
  }
}

/** Property names that label the `value` beside them: `{ label: "staging token", value: "…" }`. */
const LABEL_KEYS = ["label", "name", "key"] as const;

/**
 * `redact` over a JSON-like value (acyclic): every string in arrays and plain objects is redacted, numbers,
 * booleans, null and non-plain objects are kept as they are, object keys are kept. A string property whose
 * key is a secret name (`password`, `apiKey`; or the `label`/`name`/`key` of a `{ label, value }` pair) is
 * judged as an assignment of that name, and a secret-looking value is replaced whole
 * (`secret-assignment`); the `label`/`name`/`key` strings themselves are only redacted as text. Counts are
 * summed over all strings. Returns a new value; the input is not changed.
 */
export function redactDeep<T>(value: T): { value: T; counts: RedactionCounts; total: number } {
  const counts: RedactionCounts = {};
  let total = 0;
  const add = (kind: RedactionKind, n: number) => {
    if (n === 0) return;
    counts[kind] = (counts[kind] ?? 0) + n;
    total += n;
  };
  const redactString = (text: string, name: string | undefined): string => {
    const result = redact(text);
    for (const kind of REDACTION_KINDS) add(kind, result.counts[kind] ?? 0);
    const strength = name === undefined ? undefined : classifyName(name);
    if (strength !== undefined && looksSecret(result.text, strength, strength === "strong" ? 6 : 16)) {
      add("secret-assignment", 1);
      return redactionMarker("secret-assignment");
    }
    return result.text;
  };
  const walk = (node: unknown, name: string | undefined): unknown => {
    if (typeof node === "string") return redactString(node, name);
    if (Array.isArray(node)) return node.map((item) => walk(item, undefined));
    if (!isPlainObject(node)) return node;
    const label = LABEL_KEYS.map((k) => node[k]).find((v) => typeof v === "string");
    // fromEntries defines own properties, so a `__proto__` key from JSON stays data.
    return Object.fromEntries(
      Object.entries(node).map(([key, child]) => {
        // A label names the value beside it; it is not itself the value of a secret called `key`.
        const labelKey = LABEL_KEYS.some((k) => k === key);
        const name = key === "value" && typeof label === "string" ? label : labelKey ? undefined : key;
        return [key, walk(child, name)];
      }),
    );
  };
  // `walk` rebuilds strings, arrays and plain objects with the same shape, so the result is still a T.
  return { value: walk(value, undefined) as T, counts, total };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
