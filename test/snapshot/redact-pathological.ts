/**
 * Inputs that made redaction super-linear, as families of one fragment repeated: a command name whose
 * password option a rule looked for in the rest of the line (`mysql `, `sshpass `, `docker login `,
 * `redis-cli `, `curl `), a label with no value (`password: `), JWT-like and PEM-like fragments, URL
 * userinfo without its `@`, headers, unclosed quotes and calls, and secrets of two rules interleaved.
 * Shared by the fuzz test and `npm run bench`.
 */
export const PATHOLOGICAL_FRAGMENTS: readonly (readonly [string, string])[] = [
  ["mysql", "mysql "],
  ["sshpass", "sshpass "],
  ["docker login", "docker login "],
  ["redis-cli", "redis-cli "],
  ["curl", "curl "],
  ["curl -u", "curl -u a:"],
  ["password label", "password: "],
  ["password on the next line", "password:\n"],
  ["JWT-like", "eyJhbGciOi.eyJzdWIi."],
  ["PEM without its end", "-----BEGIN RSA PRIVATE KEY-----\n"],
  ["URL userinfo without @", "https://user:pa"],
  // The same with an `@` far away: a rule that needs one cannot skip the line.
  ["URL userinfo, @ every 15 KB", `${"https://user:pa".repeat(1000)}@`],
  ["Authorization header", "Authorization: Bearer "],
  ["secret name", "db_password_token_"],
  ["unclosed quote", 'api_key="'],
  ["login call", 'login("'],
  ["a;b", "pw=a;"],
  // A table cell border and a Go test verdict, each judged by what stands before it on its line.
  ["label and value cells", "password|Xk9#mP2vQ "],
  ["Go test verdicts", "--- PASS: TestA/b (0.00s) "],
  // Two rules each finding thousands of secrets between the other's: findings used to be inserted one by one.
  ["interleaved secrets", `${"gh"}p_${"Ab1Cd2Ef3Gh4".repeat(3)} DB_PASSWORD=Xk9mP2vLq `],
  // A tool's own password option, a password piped into a reader, a name and its value as two fields, and
  // JSON escaped inside a JSON string.
  ["a tool's password option", "keytool -storepass "],
  ["piped password", "echo a | sudo -S "],
  ["name and value fields", '<add key="ApiKey" value="'],
  ["escaped JSON", '{\\"password\\": \\"'],
  // Text read twice, as written and folded (`redact-fold.ts`): a label split by a character that shows
  // nothing, HTML-escaped markup, a line with an emoji's variation selector.
  ["a label split by a zero-width space", "pass\u200Bword: "],
  ["HTML-escaped markup", "&lt;td&gt;&quot;password&quot;&lt;/td&gt; "],
  ["emoji with a variation selector", "the fix is in \u2764\uFE0F pass\n"],
];

/** `fragment` repeated to `length` characters (the last copy cut); empty for an empty fragment. */
export function repeatTo(fragment: string, length: number): string {
  if (fragment === "") return "";
  return fragment.repeat(Math.ceil(length / fragment.length)).slice(0, length);
}

/**
 * The dense families again with a different value at every copy (seeded, so every run sees the same text):
 * a redactor that remembers its verdicts on values it has seen is fast on a fragment repeated, and these
 * show what each new candidate costs, as in a real log where no two passwords are alike.
 */
export const PATHOLOGICAL_VARIED: readonly (readonly [string, (value: () => string) => string])[] = [
  ["password label, values varied", (v) => `password: ${v()} `],
  ["curl -u, values varied", (v) => `curl -u a${v().slice(0, 4)}:${v()} `],
  ["Authorization header, values varied", (v) => `Authorization: Bearer ${v()}${v()}\n`],
  ["label and value cells, values varied", (v) => `password|${v()} `],
  ["interleaved secrets, values varied", (v) => `${"gh"}p_${v()}${v()}${v()}Ab DB_PASSWORD=${v()} `],
  ["a tool's password option, values varied", (v) => `keytool -storepass ${v()} `],
  ["name and value fields, values varied", (v) => `<add key="ApiKey" value="${v()}${v()}" /> `],
];

/** `family` written with fresh 12-character values until `length` characters (the last copy cut). */
export function variedTo(family: (value: () => string) => string, length: number): string {
  const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789#%!";
  let seed = 42;
  const value = () => {
    let out = "";
    for (let i = 0; i < 12; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      out += alphabet[seed % alphabet.length];
    }
    return out;
  };
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const part = family(value);
    parts.push(part);
    size += part.length;
  }
  return parts.join("").slice(0, length);
}
