import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { redact } from "../../plugin/snapshot/redact.ts";
import { CONTEXT_RULES, SECRET_NAME_TRIGGERS } from "../../plugin/snapshot/redact-context.ts";
import { classifyName } from "../../plugin/snapshot/redact-names.ts";
import { B64, body, MIXED, type RuleCase, ruleTableTests, UPPER } from "./rule-cases.ts";

const pemBody = [body(B64, 64), body(B64, 40)].join("\n");
const basic = (credentials: string) => Buffer.from(credentials).toString("base64");
const PASSWORD = "Xk9mP2vLq";
/** A shell variable, `$` and a name: what a command line passes instead of the secret. */
const variable = (name: string) => `$${name}`;

/** One case per rule of `CONTEXT_RULES`, in the same order. */
const CASES: readonly RuleCase[] = [
  {
    about: "a whole PEM private key block",
    text: `key:\n-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----\nend`,
    secret: `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----`,
    miss: `key:\n-----BEGIN PUBLIC KEY-----\n${pemBody}\n-----END PUBLIC KEY-----\nend`,
  },
  {
    about: "the private lines of a PuTTY key file",
    text: `Encryption: none\nPrivate-Lines: 2\n${pemBody}`,
    secret: `Private-Lines: 2\n${pemBody}`,
    miss: "Encryption: none\nPrivate-Lines: 2\n\nPrivate-MAC: x",
  },
  {
    about: "an age secret key",
    text: `AGE-SECRET-KEY-1${body(UPPER, 58)}`,
    secret: `AGE-SECRET-KEY-1${body(UPPER, 58)}`,
    miss: `AGE-SECRET-KEY-1${body(UPPER, 57)}`,
  },
  {
    about: "a random token as the user of a URL",
    text: `git clone https://${body(MIXED, 32)}@github.com/acme/app.git`,
    secret: body(MIXED, 32),
    miss: "git clone https://deploy-bot-for-the-pipeline@github.com/acme/app.git",
  },
  {
    about: "the password of a user:password URL",
    text: `DATABASE_URL=postgres://app:${PASSWORD}@db.internal:5432/app`,
    secret: PASSWORD,
    miss: `DATABASE_URL=postgres://app:${variable("{DB_PASSWORD}")}@db.internal:5432/app`,
  },
  {
    about: "a secret-named query parameter",
    text: `GET https://api.example.com/export?format=csv&access_token=${body(MIXED, 24)}&page=2`,
    secret: body(MIXED, 24),
    miss: `GET https://api.example.com/export?format=csv&next_page_token=${body(MIXED, 24)}&page=2`,
  },
  {
    about: "a bearer token in an Authorization header",
    text: `curl -H "Authorization: Bearer ${body(MIXED, 24)}" https://api.example.com`,
    secret: body(MIXED, 24),
    miss: 'curl -H "Authorization: Bearer YOUR_API_TOKEN" https://api.example.com',
  },
  {
    about: "a bearer token of 16+ random characters after Bearer",
    text: `retrying with Bearer ${body(MIXED, 24)} after 401`,
    secret: body(MIXED, 24),
    miss: `retrying with Bearer ${body(MIXED, 15)} after 401`,
  },
  {
    about: "the credentials of any other Authorization scheme (Okta SSWS, ApiKey, Digest)",
    text: `Authorization: SSWS 00${body(MIXED, 40)}`,
    secret: `00${body(MIXED, 40)}`,
    miss: `Authorization: SSWS ${variable("OKTA_API_TOKEN")}`,
  },
  {
    about: "a token in an Authorization header without a scheme",
    text: `authorization: ${body(MIXED, 32)}`,
    secret: body(MIXED, 32),
    miss: `authorization: ${body(MIXED, 15)}`,
  },
  {
    about: "every value of a Cookie header, the first of a Set-Cookie header",
    text: `Set-Cookie: sessionid=${body(MIXED, 32)}; Path=/; HttpOnly; Secure`,
    secret: body(MIXED, 32),
    miss: "Set-Cookie: theme=dark; Path=/",
  },
  {
    about: "basic credentials in an Authorization header",
    text: `Authorization: Basic ${basic(`deploy:${PASSWORD}`)}`,
    secret: basic(`deploy:${PASSWORD}`),
    miss: 'WWW-Authenticate: Basic realm="registry"',
  },
  {
    about: "base64 user:password after Basic",
    text: `sending Basic ${basic(`deploy:${PASSWORD}`)} to the proxy`,
    secret: basic(`deploy:${PASSWORD}`),
    miss: `sending Basic ${basic("deploy-only-no-colon")} to the proxy`,
  },
  {
    about: "the password of curl -u user:password",
    text: `curl -u deploy:${PASSWORD} https://ci.example.com`,
    secret: PASSWORD,
    miss: `curl -u deploy:${variable("CI_PASSWORD")} https://ci.example.com`,
  },
  {
    about: "the password of sshpass -p",
    text: `sshpass -p '${PASSWORD}' ssh deploy@10.0.4.17`,
    secret: PASSWORD,
    miss: `sshpass -p "${variable("SSHPASS")}" ssh deploy@10.0.4.17`,
  },
  {
    about: "a password attached to mysql -p",
    text: `mysql -h db -u root -p${PASSWORD} shop`,
    secret: PASSWORD,
    miss: "mysql -h db -u root -p shop",
  },
  {
    about: "the password of docker login -p",
    text: `docker login -u ci -p ${PASSWORD} registry.example.com`,
    secret: PASSWORD,
    miss: `docker login -u ci -p ${variable("CI_TOKEN")} registry.example.com`,
  },
  {
    about: "the password of redis-cli -a",
    text: `redis-cli -h cache -a ${PASSWORD} ping`,
    secret: PASSWORD,
    miss: `redis-cli -h cache -a ${variable("REDISCLI_AUTH")} ping`,
  },
  {
    about: "an openssl pass: argument",
    text: `openssl pkcs12 -in cert.p12 -passin pass:${PASSWORD}`,
    secret: PASSWORD,
    miss: `openssl pkcs12 -in cert.p12 -passin pass:${variable("P12_PASS")}`,
  },
  {
    about: "the value of a secret-named flag",
    text: `npx vercel deploy --prod --token ${body(MIXED, 24)}`,
    secret: body(MIXED, 24),
    miss: "npx vercel deploy --prod --token-file ./secrets/vercel-token.txt",
  },
  {
    about: "a .netrc password",
    text: `machine api.example.com login deploy password ${PASSWORD}`,
    secret: PASSWORD,
    miss: "machine api.example.com login deploy password stored",
  },
  {
    about: "a random literal handed to a client or login call",
    text: `client.login("${body(MIXED, 24)}");`,
    secret: body(MIXED, 24),
    miss: `logger.info("${body(MIXED, 24)}");`,
  },
  {
    about: "the password argument of a login call",
    text: `ftp.login("admin", "${PASSWORD}")`,
    secret: PASSWORD,
    miss: 'ftp.login("admin", "password")',
  },
  {
    about: "a value assigned to a secret name",
    text: "DB_PASSWORD=Summer2024!",
    secret: "Summer2024!",
    miss: "DB_PASSWORD_FILE=/run/secrets/db",
  },
];

