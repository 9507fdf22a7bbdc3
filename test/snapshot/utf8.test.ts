import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeUtf8Strict } from "../../plugin/snapshot/utf8.ts";

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));

describe("decodeUtf8Strict", () => {
  it("decodes valid UTF-8, emoji and CJK included, and drops a byte-order mark", () => {
    expect(decodeUtf8Strict(bytes('{"goal":"数据库 😀 É"}'))).toEqual({
      ok: true,
      text: '{"goal":"数据库 😀 É"}',
    });
    expect(decodeUtf8Strict(bytes([0xef, 0xbb, 0xbf], "{}"))).toEqual({ ok: true, text: "{}" });
    expect(decodeUtf8Strict(bytes('{"goal":"\\ud83d\\ude00"}'))).toEqual({
      ok: true,
      text: '{"goal":"\\ud83d\\ude00"}',
    });
  });

  it("names the byte offset of the first invalid sequence", () => {
    expect(decodeUtf8Strict(bytes('{"goal":"ab', [0xff], '"}'))).toEqual({
      ok: false,
      offset: 11,
      problem: "invalid UTF-8 at byte 11",
    });
    // A stray continuation byte, a truncated sequence at the end, an overlong "/", an encoded surrogate.
    expect(decodeUtf8Strict(bytes("é", [0x80]))).toMatchObject({ ok: false, offset: 2 });
    expect(decodeUtf8Strict(bytes("abc", [0xe6, 0x95]))).toMatchObject({ ok: false, offset: 3 });
    expect(decodeUtf8Strict(bytes([0xc0, 0xaf]))).toMatchObject({ ok: false, offset: 0 });
    expect(decodeUtf8Strict(bytes("x", [0xed, 0xa0, 0x80]))).toMatchObject({ ok: false, offset: 1 });
    expect(decodeUtf8Strict(bytes([0xf4, 0x90, 0x80, 0x80]))).toMatchObject({ ok: false, offset: 0 });
  });

  it("refuses a JSON escape of a lone surrogate, high or low, naming its byte offset", () => {
    expect(decodeUtf8Strict(bytes('{"goal":"é\\ud800x"}'))).toEqual({
      ok: false,
      offset: 11,
      problem: "lone surrogate escape \\ud800 at byte 11",
    });
    expect(decodeUtf8Strict(bytes('{"goal":"\\uDC00"}'))).toMatchObject({ ok: false, offset: 9 });
  });

  it("agrees with the platform on which byte strings are valid, and the bytes before the offset are valid", () => {
    const isValid = (raw: Uint8Array) =>
      Buffer.from(Buffer.from(raw).toString("utf8"), "utf8").equals(Buffer.from(raw));
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), (raw) => {
        fc.pre(!raw.includes(0x5c)); // no backslash: no JSON escape to judge
        const result = decodeUtf8Strict(raw);
        expect(result.ok).toBe(isValid(raw));
        const offset = result.ok ? raw.length : result.offset;
        expect(isValid(raw.subarray(0, offset))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
