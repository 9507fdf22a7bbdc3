import { Buffer } from "node:buffer";
import fc from "fast-check";
import { type RedactionKind, redactionMarker } from "../../plugin/snapshot/redact.ts";
import { ALNUM, B64, B64URL, Faker, fake, HEX, LOWER, pem } from "./fixtures/secret-fakes.ts";

/**
 * fast-check arbitraries for the redactor's property tests: generated secrets in the context their rule
 * needs (with the text redaction must produce), hard negatives, prose made of negatives, and fragments that
 * drive the patterns into their longest attempts.
 */

const marker = (kind: RedactionKind) => redactionMarker(kind);

/** A random string from a fast-check seed: random enough for any token format, never a placeholder. */
const randomArb = (alphabet: string, min: number, max: number) =>
  fc.tuple(fc.integer(), fc.integer({ min, max })).map(([seed, n]) => new Faker(seed).str(alphabet, n));

/** A generated secret (8+ characters, so prose cannot contain it by chance) in its context. */
export interface Embedded {
  readonly secret: string;
  readonly text: string;
  readonly expected: string;
}

const bare = (kind: RedactionKind) => (secret: string) => ({ secret, text: secret, expected: marker(kind) });
const inContext =
  (kind: RedactionKind, before: string, after = "") =>
  (secret: string): Embedded => ({
    secret,
    text: `${before}${secret}${after}`,
    expected: `${before}${marker(kind)}${after}`,
  });

const STRONG_NAMES = ["DB_PASSWORD", "adminPassword", "client_secret", "SMTP_PASS", "passphrase"];
const WEAK_NAMES = ["API_TOKEN", "x-api-key", "authToken", "SERVICE_KEY", "signing_key", "credentials"];
const ASSIGNMENT_FORMS: readonly ((name: string) => [string, string])[] = [
  (name) => [`${name}=`, ""],
  (name) => [`export ${name}=`, ""],
  (name) => [`${name}: `, ""],
  (name) => [`"${name}": "`, '"'],
  (name) => [`${name} = '`, "'"],
];

const assignmentArb = (names: readonly string[], value: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.constantFrom(...names), fc.constantFrom(...ASSIGNMENT_FORMS), value)
    .map(([name, form, secret]) => {
      const [before, after] = form(name);
      return inContext("secret-assignment", before, after)(secret);
    });