describe("CONTEXT_RULES", () => {
  ruleTableTests(CONTEXT_RULES, CASES);

  it("takes the password of an HTTP auth object or an auth tuple as a login call's", () => {
    for (const text of [
      `session.auth = HTTPBasicAuth("admin", "${PASSWORD}")`,
      `HTTPDigestAuth('admin', '${PASSWORD}')`,
      `requests.get(url, auth=("admin", "${PASSWORD}"))`,
    ])
      expect(redact(text).text).toBe(text.replace(PASSWORD, "[REDACTED:credential-call]"));
    expect(redact('requests.get(url, auth=("admin", password))').total).toBe(0);
  });

  it("keeps the name, the scheme and user, the header and the flag around the secret", () => {
    expect(
      redact(
        [
          "export API_TOKEN=a1B2c3D4e5F6g7H8",
          `redis://default:${PASSWORD}@cache:6379`,
          `Authorization: Bearer ${body(MIXED, 24)}`,
          `deploy --api-key ${body(MIXED, 24)}`,
        ].join("\n"),
      ).text,
    ).toBe(
      [
        "export API_TOKEN=[REDACTED:secret-assignment]",
        "redis://default:[REDACTED:url-credentials]@cache:6379",
        "Authorization: Bearer [REDACTED:bearer]",
        "deploy --api-key [REDACTED:cli-flag]",
      ].join("\n"),
    );
  });

  it("judges an assignment by the word before its name when only a space separates them", () => {
    const value = body(MIXED, 24);
    expect(redact(`public key: ${value}`).total).toBe(0);
    expect(redact(`API key: ${value}`).text).toBe("API key: [REDACTED:secret-assignment]");
  });

  it("reads a value ending in a colon as the next field's label, and still takes a password before one", () => {
    for (const text of ["password: username:", "Password: Login:", "password: password: password:"])
      expect(redact(text), text).toEqual({ text, counts: {}, total: 0 });
    expect(redact("DB_PASSWORD=hunter2: next").text).toBe("DB_PASSWORD=[REDACTED:secret-assignment]: next");
    expect(redact("secret_key: Xk9mP2vQ7rT4wZ8y:").text).toBe("secret_key: [REDACTED:secret-assignment]:");
  });

  it("leaves a name in a code span followed by prose, which documents a setting", () => {
    const text = "- `apiPassword`: API/app password for the registry";
    expect(redact(text)).toEqual({ text, counts: {}, total: 0 });
  });
});

describe("SECRET_NAME_TRIGGERS", () => {
  it("holds a fragment of every name classifyName takes for a secret", () => {
    for (const name of [
      "DB_PASSWORD",
      "db_pwd",
      "client_secret",
      "API_TOKEN",
      "x-api-key",
      "authHeaderValue",
      "credentials",
      "sig",
    ]) {
      expect(classifyName(name)).toBeDefined();
      expect(SECRET_NAME_TRIGGERS.some((t) => name.toLowerCase().includes(t))).toBe(true);
    }
  });
});

describe("a PuTTY key file", () => {
  it("redacts the private lines and leaves the Private-MAC line after them", () => {
    const text =
      "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\nKd4e+Rt7/wQz2mPxKd4e+Rt7/wQz2mPx\nPrivate-MAC: 3f9a1b2c4d5e6078";
    expect(redact(text).text).toBe(
      "PuTTY-User-Key-File-3: ssh-ed25519\n[REDACTED:private-key]\nPrivate-MAC: 3f9a1b2c4d5e6078",
    );
  });
});
