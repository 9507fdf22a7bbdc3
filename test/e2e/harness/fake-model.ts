/**
 * A scripted OpenAI-compatible model server on 127.0.0.1 for driving a real OpenClaw in tests: answers
 * `POST /v1/chat/completions` with streamed SSE chunks and records every request, classified as the
 * compaction summarizer, the pre-compaction memory flush, or a normal turn.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** What kind of model call OpenClaw made. */
export type RequestKind = "summarizer" | "flush" | "turn";

/** One chat message as OpenClaw sends it (content may be a string or an array of parts). */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: string;
  [key: string]: unknown;
}

/** A recorded request with the facts scripts usually branch on. */
export interface ClassifiedRequest {
  /** 0-based arrival order across all kinds. */
  index: number;
  kind: RequestKind;
  /** The parsed JSON body as received. */
  body: Record<string, unknown>;
  messages: ChatMessage[];
  /** Names of the tools offered (`body.tools[].function.name`). */
  toolNames: string[];
  /** All system/developer message text joined by blank lines. */
  systemText: string;
}

/** A tool call the fake model makes; `arguments` is serialized to JSON for the wire. */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** The scripted answer to one request. */
export type Reply = { text: string } | { toolCalls: ToolCall[] };

/** Decides the answer to a request; return `undefined` to use {@link defaultReply}. */
export type Script = (req: ClassifiedRequest) => Reply | undefined;

/** A running fake model server. */
export interface FakeModel {
  /** Base URL for `models.providers.*.baseUrl`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** Every chat completion request received so far, in arrival order. */
  requests: ClassifiedRequest[];
  /** Requests of one kind, in arrival order. */
  requestsOf(kind: RequestKind): ClassifiedRequest[];
  close(): Promise<void>;
}

/** Plain text of a message's content (string, or the `text` of its text parts). */
export function messageText(message: ChatMessage | undefined): string {
  if (message === undefined) return "";
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") parts.push(part);
    else if (typeof part === "object" && part !== null) {
      const text: unknown = Reflect.get(part, "text");
      if (typeof text === "string") parts.push(text);
    }
  }
  return parts.join("\n");
}

/** OpenClaw's embedded runner appends this user message after the real one; it is not the user's text. */
export const INTERNAL_CONTEXT_PREFIX = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT";

/** Text of the last user message that is not OpenClaw's appended internal-context message. */
export function lastUserText(req: Pick<ClassifiedRequest, "messages">): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const message = req.messages[i];
    if (message?.role !== "user") continue;
    const text = messageText(message);
    if (text.trimStart().startsWith(INTERNAL_CONTEXT_PREFIX)) continue;
    return text;
  }
  return "";
}

/** True when a `tool` message follows the last real user message (the model already called a tool this turn). */
export function hasToolResult(req: Pick<ClassifiedRequest, "messages">): boolean {
  return toolResults(req).length > 0;
}

/** Texts of the `tool` messages after the last real user message, in order. */
export function toolResults(req: Pick<ClassifiedRequest, "messages">): string[] {
  const results: string[] = [];
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const message = req.messages[i];
    if (message === undefined) continue;
    if (message.role === "user" && !messageText(message).trimStart().startsWith(INTERNAL_CONTEXT_PREFIX))
      break;
    if (message.role === "tool") results.unshift(messageText(message));
  }
  return results;
}

/** All text the request carries (system prompt and every message), for substring checks. */
export function requestText(req: Pick<ClassifiedRequest, "messages">): string {
  return req.messages.map((message) => messageText(message)).join("\n\n");
}

const SUMMARY_SYSTEM = /summar/i;
const FLUSH_MARKER = "Pre-compaction memory flush";

/** Classifies a request body: summarizer first (summarizing system prompt, no tools), then flush, else turn. */
export function classify(body: Record<string, unknown>, index: number): ClassifiedRequest {
  const messages = readMessages(body.messages);
  const toolNames = readToolNames(body.tools);
  const systemText = messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => messageText(m))
    .join("\n\n");
  const base = { index, body, messages, toolNames, systemText };
  if (toolNames.length === 0 && SUMMARY_SYSTEM.test(systemText)) return { ...base, kind: "summarizer" };
  if (requestText(base).includes(FLUSH_MARKER) && toolNames.includes("write"))
    return { ...base, kind: "flush" };
  return { ...base, kind: "turn" };
}

/**
 * A markdown summary that repeats, in order, every `## ` heading the summarizer request asks for (OpenClaw's
 * quality guard rejects a summary missing one, and an empty summary aborts the compaction), each followed by
 * `note`. Headings are read after the last `</conversation>` when there is one, so headings quoted from the
 * old conversation are not echoed.
 */
