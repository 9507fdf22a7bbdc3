import { describe, expect, it } from "vitest";
import { compileRules, findSecrets } from "../../plugin/snapshot/redact-engine.ts";
import { PAIR_RULES } from "../../plugin/snapshot/redact-pairs.ts";

const rules = compileRules(PAIR_RULES);
const STRONG = "Summer2024!db";
const TOKEN = "Xk9mQ2vLp7RtWz4N";
/** What the pair rules alone take from `text`. */
const taken = (text: string) => findSecrets(text, rules).map((f) => text.slice(f.start, f.end));

describe("PAIR_RULES", () => {
  it.each([
    [`define( 'DB_PASSWORD', '${STRONG}' );`, STRONG],
    [`define('AUTH_KEY', '${TOKEN}');`, TOKEN],
    [`os.environ["API_KEY"] = "${TOKEN}"`, TOKEN],
    [`os.environ['DB_PASSWORD']='${STRONG}'`, STRONG],
    [`ENV['STRIPE_SECRET'] = ${TOKEN}`, TOKEN],
    [`$env:OPENAI_API_KEY = "${TOKEN}"`, TOKEN],
    [`setx /M API_KEY ${TOKEN}`, TOKEN],
    [`set -gx DB_PASSWORD '${STRONG}'`, STRONG],
    [`FROM node:24\nENV API_TOKEN ${TOKEN}\nRUN npm ci`, TOKEN],
    [`gh secret set DEPLOY_TOKEN --repo acme/app --body ${TOKEN}`, TOKEN],
    [`gh secret set DB_PASSWORD -b "${STRONG}"`, STRONG],
    [`doppler secrets set API_KEY ${TOKEN}`, TOKEN],
    [`git config --global github.token ${TOKEN}`, TOKEN],
    [`npm config set //registry.npmjs.org/:_authToken ${TOKEN}`, TOKEN],
    [`yarn config set npmAuthToken ${TOKEN}`, TOKEN],
    [`env:\n  - name: DB_PASSWORD\n    value: "${STRONG}"`, STRONG],
    [`- name: API_KEY\n  value: ${TOKEN}`, TOKEN],
    [`{"name": "DB_PASSWORD", "value": "${STRONG}"}`, STRONG],
    [`{\n  "key": "apiToken",\n  "value": "${TOKEN}"\n}`, TOKEN],
    [`<add key="ApiKey" value="${TOKEN}" />`, TOKEN],
    [`<property name="password" value="${STRONG}"/>`, STRONG],
    [`<entry key="password"> ${STRONG} </entry>`, STRONG],
    [`{\\"password\\": \\"${STRONG}\\"}`, STRONG],
    [`"args": "{\\"api_key\\":\\"${TOKEN}\\"}"`, TOKEN],
    ["next=%2Fcb%3Fx%3D1%26password%3DSummer2024%21db%26y%3D2", "Summer2024%21db"],
    [`password -> ${STRONG}`, STRONG],
    [`API_KEY → ${TOKEN}`, TOKEN],
    [`creds: admin/${STRONG}`, STRONG],
    [`Creds: admin / ${STRONG}.`, STRONG],
    [`user/pass: ops / ${STRONG}`, STRONG],
    [`u/p: ops:${STRONG}`, STRONG],
    ["PIN: 482913", "482913"],
    ["the SIM pin is 4829", "4829"],
    ["PIN for the card is 0451.", "0451"],
    ["código PIN: 4829", "4829"],
    ["PIN码：482913", "482913"],
    ["password Tr0ub4dor&3x", "Tr0ub4dor&3x"],
    ["user admin pass Tr0ub4dor&3x.", "Tr0ub4dor&3x"],
    ["use passphrase 'correct horse battery staple' for the key", "correct horse battery staple"],
  ])("takes the value of %s", (text, value) => {
    expect(taken(text)).toEqual([value]);
  });

  it.each([
    "define('WP_DEBUG', true);",
    "define('DB_NAME', 'wordpress');",
    'os.environ["PATH"] = "/usr/local/bin"',
    'os.environ["API_KEY"] = os.environ["OLD_API_KEY"]',
    'git config --global user.name "Li Wei"',
    "set -euo pipefail",
    "set -gx PATH $PATH ~/.local/bin",
    "ENV NODE_ENV production",
    "ENV API_KEY_FILE /run/secrets/api_key",
    "gh secret set API_KEY < key.txt",
    "npm config set registry https://registry.npmjs.org/",
    "- name: LOG_LEVEL\n  value: debug",
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}",
    '{"name": "TOKEN_BUDGET", "value": "4000"}',
    '<add key="PageSize" value="50" />',
    '<entry key="password.min.length">12</entry>',
    '$env:Path = "C:\\tools"',
    '{\\"name\\": \\"deploy\\", \\"token_budget\\": \\"4000\\"}',
    "&quot;password&quot;: &quot;&quot;",
    "token -> id -> user",
    "redirect=%2Fcb%3Fpassword_reset%3D1",
    "creds: in the vault",
    "credentials: see 1password/ops",
    "creds: aws/prod",
    "credentials: src/pages/login.tsx",
    "creds: admin/admin",
    "GPIO pin 17",
    "pin 2024-01-01",
    "pin the dependency to 4.17.21",
    "spin 1234",
    "pin_memory=True",
    "password reset",
    "pass --no-verify",
    "password hunter2",
    "password PBKDF2-SHA256",
    "password pwd_history=123456",
    "pass v2.3.4-beta1",
    "password 00000000-0000-1000-8000-00000000745a",
    "password src/auth/Login2.ts",
    "pass https://x.io/a1",
  ])("finds nothing in %s", (text) => {
    expect(taken(text)).toEqual([]);
  });

  it("stays linear on a line dense with pairs, each one found", () => {
    const text = `<add key="ApiKey" value="${TOKEN}" />`.repeat(2_000);
    expect(taken(text)).toHaveLength(2_000);
  });
});
