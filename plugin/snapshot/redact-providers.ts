import { Buffer } from "node:buffer";
import { type Rule, rule, secret, whole } from "./redact-engine.ts";
import { classCount, isPlaceholder, isPlaceholderBody } from "./redact-names.ts";

/**
 * Provider token formats: tokens recognisable by their prefix and shape alone, whatever surrounds them.
 * The formats are those of the public rule lists of gitleaks (`config/gitleaks.toml`) and secretlint
 * (`@secretlint/secretlint-rule-preset-recommend`), written here as one pattern per provider.
 *
 * A match whose random part is a placeholder (`ghp_xxxx…`, `sk-proj-XXXX-XXXX…`, `…your-key-here…`) is not
 * a token. Tokens must not continue into, nor start right after, letters, digits, `_` or `-` (`TB`, `TE`);
 * formats whose prefix ends in `_` (GitHub `ghp_`, Stripe `sk_live_`, npm `npm_`) may follow a `-`, as in a
 * branch name `fix-ghp_…` pasted from a URL: there a miss would leak and a match costs nothing.
 */

const TB = `(?<![A-Za-z0-9_-])`;
const TE = `(?![A-Za-z0-9_-])`;
/** Two-letter prefixes followed by hex (`SK…`, `AC…`) trigger on the three characters: `ac` alone is everywhere. */
const HEX_DIGITS = "0123456789abcdefABCDEF";
/** Accepts a match whose `body` group (or whole match) is not a placeholder. */
const real = whole((body) => !isPlaceholderBody(body));
/** Accepts a match whose `body` also mixes two of lower case, upper case and digits. */
const realMixed = whole((body) => !isPlaceholderBody(body) && classCount(body) >= 2);

/** A rule for a bare token `prefix…` between token boundaries; `triggers` default to the literal prefixes. */
function token(kind: Rule["kind"], source: string, triggers: readonly string[], mixed = false): Rule {
  return rule(kind, `${TB}(?:${source})${TE}`, { triggers, pick: mixed ? realMixed : real });
}

