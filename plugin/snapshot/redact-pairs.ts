import { SECRET_NAME_TRIGGERS } from "./redact-context.ts";
import { endingAt, type Pick, type Rule, rule, taken } from "./redact-engine.ts";
import { classifyName, isPassphrase, looksSecret, looksSecretFor } from "./redact-names.ts";

/**
 * A secret name and its value written with something other than `=` or `:` between them, as code,
 * shells and configuration files write them: `define('DB_PASSWORD', '…')` (PHP), `os.environ["API_KEY"] =
 * "…"`, `$env:API_KEY = "…"` (PowerShell), `setx API_KEY …`, `set -gx API_KEY …` (fish), `ENV API_KEY …`
 * (Dockerfile), `gh secret set API_KEY --body …`, `doppler secrets set API_KEY …`, `git config
 * github.token …`, `npm config set …:_authToken …`; and a name and a value that are two fields of one pair:
 * `- name: DB_PASSWORD` / `value: …` (Kubernetes), `{"name": "DB_PASSWORD", "value": "…"}`, `<add
 * key="ApiKey" value="…"/>`, `<entry key="password">…</entry>`; the same escaped (JSON inside a JSON string,
 * HTML entities, URL encoding) or after an arrow. The value is judged by the name, as an assignment's is
 * (`secret-assignment`). Also the secrets a label gives without a separator a name rule would read: the
 * password of `creds: user/pass`, a PIN after its label, a password-shaped value right after a password word
 * (`labelled-secret`).
 */

/** The name: an identifier whose words say secret (judged by `classifyName`). */
const NAME = "(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,127})";
/** A name that holds a secret word (read first, so that the other identifiers of a line fail at once). */
const SECRET_NAME = `(?=[A-Za-z0-9_.-]{0,127}?(?:${SECRET_NAME_TRIGGERS.join("|")}))${NAME}`;
/** The value: quoted on its line, or bare up to white space or a delimiter. Either ends the match. */
const QUOTED = String.raw`(?<q>["'])(?!\[REDACTED:)(?<quoted>[^"'\r\n]{1,512})\k<q>`;
const BARE = String.raw`(?!\[REDACTED:)(?<bare>[^\s"'\`,;()\[\]{}<>]{1,512})(?![^\s"'\`,;()\[\]{}<>])`;
const VALUE = `(?:${QUOTED}|${BARE})`;
/** The name in quotes, the same on both sides. */
const QUOTED_NAME = String.raw`(?<nq>["'])${NAME}\k<nq>`;

/** Judges the value of a match by its name; the value's group ends the match (or its closing quote does). */
const pairValue: Pick = (m) => {
  const quoted = m.groups?.quoted;
  const value = quoted ?? m.groups?.bare ?? m.groups?.text;
  if (value === undefined) return undefined;
  const [start, end] = endingAt(m, value, quoted === undefined ? 0 : 1);
  if (taken(start)) return undefined;
  // `//registry.npmjs.org/:_authToken`: the name is what follows the last colon.
  const written = m.groups?.name ?? "";
  const strength = classifyName(written.slice(written.lastIndexOf(":") + 1));
  if (strength === undefined) return undefined;
  const secret =
    looksSecretFor(value, strength) || (quoted !== undefined && strength === "strong" && isPassphrase(value));
  return secret ? { start, end } : undefined;
};

/** A rule of this module: case-insensitive triggers unless said otherwise. */
function pair(
  source: string,
  triggers: readonly string[],
  options: { reach?: number; flags?: string; caseSensitive?: boolean } = {},
): Rule {
  return rule("secret-assignment", source, {
    triggers,
    caseSensitive: options.caseSensitive ?? false,
    reach: options.reach ?? 0,
    pick: pairValue,
    ...(options.flags === undefined ? {} : { flags: options.flags }),
  });
}

/**
 * The password of a user and password pair under a label that says so (`creds: admin/…`, `user/pass:
 * admin / …`, `creds for the NAS: backup/…`): less the sentence punctuation after it, and only when it looks like
 * one (6+ characters mixing two classes, not words and numbers, not a path).
 */
const pairPassword: Pick = (m) => {
  const text = m.groups?.text ?? "";
  const [start] = endingAt(m, text);
  const value = text.replace(/[.,;)\]]+$/, "");
  if (taken(start) || value.includes("/") || !looksSecret(value, "weak", 6)) return undefined;
  return { start, end: start + value.length };
};

/** A PIN: its 4 to 8 digits, not another rule's. */
const pin: Pick = (m) => {
  const text = m.groups?.text ?? "";
  const [start] = endingAt(m, text);
  return taken(start) ? undefined : { start, end: start + text.length };
};

