import { isSentenceEnd } from "./redact-around.ts";
import { type Rule, rule, taken } from "./redact-engine.ts";
import { BRACKETS, isDigest, isPassphrase, isSpace, looksSecretFor, type Strength } from "./redact-names.ts";
import { numbered } from "./redact-pattern.ts";

/**
 * Secrets written as prose in the languages people take notes in: `the root password is hunter2-Prod`,
 * `服务器密码：Xk9#mP2vL`, `пароль: Qwerty!234`, `la contraseña es …`, `パスワードは「…」です`. A label word,
 * an optional qualifier (`for the admin user`, `del wifi`, `от сервера`), a separator (`:`, `=`, `：`, `is`,
 * `是`, `—`, …) and one printable ASCII word as the value, judged like an assignment to that label.
 */

/**
 * Label words and whether their value is a secret whatever it looks like (`strong`) or only when random.
 * Password words of the twenty most spoken languages (English, Mandarin, Hindi, Spanish, French, Arabic,
 * Bengali, Portuguese, Russian, Urdu, Indonesian, German, Japanese, Marathi, Telugu, Turkish, Tamil,
 * Vietnamese, Korean, Italian) and of Dutch, Polish, Swedish, Romanian, Czech, Hungarian, Finnish, Greek,
 * Hebrew, Thai, Danish, Norwegian, Persian and Swahili, with their common inflected forms.
 */
