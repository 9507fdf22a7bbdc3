import { Buffer } from "node:buffer";
import { Verdicts } from "./redact-memo.ts";
import {
  anyOf,
  classCount,
  fewerThanThreeCharacters,
  hasRunOfEight,
  isAnchored,
  isPrintableAscii,
  isSpace,
  isWordsAndNumbers,
  joinPatterns,
} from "./redact-pattern.ts";

export { classCount, isSpace } from "./redact-pattern.ts";

/**
 * What the redactor knows about names and values: which assignment names hold a secret, which values
 * look like one, and which values are placeholders. Pure predicates over strings, shared by every rule
 * that judges a value by the name or label in front of it.
 */

/** `strong`: the name says password/secret, any non-trivial value is one; `weak`: token/key/auth, only random values are. */
export type Strength = "strong" | "weak";

/** Name words whose value is a secret whatever it looks like (numbers and identifiers aside). */
const STRONG_WORDS = new Set(["password", "passwd", "passphrase", "passcode", "secret"]);
/** Strong only as the last word: `SMTP_PASS`, `db_pwd`, `DB_PW`; not `passThrough`, `pwdFile`. */
const STRONG_LAST_WORDS = new Set(["pass", "pwd", "pw"]);
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
  "pat",
]);
/** Words before `key` that make it an ordinary key (`sort_key`, `public_key`), not a secret. */
const PLAIN_KEY_QUALIFIERS = new Set(
  (
    "public pub sort cache primary foreign partition range idempotency dedup dedupe lookup row shard unique " +
    "object translation i18n message group routing index map hash recv gpg pgp gnupg image img file media " +
    "avatar icon photo video audio attachment thumbnail upload"
  ).split(" "),
);
/** Words before `token` that make it a pagination or sync cursor (`next_page_token`), not a secret. */
const PLAIN_TOKEN_QUALIFIERS = new Set([
  "page",
  "next",
  "continuation",
  "pagination",
  "cursor",
  "sync",
  "resume",
]);
/** Last words that make a name describe a secret (its name, length, file, date) rather than hold it. */
const META_WORDS = new Set(
  (
    "name names id ids length len size count limit budget max min file filename path dir env var type kind " +
    "field header prefix suffix format url uri endpoint ttl expiry expires expiration timeout version label " +
    "hint policy arn ref source provider mode enabled required rotation days hours minutes seconds ms usage " +
    "encoding algorithm alg scheme location at on date time updated changed created rotated age strength " +
    "pattern regex rule rules validation validator prompt placeholder store manager method methods strategy " +
    "flow scope scopes server host domain realm audience issuer service backend plugin config options " +
    "callback redirect handler middleware guard status state error message level disabled stdin cmd command " +
    "values fingerprint thumbprint kid"
  ).split(" "),
);
/** Any of these in a name may make it a secret name; most names have none, so this is checked first. */
const SECRET_WORD_HINT = /pass|pwd|pw|secret|token|key|auth|credential|sig|pat/i;

/**
 * Classify an assignment name: `strong` when a word says password/secret, `weak` when it says
 * token/key/auth/credential/sig, `undefined` when no word does or the last word is a meta word
 * (`KEY_NAME`, `TOKEN_BUDGET`, `password_min_length`, `apiKeyEnvVar`). Words come from `_ - .` and camelCase
 * boundaries; plurals (`max_tokens`) and longer words (`tokenizer`, `keyboard`) are not secret words.
 */
export function classifyName(name: string): Strength | undefined {
  // A text names the same few secrets again and again (and a pasted log thousands of times): each name is
  // split into words once. Bounded, so a text of many names costs a refill, not memory.
  const known = classified.get(name);
  if (known !== undefined) return known === "none" ? undefined : known;
  // A name without a secret word is answered at once and not remembered: it would crowd out the others.
  if (!SECRET_WORD_HINT.test(name)) return undefined;
  const strength = classifyWords(name);
  if (classified.size >= 4096) classified.clear();
  classified.set(name, strength ?? "none");
  return strength;
}

const classified = new Map<string, Strength | "none">();

/**
 * A name read with the word before it: the word qualifies a name whose first word is `key` or `token`
 * (`isQualifiable`: `API key`, `public key`), classified as `before_name`; any other name is classified
 * alone. A secret word in the prose before a setting does not make it a secret (`the secret
 * max_tokens=100000`), and a fresh value before a name (`password: X password: Y`) is never split into words.
 */
export function classifyQualified(before: string | undefined, name: string): Strength | undefined {
  if (before === undefined || !isQualifiable(name)) return classifyName(name);
  return classifyName(`${before}_${name}`);
}