/**
 * A value right after a password word with nothing between (`password Tr0ub4dor&3x`, `user admin pass …`,
 * `use passphrase 'correct horse battery staple'`): prose goes on that way as often (`password reset`,
 * `pass --no-verify`, `password PBKDF2-SHA256`, `password pwd_history=5`), so only a value shaped like a
 * password is taken: 8 to 64 characters holding a lower-case letter, a digit and a symbol or an upper-case
 * letter, not words and numbers, hex (a hash, a UUID), a path, a version, an option or a setting; quoted, a passphrase too.
 */
const bareLabelValue: Pick = (m) => {
  const quoted = m.groups?.quoted;
  const text = quoted ?? m.groups?.bare ?? "";
  const [start] = endingAt(m, text, quoted === undefined ? 0 : 1);
  if (taken(start)) return undefined;
  if (quoted !== undefined)
    return isPassphrase(quoted) || passwordShaped(quoted) ? { start, end: start + text.length } : undefined;
  const value = text.replace(/[.,;:)\]]+$/, "");
  return passwordShaped(value) ? { start, end: start + value.length } : undefined;
};

function passwordShaped(value: string): boolean {
  return (
    value.length >= 8 &&
    /[a-z]/.test(value) &&
    /\d/.test(value) &&
    (/[^A-Za-z0-9]/.test(value) || /[A-Z]/.test(value)) &&
    !/^[-/~.$%{<]|^v?\d+(?:\.\d+)+|:\/\/|[=_([]|^[0-9a-f-]+$/i.test(value) &&
    looksSecret(value, "weak", 8)
  );
}

export const PAIR_RULES: readonly Rule[] = [
  rule(
    "labelled-secret",
    String.raw`\b(?:pass(?:word|wd|phrase|code)?|pwd|pw)[ \t]+(?:(?<q>["'])(?<quoted>[^"'\r\n]{1,256})\k<q>|(?!\[REDACTED:)(?<bare>[^\s"'\x60]{8,64})(?![^\s"'\x60]))`,
    { flags: "i", triggers: ["pass", "pwd", "pw"], caseSensitive: false, pick: bareLabelValue },
  ),
  // A PIN or PUK after its label (`PIN: 4829`, `the SIM pin is 4829`, `PIN-Code 4829`, `código PIN: 4829`): 4 to 8
  // digits standing alone (not `pin 17` of a board, not a date or a version).
  rule(
    "labelled-secret",
    String.raw`(?<![\p{L}\p{N}_])(?:pin(?:[ \t-]?(?:code|nummer|number|no\.?))?|puk|código[ \t]+pin|code[ \t]+pin|PIN码)(?:[ \t]+(?:is|est|es|ist|for|of|du|de|der|für)(?:[ \t]+[^\s:=\d]{1,24}){0,2}?(?:[ \t]+(?:is|est|es|ist|lautet))?)?[ \t]*[:=：]?[ \t]*(?<text>\d{4,8})(?![\p{L}\p{N}_:/-]|[.,]\d)`,
    { flags: "iu", triggers: ["pin", "puk"], caseSensitive: false, pick: pin },
  ),
  rule(
    "labelled-secret",
    String.raw`(?<![A-Za-z0-9_])(?:creds?|credentials?|user(?:name)?[ \t]*/[ \t]*pass(?:word)?|login[ \t]*/[ \t]*password|u/p)(?:[ \t]+(?:for|of|on|to)(?:[ \t]+[^\s:=]{1,24}){1,3}?)?[ \t]*[:=][ \t]*[^\s/:,;"'\x60]{1,64}[ \t]*[/:][ \t]*(?!\[REDACTED:)(?<text>[^\s"'\x60]{1,256})`,
    {
      flags: "i",
      triggers: ["cred", "/pass", "u/p"],
      caseSensitive: false,
      pick: pairPassword,
    },
  ),
  // PHP: `define('DB_PASSWORD', 'secret');`
  pair(String.raw`\bdefine[ \t]*\([ \t]*${QUOTED_NAME}[ \t]*,[ \t]*${QUOTED}`, ["define"]),
  // `os.environ["API_KEY"] = "…"`, `ENV['API_KEY'] = '…'` (Ruby), `process.env["API_KEY"] = …`, `$_ENV[…]`.
  pair(
    String.raw`(?:\benviron|\bENV|\benv|\$_ENV|\$_SERVER)\[[ \t]*${QUOTED_NAME}[ \t]*\][ \t]*=(?!=)[ \t]*${VALUE}`,
    // No trigger holds a `[`: the pass after a productive one could not then take its windows from the first's.
    ["env", "$_server"],
  ),
  // PowerShell: `$env:API_KEY = "…"`.
  pair(String.raw`\$env:${NAME}[ \t]*=(?!=)[ \t]*${VALUE}`, ["$env:"]),
  // Windows `setx [/M] API_KEY value`; fish `set -gx API_KEY value` (a flag first, so plain `set` in prose is not read).
  pair(String.raw`\bsetx[ \t]+(?:/[Mm][ \t]+)?${NAME}[ \t]+${VALUE}`, ["setx"]),
  pair(String.raw`\bset(?:[ \t]+-[A-Za-z]+)+[ \t]+${NAME}[ \t]+${VALUE}`, ["set -"]),
  // Dockerfile: `ENV API_KEY value` (the old form, without `=`), at the start of a line.
  pair(String.raw`(?:^|\n)[ \t]*ENV[ \t]+${NAME}[ \t]+${VALUE}`, ["ENV "], { caseSensitive: true }),
  // `gh secret set API_KEY [--repo x] --body value`, `doppler secrets set API_KEY value`.
  pair(
    String.raw`\bgh[ \t]+secret[ \t]+set[ \t]+${NAME}(?:[ \t]+--?(?:repo|env|org|app|visibility|[Reoav])[ \t=]+[^\s-][^\s]*){0,4}[ \t]+(?:--body|-b)[ \t=]+${VALUE}`,
    ["secret set"],
  ),
  pair(String.raw`\bdoppler[ \t]+secrets[ \t]+set[ \t]+${NAME}[ \t]+${VALUE}`, ["secrets set"]),
  // `git config --global github.token value`; `npm config set //registry.npmjs.org/:_authToken value`.
  pair(
    String.raw`\bgit[ \t]+config(?:[ \t]+--(?:global|local|system|worktree))*[ \t]+${NAME}[ \t]+${VALUE}`,
    ["git config"],
  ),
  pair(
    String.raw`\b(?:npm|yarn|pnpm)[ \t]+config[ \t]+set[ \t]+(?<name>(?:[^\s=:"']*:)?[A-Za-z_][A-Za-z0-9_.-]{0,127})[ \t]+${VALUE}`,
    ["config set"],
  ),
  // Kubernetes and compose env lists: `- name: DB_PASSWORD` then `value: …` on the next line.
  pair(String.raw`\bname:[ \t]*(?<nq>["']?)${NAME}\k<nq>[ \t]*\r?\n[ \t]*value:[ \t]*${VALUE}`, ["name:"], {
    reach: 1,
  }),
  // JSON pairs: `{"name": "DB_PASSWORD", "value": "…"}` (also `key`, on one line or two).
  pair(
    String.raw`"(?:name|key)"[ \t]*:[ \t]*"${NAME}"[ \t]*,[ \t]*(?:\r?\n[ \t]*)?"value"[ \t]*:[ \t]*(?<q>")(?!\[REDACTED:)(?<quoted>(?:[^"\\\r\n]|\\.){1,512})"`,
    ['"name"', '"key"'],
    { reach: 1, flags: "i" },
  ),
  // XML: `<add key="ApiKey" value="…"/>`, `<property name="password" value="…"/>`.
  pair(String.raw`\b(?:key|name)[ \t]*=[ \t]*${QUOTED_NAME}[ \t]+value[ \t]*=[ \t]*${QUOTED}`, ["value="], {
    flags: "i",
  }),
  // XML: `<entry key="password">secret</entry>`.
  pair(
    String.raw`<[A-Za-z][\w:.-]{0,40}[ \t]+(?:key|name)[ \t]*=[ \t]*${QUOTED_NAME}[ \t]*>[ \t]*(?!\[REDACTED:)(?<text>[^<\s](?:[^<\r\n]{0,510}[^<\s])?)(?=[ \t]*</)`,
    ["key=", "name="],
    { flags: "i" },
  ),
  // Escaped forms of an assignment, as a log or a tool's argument quotes them: JSON inside a JSON string
  // (`{\"password\": \"…\"}`), URL encoding (`password%3D…`). HTML entities (`&quot;password&quot;: …`,
  // `&lt;password&gt;…`) are decoded by the folded reading (`redact-fold.ts`), which every rule reads.
  pair(
    String.raw`\\(?<nq>["'])${NAME}\\\k<nq>[ \t]*:[ \t]*\\(?<vq>["'])(?!\[REDACTED:)(?<text>[^"'\\\s]{1,512})(?=\\\k<vq>)`,
    ['\\"', "\\'"],
  ),
  pair(
    String.raw`(?:(?<=%26|%3[Ff]|%20)|(?<![A-Za-z0-9_]))${NAME}%3[Dd](?!\[REDACTED:)(?<text>(?:[A-Za-z0-9._~!*'()-]|%(?!26|3[Bb])[0-9A-Fa-f]{2}){1,512})`,
    ["%3d"],
  ),
  // An arrow between a name and its value in notes: `password -> …`, `API key → …`.
  pair(String.raw`(?<![A-Za-z0-9_.-])${SECRET_NAME}[ \t]*(?:->|→)[ \t]*${VALUE}`, ["->", " →", "→ "], {
    flags: "i",
  }),
];

/** The helper the picks above call, for the rules version (`redact-judged.ts`). */
export const PAIR_JUDGEMENT_SOURCES: readonly string[] = [
  String(pairValue),
  String(pairPassword),
  String(pin),
];
