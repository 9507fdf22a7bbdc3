import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTION_KINDS, redact, redactDeep, UNCHECKED_MARKER } from "../../plugin/snapshot/redact.ts";
import { COMMAND_RULES } from "../../plugin/snapshot/redact-commands.ts";
import { CONTEXT_RULES } from "../../plugin/snapshot/redact-context.ts";
import { LABEL_RULES } from "../../plugin/snapshot/redact-labels.ts";
import { PAIR_RULES } from "../../plugin/snapshot/redact-pairs.ts";
import { PROVIDER_RULES } from "../../plugin/snapshot/redact-providers.ts";
import { NEGATIVES, POSITIVES } from "./fixtures/secret-corpus.ts";
import { fake, pem } from "./fixtures/secret-fakes.ts";
import { DANGEROUS, embeddedArb, proseArb } from "./redact-arbitraries.ts";

/** The parts of `output` outside markers, which must come from `input` in order. */
function textOutsideMarkers(output: string): string[] {
  return output.split(/\[REDACTED:[a-z0-9-]+\]/);
}

function isOrderedSubsequence(parts: readonly string[], input: string): boolean {
  let at = 0;
  for (const part of parts) {
    const found = input.indexOf(part, at);
    if (found === -1) return false;
    at = found + part.length;
  }
  return true;
}