/** Long-tail providers reported together as `service-token`: prefix literals (`|`-separated) and pattern. */
const SERVICE_TOKENS: readonly (readonly [string, string])[] = [
  ["A3-", "A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"], // 1Password secret key
  ["ops_eyJ", "ops_eyJ[A-Za-z0-9+/]{100,1280}={0,3}"], // 1Password service account
  ["p8e-", "p8e-[A-Za-z0-9]{32}"], // Adobe
  ["LTAI", "LTAI[A-Za-z0-9]{20}"], // Alibaba Cloud
  ["AKCp", "AKCp[A-Za-z0-9]{69}"], // JFrog Artifactory
  ["Q~", "[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}"], // Azure AD client secret
  ["ABSK", "ABSK[A-Za-z0-9+/]{109,269}={0,2}"], // AWS Bedrock
  ["CLOJARS_", "CLOJARS_[a-z0-9]{60}"],
  ["dckr_pat_", "dckr_pat_[A-Za-z0-9_-]{27}"], // Docker Hub
  ["dt0c01.", "dt0c01\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}"], // Dynatrace
  ["EZAK|EZTK", "EZ[AT]K[A-Za-z0-9]{54}"], // EasyPost
  ["EAAC|EAAM", "EAA[CM][A-Za-z0-9]{100,}"], // Facebook page token
  ["fo1_", "fo1_[A-Za-z0-9_-]{43}"], // Fly.io
  ["fm2_", "fm2_[A-Za-z0-9+/]{100,}={0,3}"], // Fly.io
  ["fio-u-", "fio-u-[A-Za-z0-9_=-]{64}"], // Frame.io
  ["FLWSECK", "FLWSECK(?:_TEST)?-[a-h0-9]{32}-X"], // Flutterwave
  ["glc_", "glc_[A-Za-z0-9+/]{32,400}={0,3}"], // Grafana Cloud
  ["glsa_", "glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"], // Grafana service account
  ["eyJrIjoi", "eyJrIjoi[A-Za-z0-9]{70,400}={0,3}"], // Grafana API key
  ["hvs.|hvr.", "hv[sr]\\.[A-Za-z0-9_-]{90,120}"], // HashiCorp Vault
  ["hvb.", "hvb\\.[A-Za-z0-9_-]{138,300}"],
  [".atlasv1.", "[a-z0-9]{14}\\.atlasv1\\.[a-z0-9_=-]{60,70}"], // Terraform Cloud
  ["HRKU-AA", "HRKU-AA[A-Za-z0-9_-]{58}"], // Heroku
  ["ico-", "ico-[A-Za-z0-9]{32}"], // Infracost
  ["_mmk", "[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk"], // MaxMind
  ["NRAK-", "NRAK-[A-Z0-9]{27}"], // New Relic
  ["NRII-", "NRII-[A-Za-z0-9-]{32}"],
  ["pscale_", "pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}"], // PlanetScale
  ["PMAK-", "PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}"], // Postman
  ["pnu_", "pnu_[A-Za-z0-9]{36}"], // Prefect
  ["pul-", "pul-[a-f0-9]{40}"], // Pulumi
  ["rdme_", "rdme_[a-z0-9]{70}"], // ReadMe
  ["rubygems_", "rubygems_[a-f0-9]{48}"],
  ["tk-us-", "tk-us-[A-Za-z0-9_-]{48}"], // Scalingo
  ["xkeysib-", "xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"], // Brevo (Sendinblue)
  ["sntryu_", "sntryu_[a-f0-9]{64}"], // Sentry
  ["sntrys_", "sntrys_eyJpYXQiO[A-Za-z0-9+/=_]{50,600}"],
  ["shippo_", "shippo_(?:live|test)_[a-fA-F0-9]{40}"],
  ["sq0atp-|sq0csp-", "sq0(?:atp-[A-Za-z0-9_-]{22,60}|csp-[A-Za-z0-9_-]{40,50})"], // Square
  ["tfp_", "tfp_[a-z0-9_.=-]{59}"], // Typeform
  ["duffel_", "duffel_(?:test|live)_[A-Za-z0-9_=-]{43}"],
  ["sk.eyJ", "sk\\.eyJ[A-Za-z0-9_-]{50,}\\.[A-Za-z0-9_-]{20,}"], // Mapbox secret token
  ["sgp_", "sgp_(?:[a-fA-F0-9]{16}_)?[a-fA-F0-9]{40}"], // Sourcegraph
  ["ATBB", "ATBB[A-Za-z0-9_=.-]{32}"], // Bitbucket app password
  ["pat", "pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}"], // Airtable personal access token
  ["cmVmd", "cmVmd[A-Za-z0-9]{59}"], // JFrog Artifactory reference token
  [
    ".acc_|.acc-",
    "(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\\.[a-z0-9]{4,6}\\.acc[_-][a-z0-9-]{10,32}\\.[A-Za-z0-9+/_=-]{30,120}",
  ], // Authress
  ["bedrock-api-key-", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]{0,2000}"], // AWS Bedrock short-lived
  ["4b1d", "4b1d[A-Za-z0-9]{38}"], // ClickHouse Cloud
  ["dnkey-", "dnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}"], // Defined Networking
  ["sl.", "sl\\.[A-Za-z0-9_=-]{130,152}"], // Dropbox short-lived
  ["FLWSECK_TEST", "FLWSECK_TEST[a-h0-9]{12}"], // Flutterwave encryption key
  ["fm1a_|fm1r_", "fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}"], // Fly.io macaroons
  ["pat.|sat.", "(?:pat|sat)\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{20}"], // Harness
  ["s-s4t2", "s-s4t2(?:ud|af)-[a-f0-9]{64}"], // 42 intra
  ["-us", "[a-f0-9]{32}-us[0-9]{1,2}"], // Mailchimp
  ["API-", "API-[A-Z0-9]{26}"], // Octopus Deploy
  ["sha256~", "sha256~[A-Za-z0-9_-]{43}"], // OpenShift user token
  ["sm_aat_|sm_pat_|sm_sat_", "sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}"], // SettleMint
  ["sqp_|squ_|sqa_", "sq[pua]_[a-f0-9]{40}"], // SonarQube
  ["t1.", "t1\\.[A-Za-z0-9_-]+={0,2}\\.[A-Za-z0-9_-]{86}={0,2}"], // Yandex IAM token
  ["AQVN", "AQVN[A-Za-z0-9_-]{35,38}"], // Yandex API key
  [
    "access-sandbox-|access-development-|access-production-",
    "access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
  ], // Plaid
  ["tvly-", "tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}"], // Tavily
  ["re_", "re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}"], // Resend
  ["lsv2_", "lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"], // LangSmith
  ["pcsk_", "pcsk_[A-Za-z0-9]{5,6}_[A-Za-z0-9]{50,}"], // Pinecone
  ["AAAAAAAAAAAAAAAAAAAAA", "A{22}(?<body>[A-Za-z0-9%]{80,100})"], // Twitter bearer token
  // trufflehog detectors with a prefix of their own:
  ["BBDC-", "BBDC-[A-Za-z0-9+/@_-]{40,50}"], // Bitbucket Data Center
  ["BBFF-", "BBFF-[0-9a-zA-Z]{30}"], // Ubidots
  ["CCIPAT_", "CCIPAT_[a-zA-Z0-9]{22}_[a-fA-F0-9]{40}"], // CircleCI personal token
  ["CFPAT-", "CFPAT-[a-zA-Z0-9_-]{43}"], // Contentful personal access token
  ["NRIQ-", "NRIQ-[a-zA-Z0-9_-]{25}"], // New Relic insights query key
  ["ak_live_", "ak_live_[a-zA-Z0-9]{30}"], // Pagar.me
  ["bkua_", "bkua_[a-z0-9]{40}"], // Buildkite
  ["cfk_", "cfk_[a-zA-Z0-9]{40}[a-f0-9]{8}"], // Cloudflare global API key
  ["figp_", "figp_[a-zA-Z0-9_=-]{40,54}"], // Figma personal access token
  ["flb_live_", "flb_live_[0-9a-zA-Z]{20}"], // Fleetbase
  ["nvapi-", "nvapi-[a-zA-Z0-9_-]{64}"], // NVIDIA
  ["phx_", "phx_[a-zA-Z0-9_]{43,48}"], // PostHog personal API key
  ["ramp_sec_", "ramp_sec_[A-Za-z0-9]{48}"], // Ramp
  ["rootly_", "rootly_[a-f0-9]{64}"], // Rootly
  ["salad_cloud_", "salad_cloud_[0-9A-Za-z]{1,7}_[0-9A-Za-z]{7,235}"], // SaladCloud
  ["shltm_", "shltm_[0-9a-zA-Z_-]{40}"], // Flexport
  ["slk_", "slk_[a-f0-9]{64}"], // Sourcegraph Cody
  ["sqco_", "sqco_[A-Za-z0-9]{59}"], // SonarCloud
  ["tskey-", "tskey-[a-z]+-[0-9A-Za-z_]{4,}-[0-9A-Za-z_]{8,}"], // Tailscale
  ["rh-api-", "rh-api-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"], // Robinhood Crypto
  ["bb_pr_|bb_ma_", "bb_(?:pr|ma)_[a-f0-9]{30}"], // Bannerbear
  ["nfp_", "nfp_[a-zA-Z0-9_]{36}"], // Netlify personal access token
  ["sk_", "sk_[a-f0-9]{48}"], // ElevenLabs
  ["EAAA", "EAAA[A-Za-z0-9_-]{22,60}"], // Square access token (gitleaks square-access-token)
];