export function summarizerReply(
  req: ClassifiedRequest,
  note = "Fake summary of the earlier conversation.",
): Reply {
  const text = requestText(req);
  const end = text.lastIndexOf("</conversation>");
  const instructions = end === -1 ? text : text.slice(end);
  const headings: string[] = [];
  for (const line of instructions.split("\n")) {
    const match = /^\s*(##\s+\S.*?)\s*$/.exec(line);
    if (match?.[1] !== undefined && !headings.includes(match[1])) headings.push(match[1]);
  }
  if (headings.length === 0) return { text: `## Summary\n${note}` };
  return { text: headings.map((heading) => `${heading}\n${note}`).join("\n\n") };
}

/** Default answers: a heading-complete summary, `NO_REPLY` to the flush, and a fixed text to a turn. */
export function defaultReply(req: ClassifiedRequest): Reply {
  if (req.kind === "summarizer") return summarizerReply(req);
  if (req.kind === "flush") return { text: "NO_REPLY" };
  return { text: `fake reply to request ${req.index}` };
}

/** Starts the server on 127.0.0.1, on `port` (default 0: a port the OS assigns). */
export async function startFakeModel(script: Script = () => undefined, port = 0): Promise<FakeModel> {
  const requests: ClassifiedRequest[] = [];
  const server = createServer((request, response) => {
    handle(request, response, requests, script).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string")
    throw new Error("fake-model: server has no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    requestsOf: (kind) => requests.filter((req) => req.kind === kind),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  requests: ClassifiedRequest[],
  script: Script,
): Promise<void> {
  const url = request.url ?? "";
  if (request.method === "GET" && url.endsWith("/models")) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", owned_by: "fake" }] }),
    );
    return;
  }
  if (request.method !== "POST" || !url.endsWith("/chat/completions")) {
    response.writeHead(404, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message: `fake-model: no route for ${request.method} ${url}` } }));
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const body = isRecord(parsed) ? parsed : {};
  const req = classify(body, requests.length);
  requests.push(req);
  const reply = script(req) ?? defaultReply(req);
  const promptTokens = Math.ceil(JSON.stringify(body).length / 4);
  if (body.stream === false) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(completion(reply, promptTokens)));
    return;
  }
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "close",
  });
  for (const chunk of sseChunks(reply, promptTokens)) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  response.end("data: [DONE]\n\n");
}

/** The SSE chunk objects for one reply: role delta, content or tool_calls delta, finish_reason, usage. */
export function sseChunks(reply: Reply, promptTokens: number): Record<string, unknown>[] {
  const id = `chatcmpl-fake-${Date.now()}`;
  const created = Math.floor(Date.now() / 1000);
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: "fake-model",
    choices,
    ...extra,
  });
  const completionTokens = Math.ceil(JSON.stringify(reply).length / 4);
  const chunks = [frame([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }])];
  if ("text" in reply) {
    chunks.push(frame([{ index: 0, delta: { content: reply.text }, finish_reason: null }]));
  } else {
    const toolCalls = reply.toolCalls.map((call, i) => ({
      index: i,
      id: `call_fake_${i}_${Math.random().toString(36).slice(2, 10)}`,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    chunks.push(frame([{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: null }]));
  }
  chunks.push(frame([{ index: 0, delta: {}, finish_reason: "text" in reply ? "stop" : "tool_calls" }]));
  chunks.push(
    frame([], {
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    }),
  );
  return chunks;
}

function completion(reply: Reply, promptTokens: number): Record<string, unknown> {
  const message =
    "text" in reply
      ? { role: "assistant", content: reply.text }
      : {
          role: "assistant",
          content: null,
          tool_calls: reply.toolCalls.map((call, i) => ({
            id: `call_fake_${i}`,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        };
  return {
    id: `chatcmpl-fake-${Date.now()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "fake-model",
    choices: [{ index: 0, message, finish_reason: "text" in reply ? "stop" : "tool_calls" }],
    usage: { prompt_tokens: promptTokens, completion_tokens: 10, total_tokens: promptTokens + 10 },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value)) return [];
  const messages: ChatMessage[] = [];
  for (const item of value) {
    if (isRecord(item) && typeof item.role === "string") messages.push({ ...item, role: item.role });
  }
  return messages;
}

function readToolNames(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const names: string[] = [];
  for (const tool of value) {
    if (typeof tool !== "object" || tool === null) continue;
    const fn: unknown = Reflect.get(tool, "function");
    const name: unknown =
      typeof fn === "object" && fn !== null ? Reflect.get(fn, "name") : Reflect.get(tool, "name");
    if (typeof name === "string") names.push(name);
  }
  return names;
}
