import { Buffer } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redact } from "../../plugin/snapshot/redact.ts";
import {
  classCount,
  classifyName,
  classifyQualified,
  hasPlainShape,
  isBasicCredentials,
  isDigest,
  isPlaceholder,
  isPlaceholderBody,
  isQualifiable,
  isSpace,
  looksSecret,
  looksSecretFor,
  NOT_SECRET,
} from "../../plugin/snapshot/redact-names.ts";

/** `${TOKEN}`, as a shell or a template writes it. */
const SHELL_VARIABLE = ["$", "{TOKEN}"].join("");

describe("classifyName", () => {
  it("calls a name strong when a word says password or secret", () => {
    expect(
      [
        "DB_PASSWORD",
        "adminPassword",
        "client_secret",
        "passphrase",
        "SMTP_PASS",
        "db_pwd",
        "x-passcode",
      ].map(classifyName),
    ).toEqual(Array(7).fill("strong"));
  });

  it("calls a name weak when a word says token, key, auth, credential or sig", () => {
    expect(
      [
        "API_TOKEN",
        "x-api-key",
        "authToken",
        "SERVICE_KEY",
        "signing_key",
        "credentials",
        "sig",
        "apikey",
      ].map(classifyName),
    ).toEqual(Array(8).fill("weak"));
  });

  it("takes pass and pwd as strong only as the last word", () => {
    expect(["passThrough", "pwdFile", "bypass"].map(classifyName)).toEqual([undefined, undefined, undefined]);
  });

  it("finds no secret when the last word describes the secret rather than holds it", () => {
    expect(
      ["KEY_NAME", "TOKEN_BUDGET", "password_min_length", "apiKeyEnvVar", "secretArn", "token_url"].map(
        classifyName,
      ),
    ).toEqual(Array(6).fill(undefined));
  });

  it("finds no secret in plurals, longer words and ordinary keys and tokens", () => {
    expect(
      ["max_tokens", "tokenizer", "keyboard", "sort_key", "public_key", "next_page_token", "cursor"].map(
        classifyName,
      ),
    ).toEqual(Array(7).fill(undefined));
  });
});

