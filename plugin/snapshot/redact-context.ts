import { count, isSentenceEnd, isTestVerdict, passwordEnd, wordBefore } from "./redact-around.ts";
import { endingAt, type Pick, type Rule, rule, type Span, secret, taken } from "./redact-engine.ts";
import {
  classifyName,
  classifyQualified,
  isBasicCredentials,
  isPassphrase,
  isPlaceholder,
  isPlaceholderBody,
  isQualifiable,
  looksSecret,
  looksSecretFor,
  type Strength,
} from "./redact-names.ts";
import { numbered } from "./redact-pattern.ts";
import { USERINFO_JUDGEMENT_SOURCES, USERINFO_RULES } from "./redact-url.ts";

/**
 * Secrets known by their context rather than their shape: PEM blocks, credentials in URLs and
 * `Authorization` headers, values of command-line flags, string literals passed to login and client calls,
 * and values assigned to secret names (`NAME=value`, `"name": "value"`, YAML with the value on the next line).
 */

const NL = String.raw`(?:\r?\n|\\r?\\n)`;
/** Lower-case fragments of every secret name `classifyName` accepts; rules judged by a name run near one. */
export const SECRET_NAME_TRIGGERS = [
  "pass",
  "pwd",
  "pw",
  "secret",
  "token",
  "key",
  "auth",
  "credential",
  "sig",
  "pat",
];
const notPlaceholder = (value: string) => !isPlaceholder(value);

const AUTHORIZATION = String.raw`(?<![A-Za-z0-9-])(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*(?:["'][ \t]*)?`;
/**
 * An assignment name that contains a secret word (checked first, so other names fail fast). The name itself
 * is matched atomically (`(?=(…))\k<…>`), so a long identifier is not backtracked through character by
 * character when no separator follows it. Compiled with the `i` flag.
 */
const NAME = String.raw`(?<![A-Za-z0-9_.:/=@?&\\-])(?:--?)?(?<nq>["'\`]?)(?=[A-Za-z0-9_.-]{0,127}?(?:pass|pwd|pw|secret|token|key|auth|credential|sig|pat))(?=(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,127}))\k<name>\k<nq>(?:\*{1,2})?[ \t]*(?::=|=>|=(?!=)|:)[ \t]*(?:\*{1,2}[ \t]*)?`;
const UNQUOTED = String.raw`[^\s"'\`,;()\[\]{}<>]`;

/**
 * Judge an assigned value by its name, read together with the word before it when they are separated by
 * a space only (`public key: …` is a public key, `API key: …` an API key).
 */
function assignment(value: string, strength: Strength | undefined, quoted = false): boolean {
  return (
    strength !== undefined &&
    (looksSecretFor(value, strength) || (quoted && strength === "strong" && isPassphrase(value)))
  );
}

function strengthOf(m: RegExpExecArray, name: string): Strength | undefined {
  // The same name as the last one judged alone (a text dense with one): no lookup.
  if (name === lastName.name) return lastName.strength;
  // Only a name starting with `key` or `token` reads the word before it: the others need not find it.
  if (isQualifiable(name)) return classifyQualified(wordBefore(m.input, m.index), name);
  lastName.name = name;
  lastName.strength = classifyName(name);
  return lastName.strength;
}

/** The last name {@link strengthOf} judged without the word before it, and its strength. */
const lastName: { name: string | undefined; strength: Strength | undefined } = {
  name: undefined,
  strength: undefined,
};

/**
 * The value of an assignment: quoted on its line (`dq`, `sq`, `bq`), on the next line (`nlq`, `nl`: YAML
 * `password:\n  value`, `key: |\n  value`, JSON, `export X=\` continuations) or bare (`bare`).
 */