/** Whether a word before `name` can qualify it: its first word is `key` or `token`. */
export const isQualifiable = (name: string): boolean => QUALIFIABLE.test(name);
const QUALIFIABLE = /^[^A-Za-z0-9]*(?:key|token)/i;

function classifyWords(name: string): Strength | undefined {
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
  if (STRONG_LAST_WORDS.has(last)) return "strong";
  for (const word of words) {
    if (STRONG_WORDS.has(word) || /(?:password|passwd|secret)$/.test(word)) return "strong";
    if (isWeakWord(word, previous)) strength = "weak";
    previous = word;
  }
  return strength;
}

function isWeakWord(word: string, previous: string | undefined): boolean {
  if (word === "key") return previous === undefined || !PLAIN_KEY_QUALIFIERS.has(previous);
  if (word === "token") return previous === undefined || !PLAIN_TOKEN_QUALIFIERS.has(previous);
  return WEAK_WORDS.has(word) || word.endsWith("token");
}

/** `${TOKEN}`, `$(cat f)`, `$TOKEN`, `%TOKEN%`, `<token>`, `{{ token }}`, `***`, `xxx`, `...`, `[REDACTED]`. */
export const PLACEHOLDER =
  /^(?:\$\{[^}]*\}|\$\(.*\)|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|<[^>]*>|\{\{.*\}\}|[*•]+|x+|X+|\.\.\.|…|\[?redacted\]?)$/i;
/** Numbers, versions, times and ratios: `4096`, `1.5`, `30s`, `10:30`, `118/120`, `98%`. */
const NUMBER = /^[-+]?\d[\d_,.:/]*(?:e[-+]?\d+)?[a-zA-Z%]{0,3}$/;
/** Letters with `_ $ . -` only: a code identifier, an English word or a kebab name. */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z_$.-]*$/;
/** A word or words in any script without digits or symbols: `обязательное`, `请联系管理员`, `obrigatória`. */
const WORD = /^[\p{L}\p{M}][\p{L}\p{M}_.-]*$/u;
const ENV_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
/**
 * `process.env.API_KEY`, `ctx.opts?.token`, `config.session!.key`: segments are letters with at most three
 * trailing digits, unlike random tokens and passwords such as `Summer2024.Prod`.
 */
