import { Buffer } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTION_KINDS, type RedactionKind, redact, redactDeep } from "../../plugin/snapshot/redact.ts";
import { FAKE, NEGATIVES, PEM, POSITIVES } from "./fixtures/redact-corpus.ts";

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";

const chars = (alphabet: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });

const marker = (kind: RedactionKind) => `[REDACTED:${kind}]`;

/** A generated secret (8+ characters, so prose cannot contain it by chance) in its context, and the text redaction must turn it into. */
interface Embedded {
  readonly secret: string;
  readonly text: string;
  readonly expected: string;
}

const bare = (kind: RedactionKind) => (secret: string) => ({ secret, text: secret, expected: marker(kind) });
const inContext =
  (kind: RedactionKind, before: string, after = "") =>
  (secret: string) => ({
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
  (name) => [`--${name}=`, ""],
];

const assignmentArb = (names: readonly string[], value: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.constantFrom(...names), fc.constantFrom(...ASSIGNMENT_FORMS), value)
    .map(([name, form, secret]) => {
      const [before, after] = form(name);
      return inContext("secret-assignment", before, after)(secret);
    });

/** One arbitrary per rule: a random secret of the provider's format, in the context the rule needs. */
const embeddedArb: fc.Arbitrary<Embedded> = fc.oneof(
  chars(ALNUM, 30, 60).map((t) => bare("openai-key")(`sk-A1${t}`)),
  chars(`${ALNUM}_-`, 18, 150).map((t) => bare("openai-key")(`sk-proj-a1${t}`)),
  chars(`${ALNUM}_-`, 20, 100).map((t) => bare("anthropic-key")(`sk-ant-api03-${t}`)),
  fc
    .tuple(fc.constantFrom("ghp", "gho", "ghu", "ghs", "ghr"), chars(ALNUM, 36, 40))
    .map(([prefix, t]) => bare("github-token")(`${prefix}_${t}`)),
  chars(`${ALNUM}_`, 22, 82).map((t) => bare("github-token")(`github_pat_${t}`)),
  chars(`${ALNUM}_-`, 20, 30).map((t) => bare("gitlab-token")(`glpat-${t}`)),
  chars(`${ALNUM}-`, 8, 50).map((t) => bare("slack-token")(`xoxb-1${t}`)),
  fc
    .tuple(fc.constantFrom("sk_live_", "rk_live_", "sk_test_"), chars(ALNUM, 16, 99))
    .map(([prefix, t]) => bare("stripe-key")(`${prefix}${t}`)),
  chars(ALNUM, 36, 36).map((t) => bare("npm-token")(`npm_${t}`)),
  fc.uuid().map(inContext("npm-token", "//registry.npmjs.org/:_authToken=")),
  chars(`${ALNUM}_-`, 35, 35).map((t) => bare("google-api-key")(`AIza${t}`)),
  chars(UPPER + DIGITS, 16, 16).map((t) => bare("aws-access-key")(`AKIA${t}`)),
  chars(`${ALNUM}+/`, 40, 40).map(inContext("aws-secret", "aws_secret_access_key = ")),
  fc
    .tuple(chars(`${ALNUM}_-`, 10, 40), chars(`${ALNUM}_-`, 10, 60), chars(`${ALNUM}_-`, 0, 50))
    .map(([h, p, s]) => bare("jwt")(`eyJ${h}.eyJ${p}.${s}`)),
  fc
    .tuple(
      fc.constantFrom("RSA ", "EC ", "OPENSSH ", ""),
      fc.array(chars(`${ALNUM}+/`, 16, 64), { minLength: 1 }),
    )
    .map(([label, lines]) => {
      const body = lines.join("\n");
      const text = `-----BEGIN ${label}PRIVATE KEY-----\n${body}\n-----END ${label}PRIVATE KEY-----`;
      return { secret: body, text, expected: marker("private-key") };
    }),
  chars(`${ALNUM}._~+/-`, 6, 60).map((t) => inContext("bearer", "Authorization: Bearer ")(`a1${t}`)),
  chars(ALNUM, 13, 40).map((t) => inContext("bearer", "Bearer ")(`Ab1${t}`)),
  fc
    .tuple(chars(ALNUM, 3, 20), chars(ALNUM, 3, 20))
    .map(([user, password]) => Buffer.from(`${user}:${password}`, "utf8").toString("base64"))
    .map(inContext("basic-auth", "Authorization: Basic ")),
  fc
    .tuple(chars(LOWER, 1, 10), chars(`${ALNUM}!*-_~$`, 7, 30))
    .map(([user, t]) =>
      inContext("url-credentials", `https://${user}:`, "@db.example.com:5432/app")(`P${t}`),
    ),
  fc
    .tuple(
      fc.constantFrom("access_token", "token", "api_key", "client_secret", "password", "sig"),
      chars(ALNUM, 5, 40),
    )
    .map(([name, t]) =>
      inContext("url-credentials", `https://api.example.com/v1/x?${name}=`, "&page=2")(`Ab1${t}`),
    ),
  assignmentArb(
    STRONG_NAMES,
    chars(`${ALNUM}!@#%^*+=_-`, 6, 40).map((t) => `Sa9${t}`),
  ),
  assignmentArb(
    WEAK_NAMES,
    chars(`${ALNUM}+=_-`, 13, 60).map((t) => `Ab1${t}`),
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
  "-",
  "42",
  "done.",
];

/** Things that look a little like secrets but are not: SHAs, UUIDs, paths, ids, checksums, limits. */
const negativeArb: fc.Arbitrary<string> = fc.oneof(
  chars(HEX, 40, 40),
  chars(HEX, 7, 12),
  fc.uuid(),
  fc
    .tuple(
      fc.constantFrom("src/", "/home/u/", "./", "~/.config/", "plugin/snapshot/"),
      fc.array(chars(LOWER, 1, 10), { minLength: 1, maxLength: 4 }),
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
  fc.array(chars(UPPER, 2, 10), { minLength: 1, maxLength: 3 }).map((words) => `ERR_${words.join("_")}`),
  fc.integer({ min: 1, max: 999 }).map((n) => `ADR-${String(n).padStart(3, "0")}`),
  chars(HEX, 64, 64).map((hex) => `sha256:${hex}`),
  fc.integer({ min: 0, max: 100_000 }).map((n) => `max_tokens=${n}`),
  chars(UPPER, 3, 12).map((name) => `apiKeyEnvVar=${name}_API_KEY`),
  fc.constantFrom(...PROSE_WORDS),
);

const SEPARATORS = [" ", "\n", ", ", " -- ", "\n\n"];

const proseArb = fc
  .array(fc.tuple(negativeArb, fc.constantFrom(...SEPARATORS)), { maxLength: 12 })
  .map((parts) => parts.map(([word, sep]) => word + sep).join(""));

/** Fragments that drive the patterns into their longest attempts. */
const DANGEROUS = [
  "a:",
  "a=",
  "token: ",
  "password=",
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
  "eyJ",
  ".",
  "sk-",
  "ghp_",
  "AKIA",
  "A1b2",
  "[REDACTED:jwt]",
  "[REDACTED:",
  "]",
  '"',
  " ",
  "\t",
  "=",
];

describe("redact", () => {
  it.each(POSITIVES)("replaces $name when it appears in context", ({ kind, input, expected }) => {
    expect(redact(input)).toEqual({ text: expected, counts: { [kind]: 1 }, total: 1 });
  });

  it.each(POSITIVES)("removes the secret of $name from the text", ({ secret, input }) => {
    expect(redact(input).text).not.toContain(secret);
  });

  it.each(NEGATIVES)("leaves $name unchanged when it holds no secret", ({ text }) => {
    expect(redact(text)).toEqual({ text, counts: {}, total: 0 });
  });

  it.each(POSITIVES)("leaves the output for $name unchanged when it runs again", ({ expected }) => {
    expect(redact(expected)).toEqual({ text: expected, counts: {}, total: 0 });
  });

  it("counts each kind separately when a text holds several secrets", () => {
    const text = [
      `OPENAI_API_KEY=${FAKE.openaiLegacy}`,
      `GH_TOKEN=${FAKE.githubClassic}`,
      `backup token ${FAKE.githubApp}`,
      "DB_PASSWORD=Summer2024!",
      PEM.pkcs8,
    ].join("\n");
    expect(redact(text)).toEqual({
      text: [
        "OPENAI_API_KEY=[REDACTED:openai-key]",
        "GH_TOKEN=[REDACTED:github-token]",
        "backup token [REDACTED:github-token]",
        "DB_PASSWORD=[REDACTED:secret-assignment]",
        "[REDACTED:private-key]",
      ].join("\n"),
      counts: { "openai-key": 1, "github-token": 2, "secret-assignment": 1, "private-key": 1 },
      total: 5,
    });
  });

  it("reports the provider kind when a provider token is assigned to a secret name", () => {
    expect(redact(`STRIPE_API_KEY="${FAKE.stripeLive}"`)).toEqual({
      text: 'STRIPE_API_KEY="[REDACTED:stripe-key]"',
      counts: { "stripe-key": 1 },
      total: 1,
    });
  });

  it("keeps a marker that was already in the text when the value after a secret name is a marker", () => {
    const text = "password=[REDACTED:secret-assignment] url=https://u:[REDACTED:url-credentials]@h/x";
    expect(redact(text)).toEqual({ text, counts: {}, total: 0 });
  });

  it("redacts a value of 6 characters under a password name but not one of 5", () => {
    expect(redact("password=abc123 pass=abc12").text).toBe(
      "password=[REDACTED:secret-assignment] pass=abc12",
    );
  });

  it("redacts a token value of 16 mixed characters but not one of 15", () => {
    expect(redact("token=abcdefgh12345678 token=abcdefgh1234567").text).toBe(
      "token=[REDACTED:secret-assignment] token=abcdefgh1234567",
    );
  });

  it("returns the exact output when it is given long adversarial inputs", () => {
    const begin = "-----BEGIN RSA PRIVATE KEY-----\n";
    expect(redact("a:".repeat(50_000)).total).toBe(0);
    expect(redact(`password: ${" ".repeat(100_000)}x`).total).toBe(0);
    expect(redact(`token: ${"Ab1".repeat(100_000)}`).total).toBe(0);
    expect(redact(`https://u:${"@".repeat(50_000)}`).text).toBe(`https://u:[REDACTED:url-credentials]@`);
    expect(redact(begin.repeat(2_000)).text).toBe("[REDACTED:private-key]\n".repeat(2_000));
  });

  it("is idempotent on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), (text) => {
        const once = redact(text);
        expect(redact(once.text)).toEqual({ text: once.text, counts: {}, total: 0 });
      }),
      { numRuns: 300 },
    );
  });

  it("is idempotent on random text mixed with secrets, markers and corpus pieces", () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom(...DANGEROUS),
      fc.constantFrom(...POSITIVES.map((p) => p.input), ...NEGATIVES.map((n) => n.text)),
      embeddedArb.map((e) => e.text),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const once = redact(pieces.join(""));
        expect(redact(once.text)).toEqual({ text: once.text, counts: {}, total: 0 });
      }),
      { numRuns: 500 },
    );
  });

  it("leaves text unchanged when it is made only of negatives", () => {
    fc.assert(
      fc.property(proseArb, (text) => {
        expect(redact(text)).toEqual({ text, counts: {}, total: 0 });
      }),
      { numRuns: 500 },
    );
  });

  it("replaces only the secret when a generated secret is embedded in random prose", () => {
    fc.assert(
      fc.property(proseArb, embeddedArb, proseArb, (before, { secret, text, expected }, after) => {
        const result = redact(`${before} ${text} ${after}`);
        expect(result.text).toBe(`${before} ${expected} ${after}`);
        expect(result.text).not.toContain(secret);
        expect(result.total).toBe(1);
      }),
      { numRuns: 1_000 },
    );
  });

  it("terminates and is idempotent on long strings of dangerous fragments", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...DANGEROUS), { minLength: 500, maxLength: 3_000 }), (pieces) => {
        const once = redact(pieces.join(""));
        expect(redact(once.text).total).toBe(0);
      }),
      { numRuns: 50 },
    );
  });
});