const VALUE = String.raw`(?:"(?<dq>(?:[^"\\\r\n]|\\.){1,512})"|'(?<sq>(?:[^'\\\r\n]|\\.){1,512})'|\`(?<bq>[^\`\r\n]{1,512})\`|(?:[|>][-+]?[ \t]*)?\\?\r?\n[ \t]*(?:(?<q>["'\`])(?<nlq>[^\s"'\`\\]{1,512})\k<q>|(?<nl>${UNQUOTED}{1,512}))[ \t]*,?[ \t]*(?=\r?\n|$)|(?<bare>${UNQUOTED}{1,512})(?!${UNQUOTED}))`;

/** The assignment pattern with numbered groups (`numbered`): the rule that matches most often. */
const ASSIGNMENT = numbered(`${NAME}${VALUE}`);
const VALUE_GROUPS = (["dq", "sq", "bq", "nlq", "nl", "bare"] as const).map((name) => ({
  name,
  index: ASSIGNMENT.group[name] ?? 0,
}));

const assignedValue: Pick = (m, at) => {
  const bare = m[ASSIGNMENT.group.bare ?? 0];
  // "- `apiPassword`: API/app password for …": a name in a code span, then prose, documents the setting.
  if (m[ASSIGNMENT.group.nq ?? 0] === "`" && bare !== undefined) return undefined;
  if (isTestVerdict(m.input, m.index, m[ASSIGNMENT.group.name ?? 0] ?? "")) return undefined;
  const end = m.index + m[0].length;
  for (const { name, index } of VALUE_GROUPS) {
    const group = m[index];
    if (group === undefined) continue;
    // A bare value loses the dots and colons it ends with (`password: username:`: a form's empty fields).
    let cut = group.length;
    while (name === "bare" && cut > 0 && isDotOrColon(group.charCodeAt(cut - 1))) cut--;
    const value = cut < group.length ? group.slice(0, cut) : group;
    const quoted = name === "dq" || name === "sq" || name === "bq";
    if (name === "bare" ? taken(end - group.length) : quoted && taken(end - 1 - group.length))
      return undefined;
    // No name takes a value under 6 characters (said before the name is read); a next line's is no key.
    if (value.length < 6 || (name === "nl" && value.endsWith(":"))) return undefined;
    const strength = strengthOf(m, m[ASSIGNMENT.group.name ?? 0] ?? "");
    if (!assignment(value, strength, quoted)) return undefined;
    // A bare value ends the match, a quoted one ends one before it: found without group indices.
    const range = name === "bare" ? endingAt(m, group) : quoted ? endingAt(m, group, 1) : at(index);
    if (range === undefined) return undefined;
    // A password runs on to the next space whatever punctuation it holds (`DB_PASSWORD=a,b;c(d)`).
    if (name === "bare" && strength === "strong")
      return { start: range[0], end: passwordEnd(m.input, range[0], range[0] + value.length) };
    return { start: range[0], end: range[0] + value.length };
  }
  return undefined;
};

/** `.` or `:`, by its code. */
const isDotOrColon = (code: number) => code === 46 || code === 58;

/**
 * The quoted (`secret`) or bare (`secret2`) value group of a match, whose pattern ends with
 * `QUOTED_OR_BARE` (lookarounds aside): its range is found from the end of the match.
 */
function valueGroup(
  m: RegExpExecArray,
): { value: string; quoted: boolean; range: [number, number] } | undefined {
  const quoted = m.groups?.secret;
  const bare = m.groups?.secret2;
  if (quoted !== undefined) return { value: quoted, quoted: true, range: endingAt(m, quoted, 1) };
  if (bare !== undefined) return { value: bare, quoted: false, range: endingAt(m, bare) };
  return undefined;
}

/** A value after a password flag: anything but a placeholder, a variable or the next flag. */
export const passwordValue = (value: string, minLength: number) =>
  value.length >= minLength &&
  !value.includes("[REDACTED:") &&
  !/^[-$%]/.test(value) &&
  notPlaceholder(value);

