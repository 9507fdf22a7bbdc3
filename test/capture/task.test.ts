import { describe, expect, it } from "vitest";
import { harnessRoot, taskNames, taskProse, unwrapTask } from "../../plugin/capture/task.ts";

// The wrappers issue runners and coding agents put around a task, as they send them (OpenHands'
// SWE-bench prompt, the "We're currently solving" issue template, Codex's environment context).
const OPENHANDS = [
  "<uploaded_files>",
  "/workspace/astropy__astropy__5.1",
  "</uploaded_files>",
  "I've uploaded a python code repository in the directory astropy__astropy__5.1. Consider the following PR description:",
  "",
  "<pr_description>",
  "Card.fromstring fails on bytes in Python 3",
  "",
  "`astropy.io.fits.Card.fromstring` raises `TypeError` when given `bytes`. Seen with astropy 5.1 and numpy 1.24:",
  "```python",
  'Card.fromstring(b"FOO = 1")',
  "```",
  "</pr_description>",
  "",
  "Can you help me implement the necessary changes to the repository so that the requirements specified in the <pr_description> are met?",
  "Your task is to make the minimal changes to non-tests files in the /workspace directory to ensure the <pr_description> is satisfied.",
].join("\n");
const ISSUE_TEMPLATE = [
  "We're currently solving the following issue within our repository. Here's the issue text:",
  "ISSUE:",
  "`--sort-by` ignores `--reverse` in `ls_files()`",
  "",
  "INSTRUCTIONS:",
  "Now, you're going to solve this issue on your own. Your terminal session has started. Set MY_ENV_VAR first.",
].join("\n");
const CODEX = [
  "<environment_context>",
  "  <cwd>/home/dev/billing</cwd>",
  "  <approval_policy>on-request</approval_policy>",
  "</environment_context>",
  "Add an upsert on (user_id, device_id) in src/sessions.ts",
].join("\n");

describe("unwrapTask", () => {
  it("takes the task from its tag and drops the harness's instructions", () => {
    const task = unwrapTask(OPENHANDS);
    expect(task.startsWith("Card.fromstring fails on bytes in Python 3")).toBe(true);
    expect(task).not.toContain("uploaded");
    expect(task).not.toContain("Can you help me");
  });

  it("drops an issue template's lead-in and its INSTRUCTIONS", () => {
    expect(unwrapTask(ISSUE_TEMPLATE)).toBe("`--sort-by` ignores `--reverse` in `ls_files()`");
  });

  it("drops context tags and leaves a plain message as it is", () => {
    expect(unwrapTask(CODEX)).toBe("Add an upsert on (user_id, device_id) in src/sessions.ts");
    expect(unwrapTask("  Fix the login redirect loop  ")).toBe("Fix the login redirect loop");
  });
});

/** A Claude Code custom slash command as expanded into the user's turn (shape of a real `/pr-review` session). */
const SLASH_TEMPLATE = [
  "## Context",
  "",
  "- Current pull request status: title:\tSupport Factory Droid as provider",
  "state:\tOPEN",
  "reviewers:\tcopilot-pull-request-reviewer (Commented)",
  "- Current pull request diff: diff --git a/.gitignore b/.gitignore",
  "+.idea/",
  "",
  "## Your task",
  "",
  "Examine pull request $1 using the GitHub CLI command.",
  "",
  "Please code review the pull request.",
  "",
  "```",
  "  // New: rpcClient, err := client.NewRPCClient(dir)",
  "```",
  "",
  "ARGUMENTS: 150",
].join("\n");

/** Claude Code's approved plan handed back as the user's turn, with its pointer to the old transcript. */
const APPROVED_PLAN = [
  "Implement the following plan:",
  "",
  "# Plan: Move watch command to pkg/cmd/watch.go",
  "",
  "Use `fmt.Sprintf` and `markdown.GenerateMarkdownFromAgentSession` from `cmd.checkAndWarnAuthentication`.",
  "",
  "If you need specific details from before exiting plan mode (like exact code snippets, error messages, or content you generated), read the full transcript at: /Users/x/.claude/projects/-Users-x/ab42e73a-3e8a-47fe-8ff9-17ac6e60e7de.jsonl",
].join("\n");

describe("unwrapTask: templates of real sessions", () => {
  it("takes a slash-command template's task section, not the context its commands printed", () => {
    const task = unwrapTask(SLASH_TEMPLATE);
    expect(task.startsWith("Examine pull request $1")).toBe(true);
    expect(task).not.toContain("copilot-pull-request-reviewer");
    expect(taskNames(task, 12).map((n) => n.value)).toContain("client.NewRPCClient");
  });

  it("drops the pointer to an earlier transcript an approved plan carries", () => {
    const task = unwrapTask(APPROVED_PLAN);
    expect(task).toContain("# Plan: Move watch command");
    expect(task).not.toContain("ab42e73a");
  });

  it("leaves a message with a Context heading but no task section as it is", () => {
    const text = "## Context\n\nThe cache is stale after a deploy; find out why.";
    expect(unwrapTask(text)).toBe(text);
  });
});

describe("harnessRoot", () => {
  it("reads the root a harness names", () => {
    expect(harnessRoot(OPENHANDS)).toBe("/workspace/astropy__astropy__5.1");
    expect(harnessRoot(CODEX)).toBe("/home/dev/billing");
    expect(harnessRoot("Fix it")).toBeNull();
  });
});

describe("taskProse", () => {
  it("leaves code out of the prose", () => {
    expect(taskProse(unwrapTask(OPENHANDS))).toBe(
      "Card.fromstring fails on bytes in Python 3 `astropy.io.fits.Card.fromstring` raises `TypeError` when given `bytes`. Seen with astropy 5.1 and numpy 1.24:",
    );
  });
});

describe("taskNames", () => {
  it("reads class paths, errors, flags and versions from the whole task, errors first", () => {
    const names = taskNames(unwrapTask(OPENHANDS), 12).map((n) => n.value);
    expect(names[0]).toBe("TypeError");
    expect(names).toContain("astropy.io.fits.Card.fromstring");
    expect(names).toContain("5.1");
    expect(names).toContain("1.24");
    const flags = taskNames(unwrapTask(ISSUE_TEMPLATE), 12).map((n) => n.value);
    expect(flags).toEqual(expect.arrayContaining(["--sort-by", "--reverse", "ls_files"]));
    expect(flags).not.toContain("MY_ENV_VAR");
  });

  it("ranks the more specific names first among names of one kind", () => {
    const names = taskNames(unwrapTask(APPROVED_PLAN), 12).map((n) => n.value);
    expect(names.indexOf("markdown.GenerateMarkdownFromAgentSession")).toBeLessThan(
      names.indexOf("fmt.Sprintf"),
    );
    expect(names.indexOf("cmd.checkAndWarnAuthentication")).toBeLessThan(names.indexOf("fmt.Sprintf"));
  });

  it("keeps at most `max`", () => {
    expect(taskNames(unwrapTask(OPENHANDS), 2)).toHaveLength(2);
  });
});