const LABELS: readonly (readonly [string, Strength])[] = [
  ["password", "strong"],
  ["passwd", "strong"],
  ["passphrase", "strong"],
  ["passcode", "strong"],
  ["pass phrase", "strong"],
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
  ["पासवर्ड", "strong"],
  ["कूटशब्द", "strong"],
  ["كلمة المرور", "strong"],
  ["كلمة السر", "strong"],
  ["পাসওয়ার্ড", "strong"],
  ["পাসওয়ার্ড", "strong"],
  ["پاس ورڈ", "strong"],
  ["پاسورڈ", "strong"],
  ["kata sandi", "strong"],
  ["kata laluan", "strong"],
  ["పాస్‌వర్డ్", "strong"],
  ["పాస్వర్డ్", "strong"],
  ["şifre", "strong"],
  ["şifresi", "strong"],
  ["parola", "strong"],
  ["parolası", "strong"],
  ["கடவுச்சொல்", "strong"],
  ["mật khẩu", "strong"],
  ["wachtwoord", "strong"],
  ["hasło", "strong"],
  ["haslo", "strong"],
  ["lösenord", "strong"],
  ["lösenordet", "strong"],
  ["parolă", "strong"],
  ["heslo", "strong"],
  ["jelszó", "strong"],
  ["jelszava", "strong"],
  ["salasana", "strong"],
  ["κωδικός", "strong"],
  ["κωδικός πρόσβασης", "strong"],
  ["συνθηματικό", "strong"],
  ["סיסמה", "strong"],
  ["הסיסמה", "strong"],
  ["סיסמא", "strong"],
  ["รหัสผ่าน", "strong"],
  ["adgangskode", "strong"],
  ["adgangskoden", "strong"],
  ["passord", "strong"],
  ["passordet", "strong"],
  ["kata sandinya", "strong"],
  ["nenosiri", "strong"],
  ["رمز عبور", "strong"],
  ["گذرواژه", "strong"],
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
/** Scripts written without spaces, where a label may end a longer word (`服务器密码`, `รหัสผ่านเซิร์ฟเวอร์`). */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
const alternation = (labels: readonly string[]) => labels.map((l) => l.replace(/ /g, "[ \\t]+")).join("|");
const SPACED_LABELS = alternation(LABELS.map(([l]) => l).filter((l) => !UNSPACED.test(l)));
const UNSPACED_LABELS = alternation(LABELS.map(([l]) => l).filter((l) => UNSPACED.test(l)));

/**
 * The strength of a label standing apart from its value (a `label` field beside a `value`): the strength
 * of the first label word it holds, in any of the languages above (`пароль от сервера`, `DB 密码`).
 */
export function labelStrength(label: string): Strength | undefined {
  const lower = label.toLowerCase();
  let found: Strength | undefined;
  for (const [word, strength] of LABELS) {
    if (!lower.includes(word)) continue;
    if (strength === "strong") return strength;
    found = strength;
  }
  return found;
}

const QUALIFIER = String.raw`(?:[ \t]+(?:for|of|on|to|de|del|da|do|du|des|di|della|per|für|zum|zur|vom|van|voor|dla|för|от|для|için|untuk|của|का|की|के)(?:[ \t]+[^\s:=：,.;|]{1,24}){1,3}?)?`;
/** `:`, `=`, `is` and its translations, a dash, a table cell border, the `>` of an XML element. */
const SEPARATOR = String.raw`(?:[ \t]*(?:是|为|為|は|는|은|が|คือ)[ \t]*[:：]?|[ \t]+(?:is|was|est|es|é|è|ist|lautet|это|to|är|adalah|là|هي|هو|है|হলো|హ|dir|olarak|este|je|είναι|היא|הוא|er|ni)(?![\p{L}\p{M}])[ \t]*[:：]?|[ \t]*(?::=|[:=：])|[ \t]+[-—–](?=[ \t])|[ \t]*[—–]|[ \t]*\|[ \t]*|>(?=[^\s<]{1,256}<\/))[ \t]*`;
/** A character of a bare value: anything but white space, quotes, CJK text and CJK punctuation. */
const VALUE_CHAR = String.raw`[^\s"'\x60“”‘’«»「」『』，。；、：！？\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]`;
/**
 * A value never starts with a marker (it would be dropped as overlapping it): said in the pattern, so the
 * pass after a productive one, over a text dense with markers, makes no match object for each of them.
 */
const NOT_A_MARKER = String.raw`(?!\[REDACTED:)`;
/**
 * A value: quoted (it may hold spaces: a passphrase), or bare up to the next white space or quote whatever
 * punctuation it holds (`p@ss,w(rd)#1`); CJK text and punctuation end it (`Xk9#mP2vL，请勿外传`).
 */
const VALUE = String.raw`(?:(?<q>["'\x60“‘«「『])(?<quoted>[^"'\x60”’»」』\r\n]{1,256})[”’»」』"'\x60]|(?<open>\*\*)?${NOT_A_MARKER}(?<secret>${VALUE_CHAR}{1,256})(?!${VALUE_CHAR}))`;

/**
 * A spaced label starts prose: at the start, after a space or opening punctuation, or right after a word of
 * a script written without spaces (`サーバーのpassword：`); not inside `a:secret:b`.
 */
const PATTERN = String.raw`(?:(?<![^\s(*"'\x60“«「『>#|<\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}])(?<spaced>${SPACED_LABELS})(?![\p{L}\p{M}\p{N}_])|(?<unspaced>${UNSPACED_LABELS}))${QUALIFIER}(?:\*\*)?${SEPARATOR}${VALUE}`;

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

/**
 * The bare value of a match as a password: less sentence punctuation at its end (`… is hunter2-Prod.`),
 * the `**` that closes a bold value, the closing tag of an XML element (`<password>x</password>`) and a
 * closing bracket it did not open.
 */
function bareValue(value: string, bold: boolean): string {
  let end = closingTagAt(value);
  while (end > 0 && isSentenceEnd(value.charCodeAt(end - 1))) end--;
  // Most values end in no bracket and are not bold: their sentence punctuation is all there is to cut.
  if (!bold && !isClosing(value.charCodeAt(end - 1)))
    return end === value.length ? value : value.slice(0, end);
  let v = value.slice(0, end);
  if (bold) v = v.replace(/\*\*$/, "").replace(/[.,;:!?]+$/, "");
  for (const [open, close] of BRACKETS)
    while (v.endsWith(close) && v.split(close).length > v.split(open).length) v = v.slice(0, -1);
  return v;
}

/** Where the first `</` of `value` starts, or its length without one (a loop: values are short). */
function closingTagAt(value: string): number {
  for (let i = 0; i + 1 < value.length; i++)
    if (value.charCodeAt(i) === 60 && value.charCodeAt(i + 1) === 47) return i;
  return value.length;
}

/** Whether the last character before `at`, spaces aside, ends a field's label: `:`, `：`, `|` or `>`. */
function afterField(input: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && (input.charCodeAt(i) === 32 || input.charCodeAt(i) === 9)) i--;
  const c = input.charCodeAt(i);
  return c === 58 || c === 0xff1a || c === 124 || c === 62;
}

