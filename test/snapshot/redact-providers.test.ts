import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { PROVIDER_RULES } from "../../plugin/snapshot/redact-providers.ts";
import { B64, body, foundBy, HEX, LOWER, MIXED, type RuleCase, ruleTableTests, UPPER } from "./rule-cases.ts";

/**
 * A token `prefix` + `length` characters of `alphabet` after `KEY=`; its near miss is one character short
 * (every provider format fixes a minimum length), unless `miss` says otherwise.
 */
function token(about: string, prefix: string, alphabet: string, length: number, miss?: string): RuleCase {
  const t = prefix + body(alphabet, length);
  return { about, text: `KEY=${t}`, secret: t, miss: miss ?? `KEY=${prefix}${body(alphabet, length - 1)}` };
}

const jwtHead = Buffer.from('{"alg":"HS256"}').toString("base64url");
const jwtBody = Buffer.from('{"sub":"1234567890"}').toString("base64url");
const slackPath = "services/T0K4R7Q2P/B0K4R7Q2P";
const twilioSid = `AC${body(HEX, 32)}`;
const uuid = "3f9a1b2c-4d5e-4607-8f9a-1b2c4d5e6078";
const teams = (hex: number) =>
  `https://acme.webhook.office.com/webhookb2/${uuid}@${uuid}/IncomingWebhook/${body(HEX, hex)}/${uuid}`;

