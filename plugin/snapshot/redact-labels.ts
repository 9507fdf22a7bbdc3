import { type Rule, rule } from "./redact-engine.ts";
import { isDigest, looksSecretFor, type Strength } from "./redact-names.ts";

/**
 * Secrets written as prose in the languages people take notes in: `the root password is hunter2-Prod`,
 * `服务器密码：Xk9#mP2vL`, `пароль: Qwerty!234`, `la contraseña es …`, `パスワードは「…」です`. A label word,
 * an optional qualifier (`for the admin user`, `del wifi`, `от сервера`), a separator (`:`, `=`, `：`, `is`,
 * `是`, `—`, …) and one printable ASCII word as the value, judged like an assignment to that label.
 */

/** Label words and whether their value is a secret whatever it looks like (`strong`) or only when random. */
const LABELS: readonly (readonly [string, Strength])[] = [
  ["password", "strong"],
  ["passwd", "strong"],
  ["passphrase", "strong"],
  ["passcode", "strong"],
  ["secret", "strong"],
  ["passwort", "strong"],
  ["kennwort", "strong"],
  ["mot de passe", "strong"],
  ["contraseña", "strong"],
  ["contrasena", "strong"],
  ["clave", "strong"],
  ["senha", "strong"],
  ["пароль", "strong"],
  ["пароля", "strong"],
  ["密码", "strong"],
  ["密碼", "strong"],
  ["口令", "strong"],
  ["密钥", "strong"],
  ["パスワード", "strong"],
  ["비밀번호", "strong"],
  ["암호", "strong"],
  ["token", "weak"],
  ["api key", "weak"],
  ["access key", "weak"],
  ["токен", "weak"],
  ["ключ", "weak"],
  ["令牌", "weak"],
  ["トークン", "weak"],
  ["토큰", "weak"],
  ["chave", "weak"],
  ["clé", "weak"],
  ["schlüssel", "weak"],
];

const strengthOf = new Map(LABELS.map(([label, strength]) => [label, strength]));
/** Scripts written without spaces, where a label may end a longer word (`服务器密码`). */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const alternation = (labels: readonly string[]) => labels.map((l) => l.replace(/ /g, "[ \\t]+")).join("|");
const SPACED_LABELS = alternation(LABELS.map(([l]) => l).filter((l) => !UNSPACED.test(l)));
const UNSPACED_LABELS = alternation(LABELS.map(([l]) => l).filter((l) => UNSPACED.test(l)));

const QUALIFIER = String.raw`(?:[ \t]+(?:for|of|on|to|de|del|da|do|du|des|für|zum|zur|vom|от|для)(?:[ \t]+[^\s:=：,.;]{1,24}){1,3}?)?`;
const SEPARATOR = String.raw`(?:[ \t]*(?:是|为|為|は|는|은)[ \t]*[:：]?|[ \t]+(?:is|was|est|es|é|ist|lautet|это)(?![\p{L}])[ \t]*[:：]?|[ \t]*(?::=|[:=：])|[ \t]+[-—–](?=[ \t])|[ \t]*[—–])[ \t]*`;
/**
 * Printable ASCII without quotes, brackets or `, ;`: a value ends at the first character of prose. Written
 * as a positive class: under the `iu` flags a negated class of non-ASCII would exclude `k` and `s` too
 * (they fold to the Kelvin sign and the long s).
 */
const VALUE_CHAR = String.raw`[!#-&*+\-./0-9:=?-Z\\^_a-z|~]`;
const OPEN = String.raw`(?<open>["'\x60“‘«「『]|\*\*)?`;

/** A spaced label starts prose: at the start, after a space or opening punctuation, not inside `a:secret:b`. */
const PATTERN = String.raw`(?:(?<![^\s(*"'\x60“«「『>#|])(?<spaced>${SPACED_LABELS})(?![\p{L}\p{N}_])|(?<unspaced>${UNSPACED_LABELS}))${QUALIFIER}${SEPARATOR}${OPEN}(?<secret>${VALUE_CHAR}{1,256})(?!${VALUE_CHAR})`;

/**
 * Whether the value at `start` is the hex of a digest whose algorithm the qualifier's last word names
 * (`secret on sha256:9f86…`, `password for sha512:…`): the word, the colon and the value are one
 * token, a content hash, and a hash is not the secret it was made from. `token on staging:9f86…` is
 * still a value.
 */
function digestAt(input: string, start: number, value: string): boolean {
  if (input[start - 1] !== ":") return false;
  const word = /[^\s]+$/.exec(input.slice(Math.max(0, start - 1 - 24), start - 1))?.[0];
  return word !== undefined && isDigest(`${word}:${value}`);
}

/** The prose rule: `labelled-secret`. */
export const LABEL_RULES: readonly Rule[] = [
  rule("labelled-secret", PATTERN, {
    flags: "iu",
    triggers: LABELS.map(([label]) => label.split(" ").at(-1) ?? label),
    caseSensitive: false,
    pick: (m) => {
      const label = (m.groups?.spaced ?? m.groups?.unspaced ?? "").toLowerCase().replace(/\s+/g, " ");
      const strength = strengthOf.get(label);
      const range = m.indices?.groups?.secret;
      // Sentence punctuation after the value is prose, not part of it (`… is hunter2-Prod.`), and so is the
      // `**` that closes a bold value (`… is **hunter2-Prod**`).
      let value = (m.groups?.secret ?? "").replace(/[.:?]+$/, "");
      if (m.groups?.open === "**") value = value.replace(/\*\*$/, "").replace(/[.:?]+$/, "");
      if (strength === undefined || range === undefined || !looksSecretFor(value, strength)) return undefined;
      if (digestAt(m.input, range[0], value)) return undefined;
      return { start: range[0], end: range[0] + value.length };
    },
  }),
];

/** The label words and the helpers the pick above calls, for the rules version (`redact-judged.ts`). */
export const LABEL_JUDGEMENT_SOURCES: readonly string[] = [JSON.stringify(LABELS), String(digestAt)];
