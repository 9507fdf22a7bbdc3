import { describe, expect, it } from "vitest";
import { parsePluginConfig } from "../plugin/config.ts";

describe("parsePluginConfig", () => {
  it("fills every default from an empty config", () => {
    expect(parsePluginConfig(undefined)).toEqual({
      enabled: true,
      capture: { flushPrompt: true, safetyNet: true, thresholds: [0.7] },
      restore: {
        afterCompaction: true,
        afterReset: true,
        onAmnesia: true,
        tokenBudget: 1500,
        amnesiaPhrases: [],
      },
      scope: "session",
    });
  });

  it("names each bad key and what was expected", () => {
    expect(() => parsePluginConfig({ restore: { tokenBudget: 10 }, scope: "everyone", typo: 1 })).toThrow(
      'big-memory: invalid plugin config: restore.tokenBudget: Too small: expected number to be >=300; scope: Invalid option: expected one of "session"|"agent"|"workspace"; (root): Unrecognized key: "typo"',
    );
  });
});
