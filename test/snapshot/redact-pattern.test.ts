import { describe, expect, it } from "vitest";
import { compileRules, findSecrets, type Rule, rule, secret } from "../../plugin/snapshot/redact-engine.ts";
import { numbered } from "../../plugin/snapshot/redact-pattern.ts";

/** The secrets `rules` find in `text`, as `[kind, text]`. */
function found(rules: readonly Rule[], text: string): [string, string][] {
  return findSecrets(text, compileRules(rules)).map((f) => [f.kind, text.slice(f.start, f.end)]);
}

describe("numbered", () => {
  it("numbers named groups among plain ones and rewrites their references", () => {
    const { source, group } = numbered(String.raw`(?<a>x)(y)(?:z)(?<b>["'])w\k<b>\k<a>`);
    expect(group).toEqual({ a: 1, b: 3 });
    expect(source).toBe(String.raw`(x)(y)(?:z)(["'])w(?:\3)(?:\1)`);
    const m = new RegExp(source).exec(`xyz'w'x`);
    expect([m?.[1], m?.[3]]).toEqual(["x", "'"]);
  });

  it("leaves lookbehinds, escaped parentheses and character classes as they are", () => {
    const text = String.raw`(?<![a-z])\((?<n>[(?<]+)\)(?<=\))`;
    const { source, group } = numbered(text);
    expect(source).toBe(String.raw`(?<![a-z])\(([(?<]+)\)(?<=\))`);
    expect(group).toEqual({ n: 1 });
    expect(new RegExp(source).exec("a(< (<?()")?.[1]).toBe("<?(");
  });

  it("gives a rule compiled from it the same findings, located by number", () => {
    const named = String.raw`key=(?<q>["'])(?<secret>[a-z]{4,})\k<q>`;
    const { source, group } = numbered(named);
    const byNumber = rule("secret-assignment", source, {
      triggers: ["key="],
      pick: (_m, at) => {
        const range = at(group.secret ?? 0);
        return range === undefined ? undefined : { start: range[0], end: range[1] };
      },
    });
    const byName = rule("secret-assignment", named, { triggers: ["key="], pick: secret(() => true) });
    const text = `a key="abcdef" b key='xyzw" c key='qwerty'`;
    expect(found([byNumber], text)).toEqual(found([byName], text));
    expect(found([byNumber], text)).toEqual([
      ["secret-assignment", "abcdef"],
      ["secret-assignment", "qwerty"],
    ]);
  });
});
