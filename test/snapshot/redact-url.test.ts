import { describe, expect, it } from "vitest";
import { redact } from "../../plugin/snapshot/redact.ts";
import { passwordToAt, USERINFO_RULES } from "../../plugin/snapshot/redact-url.ts";

const MARK = "[REDACTED:url-credentials]";

describe("passwordToAt", () => {
  it("ends a password at the `@` that ends its run, and at up to three more runs each ending at one", () => {
    expect(passwordToAt("p@ss", 0)).toBe(1);
    expect(passwordToAt("a@b@host", 0)).toBe(3);
    expect(passwordToAt("a@b@c@d@host", 0)).toBe(7);
    // Four more runs: the password stops after the third.
    expect(passwordToAt("a@b@c@d@e@host", 0)).toBe(7);
  });

  it("takes no empty run, no white space, quote or angle bracket, and no run over 256 characters", () => {
    expect(passwordToAt("@host", 0)).toBe(-1);
    expect(passwordToAt("a@@b@", 0)).toBe(1);
    expect(passwordToAt("a b@", 0)).toBe(-1);
    expect(passwordToAt('a"b@', 0)).toBe(-1);
    expect(passwordToAt("a<b@", 0)).toBe(-1);
    expect(passwordToAt("a\u00a0b@", 0)).toBe(-1);
    expect(passwordToAt(`${"x".repeat(256)}@`, 0)).toBe(256);
    expect(passwordToAt(`${"x".repeat(257)}@`, 0)).toBe(-1);
    expect(passwordToAt(`a@${"x".repeat(257)}@`, 0)).toBe(1);
    expect(passwordToAt("no at sign", 0)).toBe(-1);
  });

  it("reads from where it is asked, again after a later start in the same text", () => {
    const text = "u:one/two@h u:three@h";
    expect(passwordToAt(text, 2)).toBe(9);
    expect(passwordToAt(text, 14)).toBe(19);
    expect(passwordToAt(text, 2)).toBe(9);
  });
});

describe("userinfo rules", () => {
  it("are the token-as-user rule and the user:password rule", () => {
    expect(USERINFO_RULES.map((r) => r.kind)).toEqual(["url-credentials", "url-credentials"]);
  });

  it("redact a password holding `/`, `#`, `?` or `@` up to the last `@` of the authority", () => {
    expect(redact("mysql://root:pa/ss#w?d@db:3306/app").text).toBe(`mysql://root:${MARK}@db:3306/app`);
    expect(redact("mysql://root:p@ss@db/app").text).toBe(`mysql://root:${MARK}@db/app`);
    expect(redact("postgres://u:a/b@c@host/db").text).toBe(`postgres://u:${MARK}@host/db`);
    expect(redact(String.raw`"mysql:\/\/root:Xk9#mP2@db"`).text).toBe(
      String.raw`"mysql:\/\/root:${MARK}@db"`,
    );
  });

  it("keep placeholders and URLs without an `@`", () => {
    expect(redact("https://user:<password>@host").total).toBe(0);
    expect(redact("https://user:pa/ss https://x.org/a").total).toBe(0);
    expect(redact("see https://example.com:8080/path and mail me@example.com").total).toBe(0);
  });

  it("go on after the `@` that ends a password: an `@` right after it is not read as a second password", () => {
    const text = "redis://9..:.Bx://Ba~:@@ftp://q";
    expect(redact(text).text).toBe(`redis://9..:${MARK}@@ftp://q`);
  });

  it("find the one password on a line of URLs whose `@` is thousands of characters away", () => {
    const line = `${"https://user:pa".repeat(2000)}@host`;
    const { text, total } = redact(line);
    expect(total).toBe(1);
    expect(text.endsWith(`:${MARK}@host`)).toBe(true);
  });
});