/** One arbitrary per kind of rule: a random secret of the format, in the context the rule needs. */
export const embeddedArb: fc.Arbitrary<Embedded> = fc.oneof(
  randomArb(ALNUM, 48, 60).map((t) => bare("openai-key")(`sk-A1${t}`)),
  randomArb(B64URL, 40, 150).map((t) => bare("openai-key")(`sk-proj-a1${t}`)),
  randomArb(B64URL, 90, 100).map((t) => bare("anthropic-key")(`sk-ant-api03-${t}AA`)),
  fc
    .tuple(fc.constantFrom("ghp", "gho", "ghu", "ghs", "ghr"), randomArb(ALNUM, 36, 40))
    .map(([prefix, t]) => bare("github-token")(`${prefix}_${t}`)),
  randomArb(B64URL, 20, 30).map((t) => bare("gitlab-token")(`glpat-${t}`)),
  randomArb(ALNUM, 24, 40).map((t) => bare("slack-token")(`xoxb-1234567890-${t}`)),
  fc
    .tuple(fc.constantFrom("sk_live_", "rk_live_", "sk_test_"), randomArb(ALNUM, 16, 99))
    .map(([prefix, t]) => bare("stripe-key")(`${prefix}${t}`)),
  randomArb(ALNUM, 36, 36).map((t) => bare("npm-token")(`npm_${t}`)),
  fc.uuid().map(inContext("npm-token", "//registry.npmjs.org/:_authToken=")),
  randomArb(B64URL, 35, 35).map((t) => bare("google-api-key")(`AIza${t}`)),
  randomArb("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 16).map((t) => bare("aws-access-key")(`AKIA${t}`)),
  randomArb(B64, 40, 40).map(inContext("aws-secret", "aws_secret_access_key = ")),
  randomArb(ALNUM, 52, 52).map((t) => bare("groq-key")(`gsk_${t}`)),
  randomArb(B64URL, 33, 33).map((t) => bare("telegram-bot-token")(`123456789:AA${t}`)),
  randomArb(HEX, 32, 32).map((t) => bare("twilio-key")(`SK${t}`)),
  randomArb(HEX, 32, 32).map((t) => bare("databricks-token")(`dapi${t}`)),
  fc
    .constant(0)
    .map(() => fake.jwt())
    .map(bare("jwt")),
  fc.tuple(fc.constantFrom("RSA ", "EC ", "OPENSSH ", ""), randomArb(B64, 64, 64)).map(([label, line]) => {
    const key = pem(label, `MII${line}\n${line}`);
    return { secret: key.body, text: key.text, expected: marker("private-key") };
  }),
  randomArb(ALNUM, 16, 60).map((t) => inContext("bearer", "Authorization: Bearer ")(`a1${t}`)),
  randomArb(ALNUM, 16, 40).map((t) => inContext("bearer", "Bearer ")(`Ab1${t}`)),
  fc
    .tuple(randomArb(ALNUM, 3, 20), randomArb(ALNUM, 3, 20))
    .map(([user, password]) => Buffer.from(`${user}:${password}`, "utf8").toString("base64"))
    .map(inContext("basic-auth", "Authorization: Basic ")),
  fc
    .tuple(randomArb(LOWER, 1, 10), randomArb(`${ALNUM}!*-_~$`, 7, 30))
    .map(([user, t]) =>
      inContext("url-credentials", `https://${user}:`, "@db.example.com:5432/app")(`P${t}`),
    ),
  fc
    .tuple(
      fc.constantFrom("access_token", "token", "api_key", "client_secret", "password", "sig"),
      randomArb(ALNUM, 5, 40),
    )
    .map(([name, t]) =>
      inContext("url-credentials", `https://api.example.com/v1/x?${name}=`, "&page=2")(`Ab1${t}`),
    ),
  randomArb(ALNUM, 20, 40).map((t) => inContext("cli-flag", "deploy --api-key ", " --region eu")(`Ab1${t}`)),
  randomArb(ALNUM, 6, 20).map((t) => inContext("cli-flag", "sshpass -p '", "' ssh deploy@host")(`S9${t}`)),
  randomArb(ALNUM, 20, 40).map((t) => inContext("credential-call", 'client.login("', '")')(`Ab1${t}`)),
  randomArb(ALNUM, 6, 20).map((t) => inContext("labelled-secret", "服务器密码：", "，请勿外传")(`Xk9${t}`)),
  randomArb(ALNUM, 6, 20).map((t) =>
    inContext("labelled-secret", "the root password is ", " today")(`Hu2${t}`),
  ),
  assignmentArb(
    STRONG_NAMES,
    randomArb(`${ALNUM}!@#%^*+=_-`, 6, 40).map((t) => `Sa9${t}`),
  ),
  assignmentArb(
    WEAK_NAMES,
    randomArb(`${ALNUM}+=_-`, 13, 60).map((t) => `Ab1${t}`),
  ),
);

const PROSE_WORDS = [
  "the",
  "deploy",
  "failed",
  "on",
  "main",
  "token",
  "password",
  "secret",
  "key",
  "bearer",
  "rotate",
  "next:",
  "(see",
  "notes)",
  // Not a lone "-": "secret - <uuid>" is a label, a dash and a value, which the label rule rightly takes.
  "+",
  "42",
  "done.",
  "密码",
  "пароль",
];

/** Things that look a little like secrets but are not: SHAs, UUIDs, paths, ids, checksums, limits. */
export const negativeArb: fc.Arbitrary<string> = fc.oneof(
  randomArb(HEX, 40, 40),
  randomArb(HEX, 7, 12),
  fc.uuid(),
  fc
    .tuple(
      fc.constantFrom("src/", "/home/u/", "./", "~/.config/", "plugin/snapshot/"),
      fc.array(randomArb(LOWER, 1, 10), { minLength: 1, maxLength: 4 }),
      fc.constantFrom(".ts", ".md", ".pub", ".json", ""),
    )
    .map(([root, parts, ext]) => `${root}${parts.join("/")}${ext}`),
  fc
    .tuple(
      fc.integer({ min: 2000, max: 2099 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 28 }),
    )
    .map(([y, m, d]) => `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}-0${d % 10}`),
  fc.integer({ min: 1, max: 999 }).map((n) => `ADR-${String(n).padStart(3, "0")}`),
  randomArb(HEX, 64, 64).map((hex) => `sha256:${hex}`),
  randomArb(B64, 86, 86).map((b) => `sha512-${b}==`),
  fc.integer({ min: 0, max: 100_000 }).map((n) => `max_tokens=${n}`),
  fc.constantFrom("OPENAI_API_KEY", "$GITHUB_TOKEN", "<token>", "***", "password: string", "getToken()"),
  fc.constantFrom(...PROSE_WORDS),
);

const SEPARATORS = [" ", "\n", ", ", " -- ", "\n\n"];
export const proseArb = fc
  .array(fc.tuple(negativeArb, fc.constantFrom(...SEPARATORS)), { maxLength: 12 })
  .map((parts) => parts.map(([word, sep]) => word + sep).join(""));

/** Fragments that drive the patterns into their longest attempts. */
export const DANGEROUS = [
  "a:",
  "a=",
  "token: ",
  "password=",
  "password is ",
  "密码：",
  "--token ",
  "curl -u a:",
  "login(",
  '("',
  "Authorization: Bearer ",
  "Basic ",
  "https://u:",
  "@",
  "?token=",
  "&",
  "-----BEGIN RSA PRIVATE KEY-----",
  "-----END RSA PRIVATE KEY-----",
  "\n",
  "\\n",
  "  ",
  "eyJ",
  ".",
  "sk-",
  "ghp_",
  "AKIA",
  "A1b2",
  ":AA",
  "[REDACTED:jwt]",
  "[REDACTED:",
  "]",
  '"',
  " ",
  "\t",
  "=",
  // The tools' password arguments and the name-and-value pairs.
  "keytool -storepass ",
  "htpasswd -b ",
  "sqlplus a/",
  "smbclient -U a%",
  "echo a | sudo -S ",
  "net user a ",
  "define('DB_PASSWORD', '",
  'os.environ["API_KEY"] = ',
  "$env:API_KEY=",
  "- name: API_KEY\n  value: ",
  '<add key="ApiKey" value="',
  '\\"password\\": \\"',
  "&quot;password&quot;: &quot;",
  "password%3D",
  "password -> ",
  "set -gx API_KEY ",
];
