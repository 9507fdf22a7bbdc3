import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactDeep } from "../../plugin/snapshot/redact.ts";
import { redactJsonParts } from "../../plugin/store/gate-json.ts";

const TOKEN = `ghp_${"r2D2".repeat(9)}`;
const AWS = "AKIAIOSFODNN7EXAMPLE";

/** Strings a session's state holds, and secrets in every shape the redaction reads: alone, named, labelled, split. */
const text = fc.constantFrom(
  "src/auth/oauth-callback.ts",
  "Fix ERR_DUPLICATE_KEY on second login",
  "npm test -- case-3",
  "2026-11-22T09:14:03.000Z",
  "",
  `push with ${TOKEN}`,
  TOKEN,
  `export AWS_ACCESS_KEY_ID=${AWS}`,
  "Tr0ub4dor&3-horse-Battery9",
  "correct horse battery staple",
  "Пароль от сервера",
  "X9f!kq2Lm#Pz7",
  "password",
  "API_KEY",
  "label",
);
const key = fc.constantFrom(
  "path",
  "text",
  "value",
  "label",
  "name",
  "key",
  "password",
  "apiKey",
  "token",
  "notes",
  "__proto__",
  "0",
  `${TOKEN}`,
);

const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    text,
    fc.constantFrom(1, 0, true, false, null),
    tie("array"),
    tie("object"),
  ),
  array: fc.array(tie("json"), { maxLength: 5 }),
  object: fc
    .array(fc.tuple(key, tie("json")), { maxLength: 6 })
    .map((entries) => Object.fromEntries(entries)),
}));

describe("redactJsonParts", () => {
  it("gives what redactDeep of the whole value gives, counts included (property)", () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(redactJsonParts(value)).toEqual(redactDeep(value));
        // Twice: the second time with what the first found clean remembered.
        expect(redactJsonParts(value)).toEqual(redactDeep(value));
      }),
      { numRuns: 2000 },
    );
  });

  it("judges again what changed in place since it was found clean, given or given back (property)", () => {
    // Every string value of every object and array, in place, becomes `to`.
    const mutate = (value: unknown, to: string): void => {
      if (Array.isArray(value)) {
        value.forEach((v, i) => {
          if (typeof v === "string") value[i] = to;
          else mutate(v, to);
        });
      } else if (typeof value === "object" && value !== null) {
        const record = value as Record<string, unknown>;
        for (const k of Object.keys(record)) {
          if (typeof record[k] === "string") record[k] = to;
          else mutate(record[k], to);
        }
      }
    };
    fc.assert(
      fc.property(json, fc.constantFrom(`push with ${TOKEN}`, TOKEN, "plain words"), (value, to) => {
        const first = redactJsonParts(value);
        mutate(value, to);
        expect(redactJsonParts(value)).toEqual(redactDeep(value));
        mutate(first.value, to);
        expect(redactJsonParts(first.value)).toEqual(redactDeep(first.value));
      }),
      { numRuns: 2000 },
    );
  });

  it("judges again a flat object outside any array that changed since it was found clean", () => {
    const state = { env: { name: "region", value: "eu-west-1" }, turns: 1 };
    expect(redactJsonParts(state).total).toBe(0);
    state.env.value = TOKEN;
    const again = redactJsonParts(state);
    expect(again.total).toBe(1);
    expect(again).toEqual(redactDeep(state));
  });

  it("judges a split label and value, and a named value, in the object that holds them", () => {
    const state = {
      version: 1,
      decisions: [{ text: "Пароль от сервера", rationale: "X9f!kq2Lm#Pz7" }],
      env: { name: "API_KEY", value: "Tr0ub4dor&3-horse-Battery9" },
      files: [{ path: "src/a.ts", password: "Tr0ub4dor&3-horse-Battery9" }],
    };
    const gated = redactJsonParts(state);
    expect(gated).toEqual(redactDeep(state));
    expect(JSON.stringify(gated.value)).not.toContain("Tr0ub4dor");
    expect(JSON.stringify(gated.value)).not.toContain("X9f!kq2Lm");
  });

  it("judges again an object of an array that changed since it was found clean, given or given back", () => {
    const files = [{ path: "src/a.ts", note: "first" }];
    const first = redactJsonParts({ files });
    expect(first.total).toBe(0);
    const [given] = files;
    if (given === undefined) throw new Error("no file");
    given.note = `push with ${TOKEN}`;
    const second = redactJsonParts({ files });
    expect(second.total).toBe(1);
    expect(JSON.stringify(second.value)).not.toContain(TOKEN);
    // The object given back the first time, changed in place (as a state's value in memory could be).
    const back = (first.value as { files: { path: string; note: string }[] }).files;
    const [kept] = back;
    if (kept === undefined) throw new Error("no file given back");
    kept.path = TOKEN;
    const third = redactJsonParts({ files: back });
    expect(JSON.stringify(third.value)).not.toContain(TOKEN);
    expect(third).toEqual(redactDeep({ files: back }));
  });

  it("returns a new value and leaves the input as it was", () => {
    const input = { asks: [{ text: `push with ${TOKEN}` }], turns: 3 };
    const copy = structuredClone(input);
    const gated = redactJsonParts(input);
    expect(input).toEqual(copy);
    expect(gated.value).not.toBe(input);
  });
});