const MEMBER_PATH = /^[A-Za-z_$][A-Za-z_$]*\d{0,3}(?:[?!]?\.#?[A-Za-z_$][A-Za-z_$]*\d{0,3})+$/;
/** A name with a version or counter at its end (`retiredCopilotCustodyBlockedV1`, `cache_key_2`). */
const NUMBERED_NAME = /^[A-Za-z_$][A-Za-z_$.-]*[0-9]{1,3}$/;
/**
 * A path or a file name; an extension is lower case and starts with a letter (`Summer2024.Prod` and
 * `Gizli.2025` are passwords, not files).
 */
const FILE_PATH =
  /^(?:(?:~|\.{1,2})?\/[\w.@~-]*(?:\/[\w.@~-]*)*|[\w.-]+(?:\/[\w.-]+)*\.[a-z][a-z0-9]{0,7}|[A-Za-z]:\\.*)$/;
const URL_VALUE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/** Content digests: `sha512-…` (lockfile integrity), `sha256:…` (image digests), `md5:…`. */
const DIGEST = /^(?:sha(?:1|224|256|384|512)|md5|blake2b|blake3)[-:~][A-Za-z0-9+/=_-]+$/i;
/** Whether `token` is a content digest with its algorithm (`sha256:9f86…`, `sha512-…`): a hash, not a secret. */
export function isDigest(token: string): boolean {
  return DIGEST.test(token);
}
/** Identifiers joined by `:`, `/` or `=`: `appKey:appSecret`, `API/app`, `groq=providers/groq/apiKey`. */
const IDENTIFIERS = /^[A-Za-z_$][A-Za-z_$.-]*(?:[:/=][A-Za-z_$][A-Za-z_$.-]*)+$/;
/** A reference to a secret kept elsewhere: `os.environ/API_KEY`, `env:TOKEN_NAME`, `secrets.NPM_TOKEN`. */
const REFERENCE = /^(?:[A-Za-z_$][\w$-]*[.:/[("']+)+[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+["')\]]*$/;
/** Code: `!flag`, `a?.b`, `x ?? y`, `a && b`, `a || b`, `() => x`. */
const EXPRESSION = /\?\?|\?\.|&&|\|\||=>|^!+[A-Za-z_$][A-Za-z_$.]*$/;
/** An OpenClaw session key: `agent:main:main`, `agent:main:telegram:direct:123…`, `agent:ops:cron:<uuid>`. */
const SESSION_KEY = /^agent:[A-Za-z0-9_-]+:[A-Za-z0-9_:+.@-]+$/;
/** A Feishu (Lark) image, file or media key: `img_v3_02ab_<uuid-like>`; it names an upload, it grants nothing. */
const FEISHU_KEY = /^(?:img|file|media)_v\d_[0-9a-z]{4}_[0-9a-z-]+$/;
/** Arithmetic: `32×4=128`, `3*7=21`, `1.5+2`. */
const ARITHMETIC = /^[-+]?\d[\d.,]*(?:[ \t]*[×x*+\-/÷^=][ \t]*[-+]?\d[\d.,]*)+$/;
/** A call in code: `getpass.getpass(`, `z.string().min(8),`, `deriveKey(salt,`. */
const CALL = /^[A-Za-z_$][A-Za-z_$.]{2,}\(/;
/** A member path indexed or called: `self.charm._peers.data[self.charm.app]`, `os.environ.get(`. */
const SUBSCRIPT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+[[(]/;
/** A regular expression: `token.*leak`, `[a-zA-Z0-9_\-]{16,}`, `\s*`, `(?i)`. */
const REGEX_SYNTAX = /\.[*+]|\\[sdwbSDWB][*+?{]?|\(\?[:=!<i]|\]\{\d+,?\d*\}/;
/** Shapes of values that are not secrets (unless random letters): code, paths, numbers, names, keys. */
export const NOT_SECRET: readonly RegExp[] = [
  CALL,
  SUBSCRIPT,
  REGEX_SYNTAX,
  SESSION_KEY,
  FEISHU_KEY,
  ARITHMETIC,
  WORD,
  EXPRESSION,
  PLACEHOLDER,
  NUMBER,
  IDENTIFIER,
  IDENTIFIERS,
  ENV_NAME,
  MEMBER_PATH,
  FILE_PATH,
  URL_VALUE,
  DIGEST,
  REFERENCE,
];
/**
 * `NOT_SECRET` as few patterns: a fresh value (every value of a log where no two passwords are alike) is
 * tried against all of them, and a pattern of alternatives costs a fraction of eighteen calls (see
 * `joinPatterns`). A pattern with a flag (`i`, `u`) cannot be joined, and is tried on its own.
 */
const NOT_SECRET_JOINABLE = NOT_SECRET.filter((re) => re.flags === "");
const NOT_SECRET_ANCHORED = joinPatterns(NOT_SECRET_JOINABLE.filter(isAnchored), "^");
const NOT_SECRET_ANYWHERE = joinPatterns(
  NOT_SECRET_JOINABLE.filter((re) => !isAnchored(re)),
  "",
);
const NOT_SECRET_FLAGGED = NOT_SECRET.filter((re) => re.flags !== "");
/**
 * The anchored shapes that need one of `./:=(["'` (a call's parenthesis, a path's dot or slash, a URL's
 * colon, …), and the others joined: a value holding none of those (most random values) is tried against the
 * others only, since these backtrack through the whole of a long value before they fail.
 */
const STRUCTURED = [CALL, SUBSCRIPT, SESSION_KEY, IDENTIFIERS, MEMBER_PATH, FILE_PATH, URL_VALUE, REFERENCE];
const STRUCTURE = `./:=(["'`;
const hasStructure = anyOf(STRUCTURE);
const NOT_SECRET_UNSTRUCTURED = joinPatterns(
  NOT_SECRET_JOINABLE.filter((re) => isAnchored(re) && !STRUCTURED.includes(re)),
  "^",
);

/** Whether `value` has the shape of something that is not a secret (`NOT_SECRET`). */
export function hasPlainShape(value: string): boolean {
  return (
    (hasStructure(value) ? NOT_SECRET_ANCHORED : NOT_SECRET_UNSTRUCTURED).test(value) ||
    NOT_SECRET_ANYWHERE.test(value) ||
    NOT_SECRET_FLAGGED.some((re) => re.test(value))
  );
}

/** Templates, variables, elided examples (`{uuid.uuid4()}`, `hook:{{id}}`, `${user}-x`, `$TOKEN&x=1`, `<token>`, `bce-v3/ALTAK-...`), a value's own name. */
const TEMPLATE =
  /^\{[A-Za-z_$][\w$.]*(?:\(\))?\}$|\{\{|\$\{|^\$\(|^\$[A-Z_][A-Z0-9_]*(?![a-z])|<[A-Za-z_][\w-]*>|(?:\.\.\.|…)$|^(?:password|passwd|secret|token|credentials?)$/i;
/** A format string's `%s`, `%d`: a template when little but words and `:/@.'"-` is left (`user:%s@host`). */
const FORMAT = /(?<![A-Za-z0-9])%[sd](?![A-Za-z0-9])/g;

/** Whether `value` stands for a secret rather than being one: a placeholder, a template, an elided example. */
export function isPlaceholder(value: string): boolean {
  // Judged once per short value, as `looksSecret` judges values: a text repeats them.
  const known = placeholders.get(value);
  if (known !== undefined) return known;
  const rest = value.includes("%") ? value.replace(FORMAT, "") : value;
  const format = rest !== value && rest.replace(/[\w:/@.'"-]/g, "").length < 3;
  const verdict = PLACEHOLDER.test(value) || TEMPLATE.test(value) || format;
  placeholders.set(value, verdict);
  return verdict;
}

const placeholders = new Verdicts();

/**
 * Whether an assigned value looks like a secret. Never: values with whitespace or shorter than
 * `minLength`, placeholders and templates (`${TOKEN}`, `<token>`, `***`, `hook:{{id}}`, `sk-...`), numbers
 * (`4096`, `1.5`, `30s`), identifiers made of letters (`getToken`, `string`, `my-deploy-key`, `appKey:appSecret`),
 * env var names (`OPENAI_API_KEY`) and references to them (`os.environ/API_KEY`, `env:TOKEN`), member paths
 * (`process.env.TOKEN`), file paths, URLs and content digests. A strong value may be a PIN of 6+ digits.
 * A weak value must also be printable ASCII, mix at least two of lower case, upper case and digits, and
 * not be lowercase words and numbers joined by punctuation (`user:42:profile`).
 */
export function looksSecret(value: string, strength: Strength, minLength: number): boolean {
  if (value.length < minLength) return false;
  // A text repeats the same values (a pasted log thousands of times): each short one is judged once per
  // strength and length, as names are (`classifyName`), in a bounded memo (`Verdicts`).
  const memoKey = strength === "strong" ? minLength : -minLength;
  let memo = judgedValues.get(memoKey);
  if (memo === undefined) {
    memo = new Verdicts();
    judgedValues.set(memoKey, memo);
  }
  const known = memo.get(value);
  if (known !== undefined) return known;
  const verdict = judgeValue(value, strength);
  memo.set(value, verdict);
  return verdict;
}

const judgedValues = new Map<number, Verdicts>();

/** `looksSecret` for a value of at least the minimum length. */
function judgeValue(value: string, strength: Strength): boolean {
  if (/\s/.test(value) || value.includes("[REDACTED:")) return false;
  if (strength === "strong" && /^\d{6,}$/.test(value)) return true;
  // `process.env.API_KEY!` and `config.token?` are member paths with a TypeScript or Ruby suffix.
  if (isPlaceholder(value)) return false;
  const plain = hasPlainShape(value);
  if (plain && !isRandomLetters(value)) return false;
  // A member path is a plain shape: a value without one is none, unless it loses that suffix.
  const last = value.charCodeAt(value.length - 1);
  const suffixed = last === 33 || last === 63;
  if ((plain || suffixed) && MEMBER_PATH.test(suffixed ? value.slice(0, -1) : value)) return false;
  if (strength === "strong") return true;
  // A generated token is printable ASCII; a random-looking string of other characters is not one.
  if (!isPrintableAscii(value) || NUMBERED_NAME.test(value)) return false;
  return classCount(value) >= 2 && !isWordsAndNumbers(value);
}

/** Opening and closing brackets, for values that end in one they did not open. */
export const BRACKETS: readonly (readonly [string, string])[] = [
  ["(", ")"],
  ["[", "]"],
  ["{", "}"],
  ["<", ">"],
];

/** Words of prose and of forms that a passphrase of a few words would not hold. */
const PROSE_WORDS = new Set(
  (
    "the a an is are was be must should at least of in on to for and or with your my our not no see use used " +
    "required characters character chars enter invalid incorrect wrong empty stored kept vault ask contact " +
    "set change reset same as from by this that here there please if when"
  ).split(" "),
);

/**
 * Whether a quoted value of several words is a passphrase (`"correct horse battery staple"`, `"Mi casa 42!"`):
 * 2 to 8 words in Latin letters (each with a letter or digit), none of them a word of prose or of a form (`"at least 8 characters"`,
 * `"see the vault"`), the last not ending a sentence.
 */
export function isPassphrase(value: string): boolean {
  const words = value.trim().split(/\s+/);
  if (words.length < 2 || words.length > 8 || /[.?]$/.test(value.trim()) || isPlaceholder(value))
    return false;
  // Words in Latin letters only: a few words in another script are prose this list cannot tell apart.
  return words.every(
    (w) =>
      /^[\x21-\x7e\u00c0-\u024f]+$/.test(w) &&
      /[\p{L}\p{N}]/u.test(w) &&
      !PROSE_WORDS.has(w.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "")),
  );
}

/** `looksSecret` with the usual minimum length: 6 for strong names, 16 for weak ones. */
export function looksSecretFor(value: string, strength: Strength): boolean {
  return looksSecret(value, strength, strength === "strong" ? 6 : 16);
}

/**
 * Whether a value of letters only is random rather than an identifier: 16+ letters of both cases whose
 * camelCase words average under 3.5 letters (`lpZPtskzBUNMeiVwmJLk`: lp, ZP, tskz, BUNM, …), where an
 * identifier is made of words (`getAccessTokenFromCache`: 4.6). Generated keys hold no digit often enough
 * (one in 60 of 24 random letters and digits) that leaving them to the identifier rule would leak them.
 * A provider's short lower-case prefix may stand before the letters (`fw_…`, `tok-…`): the letters are judged.
 */
function isRandomLetters(value: string): boolean {
  const letters = /^[a-z0-9]{1,8}[_-][A-Za-z]{16,}$/.test(value)
    ? value.slice(value.search(/[_-]/) + 1)
    : value;
  if (letters.length < 16 || !/^[A-Za-z]+$/.test(letters) || !/[a-z]/.test(letters) || !/[A-Z]/.test(letters))
    return false;
  const words = letters.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g) ?? [];
  return letters.length / Math.max(1, words.length) < 3.5;
}

/**
 * Whether the random part of a provider token is a placeholder rather than a token: fewer than three
 * distinct characters (`xxxx…`, `XXXX-XXXX`), a run of eight equal characters, or a word such as `your-`,
 * `example` or `placeholder` written as a word is (`example`, `EXAMPLE`, `Example`): a random body holds
 * one of these words in mixed case (`DumMY`) about once in 40 000 tokens, in one of those cases about once
 * in 400 000.
 */
export function isPlaceholderBody(body: string): boolean {
  if (fewerThanThreeCharacters(body) || hasRunOfEight(body)) return true;
  for (const [word] of body.matchAll(PLACEHOLDER_WORDS)) {
    const rest = word.slice(1);
    if (rest === rest.toLowerCase() || word === word.toUpperCase()) return true;
  }
  return false;
}

const PLACEHOLDER_WORDS = /your[-_]|example|placeholder|dummy|redacted|changeme|insert|replace/gi;

/** `Basic` credentials: base64 that decodes to printable `user:password`. */
export function isBasicCredentials(value: string): boolean {
  const bytes = Buffer.from(value, "base64");
  const decoded = bytes.toString("latin1");
  return (
    bytes.toString("base64").replace(/=+$/, "") === value.replace(/=+$/, "") &&
    /^[\x20-\x7e]{3,}$/.test(decoded) &&
    decoded.includes(":")
  );
}

/**
 * The sources of everything above that judges names and values, for the rules version
 * (`redact-judged.ts`): a change to a word list, a pattern or a predicate changes the version.
 */
export const JUDGEMENT_SOURCES: readonly string[] = [
  [...STRONG_WORDS, "|", ...STRONG_LAST_WORDS, "|", ...WEAK_WORDS].join(" "),
  [...PLAIN_KEY_QUALIFIERS, "|", ...PLAIN_TOKEN_QUALIFIERS, "|", ...META_WORDS].join(" "),
  ...[SECRET_WORD_HINT, QUALIFIABLE, PLACEHOLDER, TEMPLATE, FORMAT, NUMBERED_NAME, ...NOT_SECRET].map(
    (re) => `${re.source}/${re.flags}`,
  ),
  ...[
    classifyName,
    classifyQualified,
    isWeakWord,
    isPlaceholder,
    looksSecret,
    judgeValue,
    hasPlainShape,
    isSpace,
    looksSecretFor,
    classCount,
    isWordsAndNumbers,
    isRandomLetters,
    isPrintableAscii,
    anyOf,
  ].map(String),
  ...[
    classifyWords,
    isDigest,
    isPlaceholderBody,
    fewerThanThreeCharacters,
    hasRunOfEight,
    isBasicCredentials,
    isPassphrase,
  ].map(String),
  [...PROSE_WORDS].join(" "),
  NOT_SECRET_ANCHORED.source,
  PLACEHOLDER_WORDS.source,
  NOT_SECRET_UNSTRUCTURED.source,
  STRUCTURE,
  NOT_SECRET_ANYWHERE.source,
];
