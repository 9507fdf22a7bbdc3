import { describe, expect, it } from "vitest";
import { ECHO_MAX, echoed, holdsSecret } from "../../plugin/snapshot/echo.ts";

describe("echoed", () => {
  it("quotes plain typed text as a JSON string", () => {
    expect(echoed("oauth-dup-fix")).toBe('"oauth-dup-fix"');
    expect(echoed('say "hi" \\ there')).toBe('"say \\"hi\\" \\\\ there"');
  });

  it("redacts a secret before quoting it", () => {
    const token = `ghp_${"Qd5v".repeat(9)}`;
    expect(echoed(`use ${token}`)).toBe('"use [REDACTED:github-token]"');
    expect(holdsSecret(token)).toBe(true);
    expect(holdsSecret("oauth-dup-fix")).toBe(false);
  });

  it("drops control, bidi and zero-width characters, folds white space and cuts to the limit", () => {
    expect(echoed("a\u0007b\u202Ec\u200Bd\r\n\te")).toBe('"a b c d e"');
    const long = echoed("y".repeat(500));
    expect([...JSON.parse(long)].length).toBe(ECHO_MAX);
    expect(long.endsWith('…"')).toBe(true);
    expect(echoed("z".repeat(10), 4)).toBe('"zzz…"');
  });
});
