/** Small text helpers of the capture part: plain-object test, clipping, one-line form, message content text. */

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` cut to at most `max` UTF-16 units, ending `…` when cut, never splitting a surrogate pair. */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = Math.max(0, max - 1);
  const code = value.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${value.slice(0, end)}…`;
}

/** `value` on one line: runs of white space and control characters become one space. */
export function oneLine(value: string): string {
  return value.replace(/[\s\p{Cc}]+/gu, " ").trim();
}

/** The text of a message content: the string itself, or its `text` parts joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      isRecord(part) && typeof part.text === "string" && part.type !== "thinking" ? part.text : "",
    )
    .filter((text) => text !== "")
    .join("\n");
}
