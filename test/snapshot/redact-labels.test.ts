import { describe, expect, it } from "vitest";
import { LABEL_RULES } from "../../plugin/snapshot/redact-labels.ts";
import { body, foundBy, MIXED, type RuleCase, ruleTableTests } from "./rule-cases.ts";

const [LABELLED] = LABEL_RULES;

/** The one rule of `LABEL_RULES`: a password in English prose, and a password that is only a word. */
const CASES: readonly RuleCase[] = [
  {
    about: "a password labelled in prose",
    text: "the root password is hunter2-Prod.",
    secret: "hunter2-Prod",
    miss: "the root password is stored in the vault.",
  },
];

describe("LABEL_RULES", () => {
  ruleTableTests(LABEL_RULES, CASES);

  it.each([
    ["服务器密码：Xk9#mP2vL，请勿外传", "Xk9#mP2vL"],
    ["пароль: Qwerty!234", "Qwerty!234"],
    ["la contraseña del wifi es Gato-2024x", "Gato-2024x"],
    ["パスワードは「Sakura-77x」です", "Sakura-77x"],
    ["das Passwort für den Server lautet Berg-Tal-9x", "Berg-Tal-9x"],
    ["le mot de passe est Soleil-42x", "Soleil-42x"],
    ["비밀번호: Hangang-88x", "Hangang-88x"],
    ["Password — Tr0ub4dor&3", "Tr0ub4dor&3"],
    ['the password is "Xk9mP2vLq"', "Xk9mP2vLq"],
    ["the password is **Xk9mP2vLq** now", "Xk9mP2vLq"],
    ["the password is **Xk9mP2vLq**.", "Xk9mP2vLq"],
    [`token on staging:${"a3f1".repeat(16)}`, "a3f1".repeat(16)],
    [`the secret on sha256: ${"a3f1".repeat(16)}`, "a3f1".repeat(16)],
    // After a colon a closing `!` is the password's own when it is no password without it.
    ["contraseña: Blue9!", "Blue9!"],
    ["パスワード：Abc12!", "Abc12!"],
    ["<password>XqPFqVonwx!</password>", "XqPFqVonwx!"],
    ["heslo je Kp7mQ2vX9z", "Kp7mQ2vX9z"],
    ["ο κωδικός πρόσβασης είναι Kp7mQ2vX9z", "Kp7mQ2vX9z"],
    ["הסיסמה היא Kp7mQ2vX9z", "Kp7mQ2vX9z"],
    ["รหัสผ่านคือ Kp7mQ2vX9z", "Kp7mQ2vX9z"],
    ["adgangskoden er Kp7mQ2vX9z", "Kp7mQ2vX9z"],
    ["nenosiri ni Kp7mQ2vX9z", "Kp7mQ2vX9z"],
    ['pass phrase: "Kp7mQ2vX9z"', "Kp7mQ2vX9z"],
    ["サーバーのpassword：Kp7mQ2vX9z", "Kp7mQ2vX9z"],
    ["服务器password: Kp7mQ2vX9z", "Kp7mQ2vX9z"],
  ])("finds the value of a label in %s", (text, secret) => {
    expect(LABELLED && foundBy(LABELLED, text)).toEqual([secret]);
  });

  it("keeps a closing `!` out of a password after a verb, and out of one that is a password without it", () => {
    expect(LABELLED && foundBy(LABELLED, "la contraseña es Blue9!")).toEqual([]);
    expect(LABELLED && foundBy(LABELLED, "contraseña: Blue99!")).toEqual(["Blue99"]);
  });

  it("wants a random value after a token or key label, any value after a password label", () => {
    expect(LABELLED && foundBy(LABELLED, `the API key is ${body(MIXED, 24)}`)).toEqual([body(MIXED, 24)]);
    expect(LABELLED && foundBy(LABELLED, "the API key is rotated-monthly-2026")).toEqual([]);
    expect(LABELLED && foundBy(LABELLED, "the password is monthly-2026")).toEqual(["monthly-2026"]);
  });

  it.each([
    "the password is too short",
    "reset your password: see https://example.com/reset",
    "a:secret:b is a key path, not a label",
    `токен: ${["$", "{TOKEN}"].join("")}`,
    "password policy: 12 characters",
    "passwordless login is enabled",
    `secret on sha256:${"a3f1".repeat(16)}`,
    `the password for sha512:${"9Bf0".repeat(20)}`,
    // Alternations in patterns real sessions grep for: a `|` that is not a table's cell border.
    "regex = '''(?i)(secret|password|token|key):\\s*[a-zA-Z0-9_\\-\\.]{16,}'''",
    "pattern `refresh.*token|RefreshToken|refreshToken`",
    "grep -v -E '(#.*password|//.*password|/\\*.*password|def.*password|func.*password)'",
    "rg -i 'credential|secret|token.*leak|auth.*bypass|privilege.*escalat'",
  ])("leaves %s alone", (text) => {
    expect(LABELLED && foundBy(LABELLED, text)).toEqual([]);
  });

  it("takes a table's value cell up to its border, whatever the label cell's words", () => {
    expect(LABELLED && foundBy(LABELLED, "| DB password | Xk9#mP2vQ |")).toEqual(["Xk9#mP2vQ"]);
    expect(LABELLED && foundBy(LABELLED, "|password|Xk9#mP2vQ|next|")).toEqual(["Xk9#mP2vQ"]);
    expect(LABELLED && foundBy(LABELLED, "password | Xk9#mP2vQ")).toEqual(["Xk9#mP2vQ"]);
    expect(LABELLED && foundBy(LABELLED, "| **Password** | Xk9#mP2vQ |")).toEqual(["Xk9#mP2vQ"]);
    expect(LABELLED && foundBy(LABELLED, "| **Mot de passe** | `Xk9#mP2vQ` |")).toEqual(["Xk9#mP2vQ"]);
  });
});
