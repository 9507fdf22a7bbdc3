import { expect, it } from "vitest";
import { compileRules, findSecrets, type Rule } from "../../plugin/snapshot/redact-engine.ts";
import { NEGATIVES } from "./fixtures/secret-corpus.ts";

/**
 * One rule of a redaction table on its own: a text it must find (and the exact secret it replaces) and a
 * near miss it must leave alone. The tests of the rule tables check each rule against its case, so a rule
 * that stops matching, or starts matching its near miss, is named.
 */
export interface RuleCase {
  /** What the rule is for, as the table documents it. */
  readonly about: string;
  readonly text: string;
  /** The substring of `text` the rule replaces. */
  readonly secret: string;
  /** A text that nearly matches and must not. */
  readonly miss: string;
}

/** `alphabet` repeated to `length` characters: a deterministic random-looking body. */
export function body(alphabet: string, length: number): string {
  return alphabet.repeat(Math.ceil(length / alphabet.length)).slice(0, length);
}

/** Mixed case and digits, hex, upper case and digits, base64 and lower case bodies. */
export const MIXED = "Kd4eRt7wQz2mPx9L";
export const HEX = "3f9a1b2c4d5e6078";
export const UPPER = "K4R7Q2P9LZ3M5N8W";
export const B64 = "Kd4e+Rt7/wQz2mPx";
export const LOWER = "kdertwqzmpxl";

/** What `rule` alone finds in `text`, as the replaced substrings. */
export function foundBy(rule: Rule, text: string): string[] {
  return findSecrets(text, compileRules([rule])).map((f) => text.slice(f.start, f.end));
}

/** Checks a rule against its case: the secret is found, and only it; the near miss is left alone. */
export function expectCase(rule: Rule, c: RuleCase): void {
  expect(c.text).toContain(c.secret);
  expect(foundBy(rule, c.text)).toEqual([c.secret]);
  expect(foundBy(rule, c.miss)).toEqual([]);
}

/** The case that stands in for a rule without one: it fails, naming the rule. */
const NO_CASE: RuleCase = { about: "no case", text: "", secret: "a case for this rule", miss: "" };

/** Each rule of `rules` with its index, kind and the case at the same index of `cases`. */
function pairRules(
  rules: readonly Rule[],
  cases: readonly RuleCase[],
): { i: number; kind: string; rule: Rule; c: RuleCase }[] {
  return rules.map((rule, i) => ({ i, kind: rule.kind, rule, c: cases[i] ?? NO_CASE }));
}

/** For each of `rules` that finds something in a hard negative of the labelled corpus: its index and those negatives. */
function rulesFiringOnNegatives(rules: readonly Rule[]): [number, string[]][] {
  return rules
    .map((rule, i): [number, string[]] => {
      const set = compileRules([rule]);
      return [i, NEGATIVES.filter((n) => findSecrets(n.text, set).length > 0).map((n) => n.name)];
    })
    .filter(([, names]) => names.length > 0);
}

/**
 * The tests every rule table gets, inside its `describe`: one case per rule, each rule finding its case's
 * secret and leaving its near miss, and no rule finding anything in a hard negative of the labelled corpus.
 */
export function ruleTableTests(rules: readonly Rule[], cases: readonly RuleCase[]): void {
  it("has one case per rule", () => {
    expect(cases.length).toBe(rules.length);
  });

  it.each(pairRules(rules, cases))("rule $i ($kind) finds $c.about and leaves its near miss", ({ rule, c }) =>
    expectCase(rule, c),
  );

  it("leaves every hard negative of the labelled corpus alone, rule by rule", () => {
    expect(rulesFiringOnNegatives(rules)).toEqual([]);
  });
}
