/**
 * Strict UTF-8 for input the CLI reads: invalid bytes and lone surrogates are refused with the byte offset
 * where they start, instead of being stored silently as U+FFFD.
 */
import { isUtf8 } from "node:buffer";

/** The decoded text, or where and why the input is not valid UTF-8 text. */
export type Utf8Result = { ok: true; text: string } | { ok: false; offset: number; problem: string };

/**
 * Decodes `bytes` as UTF-8 (a leading byte-order mark is dropped). Fails at the first byte that starts an
 * invalid sequence (a stray continuation byte, a truncated or overlong sequence, an encoded surrogate, a code
 * point above U+10FFFF), and at the first JSON escape of a lone surrogate (`\ud800` without its pair).
 */
export function decodeUtf8Strict(bytes: Uint8Array): Utf8Result {
  if (!isUtf8(bytes)) {
    const offset = firstInvalidByte(bytes);
    return { ok: false, offset, problem: `invalid UTF-8 at byte ${offset}` };
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString("utf8")
    .replace(/^\uFEFF/, "");
  const lone =
    /\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/.exec(
      text,
    );
  if (lone !== null) {
    const offset = Buffer.byteLength(text.slice(0, lone.index)) + (bytes[0] === 0xef ? 3 : 0);
    return { ok: false, offset, problem: `lone surrogate escape ${lone[0]} at byte ${offset}` };
  }
  return { ok: true, text };
}

/** Offset of the first byte that does not begin or continue a well-formed UTF-8 sequence. */
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    const [length, min, max] =
      b < 0x80
        ? [1, 0, 0]
        : b >= 0xc2 && b <= 0xdf
          ? [2, 0x80, 0xbf]
          : b === 0xe0
            ? [3, 0xa0, 0xbf]
            : b === 0xed
              ? [3, 0x80, 0x9f]
              : b >= 0xe1 && b <= 0xef
                ? [3, 0x80, 0xbf]
                : b === 0xf0
                  ? [4, 0x90, 0xbf]
                  : b === 0xf4
                    ? [4, 0x80, 0x8f]
                    : b >= 0xf1 && b <= 0xf3
                      ? [4, 0x80, 0xbf]
                      : [0, 0, 0];
    if (length === 0) return i;
    if (length > 1) {
      const second = bytes[i + 1];
      if (second === undefined || second < min || second > max) return i;
      for (let k = 2; k < length; k++) {
        const next = bytes[i + k];
        if (next === undefined || next < 0x80 || next > 0xbf) return i;
      }
    }
    i += length;
  }
  return bytes.length;
}