/** `--name value`, `--name=value`, `-name value`: judged by the name, a quoted value is taken as given. */
const flagValue: Pick = (m) => {
  const strength = classifyName(m.groups?.name ?? "");
  const found = valueGroup(m);
  if (strength === undefined || found === undefined || found.value.startsWith("-")) return undefined;
  const ok =
    found.quoted && strength === "strong"
      ? passwordValue(found.value, 4)
      : looksSecretFor(found.value, strength);
  return ok ? { start: found.range[0], end: found.range[1] } : undefined;
};

/** The value of a command-specific password option (`-passin pass:…`). */
const commandPassword: Pick = (m) => {
  const found = valueGroup(m);
  return found !== undefined && passwordValue(found.value, 3)
    ? { start: found.range[0], end: found.range[1] }
    : undefined;
};

/**
 * A value never starts with a marker (it would be dropped as overlapping it): said in the pattern, so the
 * pass after a productive one, over a text dense with markers, makes no match object for each of them.
 */
const NOT_A_MARKER = String.raw`(?!\[REDACTED:)`;
export const QUOTED_OR_BARE = String.raw`${NOT_A_MARKER}(?:(?<q>["'])(?<secret>[^"'\s]{1,256})\k<q>|(?<secret2>[^\s"'\`;|&<>()]{1,256}))`;
/**
 * The rest of a shell command after its name: no pipe or command separator outside quotes, `\` line
 * continuations allowed. Greedy, and nothing after it can fail, so a match never backtracks.
 */
const REST_OF_COMMAND = String.raw`(?<rest>(?:[^\n|;&\\'"]|\\\r?\n|\\|'[^'\n]*'|"[^"\n]*"|['"])*)`;

/** What a password option takes by default: any value of 3 characters or more but a placeholder or a variable. */
const anyPassword = (value: string) => passwordValue(value, 3);

/**
 * The option pattern and judge of every `commandOption` rule, for the rules version: the rule's own pattern
 * is the command's.
 */
export const COMMAND_OPTION_SOURCES: string[] = [];

/**
 * A password option of a command (`sshpass -p X`, `mysql -pX`, `curl -u user:X`): the rule takes the
 * command name and the rest of the command, and its pick reads every `option` in that rest. Matching the
 * command first and the option within it keeps the time linear: a lazy `command.*?option` pattern tried
 * at every occurrence of the command reads the rest of the line again each time, so a line holding the
 * command name thousands of times took minutes.
 */
export function commandOption(
  command: string,
  option: string,
  options: { triggers: readonly string[]; reach: number; judge?: (value: string) => boolean },
): Rule {
  const { judge = anyPassword, ...rest } = options;
  COMMAND_OPTION_SOURCES.push(option, String(judge));
  // Numbered groups (`numbered`): a command line may hold thousands of options.
  const numberedOption = numbered(option);
  const optionPattern = new RegExp(numberedOption.source, "g");
  const quotedGroup = numberedOption.group.secret ?? 0;
  const bareGroup = numberedOption.group.secret2 ?? 0;
  return rule("cli-flag", String.raw`\b${command}\b${REST_OF_COMMAND}`, {
    ...rest,
    resume: "end",
    pick: (m) => {
      const rest = m.groups?.rest ?? "";
      const offset = endingAt(m, rest)[0];
      const spans: Span[] = [];
      optionPattern.lastIndex = 0;
      for (let o = optionPattern.exec(rest); o !== null; o = optionPattern.exec(rest)) {
        const quoted = o[quotedGroup];
        const value = quoted ?? o[bareGroup];
        if (value === undefined || !judge(value)) continue;
        const [start, end] = endingAt(o, value, quoted === undefined ? 0 : 1);
        spans.push({ start: start + offset, end: end + offset });
      }
      return spans;
    },
  });
}
const CALLEES =
  /^(?:log_?in|logon|sign_?in|auth|authenticate|authorize|set_?token|set_?api_?key|set_?auth(?:_?token)?|set_?credentials?|with_?token|use_?token|token|api_?key|\w*client|\w*bot|octokit|openai|anthropic|groq|mistral|cohere)$/i;

