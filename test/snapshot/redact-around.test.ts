import { describe, expect, it } from "vitest";
import {
  count,
  isSentenceEnd,
  isTestVerdict,
  passwordEnd,
  wordBefore,
} from "../../plugin/snapshot/redact-around.ts";

describe("reading around a match", () => {
  it("wordBefore takes the word before the spaces, from its first letter, within 40 characters", () => {
    const at = (text: string) => wordBefore(text, text.length);
    expect(at("API ")).toBe("API");
    expect(at("see the public \t")).toBe("public");
    expect(at("9abc ")).toBe("abc");
    expect(at("foo-bar  ")).toBe("bar");
    expect(at("password:")).toBeUndefined();
    expect(at("password: ")).toBeUndefined();
    expect(at("123 ")).toBeUndefined();
    expect(at(`${"x".repeat(60)} `)).toBe("x".repeat(39));
  });

  it("passwordEnd runs to the next space or quote, less sentence punctuation and brackets it did not open", () => {
    const end = (text: string, from: number, to: number) => text.slice(from, passwordEnd(text, from, to));
    expect(end("pw=a,b;c(d)#e/f. next", 3, 4)).toBe("a,b;c(d)#e/f");
    expect(end("(pw=abc) x", 4, 5)).toBe("abc");
    expect(end(`pw="x`, 3, 3)).toBe("");
    expect(end(`pw=${"y".repeat(600)}`, 3, 4).length).toBe(512);
  });

  it("counts a character's occurrences, and knows the punctuation that ends a sentence", () => {
    expect([count("a)b)c", ")"), count("abc", ")"), count("", ")")]).toEqual([2, 0, 0]);
    expect([..."., ;:!?a-)"].map((c) => isSentenceEnd(c.charCodeAt(0)))).toEqual([
      true,
      true,
      false,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe("isTestVerdict", () => {
  const line = "    --- PASS: TestFormatTimestamp/valid_RFC3339 (0.00s)";
  it("knows the name of Go's passing test verdict", () => {
    expect(isTestVerdict(line, line.indexOf("PASS"), "PASS")).toBe(true);
    expect(isTestVerdict(`ok\n${line}`, line.indexOf("PASS") + 3, "PASS")).toBe(true);
  });

  it("takes nothing else for one: a label of its own, in lower case, or after other text", () => {
    expect(isTestVerdict("PASS: Xk9#mP2v", 0, "PASS")).toBe(false);
    expect(isTestVerdict("--- pass: Xk9#mP2v", 4, "pass")).toBe(false);
    expect(isTestVerdict("wifi --- PASS: Xk9#mP2v", 9, "PASS")).toBe(false);
  });
});