/** Every provider rule, most specific first. */
export const PROVIDER_RULES: readonly Rule[] = [
  token("jwt", `eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*`, ["eyJ"]),
  token("anthropic-key", "sk-ant-[a-z]{2,10}[0-9]{0,3}-(?<body>[A-Za-z0-9_-]{20,})", ["sk-ant-"]),
  token("openrouter-key", "sk-or-v1-(?<body>[a-f0-9]{64})", ["sk-or-"]),
  token("minimax-key", "sk-cp-(?<body>[A-Za-z0-9_-]{20,})", ["sk-cp-"]),
  // OpenAI and the OpenAI-compatible `sk-` keys of DeepSeek, Moonshot and others.
  token(
    "openai-key",
    "sk-(?:(?:proj|svcacct|admin|None)-(?<body>[A-Za-z0-9_-]{20,})|[A-Za-z0-9]{32,})",
    ["sk-"],
    true,
  ),
  rule(
    "github-token",
    `(?<![A-Za-z0-9_])(?:gh[pousr]_(?<body>[A-Za-z0-9]{36,})|github_pat_[A-Za-z0-9_]{22,})(?![A-Za-z0-9_])`,
    { triggers: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"], pick: real },
  ),
  token(
    "gitlab-token",
    "(?:glpat|gldt|glrt|glptt|glcbt|glimt|glft|glsoat|gloas|glagent|glwt|glffct)-(?<body>[A-Za-z0-9_-]{20,})(?:\\.[A-Za-z0-9_-]+){0,2}|GR1348941[A-Za-z0-9_-]{20,}",
    [
      "glpat-",
      "gldt-",
      "glrt-",
      "glptt-",
      "glcbt-",
      "glimt-",
      "glft-",
      "glsoat-",
      "gloas-",
      "glagent-",
      "glwt-",
      "glffct-",
      "GR1348941",
    ],
  ),
  // Bot, user, app, refresh and legacy tokens; `xoxc-` (a browser client's token) and `xoxd-` (its session
  // cookie, URL-encoded) act as the user they belong to.
  token(
    "slack-token",
    "(?:xoxe\\.)?xox[abceoprs]-[0-9][A-Za-z0-9-]{8,}|xoxd-[A-Za-z0-9%_.+/=-]{20,}|xapp-[0-9]-[A-Za-z0-9-]{10,}",
    ["xox", "xapp-"],
  ),
  // A Microsoft Teams incoming webhook URL: whoever holds it can post to the channel.
  token(
    "service-token",
    String.raw`https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/[a-f0-9-]{36}@[a-f0-9-]{36}/IncomingWebhook/[a-f0-9]{32}/[a-f0-9-]{36}`,
    [".webhook.office.com/"],
  ),
  // GitLab's session cookie.
  token("gitlab-token", "_gitlab_session=(?<body>[0-9a-z]{32})", ["_gitlab_session="]),
  rule(
    "slack-token",
    String.raw`hooks\.slack\.com/(?:services/T[A-Z0-9]+/B[A-Z0-9]+|workflows/[A-Za-z0-9]+/[A-Za-z0-9]+|triggers/[A-Za-z0-9]+/[0-9]+)/(?<secret>[A-Za-z0-9]{16,})`,
    { triggers: ["hooks.slack.com/"], pick: secret(() => true) },
  ),
  rule(
    "stripe-key",
    `(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test|prod)_(?<body>[A-Za-z0-9]{10,247})|whsec_[A-Za-z0-9]{24,})(?![A-Za-z0-9_])`,
    {
      triggers: ["sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_"],
      pick: real,
    },
  ),
  rule("npm-token", `(?<![A-Za-z0-9_])npm_(?<body>[A-Za-z0-9]{36})(?![A-Za-z0-9_])`, {
    triggers: ["npm_"],
    pick: real,
  }),
  // .npmrc: `//registry.npmjs.org/:_authToken=<token>`; legacy tokens are UUIDs.
  rule("npm-token", String.raw`:_(?:authToken|auth|password)[ \t]*=[ \t]*(?<secret>[^\s"'\`]+)`, {
    triggers: [":_auth", ":_password"],
    pick: secret((value) => !isPlaceholder(value)),
  }),
  token(
    "google-api-key",
    "AIza(?<body>[A-Za-z0-9_-]{35})|GOCSPX-[A-Za-z0-9_-]{28}|ya29\\.[A-Za-z0-9_-]{30,}",
    ["AIza", "GOCSPX-", "ya29."],
  ),
  rule(
    "aws-access-key",
    `(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)(?<body>[A-Z0-9]{16})(?![A-Za-z0-9])`,
    {
      triggers: ["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
      pick: real,
    },
  ),
  // A 40-character secret access key is only recognisable by its name.
  rule(
    "aws-secret",
    String.raw`(?<![A-Za-z0-9])(?<q>["']?)(?:aws[_-]?)?secret[_-]?access[_-]?key\k<q>[ \t]*[:=][ \t]*["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
    {
      flags: "i",
      triggers: ["secret_access", "secretaccess", "secret-access"],
      caseSensitive: false,
      pick: secret((value) => !isPlaceholderBody(value)),
    },
  ),
  token("huggingface-token", "(?:hf_|api_org_)(?<body>[A-Za-z0-9]{34})", ["hf_", "api_org_"], true),
  token("groq-key", "gsk_(?<body>[A-Za-z0-9]{52})", ["gsk_"], true),
  token("xai-key", "xai-(?<body>[A-Za-z0-9]{40,100})", ["xai-"], true),
  token("replicate-token", "r8_(?<body>[A-Za-z0-9]{30,40})", ["r8_"], true),
  token("perplexity-key", "pplx-(?<body>[A-Za-z0-9]{32,64})", ["pplx-"], true),
  // `<bot id>:<35 characters>`, alone or in a Bot API URL path (`/bot<token>/sendMessage`).
  rule(
    "telegram-bot-token",
    `(?:(?<![A-Za-z0-9_:/-])|(?<=/bot))[0-9]{8,10}:(?<body>A[A-Za-z0-9_-]{34})${TE}`,
    {
      triggers: [":A"],
      pick: realMixed,
    },
  ),
  // A bot token is the base64 user id, a timestamp and an HMAC; it has no literal prefix to look for.
  rule(
    "discord-token",
    `${TB}(?<body>[MNO][A-Za-z0-9_-]{23,27})\\.[A-Za-z0-9_-]{6}\\.(?<mac>[A-Za-z0-9_-]{27,40})${TE}`,
    {
      triggers: [],
      pick: (m) =>
        classCount(m.groups?.body ?? "") >= 2 && classCount(m.groups?.mac ?? "") >= 2
          ? { start: m.index, end: m.index + m[0].length }
          : undefined,
    },
  ),
  rule(
    "discord-token",
    String.raw`discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/(?<secret>[A-Za-z0-9_-]{60,80})`,
    {
      triggers: ["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"],
      pick: secret((value) => !isPlaceholderBody(value)),
    },
  ),
  token(
    "twilio-key",
    "SK(?<body>[0-9a-fA-F]{32})",
    [...HEX_DIGITS].map((h) => `SK${h}`),
  ),
  // An account SID is not secret, the auth token written after it (`AC…:token`, `Client("AC…", "token")`) is.
  rule(
    "twilio-key",
    String.raw`(?<![A-Za-z0-9])AC[0-9a-f]{32}(?:["'\`]?[ \t]*[,:;][ \t]*["'\`]?|[ \t]+)(?<secret>[0-9a-f]{32})(?![A-Za-z0-9])`,
    { triggers: [...HEX_DIGITS].map((h) => `AC${h}`), pick: secret((value) => !isPlaceholderBody(value)) },
  ),
  token("sendgrid-key", "SG\\.[A-Za-z0-9_-]{16,32}\\.(?<body>[A-Za-z0-9_-]{30,50})", ["SG."], true),
  token("mailgun-key", "key-(?<body>[0-9a-f]{32})", ["key-"]),
  token("shopify-token", "shp(?:at|ss|ca|pa)_(?<body>[a-fA-F0-9]{32})", [
    "shpat_",
    "shpss_",
    "shpca_",
    "shppa_",
  ]),
  token("digitalocean-token", "do[opr]_v1_(?<body>[a-f0-9]{64})", ["dop_v1_", "doo_v1_", "dor_v1_"]),
  // A service token may name its config: `dp.st.prd.…` (trufflehog's Doppler detector).
  token(
    "doppler-token",
    "dp\\.(?:pt|st(?:\\.[a-z0-9_-]{2,35})?|sa|ct|scim|audit)\\.(?<body>[A-Za-z0-9]{40,44})",
    ["dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."],
  ),
  token("databricks-token", "dapi(?<body>[a-f0-9]{32})(?:-[0-9])?", ["dapi"]),
  token("pypi-token", "pypi-AgE(?<body>[A-Za-z0-9_-]{50,})", ["pypi-AgE"]),
  rule(
    "azure-storage-key",
    String.raw`(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)[ \t]*=[ \t]*(?<secret>[A-Za-z0-9+/]{40,}={0,2})(?![A-Za-z0-9+/=])`,
    {
      flags: "i",
      triggers: ["accountkey", "sharedaccesskey"],
      caseSensitive: false,
      pick: secret((v) => !isPlaceholderBody(v)),
    },
  ),
  token(
    "notion-token",
    "secret_(?<body>[A-Za-z0-9]{43})|ntn_[0-9]{11}[A-Za-z0-9]{35}",
    ["secret_", "ntn_"],
    true,
  ),
  token("linear-key", "lin_(?:api|oauth)_(?<body>[A-Za-z0-9]{32,128})", ["lin_api_", "lin_oauth_"]),
  token("figma-token", "figd_(?<body>[A-Za-z0-9_-]{40,200})", ["figd_"]),
  token("supabase-key", "sbp_(?:v0_)?(?<body>[a-f0-9]{40})|sb_secret_[A-Za-z0-9_-]{20,}", [
    "sbp_",
    "sb_secret_",
  ]),
  token("vercel-token", "vc[pikar]_(?<body>[A-Za-z0-9]{20,60})", ["vcp_", "vci_", "vck_", "vca_", "vcr_"]),
  token("atlassian-token", "ATATT3(?<body>[A-Za-z0-9_=-]{150,250})", ["ATATT3"]),
  token("cloudflare-token", "v1\\.0-[a-f0-9]{24}-(?<body>[a-f0-9]{146})", ["v1.0-"]),
  // Cloudflare API tokens (40) and global keys (37 hex) have no prefix; their name says Cloudflare.
  rule(
    "cloudflare-token",
    String.raw`(?<![A-Za-z0-9_.-])["']?[A-Za-z0-9_.-]*(?:cloudflare|\bcf)[A-Za-z0-9_.-]*["']?[ \t]*(?::|=|:=)[ \t]*["']?(?<secret>[A-Za-z0-9_-]{37,40})(?![A-Za-z0-9_-])`,
    {
      flags: "i",
      triggers: ["cloudflare", "cf_"],
      caseSensitive: false,
      pick: secret((v) => !isPlaceholderBody(v) && classCount(v) >= 2),
    },
  ),
  token(
    "service-token",
    SERVICE_TOKENS.map(([, pattern]) => pattern).join("|"),
    SERVICE_TOKENS.flatMap(([triggers]) => triggers.split("|")),
  ),
  // A PEM private key in base64 (`client-key-data: LS0tLS1CRUdJTi…` of a kubeconfig, a Helm value, a CI
  // variable): `-----BEGIN` encoded, and a private key once decoded (a certificate is public).
  rule(
    "private-key",
    String.raw`(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=])`,
    {
      triggers: ["LS0tLS1CRUdJTi"],
      pick: whole((body) =>
        Buffer.from(body.slice(0, 96), "base64").toString("latin1").includes("PRIVATE KEY-----"),
      ),
    },
  ),
];