/** One case per rule of `PROVIDER_RULES`, in the same order. */
const CASES: readonly RuleCase[] = [
  {
    about: "a JWT: three dot-separated base64url parts, the first two JSON objects",
    text: `token ${jwtHead}.${jwtBody}.${body(MIXED, 43)} end`,
    secret: `${jwtHead}.${jwtBody}.${body(MIXED, 43)}`,
    miss: `token ${jwtHead}.${jwtBody} end`,
  },
  token("an Anthropic key", "sk-ant-api03-", MIXED, 93, `KEY=sk-ant-api03-${body(MIXED, 19)}`),
  token("an OpenRouter key: 64 hex", "sk-or-v1-", HEX, 64),
  token("a MiniMax key", "sk-cp-", MIXED, 40, `KEY=sk-cp-your-key-here-${body(MIXED, 30)}`),
  token("an OpenAI key that mixes two character classes", "sk-", MIXED, 48, `KEY=sk-${body(LOWER, 48)}`),
  token("a GitHub classic token: 36+ alphanumerics", "ghp_", MIXED, 36),
  token("a GitLab token", "glpat-", MIXED, 20),
  token("a Slack token", "xoxb-1234567890-", MIXED, 24, `KEY=xoxz-1234567890-${body(MIXED, 24)}`),
  {
    about: "a Microsoft Teams incoming webhook URL",
    text: `POST ${teams(32)}`,
    secret: teams(32),
    miss: `POST ${teams(31)}`,
  },
  token("a GitLab session cookie", "_gitlab_session=", "kd4ert7wqz2mpx9l", 32),
  {
    about: "the secret part of a Slack webhook URL",
    text: `POST https://hooks.slack.com/${slackPath}/${body(MIXED, 24)}`,
    secret: body(MIXED, 24),
    miss: `POST https://hooks.slack.com/${slackPath}/${body(MIXED, 15)}`,
  },
  token("a Stripe key", "sk_live_", MIXED, 24, `KEY=sk_live_${body(MIXED, 9)}`),
  token("an npm token: 36 alphanumerics", "npm_", MIXED, 36),
  {
    about: "an .npmrc auth token",
    text: `//registry.npmjs.org/:_authToken=${body(HEX, 8)}-${body(HEX, 4)}`,
    secret: `${body(HEX, 8)}-${body(HEX, 4)}`,
    miss: `//registry.npmjs.org/:_authToken=${["$", "{NPM_TOKEN}"].join("")}`,
  },
  token("a Google API key: AIza and 35 characters", "AIza", MIXED, 35),
  token("an AWS access key id: 16 upper-case letters and digits", "AKIA", UPPER, 16),
  {
    about: "an AWS secret access key, known by its name",
    text: `aws_secret_access_key = ${body(B64, 40)}`,
    secret: body(B64, 40),
    miss: `aws_secret_access_key = ${body(B64, 39)}`,
  },
  token("a Hugging Face token that mixes two classes", "hf_", MIXED, 34, `KEY=hf_${body(LOWER, 34)}`),
  token("a Groq key: 52 characters", "gsk_", MIXED, 52),
  token("an xAI key", "xai-", MIXED, 80, `KEY=xai-${body(MIXED, 39)}`),
  token("a Replicate token", "r8_", MIXED, 37, `KEY=r8_${body(MIXED, 29)}`),
  token("a Perplexity key", "pplx-", MIXED, 48, `KEY=pplx-${body(MIXED, 31)}`),
  {
    about: "a Telegram bot token: a bot id of 8-10 digits, a colon and 35 characters",
    text: `bot 123456789:A${body(MIXED, 34)}`,
    secret: `123456789:A${body(MIXED, 34)}`,
    miss: `bot 1234567:A${body(MIXED, 34)}`,
  },
  {
    about: "a Discord bot token: user id, timestamp and an HMAC that mixes two classes",
    text: `DISCORD=MTE${body(MIXED, 23)}.Gx7kQ2.${body(MIXED, 38)}`,
    secret: `MTE${body(MIXED, 23)}.Gx7kQ2.${body(MIXED, 38)}`,
    miss: `DISCORD=MTE${body(MIXED, 23)}.Gx7kQ2.${body(LOWER, 38)}`,
  },
  {
    about: "the secret part of a Discord webhook URL",
    text: `https://discord.com/api/webhooks/123456789012345678/${body(MIXED, 68)}`,
    secret: body(MIXED, 68),
    miss: `https://discord.com/api/webhooks/123456789012345678/${body(MIXED, 59)}`,
  },
  token("a Twilio API key: SK and 32 hex", "SK", HEX, 32),
  {
    about: "a Twilio auth token after its account SID",
    text: `${twilioSid}:${body(HEX, 32)}`,
    secret: body(HEX, 32),
    miss: `${twilioSid}:${"0".repeat(32)}`,
  },
  {
    about: "a SendGrid key",
    text: `KEY=SG.${body(MIXED, 22)}.${body(MIXED, 43)}`,
    secret: `SG.${body(MIXED, 22)}.${body(MIXED, 43)}`,
    miss: `KEY=SG.${body(MIXED, 22)}.${body(MIXED, 29)}`,
  },
  token("a Mailgun key: key- and 32 hex", "key-", HEX, 32),
  token("a Shopify token: 32 hex", "shpat_", HEX, 32),
  token("a DigitalOcean token: 64 hex", "dop_v1_", HEX, 64),
  token("a Doppler token", "dp.pt.", MIXED, 43, `KEY=dp.pt.${body(MIXED, 39)}`),
  token("a Databricks token: dapi and 32 hex", "dapi", HEX, 32),
  token("a PyPI token", "pypi-AgE", MIXED, 70, `KEY=pypi-AgE${body(MIXED, 49)}`),
  {
    about: "an Azure storage AccountKey in a connection string",
    text: `AccountName=acme;AccountKey=${body(B64, 86)}==;EndpointSuffix=core.windows.net`,
    secret: `${body(B64, 86)}==`,
    miss: `AccountName=acme;AccountKey=${body(B64, 39)};EndpointSuffix=core.windows.net`,
  },
  token("a Notion integration secret: 43 characters", "secret_", MIXED, 43),
  token("a Linear key", "lin_api_", MIXED, 40, `KEY=lin_api_${body(MIXED, 31)}`),
  token("a Figma token", "figd_", MIXED, 40),
  token("a Supabase token: 40 hex", "sbp_", HEX, 40),
  token("a Vercel token", "vcp_", MIXED, 24, `KEY=vcp_${body(MIXED, 19)}`),
  token("an Atlassian API token", "ATATT3", MIXED, 186, `KEY=ATATT3${body(MIXED, 149)}`),
  {
    about: "a Cloudflare origin CA key",
    text: `KEY=v1.0-${body(HEX, 24)}-${body(HEX, 146)}`,
    secret: `v1.0-${body(HEX, 24)}-${body(HEX, 146)}`,
    miss: `KEY=v1.0-${body(HEX, 24)}-${body(HEX, 145)}`,
  },
  {
    about: "a Cloudflare API token, known by a name that says Cloudflare",
    text: `CLOUDFLARE_API_TOKEN=${body(MIXED, 40)}`,
    secret: body(MIXED, 40),
    miss: `CLOUDFLARE_API_TOKEN=${body(LOWER, 40)}`,
  },
  token("a long-tail service token (Docker Hub)", "dckr_pat_", MIXED, 27),
  {
    about: "a PEM private key in base64 (a kubeconfig's client-key-data)",
    text: `client-key-data: ${Buffer.from(`-----BEGIN RSA PRIVATE KEY-----\nMIIEow${body(B64, 64)}\n-----END RSA PRIVATE KEY-----\n`).toString("base64")}`,
    secret: Buffer.from(
      `-----BEGIN RSA PRIVATE KEY-----\nMIIEow${body(B64, 64)}\n-----END RSA PRIVATE KEY-----\n`,
    ).toString("base64"),
    miss: `client-certificate-data: ${Buffer.from("-----BEGIN CERTIFICATE-----\nMIIDxyz\n-----END CERTIFICATE-----\n").toString("base64")}`,
  },
];

describe("PROVIDER_RULES", () => {
  ruleTableTests(PROVIDER_RULES, CASES);

  it("refuses a token whose random part is a placeholder", () => {
    const github = PROVIDER_RULES[5];
    expect(github && foundBy(github, `GITHUB_TOKEN=ghp_${"x".repeat(36)}`)).toEqual([]);
    const openai = PROVIDER_RULES[4];
    expect(openai && foundBy(openai, `KEY=sk-proj-${"XXXX-".repeat(10)}`)).toEqual([]);
  });

  it("refuses a token that continues into, or starts right after, a letter, digit, _ or -", () => {
    const mailgun = PROVIDER_RULES[26];
    const t = `key-${body(HEX, 32)}`;
    const found = ["x", "7", "_", "-"]
      .flatMap((c) => [`${c}${t}`, `${t}${c}`])
      .map((text) => mailgun && foundBy(mailgun, text));
    expect(found).toEqual(Array(8).fill([]));
  });
});