describe("redact", () => {
  it("leaves OpenClaw session keys alone, as state files and the ledger store them", () => {
    // Session keys as OpenClaw builds them (agent:<id>:<rest>): a name ending in "Key" is not a secret's name.
    for (const key of ["agent:main:main", "agent:main:e2e-trim", "agent:main:telegram:direct:12345"]) {
      const state = { sessionKey: key, flush: { sessionKey: key }, text: `"sessionKey": "${key}"` };
      expect(redactDeep(state)).toMatchObject({ value: state, total: 0 });
    }
  });

  it("counts each kind separately when a text holds several secrets", () => {
    const openai = fake.openaiLegacy();
    const github = fake.githubClassic();
    const app = fake.githubClassic();
    const key = pem("");
    const text = [
      `OPENAI_API_KEY=${openai}`,
      `GH_TOKEN=${github}`,
      `backup token ${app}`,
      "DB_PASSWORD=Summer2024!",
      key.text,
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
    const stripe = fake.stripe();
    expect(redact(`STRIPE_API_KEY="${stripe}"`)).toEqual({
      text: 'STRIPE_API_KEY="[REDACTED:stripe-key]"',
      counts: { "stripe-key": 1 },
      total: 1,
    });
  });

  it("keeps the command, the flag and the user when it redacts a command-line password", () => {
    expect(
      redact("curl -u deploy:Xk9mP2vLq https://ci.example.com && mysql -uroot -pS3cret! shop").text,
    ).toBe(
      "curl -u deploy:[REDACTED:cli-flag] https://ci.example.com && mysql -uroot -p[REDACTED:cli-flag] shop",
    );
  });

  it("keeps the label and the sentence when it redacts a password in prose", () => {
    expect(redact("服务器密码：Xk9#mP2vL，请勿外传。the root password is hunter2-Prod.").text).toBe(
      "服务器密码：[REDACTED:labelled-secret]，请勿外传。the root password is [REDACTED:labelled-secret].",
    );
  });

  it("redacts a value on the line after its name in YAML", () => {
    expect(redact("db:\n  password:\n    Tr0ub4dor&3\n  pool: 5").text).toBe(
      "db:\n  password:\n    [REDACTED:secret-assignment]\n  pool: 5",
    );
  });

  it("keeps a marker that was already in the text when the value after a secret name is a marker", () => {
    const text = "password=[REDACTED:secret-assignment] url=https://u:[REDACTED:url-credentials]@h/x";
    expect(redact(text)).toEqual({ text, counts: {}, total: 0 });
  });

  it("keeps the markers a text held apart from the ones it writes when a secret is found only by a second pass", () => {
    // The assignment's value runs into the Notion token: the token is found first, and the assignment's
    // value, cut at the token's marker, only by the pass after; markers already in the text sit around both.
    const notion = "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";
    const text = `[REDACTED:jwt] a [REDACTED:bearer]MAILGUN_API_KEY=key-909b99b084006c60c18cadbfba7bec39NOTION_API_KEY=${notion} [REDACTED:x]`;
    const once = redact(text);
    expect(once).toEqual({
      text: "[REDACTED:jwt] a [REDACTED:bearer]MAILGUN_API_KEY=[REDACTED:secret-assignment][REDACTED:notion-token] [REDACTED:x]",
      counts: { "notion-token": 1, "secret-assignment": 1 },
      total: 2,
    });
    expect(redact(once.text)).toEqual({ text: once.text, counts: {}, total: 0 });
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

  it("keeps a provider token whose random part is a placeholder", () => {
    const text = `OPENAI_API_KEY=sk-proj-${"X".repeat(40)} GITHUB_TOKEN=gh${"p_"}${"x".repeat(36)}`;
    expect(redact(text)).toEqual({ text, counts: {}, total: 0 });
  });

  it("returns the exact output when it is given long adversarial inputs", () => {
    const begin = "-----BEGIN RSA PRIVATE KEY-----\n";
    expect(redact("a:".repeat(50_000)).total).toBe(0);
    expect(redact(`password: ${" ".repeat(100_000)}x`).total).toBe(0);
    expect(redact(`token: ${"Ab1".repeat(100_000)}`).total).toBe(0);
    expect(redact(`the password is ${"is ".repeat(30_000)}`).total).toBe(0);
    expect(redact(`curl ${"-u ".repeat(30_000)}`).total).toBe(0);
    expect(redact(`https://u:${"@".repeat(50_000)}`).text).toBe("https://u:[REDACTED:url-credentials]@");
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
      fc.constantFrom(...POSITIVES.map((p) => p.text), ...NEGATIVES.slice(0, 200).map((n) => n.text)),
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

  it("is idempotent on long multi-line texts where secrets sit far apart", () => {
    const line = fc.oneof(
      fc.constantFrom(...POSITIVES.map((p) => p.text), ...NEGATIVES.slice(0, 300).map((n) => n.text)),
      fc.constantFrom(...DANGEROUS),
      proseArb,
    );
    fc.assert(
      fc.property(fc.array(line, { minLength: 20, maxLength: 120 }), (lines) => {
        const once = redact(lines.join("\n"));
        expect(redact(once.text)).toEqual({ text: once.text, counts: {}, total: 0 });
      }),
      { numRuns: 200 },
    );
  });

  it("never introduces text: outside its markers the output is the input in order", () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom(...DANGEROUS),
      embeddedArb.map((e) => e.text),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (pieces) => {
        const input = pieces.join("");
        const { text, total } = redact(input);
        expect(isOrderedSubsequence(textOutsideMarkers(text), input)).toBe(true);
        expect(text.match(/\[REDACTED:[a-z0-9-]+\]/g)?.length ?? 0).toBeGreaterThanOrEqual(total);
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
        // Prose that holds the secret's characters itself (an integrity hash generated from the same
        // alphabet, which fast-check may reuse) keeps them: the test is about the secret's own place.
        fc.pre(!before.includes(secret) && !after.includes(secret));
        const result = redact(`${before}\n${text}\n${after}`);
        expect(result.text).toBe(`${before}\n${expected}\n${after}`);
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
  it("answers the same when it remembers the strings it found clean, called again and again on one value", () => {
    // Values as a session's drafts repeat them: clean strings and keys seen before, secrets in values, in keys
    // and beside labels, and new strings each time.
    const valueArb = fc
      .tuple(proseArb, embeddedArb, embeddedArb, fc.constantFrom("keyNames", "password", "token", "files"))
      .map(([prose, a, b, key]) => ({
        goal: prose,
        [key]: a.text,
        [b.text]: "value",
        pairs: [
          { label: "db password", value: b.secret },
          { text: prose, rationale: a.text },
        ],
      }));
    fc.assert(
      fc.property(fc.array(valueArb, { minLength: 1, maxLength: 4 }), (values) => {
        for (const value of [...values, ...values]) {
          expect(redactDeep(value, { remember: true })).toEqual(redactDeep(value));
        }
      }),
      { numRuns: 150 },
    );
  });

  it("redacts every string in nested arrays and objects and sums the counts", () => {
    const github = fake.githubClassic();
    const openai = fake.openaiLegacy();
    const npm = fake.npm();
    const input = {
      goal: `ship with ${github}`,
      files: [{ path: "src/auth/oauth-callback.ts", note: `uses ${openai}` }],
      next: [`export NPM_TOKEN=${npm}`, "run the tests"],
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
    const input = { count: 3, ok: true, missing: null, nested: [1, false, null], "sort-key": 1 };
    expect(redactDeep(input)).toEqual({ value: input, counts: {}, total: 0 });
  });

  it("redacts a secret held in an object key, as the arguments of a tool call may hold one", () => {
    const token = fake.githubClassic();
    expect(redactDeep({ args: { [token]: true, [`Authorization: Bearer ${fake.random(32)}`]: 1 } })).toEqual({
      value: { args: { "[REDACTED:github-token]": true, "Authorization: Bearer [REDACTED:bearer]": 1 } },
      counts: { "github-token": 1, bearer: 1 },
      total: 2,
    });
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
    const google = fake.google();
    const input = { note: `key ${google}`, when };
    const result = redactDeep(input);
    expect(input).toEqual({ note: `key ${google}`, when });
    expect(result.value.when).toBe(when);
    expect(result.value.note).toBe("key [REDACTED:google-api-key]");
  });

  it("redacts each string as redact does alone when one trigger scan reads them all", () => {
    const text = fc.oneof(
      fc.string(),
      embeddedArb.map((e) => e.text),
      proseArb,
      fc.array(fc.constantFrom(...DANGEROUS), { maxLength: 6 }).map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(fc.array(text, { maxLength: 12 }), (texts) => {
        const alone = texts.map((t) => redact(t));
        const deep = redactDeep(texts);
        expect(deep.value).toEqual(alone.map((r) => r.text));
        expect(deep.total).toBe(alone.reduce((n, r) => n + r.total, 0));
      }),
      { numRuns: 300 },
    );
    // A trigger split across two strings is in neither; a bot token (a rule with no trigger) is found alone.
    const bot = fake.discord();
    expect(redactDeep(["pass", "word=hunter2hunter2", `run ${bot}`]).value).toEqual([
      "pass",
      "word=hunter2hunter2",
      "run [REDACTED:discord-token]",
    ]);
  });

  it("keeps the shape of any JSON value, is idempotent and removes embedded secrets", () => {
    const json = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.oneof(
          fc.string(),
          embeddedArb.map((e) => e.text),
          proseArb,
        ),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(
          fc.constantFrom("goal", "password", "token", "note", "label", "value", "key"),
          tie("node"),
          {
            maxKeys: 4,
          },
        ),
      ),
    })).node;
    const shape = (v: unknown): unknown =>
      typeof v === "string"
        ? "s"
        : Array.isArray(v)
          ? v.map(shape)
          : v !== null && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).map(([k, c]) => [k, shape(c)]))
            : v;
    fc.assert(
      fc.property(json, (value) => {
        const once = redactDeep(value);
        expect(shape(once.value)).toEqual(shape(value));
        expect(redactDeep(once.value)).toEqual({ value: once.value, counts: {}, total: 0 });
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(embeddedArb, { minLength: 1, maxLength: 5 }), (embedded) => {
        const out = JSON.stringify(redactDeep({ notes: embedded.map((e) => e.text) }).value);
        for (const { secret } of embedded) expect(out).not.toContain(secret);
      }),
      { numRuns: 200 },
    );
  });
});

describe("the rules' triggers", () => {
  it("hold no bracket, so no trigger starts inside a marker and the pass after a productive one reuses the first scan", () => {
    const rules = [...PROVIDER_RULES, ...CONTEXT_RULES, ...COMMAND_RULES, ...PAIR_RULES, ...LABEL_RULES];
    expect(rules.flatMap((r) => r.triggers).filter((t) => t.includes("[") || t.includes("]"))).toEqual([]);
  });
});

describe("REDACTION_KINDS", () => {
  it("lists every kind once", () => {
    expect(new Set(REDACTION_KINDS).size).toBe(REDACTION_KINDS.length);
  });
});

describe("redact with a deadline", () => {
  /** A clock that moves one millisecond each time it is read. */
  const ticking = () => {
    let t = 0;
    return () => t++;
  };
  const text = `export GITHUB_TOKEN=${fake.githubClassic()}\nthe password is hunter2-Prod`;

  it("gives the same result as without one when the deadline is not reached", () => {
    expect(redact(text, { deadline: { at: 1e9, now: ticking() } })).toEqual(redact(text));
  });

  it("fails closed when the deadline passes: nothing of the text is returned", () => {
    expect(redact(text, { deadline: { at: 2, now: ticking() } })).toEqual({
      text: UNCHECKED_MARKER,
      counts: {},
      total: 0,
      unchecked: true,
    });
  });

  it("replaces every string and key of a value when the deadline passes during redactDeep", () => {
    const value = { note: text, args: { [fake.githubClassic()]: ["the password is hunter2-Prod", 3] } };
    expect(redactDeep(value, { deadline: { at: 5, now: ticking() } })).toEqual({
      value: {
        [`${UNCHECKED_MARKER}0`]: UNCHECKED_MARKER,
        [`${UNCHECKED_MARKER}1`]: { [`${UNCHECKED_MARKER}0`]: [UNCHECKED_MARKER, 3] },
      },
      counts: {},
      total: 0,
      unchecked: true,
    });
  });

  it("reads a value that holds no trigger without looking at the clock", () => {
    const now = () => {
      throw new Error("the clock was read");
    };
    expect(redactDeep({ note: "nothing to see" }, { deadline: { at: 0, now } })).toEqual({
      value: { note: "nothing to see" },
      counts: {},
      total: 0,
    });
  });
});

describe("redactDeep with a label apart from its value", () => {
  it("judges a { label, value } pair with a label in any language the label rules know", () => {
    const names = [
      { label: "пароль от сервера", value: "Qx7-Prod-2024" },
      { label: "DB 密码", value: "Xk9#mP2vL" },
      { label: "wachtwoord", value: "Zomer2025!" },
      { label: "mật khẩu", value: "MatKhau#88" },
      { label: "password", value: "correct horse battery staple" },
      { label: "пароль", value: "обязательное поле" },
      { label: "region", value: "Qx7-Prod-2024" },
    ];
    expect(redactDeep(names).value.map((n) => n.value)).toEqual([
      "[REDACTED:secret-assignment]",
      "[REDACTED:secret-assignment]",
      "[REDACTED:secret-assignment]",
      "[REDACTED:secret-assignment]",
      "[REDACTED:secret-assignment]",
      "обязательное поле",
      "Qx7-Prod-2024",
    ]);
  });
});

describe("redactDeep reading a text it already found clean (remember, as the gate asks)", () => {
  const deep = <T>(value: T) => redactDeep(value, { remember: true });

  it("still judges it by the name it stands under", () => {
    const value = "Xk9#mP2vQ7-kept";
    expect(deep({ note: value }).value).toEqual({ note: value });
    expect(deep({ password: value })).toMatchObject({
      value: { password: "[REDACTED:secret-assignment]" },
      total: 1,
    });
    expect(deep({ label: "staging password", value }).value).toEqual({
      label: "staging password",
      value: "[REDACTED:secret-assignment]",
    });
  });

  it("still judges it beside the field it was split from", () => {
    const split = { text: "Пароль от сервера", rationale: "Xk9#mP2vQ7-split" };
    expect(deep({ text: "Пароль от сервера" }).total).toBe(0);
    expect(deep({ rationale: "Xk9#mP2vQ7-split" }).total).toBe(0);
    for (let i = 0; i < 2; i++) expect(deep(split).value.rationale).not.toContain("Xk9#mP2vQ7");
  });

  it("keeps judging alike once it has read more clean text than it keeps (2 M characters)", () => {
    const notes = Array.from({ length: 2_100 }, (_, i) => `note ${i}: ${"the deploy went fine ".repeat(48)}`);
    expect(deep({ notes }).total).toBe(0);
    expect(deep({ notes }).total).toBe(0);
    const secret = { note: notes[0], password: "Xk9#mP2vQ7-after" };
    expect(deep(secret).value).toEqual({ note: notes[0], password: "[REDACTED:secret-assignment]" });
  });

  it("gives the same answer every time, for the corpus's positives and negatives in one value", () => {
    const value = {
      positives: POSITIVES.slice(0, 300).map((p) => ({ text: p.text, note: `${p.name} seen` })),
      negatives: NEGATIVES.slice(0, 300).map((n) => n.text),
    };
    const first = deep(value);
    const again = deep(value);
    expect(again).toEqual(first);
    for (const p of POSITIVES.slice(0, 300))
      expect(p.secrets.filter((s) => JSON.stringify(again.value).includes(s))).toEqual([]);
  });
});
