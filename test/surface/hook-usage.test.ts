import { describe, expect, it } from "vitest";
import { contextUse, lastCallUsage } from "../../plugin/surface/hook-usage.ts";

describe("contextUse", () => {
  it("is the prompt with cache reads and writes plus the output, over the budget", () => {
    expect(contextUse({ input: 600, cacheRead: 200, cacheWrite: 100, output: 100 }, 2000)).toBe(0.5);
  });

  it("is null without a usage, a budget, or any token", () => {
    expect(contextUse(undefined, 1000)).toBeNull();
    expect(contextUse({ input: 10 }, undefined)).toBeNull();
    expect(contextUse({ input: 10 }, 0)).toBeNull();
    expect(contextUse({}, 1000)).toBeNull();
  });
});

describe("lastCallUsage", () => {
  it("reads the last call's numbers and drops what is not a finite number", () => {
    expect(
      lastCallUsage({ usage: { input: 37642, output: 12, cacheRead: "x", cacheWrite: Number.NaN } }),
    ).toEqual({
      input: 37642,
      output: 12,
    });
  });

  it("is undefined for an answer without usage", () => {
    expect(lastCallUsage(null)).toBeUndefined();
    expect(lastCallUsage({})).toBeUndefined();
    expect(lastCallUsage({ usage: {} })).toBeUndefined();
  });
});
