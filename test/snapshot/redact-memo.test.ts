import { describe, expect, it } from "vitest";
import { Verdicts } from "../../plugin/snapshot/redact-memo.ts";

describe("Verdicts", () => {
  it("answers what it was told for a value, and nothing for a value it was not told", () => {
    const memo = new Verdicts();
    memo.set("Xk9mP2vLq", true);
    memo.set("getAccessToken", false);
    memo.set("", false);
    expect([memo.get("Xk9mP2vLq"), memo.get("getAccessToken"), memo.get(""), memo.get("other")]).toEqual([
      true,
      false,
      false,
      undefined,
    ]);
  });

  it("never answers for a value that shares a slot with a newer one, and keeps nothing over 64 characters", () => {
    const memo = new Verdicts();
    const values = Array.from({ length: 50_000 }, (_, i) => `Xk9mP2${i.toString(36).padStart(4, "0")}`);
    for (const [i, v] of values.entries()) memo.set(v, i % 3 === 0);
    // Every answer it still gives is the verdict it was told; most old values were pushed out.
    for (const [i, v] of values.entries()) expect([undefined, i % 3 === 0]).toContain(memo.get(v));
    expect(values.filter((v) => memo.get(v) !== undefined).length).toBeLessThanOrEqual(4096);
    const long = "a1B2".repeat(17);
    memo.set(long, true);
    expect(memo.get(long)).toBeUndefined();
  });
});