/** Every context rule, in priority order. */
export const CONTEXT_RULES: readonly Rule[] = [
  // A whole PEM block; a block cut short loses its BEGIN line and every base64 or header line after it.
  rule(
    "private-key",
    String.raw`-----BEGIN (?<label>[A-Z0-9]+(?: [A-Z0-9]+)* )?PRIVATE KEY(?<block> BLOCK)?-----(?:(?:(?!-----BEGIN )[\s\S])*?-----END \k<label>PRIVATE KEY\k<block>-----|(?:(?:${NL}[ \t]*)+(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info|Comment): [^\r\n\\]*)(?=[ \t]*(?:${NL}|$|["'\`])))*)`,
    { triggers: ["-----BEGIN "], reach: Number.POSITIVE_INFINITY },
  ),
  // PuTTY key files: the private lines (whole lines of base64) follow their count; `Private-MAC:` is not one.
  rule("private-key", String.raw`Private-Lines: [0-9]+(?:\r?\n[A-Za-z0-9+/=]{4,}(?=\r?\n|$))+`, {
    triggers: ["Private-Lines:"],
    reach: Number.POSITIVE_INFINITY,
  }),
  rule("private-key", "AGE-SECRET-KEY-1[0-9A-Z]{58}", { triggers: ["AGE-SECRET-KEY-1"] }),
  ...USERINFO_RULES,
  rule(
    "url-credentials",
    String.raw`(?<!&)[?&](?<name>[A-Za-z0-9_.-]{1,64})=(?!=)(?<secret>[^\s&#"'<>\`]{1,1024})`,
    {
      triggers: SECRET_NAME_TRIGGERS,
      caseSensitive: false,
      pick: secret((value, m) => {
        // A signature in a URL (`X-Amz-Signature=`) is a bearer credential; elsewhere it is public.
        const name = m.groups?.name ?? "";
        const strength = classifyName(name) ?? (/signature$/i.test(name) ? "weak" : undefined);
        return strength !== undefined && looksSecret(value, strength, strength === "strong" ? 6 : 8);
      }),
    },
  ),
  rule(
    "bearer",
    String.raw`${AUTHORIZATION}(?:bearer|token)[ \t]+(?<secret>[A-Za-z0-9._~+/-]+=*)(?![A-Za-z0-9._~+/=-])`,
    {
      flags: "i",
      triggers: ["authorization"],
      caseSensitive: false,
      // After the header any random 8+ characters are a credential; not `<token>`, `YOUR_TOKEN`, `undefined`.
      pick: secret((value) => looksSecret(value, "weak", 8) && !isPlaceholderBody(value), true),
    },
  ),
  rule(
    "bearer",
    String.raw`(?<![A-Za-z0-9_-])Bearer[ \t]+(?<secret>[A-Za-z0-9._~+/-]+=*)(?![A-Za-z0-9._~+/=-])`,
    {
      triggers: ["Bearer"],
      pick: secret((value) => looksSecret(value, "weak", 16), true),
    },
  ),
  // Every other scheme (`SSWS`, `ApiKey`, `Api-Key`, `Key`, `OAuth`, `Digest …`, `AWS4-HMAC-SHA256 …`):
  // the credentials are the rest of the header.
  rule(
    "bearer",
    String.raw`${AUTHORIZATION}(?!(?:bearer|token|basic)[ \t])(?<scheme>[A-Za-z][A-Za-z0-9_-]{1,30})[ \t]+(?<secret>[^\r\n'\x60]{8,512})`,
    {
      flags: "i",
      triggers: ["authorization"],
      caseSensitive: false,
      pick: (m, at) => {
        let value = (m.groups?.secret ?? "").replace(/[ \t,;]+$/, "");
        // A quoted header (`-H "Authorization: Digest …"`) ends at its closing quote.
        if (count(value, '"') % 2 === 1)
          value = value.slice(0, value.lastIndexOf('"')).replace(/[ \t,;]+$/, "");
        if (isPlaceholder(value) || isPlaceholderBody(value) || !/[0-9]/.test(value)) return undefined;
        const range = at("secret");
        if (range === undefined) return undefined;
        return { start: range[0], end: range[0] + value.length };
      },
    },
  ),
  // A header that holds a token without a scheme: `Authorization: 3f9a…`.
  rule("bearer", String.raw`${AUTHORIZATION}(?<secret>[A-Za-z0-9._~+/=-]{16,1024})(?![^\s"'\x60,;])`, {
    flags: "i",
    triggers: ["authorization"],
    caseSensitive: false,
    pick: secret((value) => looksSecret(value, "weak", 16) && !isPlaceholderBody(value), true),
  }),
  // `Cookie: a=1; session=…` (every value) and `Set-Cookie: session=…; Path=/` (the first): a session cookie
  // is a bearer credential.
  rule(
    "session-cookie",
    String.raw`(?<![A-Za-z0-9-])(?<set>set-)?cookie["']?[ \t]*[:=][ \t]*["']?(?<rest>[^\r\n"']{1,4096})`,
    {
      flags: "i",
      triggers: ["cookie"],
      caseSensitive: false,
      pick: (m) => {
        const rest = m.groups?.rest ?? "";
        const offset = endingAt(m, rest)[0];
        const spans: Span[] = [];
        const pair = /(?:^|;)[ \t]*(?<name>[^=;\s]{1,128})=(?<value>[^;\s]{1,4096})/g;
        for (let p = pair.exec(rest); p !== null; p = pair.exec(rest)) {
          const value = p.groups?.value ?? "";
          const [start, end] = endingAt(p, value);
          if (value.length >= 8 && !isPlaceholder(value) && !/^\d+$/.test(value))
            spans.push({ start: offset + start, end: offset + end });
          if (m.groups?.set !== undefined) break;
        }
        return spans;
      },
      resume: "end",
    },
  ),
  rule(
    "basic-auth",
    String.raw`${AUTHORIZATION}basic[ \t]+(?<secret>[A-Za-z0-9+/]+={0,2})(?![A-Za-z0-9+/=])`,
    {
      flags: "i",
      triggers: ["authorization"],
      caseSensitive: false,
      pick: secret((value) => isBasicCredentials(value) || looksSecret(value, "weak", 16), true),
    },
  ),
  rule(
    "basic-auth",
    String.raw`(?<![A-Za-z0-9_-])Basic[ \t]+(?<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])`,
    {
      triggers: ["Basic"],
      pick: secret(isBasicCredentials),
    },
  ),
  commandOption(
    "curl",
    String.raw`[ \t](?:-u|--user)(?:=|[ \t]+)(?:(?<q>["'])[^"':\s]*:${NOT_A_MARKER}(?<secret>[^"'\s]+)\k<q>|[^\s"':]*:${NOT_A_MARKER}(?<secret2>[^\s"'\`;|&<>]+))`,
    { triggers: ["curl"], reach: 6 },
  ),
  commandOption("sshpass", String.raw`[ \t]-p[ \t]*${QUOTED_OR_BARE}`, { triggers: ["sshpass"], reach: 2 }),
  // `mysql -pSECRET`: the password is attached; `-p` alone (or `-p dbname`) prompts for it.
  commandOption(
    "(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)",
    String.raw`[ \t]-p${QUOTED_OR_BARE}`,
    { triggers: ["mysql", "mariadb"], reach: 2 },
  ),
  commandOption(
    "(?:docker|podman|nerdctl|oras|skopeo|helm registry|az)[ \\t]+login",
    String.raw`[ \t]-p[ \t]+${QUOTED_OR_BARE}`,
    { triggers: ["login"], reach: 2 },
  ),
  commandOption("redis-cli", String.raw`[ \t]-a[ \t]+${QUOTED_OR_BARE}`, {
    triggers: ["redis-cli"],
    reach: 2,
  }),
  // openssl `-passin pass:SECRET`, `-passout pass:SECRET`, `-k SECRET` is left to the flag rule.
  rule("cli-flag", String.raw`-pass(?:in|out)?[ \t]+pass:${QUOTED_OR_BARE}`, {
    triggers: ["-pass"],
    pick: commandPassword,
  }),
  rule(
    "cli-flag",
    String.raw`(?<![A-Za-z0-9_-])--?(?<name>[A-Za-z][A-Za-z0-9-]{0,40}[A-Za-z0-9])(?:=|[ \t]+)${QUOTED_OR_BARE}(?![^\s;|&)])`,
    { triggers: SECRET_NAME_TRIGGERS, caseSensitive: false, pick: flagValue },
  ),
  // .netrc: `machine HOST login USER password SECRET`, on one line or over several.
  rule(
    "secret-assignment",
    String.raw`\blogin[ \t]+[^\s"'\x60]+[ \t]*(?:\r?\n[ \t]*)?password[ \t]+(?<secret>[^\s"'\x60]{1,256})`,
    { triggers: ["login"], reach: 1, pick: secret((value) => looksSecretFor(value, "strong")) },
  ),
  // `client.login("…")`, `new Client("…")`, `Bot("…")`: a random literal handed to a client is a token.
  rule(
    "credential-call",
    String.raw`(?<![\w$.])(?:new[ \t]+)?(?<callee>(?:[A-Za-z_$][\w$]*\.){0,3}(?<fn>[A-Za-z_$][\w$]*))[ \t]*\([ \t]*(?:\r?\n[ \t]*)?(?<q>["'\`])(?<secret>[^"'\`\s\\]{16,512})\k<q>`,
    {
      // Any call whose first argument is a string literal; the callee is judged by `pick`.
      triggers: ['("', "('", "(`", "( ", "(\n", "(\r"],
      caseSensitive: false,
      reach: 1,
      pick: secret((value, m) => {
        const fn = m.groups?.fn ?? "";
        const callee = m.groups?.callee ?? "";
        const known = CALLEES.test(fn) || (fn === "run" && /(?:bot|client)\.run$/i.test(callee));
        return known && looksSecret(value, "weak", 16) && !isPlaceholderBody(value);
      }),
    },
  ),
  // `login("user", "Passw0rd!")`, `ftp.login(user, 'secret1')`, `HTTPBasicAuth('me', 'pw')`, `auth=('me', 'pw')`:
  // the second argument is the password.
  rule(
    "credential-call",
    String.raw`(?<![\w$])(?:log_?in|logon|sign_?in|auth|authenticate|connect|bind|HTTP(?:Basic|Digest|Proxy)Auth|(?:Basic|Digest)Auth|auth[ \t]*=[ \t]*)[ \t]*\([ \t]*(?:"[^"\n]{1,128}"|'[^'\n]{1,128}'|[A-Za-z_$][\w$.]*)[ \t]*,[ \t]*(?<q>["'\`])(?<secret>[^"'\`\s\\]{1,256})\k<q>`,
    {
      flags: "i",
      triggers: ["login", "log_in", "logon", "signin", "sign_in", "auth", "connect", "bind"],
      caseSensitive: false,
      pick: secret((value) => looksSecretFor(value, "strong")),
    },
  ),
  rule("secret-assignment", ASSIGNMENT.source, {
    flags: "i",
    triggers: SECRET_NAME_TRIGGERS,
    caseSensitive: false,
    reach: 1,
    pick: assignedValue,
  }),
];

/** The sources of the helpers the picks above call, for the rules version (`redact-judged.ts`). */
export const CONTEXT_JUDGEMENT_SOURCES: readonly string[] = [
  ...[
    assignment,
    valueGroup,
    passwordValue,
    anyPassword,
    commandOption,
    passwordEnd,
    isSentenceEnd,
    isTestVerdict,
  ].map(String),
  CALLEES.source,
  ...USERINFO_JUDGEMENT_SOURCES,
];