describe("looksSecret", () => {
  // Shapes from real agent sessions (the fidelity corpus): code reading a password, a grep pattern about
  // tokens, a regular expression, an f-string's field.
  it.each([
    'self.charm._peers.data[self.charm.app]["super-password"]',
    "self.charm._peers.data[self.charm.app].get(",
    "token.*leak",
    "[a-zA-Z0-9_\\-\\.]{16,}",
    "(?i)(secret|password)",
    "{uuid.uuid4()}",
    "{secret_id}",
  ])("takes the code %s for code, not a password", (value) => {
    expect(looksSecret(value, "strong", 6)).toBe(false);
  });

  it("still takes passwords with dots, brackets and braces", () => {
    expect(["Summer2024.Prod", "Pass[word]1", "{Xk9#mP2v}"].map((v) => looksSecret(v, "strong", 6))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("takes any non-trivial value of a strong name, and a PIN of 6+ digits", () => {
    expect(["hunter2", "Summer2024!", "123456"].map((v) => looksSecret(v, "strong", 6))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("refuses values shorter than minLength, with white space, or already a marker", () => {
    expect(looksSecret("abc12", "strong", 6)).toBe(false);
    expect(looksSecret("correct horse battery", "strong", 6)).toBe(false);
    expect(looksSecret("[REDACTED:bearer]", "strong", 6)).toBe(false);
  });

  it("refuses placeholders, numbers, identifiers, env names, member paths, paths, URLs and digests", () => {
    const values = [
      SHELL_VARIABLE,
      "<token>",
      "******",
      "4096.5",
      "getToken",
      "OPENAI_API_KEY",
      "os.environ/API_KEY",
      "process.env.TOKEN!",
      "/run/secrets/db",
      "https://vault.example.com",
      "sha256:3f9a1b2c4d5e6f70",
      "a && b || c",
    ];
    expect(values.filter((v) => looksSecret(v, "strong", 6))).toEqual([]);
  });

  it("wants a weak value to be printable ASCII mixing two of lower, upper and digits", () => {
    expect(looksSecret("a1B2c3D4e5F6g7H8", "weak", 16)).toBe(true);
    expect(looksSecret("abcdefghijklmnopq", "weak", 16)).toBe(false);
    expect(looksSecret("ключключключключ1", "weak", 16)).toBe(false);
    expect(looksSecret("user:42:profile:9", "weak", 16)).toBe(false);
    expect(looksSecret("cacheKeyVersion12", "weak", 16)).toBe(false);
  });
});

describe("looksSecretFor", () => {
  it("needs 6 characters for a strong name and 16 for a weak one", () => {
    expect([looksSecretFor("abc123", "strong"), looksSecretFor("abc12", "strong")]).toEqual([true, false]);
    expect([looksSecretFor("abcdefgh12345678", "weak"), looksSecretFor("abcdefgh1234567", "weak")]).toEqual([
      true,
      false,
    ]);
  });
});

describe("looksSecret on random letters", () => {
  it("takes letters of both cases in short runs for a key, alone or after a provider's short prefix", () => {
    for (const value of ["lpZPtskzBUNMeiVwmJLk", "fw_fFYZCLdPSmxiTQnVozEFaEkQ", "tok-qWmZrTxKpLvBnYcHdJs"])
      expect(looksSecretFor(value, "weak")).toBe(true);
  });

  it("takes words for an identifier, after a prefix too", () => {
    for (const value of ["getAccessTokenFromCache", "my_getAccessTokenFromCache", "app-ReadTimeoutException"])
      expect(looksSecretFor(value, "weak")).toBe(false);
  });
});

describe("isDigest", () => {
  it("is a digest with its algorithm, and nothing else", () => {
    for (const digest of [
      `sha256:${"9f86".repeat(16)}`,
      "sha512-AbC+/9==",
      "md5:d41d8cd98f00b204",
      "BLAKE3~x1",
    ]) {
      expect(isDigest(digest), digest).toBe(true);
    }
    for (const other of ["9f86d081884c7d659a2f", "staging:9f86d081", "sha256", "sha256:", "sha257:abc"]) {
      expect(isDigest(other), other).toBe(false);
    }
  });
});

describe("isPlaceholder", () => {
  it("takes a format string's %s for a template, and a random password that holds one for no template", () => {
    for (const template of [
      "%s",
      "%s:%s",
      "user:%s@db.internal",
      "postgres://%s:%s@%s/app",
      "'%s'",
      "[%d]",
      "id_%d",
    ])
      expect(isPlaceholder(template)).toBe(true);
    // Found by the embedded-secret property: a generated password ending in `*%s` was kept as a template.
    for (const password of ["Sa9MbXxdf#*%efvx4=!vgW*%s", "%s!Qz#8v&Lp*2", "r7#K%d!m*Q2x^"])
      expect(isPlaceholder(password)).toBe(false);
    expect(redact("DB_PASSWORD=Sa9MbXxdf#*%efvx4=!vgW*%s").text).toBe(
      "DB_PASSWORD=[REDACTED:secret-assignment]",
    );
    expect(redact('log.info("password=%s", pw)').total).toBe(0);
  });

  it("recognises variables, templates and elided examples", () => {
    expect(
      [
        SHELL_VARIABLE,
        "$(cat f)",
        "$TOKEN",
        "%TOKEN%",
        "{{ token }}",
        "xxx",
        "...",
        "[redacted]",
        "hook:{{id}}",
        "%s",
        "sk-...",
      ].map(isPlaceholder),
    ).toEqual(Array(11).fill(true));
  });

  it("does not take a random value for one", () => {
    expect(["Xk9mP2vLq", "hunter2-Prod", "S3cret!99"].map(isPlaceholder)).toEqual([false, false, false]);
  });
});

describe("isPlaceholderBody", () => {
  it("recognises fewer than three distinct characters, runs of eight and placeholder words", () => {
    expect(
      ["xxxxXXXX", "abababab", "aB3ccccccccd", "your-key-here1", "EXAMPLE123", "changeme99"].map(
        isPlaceholderBody,
      ),
    ).toEqual(Array(6).fill(true));
  });

  it("does not take a random body for one", () => {
    expect(isPlaceholderBody("Kd4eRt7wQz2mPx9L")).toBe(false);
  });

  it("takes a placeholder word written as a word is, not one a random body spells in mixed case", () => {
    expect(["Example_Key_1", "REPLACE_ME_42", "aB3-dummy-9"].map(isPlaceholderBody)).toEqual([
      true,
      true,
      true,
    ]);
    // A real key's body, found by the property test: `DumMY` is random letters, not a placeholder.
    expect(isPlaceholderBody("Lq40GngMV1cmHSsjCtLSWigWG_Q2uRdHDumMYJIfpsiZCopNUe3Vla2ZGEFgN9kl")).toBe(false);
    expect(isPlaceholderBody("aB3xREdaCtEDq9")).toBe(false);
  });
});

describe("isBasicCredentials", () => {
  it("accepts base64 of printable user:password", () => {
    expect(isBasicCredentials(Buffer.from("deploy:Xk9mP2vL").toString("base64"))).toBe(true);
  });

  it("refuses base64 without a colon, text that is not base64, and binary", () => {
    expect(isBasicCredentials(Buffer.from("deployonly").toString("base64"))).toBe(false);
    expect(isBasicCredentials("realm")).toBe(false);
    expect(isBasicCredentials(Buffer.from([0, 1, 58, 2, 3]).toString("base64"))).toBe(false);
  });
});

describe("classCount", () => {
  it("counts lower case, upper case and digits", () => {
    expect(["abc", "aBc", "aB1", "---"].map(classCount)).toEqual([1, 2, 3, 0]);
  });
});

describe("isSpace", () => {
  it("is true for exactly the UTF-16 code units a pattern's \\s matches", () => {
    const differ: number[] = [];
    for (let c = 0; c < 65536; c++) if (isSpace(c) !== /\s/.test(String.fromCharCode(c))) differ.push(c);
    expect(differ).toEqual([]);
  });
});

describe("looksSecret on a value seen before", () => {
  it("gives the same verdict the second time, for each strength and minimum length", () => {
    for (const value of ["Xk9mP2vLq", "getAccessToken", "AbCdEfGh12345678XyZ9", "123456", "hunter2!"]) {
      for (const [strength, min] of [
        ["strong", 6],
        ["weak", 16],
        ["weak", 8],
      ] as const) {
        const first = looksSecret(value, strength, min);
        expect(looksSecret(value, strength, min)).toBe(first);
      }
    }
    expect(looksSecret("Xk9mP2vLq", "strong", 6)).toBe(true);
    expect(looksSecret("Xk9mP2vLq", "weak", 16)).toBe(false);
    expect(looksSecret("Xk9mP2vLq", "strong", 10)).toBe(false);
    // A value longer than what is remembered is judged each time, the same way.
    const long = `Xk9mP2vLq${"a1B2".repeat(20)}`;
    expect([looksSecret(long, "weak", 16), looksSecret(long, "weak", 16)]).toEqual([true, true]);
    expect([isPlaceholder("<token>"), isPlaceholder("<token>"), isPlaceholder("Xk9mP2vLq")]).toEqual([
      true,
      true,
      false,
    ]);
  });
});

describe("looksSecret on many values", () => {
  it("keeps each verdict right when thousands of new values push older ones out of the memo", () => {
    // Values alike in length and in most characters land in the same slots of the memo.
    const values = Array.from({ length: 20_000 }, (_, i) => `Xk9mP2${i.toString(36).padStart(4, "0")}`);
    const words = Array.from(
      { length: 20_000 },
      (_, i) => `getToken${"abcdefghij"[i % 10]}${"x".repeat(i % 7)}`,
    );
    for (let round = 0; round < 2; round++) {
      expect(values.every((v) => looksSecret(v, "strong", 6))).toBe(true);
      expect(words.some((w) => looksSecret(w, "strong", 6))).toBe(false);
    }
    expect([isPlaceholder(""), isPlaceholder("")]).toEqual([false, false]);
  });
});

describe("classifyQualified", () => {
  it("reads a name starting with key or token with the word before it, as classifyName reads them joined", () => {
    const befores = [undefined, "Xk9mP2", "API", "public", "sort", "next", "db", "MyPass", "aBcSecret", "x7"];
    const names = [
      "password",
      "key",
      "token",
      "KEY",
      "keyId",
      "_key",
      "tokenizer",
      "auth",
      "pw",
      "name",
      "PASS",
    ];
    for (const before of befores)
      for (const name of names)
        expect(classifyQualified(before, name), `${before} ${name}`).toBe(
          classifyName(before === undefined || !/^_?(?:key|token)/i.test(name) ? name : `${before}_${name}`),
        );
    expect(classifyQualified("public", "key")).toBeUndefined();
    expect(classifyQualified("API", "key")).toBe("weak");
    expect(classifyQualified("Xk9mP2", "password")).toBe("strong");
  });

  it("does not let a secret word in the prose before a setting make the setting a secret", () => {
    for (const before of ["secret", "password", "MyPass", "auth"])
      for (const name of ["max_tokens", "maxTokens", "pass_count", "auth_retries"])
        expect(classifyQualified(before, name), `${before} ${name}`).toBe(classifyName(name));
    expect(classifyQualified("secret", "key")).toBe("strong");
    expect(["key", "_token", "KEY_ID", "tokenizer"].every(isQualifiable)).toBe(true);
    expect(["max_tokens", "apiKey", "password", "auth"].some(isQualifiable)).toBe(false);
  });
});

describe("hasPlainShape", () => {
  it("says what trying every NOT_SECRET pattern says", () => {
    const shaped = [
      "getpass.getpass(",
      "os.environ.get(",
      "token.*leak",
      "(?i)",
      "agent:main:main",
      "img_v3_02ab_1a2b-3c",
      "32×4=128",
      "обязательное",
      "x ?? y",
      SHELL_VARIABLE,
      "4096",
      "getToken",
      "appKey:appSecret",
      "OPENAI_API_KEY",
      "process.env.TOKEN",
      "~/.ssh/id_rsa",
      "C:\\keys",
      "https://example.com",
      "SHA256:9f86d081",
      "os.environ/API_KEY",
      "Xk9#mP2vQ",
      "Summer2024.Prod",
      "\uD800abc",
    ];
    for (const value of shaped)
      expect(hasPlainShape(value), value).toBe(NOT_SECRET.some((re) => re.test(value)));
    const alphabet = fc.constantFrom(..."abzAZ09_.-:/=()[]{}$?&|>!*+\\×%#~@ \u00e9\u0436\ud800");
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 24 }), (chars) => {
        const value = chars.join("");
        expect(hasPlainShape(value)).toBe(NOT_SECRET.some((re) => re.test(value)));
      }),
      { numRuns: 5000 },
    );
  });

  it("says the same of a value without any of ./:=([\"' (tried against the shapes that need none)", () => {
    const alphabet = fc.constantFrom(..."abxzAXZ0129_-+$!*^%# \t\u00d7\u00e9\u0436agentimgflv");
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 24 }), (chars) => {
        const value = chars.join("");
        expect(hasPlainShape(value)).toBe(NOT_SECRET.some((re) => re.test(value)));
      }),
      { numRuns: 10000 },
    );
    for (const value of [
      "2x3",
      "32\u00d74=128",
      "1.5",
      "98%",
      "getToken",
      "OPENAI_API_KEY",
      "img_v3_02ab_1a2b",
      "Xk9#mP2vQ",
    ])
      expect(hasPlainShape(value), value).toBe(NOT_SECRET.some((re) => re.test(value)));
  });
});
