/**
 * Reading the gateway's `chat.history` answers: `{ messages: [...] }` rows with `role`, `content` (string or
 * text parts), `stopReason`, and the `idempotencyKey` of the `chat.send` that produced them.
 */

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The message rows of a `chat.history` answer (or of a bare array); anything else is no rows. */
export function historyMessages(history: unknown): Record<string, unknown>[] {
  const list: unknown = isPlainObject(history) ? history.messages : history;
  return Array.isArray(list) ? list.filter(isPlainObject) : [];
}

/** Text of a chat.history message (string content or the `text` of its parts). */
export function historyText(message: Record<string, unknown>): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return typeof message.text === "string" ? message.text : "";
  return content
    .map((part: unknown) => (isPlainObject(part) && typeof part.text === "string" ? part.text : ""))
    .join("");
}

/**
 * The rows from the user message a send added onwards: located by the `idempotencyKey` OpenClaw stores on it
 * (`<key>:user`), else everything past `fallbackStart` (the history's length before the send).
 */
export function messagesAfterSend(
  messages: Record<string, unknown>[],
  idempotencyKey: string,
  fallbackStart: number,
): Record<string, unknown>[] {
  const index = messages.findIndex(
    (m) => typeof m.idempotencyKey === "string" && m.idempotencyKey.startsWith(idempotencyKey),
  );
  return index === -1 ? messages.slice(fallbackStart) : messages.slice(index);
}

/** An assistant row that ends a run: it has text and did not stop to call a tool. */
export function isFinalReply(message: Record<string, unknown>): boolean {
  return (
    message.role === "assistant" && message.stopReason !== "toolUse" && historyText(message).trim() !== ""
  );
}