describe("redactDeep", () => {
  it("redacts every string in nested arrays and objects and sums the counts", () => {
    const input = {
      goal: `ship with ${FAKE.githubClassic}`,
      files: [{ path: "src/auth/oauth-callback.ts", note: `uses ${FAKE.openaiLegacy}` }],
      next: [`export NPM_TOKEN=${FAKE.npm}`, "run the tests"],
    };
    expect(redactDeep(input)).toEqual({
      value: {
        goal: "ship with [REDACTED:github-token]",
        files: [{ path: "src/auth/oauth-callback.ts", note: "uses [REDACTED:openai-key]" }],
        next: ["export NPM_TOKEN=[REDACTED:npm-token]", "run the tests"],
      },
      counts: { "github-token": 1, "openai-key": 1, "npm-token": 1 },
      total: 3,
    });
  });

  it("keeps numbers, booleans, null and keys when it rebuilds an object", () => {
    const input = { count: 3, ok: true, missing: null, nested: [1, false, null], [FAKE.githubClassic]: 1 };
    expect(redactDeep(input)).toEqual({ value: input, counts: {}, total: 0 });
  });

  it("replaces a value whole when its property key names a secret and the value looks secret", () => {
    expect(redactDeep({ password: "hunter2", apiKey: "a1B2c3D4e5F6g7H8", user: "hunter2" })).toEqual({
      value: {
        password: "[REDACTED:secret-assignment]",
        apiKey: "[REDACTED:secret-assignment]",
        user: "hunter2",
      },
      counts: { "secret-assignment": 2 },
      total: 2,
    });
  });

  it("keeps a value when its key names a secret but the value is an identifier or a number", () => {
    const input = {
      apiKeyEnvVar: "OPENAI_API_KEY",
      token: "getToken",
      password_min_length: "8",
      passwordHint: "x1",
    };
    expect(redactDeep(input)).toEqual({ value: input, counts: {}, total: 0 });
  });

  it("judges the value of a { label, value } pair by its label", () => {
    const names = [
      { label: "staging token", value: "a1B2c3D4e5F6g7H8" },
      { label: "env var", value: "a1B2c3D4e5F6g7H8" },
    ];
    expect(redactDeep(names)).toEqual({
      value: [
        { label: "staging token", value: "[REDACTED:secret-assignment]" },
        { label: "env var", value: "a1B2c3D4e5F6g7H8" },
      ],
      counts: { "secret-assignment": 1 },
      total: 1,
    });
  });

  it("keeps a random-looking label when the property is called key", () => {
    const input = [{ key: "3f9a1b2c4d5e6f708192a3b4c5d6e7f809a1b2c3", value: "commit" }];
    expect(redactDeep(input)).toEqual({ value: input, counts: {}, total: 0 });
  });

  it("keeps a __proto__ key from JSON as an own property when it rebuilds the object", () => {
    const parsed: Record<string, unknown> = JSON.parse('{"__proto__": {"password": "hunter2"}}');
    const result = redactDeep(parsed);
    expect(Object.entries(result.value)).toEqual([
      ["__proto__", { password: "[REDACTED:secret-assignment]" }],
    ]);
    expect(result.total).toBe(1);
  });

  it("leaves its input unchanged and keeps non-plain objects by reference", () => {
    const when = new Date(0);
    const input = { note: `key ${FAKE.google}`, when };
    const result = redactDeep(input);
    expect(input).toEqual({ note: `key ${FAKE.google}`, when });
    expect(result.value.when).toBe(when);
    expect(result.value.note).toBe("key [REDACTED:google-api-key]");
  });

  it("is idempotent on generated snapshot-like values", () => {
    const valueArb = fc.dictionary(
      fc.constantFrom("goal", "password", "token", "note", "label", "value"),
      fc.oneof(
        embeddedArb.map((e) => e.text),
        proseArb,
        fc.integer(),
        fc.array(proseArb, { maxLength: 3 }),
      ),
    );
    fc.assert(
      fc.property(valueArb, (value) => {
        const once = redactDeep(value);
        expect(redactDeep(once.value)).toEqual({ value: once.value, counts: {}, total: 0 });
      }),
      { numRuns: 300 },
    );
  });
});

describe("REDACTION_KINDS", () => {
  it("lists every kind the corpus exercises", () => {
    expect(new Set(POSITIVES.map((p) => p.kind))).toEqual(new Set(REDACTION_KINDS));
  });
});