/** The closing brackets {@link bareValue} cuts from a value's end when it did not open them. */
const CLOSING = ")]}>";
/** Whether `code` is that of one of `CLOSING`'s characters. */
const isClosing = (code: number) => code === 41 || code === 93 || code === 125 || code === 62;

/** How far back the label's cell of a table row is read. */
const CELL_CHARS = 128;

/**
 * A label and a bare value joined by `|` are cells of a table row (`| DB password | hunter2 |`): the label's
 * cell holds words only, and the value is its own cell, up to the next `|`. A `|` anywhere else is a
 * pattern's alternation (`(secret|password|token)`, `refresh.*token|RefreshToken`): `undefined`, no value.
 */
function tableCell(m: RegExpExecArray, label: string, secret: string): string | undefined {
  // A `|` between the label and the value (read in place: a text dense with labels asks at each).
  const valueAt = m.index + m[0].length - secret.length;
  let bar = m.index + label.length;
  while (bar < valueAt && m.input.charCodeAt(bar) !== 124) bar++;
  if (bar >= valueAt) return secret;
  const bare = firstCell(secret);
  // The label's cell, read back at most CELL_CHARS (never to the line's start: a long line holding many
  // labels would be read again for each), a character at a time: most text before a label is no cell.
  const from = Math.max(0, m.index - CELL_CHARS);
  for (let i = m.index - 1; i >= from; i--) {
    const c = m.input.charCodeAt(i);
    if (c === 10 || c === 124) break;
    if (c >= 128) return wordCell(m.input.slice(from, m.index)) ? bare : undefined;
    if (!isCellChar(c)) return undefined;
  }
  return bare;
}

/** Whether `text` holds white space as `\s` reads it. */
function hasSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isSpace(text.charCodeAt(i))) return true;
  return false;
}

/** `value` up to its first `|`. */
function firstCell(value: string): string {
  const bar = value.indexOf("|");
  return bar === -1 ? value : value.slice(0, bar);
}

/** An ASCII character of a label's cell: a letter, a digit, a space or tab, `*`, `_`, a backquote or `-`. */
function isCellChar(c: number): boolean {
  return (
    (c >= 48 && c <= 57) ||
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    c === 32 ||
    c === 9 ||
    c === 42 ||
    c === 95 ||
    c === 96 ||
    c === 45
  );
}

