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
];

/** `fragment` repeated to `length` characters (the last copy cut); empty for an empty fragment. */
export function repeatTo(fragment: string, length: number): string {
  if (fragment === "") return "";
  return fragment.repeat(Math.ceil(length / fragment.length)).slice(0, length);
}
