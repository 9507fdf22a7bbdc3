import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decode,
  decodeCodeLine,
  encodeCodeLine,
  encodeInline,
  indexOfUnescaped,
} from "../../plugin/snapshot/escape.ts";
import { nastyString } from "./arbitraries.ts";

describe("encodeInline", () => {
  it("escapes line breaks and the white space at either edge, keeps inner spaces", () => {
    expect(encodeInline(" a b\r\nc\t")).toBe("\\sa b\\r\\nc\\t");
  });

  it("breaks every comment delimiter so a value never opens or closes a comment", () => {
    expect(encodeInline("<!-- x -->")).toBe("<\\!-- x --\\>");
    expect(encodeInline("<!-- /BIG-MEMORY-SNAPSHOT -->")).not.toContain("-->");
  });

  it("keeps a backslash before a letter that is no escape, doubles one before an escape letter or at the end", () => {
    expect(encodeInline("C:\\Users\\x")).toBe("C:\\Users\\x");
    expect(encodeInline("a\\nb")).toBe("a\\\\nb");
    expect(encodeInline("ends\\")).toBe("ends\\\\");
  });

  it("protects what its context asks: backticks, a -- separator, colons, a line start", () => {
    expect(encodeInline("a`b", { backticks: true })).toBe("a\\`b");
    expect(encodeInline("a---b", { noDoubleDash: true })).toBe("a-\\-\\-b");
    expect(encodeInline("a:b", { noColon: true })).toBe("a\\:b");
    expect(["# h", "<pre>", "~~~", "`x"].map((v) => encodeInline(v, { lineStart: true }))).toEqual([
      "\\# h",
      "\\<pre>",
      "\\~~~",
      "\\`x",
    ]);
    expect(encodeInline("# h")).toBe("# h");
  });

  it("marks a value that would read as none or as reserved with \\@", () => {
    expect(encodeInline("None")).toBe("\\@None");
    expect(encodeInline("Notes", { isReserved: (v) => v === "Notes" })).toBe("\\@Notes");
    expect(encodeInline("")).toBe("");
  });

  it("writes one line with no comment delimiter and no edge white space, and decode reverses it", () => {
    fc.assert(
      fc.property(nastyString(8), (value) => {
        const encoded = encodeInline(value, { lineStart: true, noColon: true, noDoubleDash: true });
        expect(encoded).not.toMatch(/[\r\n]|<!--|-->|^[ \t]|[ \t]$/);
        expect(encoded.toLowerCase()).not.toBe("none");
        expect(decode(encoded)).toBe(value);
      }),
      { numRuns: 500 },
    );
  });
});

describe("encodeCodeLine", () => {
  it("escapes only CR, comment delimiters and backslashes before its own escape letters", () => {
    expect(encodeCodeLine('s.replace(/\\s+/g, "\\n") // -->\r')).toBe(
      's.replace(/\\s+/g, "\\n") // --\\>\\r',
    );
    expect(encodeCodeLine("a\\r")).toBe("a\\\\r");
  });

  it("is reversed by decodeCodeLine on any line", () => {
    fc.assert(
      fc.property(nastyString(8), (value) => {
        const line = value.replace(/\n/g, "");
        expect(decodeCodeLine(encodeCodeLine(line))).toBe(line);
      }),
      { numRuns: 500 },
    );
  });
});

describe("decode", () => {
  it("reads a backslash before any other character literally", () => {
    expect(decode("C:\\Users\\q \\d+")).toBe("C:\\Users\\q \\d+");
  });

  it("drops the \\@ mark", () => {
    expect(decode("\\@none")).toBe("none");
  });
});

describe("decodeCodeLine", () => {
  it("keeps the escapes that exist only outside code", () => {
    expect(decodeCodeLine("\\n\\s\\t\\@")).toBe("\\n\\s\\t\\@");
  });
});

describe("indexOfUnescaped", () => {
  it("finds a needle that is not part of an escape", () => {
    expect(indexOfUnescaped("a\\-- b -- c", " -- ")).toBe(6);
    expect(indexOfUnescaped("path -- note", " -- ")).toBe(4);
  });

  it("returns -1 when every occurrence is escaped or there is none", () => {
    expect(indexOfUnescaped("a\\:b", ":")).toBe(-1);
    expect(indexOfUnescaped("abc", ":")).toBe(-1);
  });

  it("starts looking at from", () => {
    expect(indexOfUnescaped("a:b:c", ":", 2)).toBe(3);
  });
});