/** Whether the last cell of `before` holds letters (any script), digits, spaces and `*_\`-` only. */
function wordCell(before: string): boolean {
  const cell = before.slice(Math.max(before.lastIndexOf("\n"), before.lastIndexOf("|")) + 1);
  return /^[\p{L}\p{N} \t*_`-]*$/u.test(cell);
}

/**
 * The strength of a label as the text writes it (`Password`, `PASSWORD`, `mot  de passe`): folded to
 * lower case and single spaces, then looked up. A text dense with labels writes the same few again and
 * again, so each spelling is folded once (bounded: a text of many spellings costs a refill).
 */
function strengthAsWritten(written: string): Strength | undefined {
  // The same spelling as the last label's (a text dense with labels): no lookup.
  if (written === last.written) return last.strength;
  const known = spellings.get(written);
  // A label of one word (most of them) has no white space to fold: no replace for it.
  const lower = known === undefined ? written.toLowerCase() : "";
  const strength =
    known === undefined
      ? strengthOf.get(hasSpace(lower) ? lower.replace(/\s+/g, " ") : lower)
      : known === "none"
        ? undefined
        : known;
  if (known === undefined) {
    if (spellings.size >= 1024) spellings.clear();
    spellings.set(written, strength ?? "none");
  }
  last.written = written;
  last.strength = strength;
  return strength;
}

const spellings = new Map<string, Strength | "none">();
const last: { written: string | undefined; strength: Strength | undefined } = {
  written: undefined,
  strength: undefined,
};

/** The prose pattern with numbered groups (`numbered`): a text dense with labels matches it at each. */
const NUMBERED = numbered(PATTERN);
const G = {
  spaced: NUMBERED.group.spaced ?? 0,
  unspaced: NUMBERED.group.unspaced ?? 0,
  quoted: NUMBERED.group.quoted ?? 0,
  open: NUMBERED.group.open ?? 0,
  secret: NUMBERED.group.secret ?? 0,
};

/** The prose rule: `labelled-secret`. */
export const LABEL_RULES: readonly Rule[] = [
  rule("labelled-secret", NUMBERED.source, {
    flags: "iu",
    triggers: LABELS.map(([label]) => label.split(" ").at(-1) ?? label),
    caseSensitive: false,
    pick: (m) => {
      const strength = strengthAsWritten(m[G.spaced] ?? m[G.unspaced] ?? "");
      if (strength === undefined) return undefined;
      const end = m.index + m[0].length;
      const quoted = m[G.quoted];
      if (quoted !== undefined) {
        // The quoted value ends one character (its closing quote) before the match does.
        const start = end - 1 - quoted.length;
        if (taken(start)) return undefined;
        const ok = looksSecretFor(quoted, strength) || (strength === "strong" && isPassphrase(quoted));
        return ok ? { start, end: end - 1 } : undefined;
      }
      const bare = m[G.secret];
      // A value another rule took (`password: X` is also an assignment) is not judged again.
      if (bare !== undefined && taken(end - bare.length)) return undefined;
      const secret = bare === undefined ? undefined : tableCell(m, m[G.spaced] ?? m[G.unspaced] ?? "", bare);
      if (bare === undefined || secret === undefined) return undefined;
      const start = end - bare.length;
      let value = bareValue(secret, m[G.open] === "**");
      if (!looksSecretFor(value, strength)) {
        // After a colon, a cell border or an XML element's `>` (`contraseña: Blue9!`, `<password>Xq!</password>`)
        // a closing `!` is the password's own, as the assignment rule reads `password: Blue9!`: the value is
        // judged with it when it is no secret without it. (Most values that are no secret end in no `!`.)
        if (secret.charCodeAt(value.length) !== 33) return undefined;
        const tag = secret.indexOf("</");
        const whole = tag === -1 ? secret : secret.slice(0, tag);
        if (
          !/^!+$/.test(whole.slice(value.length)) ||
          !whole.startsWith(value) ||
          !afterField(m.input, start)
        )
          return undefined;
        if (!looksSecretFor(whole, strength)) return undefined;
        value = whole;
      }
      // The bare value ends the match: its range is found without group indices.
      if (digestAt(m.input, start, value)) return undefined;
      return { start, end: start + value.length };
    },
  }),
];

/** The label words and the helpers the pick above calls, for the rules version (`redact-judged.ts`). */
export const LABEL_JUDGEMENT_SOURCES: readonly string[] = [
  JSON.stringify(LABELS),
  String(digestAt),
  String(bareValue),
  String(afterField),
  String(isSentenceEnd),
  CLOSING,
  String(tableCell),
  String(firstCell),
  String(isCellChar),
  String(wordCell),
  String(hasSpace),
  String(strengthAsWritten),
  String(CELL_CHARS),
];
