import { describe, expect, it } from "vitest";
import {
  detectBranch,
  detectDecisions,
  detectPlan,
  extractNames,
  planParts,
  statedIntents,
} from "../../plugin/capture/prose.ts";

describe("extractNames", () => {
  it("finds error codes, endpoints and tickets in order of appearance", () => {
    expect(
      extractNames("Fails with ERR_DUPLICATE_KEY on POST /api/v1/users (ADR-016, INV-2026-00417).", {
        backticks: false,
      }),
    ).toEqual([
      { value: "ERR_DUPLICATE_KEY", kind: "error" },
      { value: "POST /api/v1/users", kind: "endpoint" },
      { value: "ADR-016", kind: "ticket" },
      { value: "INV-2026-00417", kind: "ticket" },
    ]);
  });

  it("labels assigned, expanded and conventionally named variables as env vars", () => {
    expect(
      extractNames("export DATABASE_URL=pg && echo $REDIS_HOST; API_TOKEN is set; MAX_RETRIES stays", {
        backticks: false,
      }),
    ).toEqual([
      { value: "DATABASE_URL", kind: "env" },
      { value: "REDIS_HOST", kind: "env" },
      { value: "API_TOKEN", kind: "env" },
      { value: "MAX_RETRIES", kind: "identifier" },
    ]);
  });

  it("finds errno codes, error classes and issue numbers but not encodings or hashes", () => {
    expect(
      extractNames("ENOENT then TypeError in UTF-8 and SHA-256 code, see #412 not a#13", {
        backticks: false,
      }),
    ).toEqual([
      { value: "ENOENT", kind: "error" },
      { value: "TypeError", kind: "error" },
      { value: "#412", kind: "ticket" },
    ]);
  });

  it("reads backticked spans only when asked, as paths or identifiers", () => {
    const text = "Set `users.email` in `src/db/users.ts`, keep `true`, run `npm test`, see `ERR_X_Y`.";
    expect(extractNames(text, { backticks: true })).toEqual([
      { value: "users.email", kind: "identifier" },
      { value: "src/db/users.ts", kind: "path" },
      { value: "ERR_X_Y", kind: "error" },
    ]);
    expect(extractNames(text, { backticks: false })).toEqual([{ value: "ERR_X_Y", kind: "error" }]);
  });
});

describe("detectBranch", () => {
  it.each([
    ["git checkout -b feat/x", "feat/x"],
    ["git switch -c fix/y origin/main", "fix/y"],
    ["git switch main", "main"],
    ["git checkout release-1.2", "release-1.2"],
    ["cd repo && git checkout -b a && git checkout -b b", "b"],
    ["git checkout src/app.ts", null],
    ["git checkout -- src/app.ts", null],
    ["git checkout main -- src/app.ts", null],
    ["git checkout 3f2a9c1", null],
  ])("reads %j as %j", (command, expected) => {
    expect(detectBranch(command, "", "")).toBe(expected);
  });

  it("prefers the output over the command over prose", () => {
    expect(detectBranch("git checkout -b a", "Switched to a new branch 'b'", "on branch c-1")).toBe("b");
    expect(detectBranch("git checkout -b a", "", "on branch c-1")).toBe("a");
    expect(detectBranch("", "Already on 'main'", "")).toBe("main");
  });

  it.each([
    ["We are on branch main.", "main"],
    ["on the 'feat/pay' branch", "feat/pay"],
    ["Turn on branch protection", null],
  ])("reads prose %j as %j", (prose, expected) => {
    expect(detectBranch("", "", prose)).toBe(expected);
  });
});

describe("detectPlan", () => {
  it.each([
    ["Done.\n\nNext steps:\n- add index\n- rerun", "Next steps:\n- add index\n- rerun"],
    ["**Plan:** migrate first", "**Plan:** migrate first"],
    ["Status\n## Next steps\n1. a\n2. b", "## Next steps\n1. a\n2. b"],
    [
      "Here is what I'll do:\n1. add the index\n2. rerun `npm test`",
      "Here is what I'll do:\n1. add the index\n2. rerun `npm test`",
    ],
    // An enumeration of cases is no plan, even after an intent.
    ["I'll check these cases:\n1. an empty list\n2. a list of one\n3. None as input", null],
    ["Changes made:\n1. renamed a\n2. removed b", null],
    ["Next, I will run the tests.", null],
    ["```\nNext: not prose\n```", null],
  ])("reads %j as %j", (text, expected) => {
    expect(detectPlan(text)).toBe(expected);
  });
});

describe("planParts", () => {
  it("splits a plan at its marker", () => {
    expect(planParts("intro\n- Next: 1. a 2. b\n- c")).toEqual({ head: "1. a 2. b", body: ["- c"] });
    expect(planParts("1. a\n2. b")).toEqual({ head: null, body: ["1. a", "2. b"] });
  });
});

describe("detectDecisions", () => {
  it("keeps sentences that state a decision", () => {
    expect(
      detectDecisions(
        "I decided to use Postgres because of JSONB. The build is green.\n- We'll use zod instead of io-ts.\n```\nchose in code\n```",
      ),
    ).toEqual(["I decided to use Postgres because of JSONB.", "We'll use zod instead of io-ts."]);
  });
});

describe("statedIntents", () => {
  it("turns announced steps into imperatives, in order, and skips courtesy phrases", () => {
    const text =
      "Found it. Now I'll add the unique index on users.email. Let me rerun the tests after that. I'll be happy to help. Let me know!";
    expect(statedIntents(text, 5)).toEqual([
      "Add the unique index on users.email",
      "Rerun the tests after that",
    ]);
  });

  it("ignores fenced code and keeps at most max steps", () => {
    expect(
      statedIntents(
        "```\nI'll run rm -rf /\n```\nI'll write the test. I'll fix the bug. I'll ship it now.",
        2,
      ),
    ).toEqual(["Write the test", "Fix the bug"]);
  });
});
