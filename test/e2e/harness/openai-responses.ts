/**
 * A scripted OpenAI Responses API for driving a real OpenClaw on its default OpenAI route (`openai/<model>`
 * with an API key, no base URL): an HTTPS server on 127.0.0.1 (port 443 by default) with a certificate for
 * `api.openai.com` signed by a throwaway CA, and what the OpenClaw process needs to reach it: the CA for
 * `NODE_EXTRA_CA_CERTS`, and a `--import` preload (`resolve-openai.ts`) that resolves `api.openai.com` to
 * 127.0.0.1 (OpenClaw's guarded model fetch looks the host up with `node:dns/promises` and pins the answer).
 *
 * `POST /v1/responses` gets the stream OpenClaw's Responses reducer parses (`@openclaw/ai`
 * `processResponsesStream`): `response.created`, per output item `response.output_item.added` ...
 * `response.output_item.done`, then `response.completed` with the whole output. A reply with `compaction`
 * puts a `compaction` output item (opaque `encrypted_content`) before the answer, as the API does when the
 * input crossed `context_management[].compact_threshold`. Requests are recorded and classified like the chat
 * completions fake (`fake-model.ts`), their `input` items read as chat messages, so the same scripts and
 * readers serve both.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  type ChatMessage,
  type ClassifiedRequest,
  classify,
  defaultReply,
  type Reply,
} from "./fake-model.ts";
import { repoRoot } from "./openclaw-install.ts";

/** The host OpenClaw's default OpenAI route calls. */
export const OPENAI_HOST = "api.openai.com";

/** The preload that resolves {@link OPENAI_HOST} to 127.0.0.1 inside the OpenClaw process. */
export const RESOLVE_PRELOAD = path.join(repoRoot, "test", "e2e", "harness", "resolve-openai.ts");

/** A scripted answer; `compaction` makes the response open with a `compaction` output item of that id. */
export type ResponsesReply = Reply & { compaction?: string };

/** Decides the answer to a request; `undefined` uses the chat fake's default. */
export type ResponsesScript = (req: ClassifiedRequest) => ResponsesReply | undefined;

/** A running scripted Responses API. */
export interface FakeResponses {
  /** The port it listens on (443 unless another was asked for). */
  port: number;
  /** Every `POST /v1/responses` received, in arrival order (`body` is the Responses request as sent). */
  requests: ClassifiedRequest[];
  /** Other requests (method and path), e.g. an embeddings call the memory plugin makes. */
  unrouted: string[];
  /** The environment an OpenClaw process needs to reach this server as `https://api.openai.com`. */
  env: Record<string, string>;
  close(): Promise<void>;
}

const run = promisify(execFile);

/** A CA and a leaf certificate for {@link OPENAI_HOST} signed by it, made with `openssl` in `dir`. */
async function certificates(dir: string): Promise<{ key: string; cert: string }> {
  const file = (name: string) => path.join(dir, name);
  const openssl = (args: string[]) => run("openssl", args, { cwd: dir });
  await openssl([
    ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"],
    ...["-keyout", file("ca.key"), "-out", file("ca.pem"), "-subj", "/CN=big-memory e2e CA"],
    ...["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
  ]);
  await openssl([
    ...["req", "-newkey", "rsa:2048", "-nodes", "-keyout", file("leaf.key"), "-out", file("leaf.csr")],
    ...["-subj", `/CN=${OPENAI_HOST}`],
  ]);
  await writeFile(
    file("leaf.ext"),
    `subjectAltName=DNS:${OPENAI_HOST}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
  );
  await openssl([
    ...["x509", "-req", "-in", file("leaf.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key")],
    ...["-CAcreateserial", "-days", "2", "-out", file("leaf.pem"), "-extfile", file("leaf.ext")],
  ]);
  const [key, cert] = await Promise.all(["leaf.key", "leaf.pem"].map((name) => readFile(file(name), "utf8")));
  return { key: key ?? "", cert: cert ?? "" };
}

/** Starts the server on 127.0.0.1:`port` (443 unless told; binding it needs root or the capability). */
export async function startFakeResponses(script: ResponsesScript, port = 443): Promise<FakeResponses> {
  const dir = await mkdtemp(path.join(tmpdir(), "fake-responses-"));
  const { key, cert } = await certificates(dir);
  const caFile = path.join(dir, "ca.pem");
  const requests: ClassifiedRequest[] = [];
  const unrouted: string[] = [];
  const server: Server = createServer({ key, cert }, (request, response) => {
    handle(request, response, { requests, unrouted, script }).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => {
      const code = Reflect.get(error, "code");
      reject(
        code === "EADDRINUSE" || code === "EACCES"
          ? new Error(`fake-responses: cannot listen on 127.0.0.1:${port} (${String(code)})`)
          : error,
      );
    });
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : port,
    requests,
    unrouted,
    env: {
      NODE_EXTRA_CA_CERTS: caFile,
      NODE_OPTIONS: `--import=${RESOLVE_PRELOAD}`,
      OPENAI_API_KEY: `sk-e2e-${randomBytes(12).toString("hex")}`,
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  state: { requests: ClassifiedRequest[]; unrouted: string[]; script: ResponsesScript },
): Promise<void> {
  const url = (request.url ?? "").split("?")[0] ?? "";
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  if (request.method !== "POST" || url !== "/v1/responses") {
    state.unrouted.push(`${request.method} ${url}`);
    response.writeHead(404, { "content-type": "application/json" });
    response.end(
      JSON.stringify({ error: { message: `fake-responses: no route for ${request.method} ${url}` } }),
    );
    return;
  }
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  const body = isRecord(parsed) ? parsed : {};
  const req = classifyResponses(body, state.requests.length);
  state.requests.push(req);
  const reply = state.script(req) ?? defaultReply(req);
  const inputTokens = Math.ceil(JSON.stringify(body).length / 4);
  const events = responseEvents(reply, typeof body.model === "string" ? body.model : "gpt-5.5", inputTokens);
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events)
    response.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  response.end();
}

/** A Responses request read as the chat fake reads a chat completion (instructions and input as messages). */
export function classifyResponses(body: Record<string, unknown>, index: number): ClassifiedRequest {
  const messages: ChatMessage[] = [];
  if (typeof body.instructions === "string") messages.push({ role: "system", content: body.instructions });
  for (const item of Array.isArray(body.input) ? body.input : []) {
    const message = inputMessage(item);
    if (message !== undefined) messages.push(message);
  }
  const classified = classify({ messages, tools: body.tools }, index);
  return { ...classified, body };
}

/** One Responses input item as a chat message (`compaction` items keep their own role name). */
function inputMessage(item: unknown): ChatMessage | undefined {
  if (typeof item === "string") return { role: "user", content: item };
  if (!isRecord(item)) return undefined;
  const type = item.type;
  if (type === "function_call")
    return {
      role: "assistant",
      tool_calls: [
        { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } },
      ],
    };
  if (type === "function_call_output") {
    const output = item.output;
    return {
      role: "tool",
      tool_call_id: String(item.call_id),
      content: typeof output === "string" ? output : JSON.stringify(output),
    };
  }
  if (type === "compaction") return { role: "compaction", id: item.id, content: "" };
  if (type === "reasoning") return undefined;
  if (typeof item.role === "string") return { role: item.role, content: item.content };
  return undefined;
}

/** The stream events of one response: created, each output item added/streamed/done, completed. */
export function responseEvents(
  reply: ResponsesReply,
  model: string,
  inputTokens: number,
): Record<string, unknown>[] {
  const id = `resp_${randomBytes(12).toString("hex")}`;
  const created = Math.floor(Date.now() / 1000);
  const output: Record<string, unknown>[] = [];
  const events: Record<string, unknown>[] = [];
  const base = { id, object: "response", created_at: created, model };
  events.push({ type: "response.created", response: { ...base, status: "in_progress", output: [] } });
  const itemEvents = (item: Record<string, unknown>, streamed: Record<string, unknown>[] = []) => {
    const outputIndex = output.length;
    const opening = item.type === "message" ? { ...item, status: "in_progress", content: [] } : item;
    events.push({ type: "response.output_item.added", output_index: outputIndex, item: opening });
    for (const event of streamed) events.push({ ...event, output_index: outputIndex });
    events.push({ type: "response.output_item.done", output_index: outputIndex, item });
    output.push(item);
  };
  if (reply.compaction !== undefined)
    itemEvents({
      type: "compaction",
      id: reply.compaction,
      encrypted_content: Buffer.from(
        `fake compaction ${reply.compaction} ${randomBytes(24).toString("hex")}`,
      ).toString("base64"),
    });
  if ("text" in reply) {
    const itemId = `msg_${randomBytes(12).toString("hex")}`;
    const part = { type: "output_text", text: reply.text, annotations: [] };
    itemEvents({ type: "message", id: itemId, status: "completed", role: "assistant", content: [part] }, [
      { type: "response.content_part.added", item_id: itemId, content_index: 0, part: { ...part, text: "" } },
      { type: "response.output_text.delta", item_id: itemId, content_index: 0, delta: reply.text },
      { type: "response.output_text.done", item_id: itemId, content_index: 0, text: reply.text },
      { type: "response.content_part.done", item_id: itemId, content_index: 0, part },
    ]);
  } else {
    for (const call of reply.toolCalls) {
      const itemId = `fc_${randomBytes(12).toString("hex")}`;
      const callId = `call_${randomBytes(8).toString("hex")}`;
      const args = JSON.stringify(call.arguments);
      itemEvents(
        {
          type: "function_call",
          id: itemId,
          call_id: callId,
          name: call.name,
          arguments: args,
          status: "completed",
        },
        [
          { type: "response.function_call_arguments.delta", item_id: itemId, delta: args },
          { type: "response.function_call_arguments.done", item_id: itemId, arguments: args },
        ],
      );
    }
  }
  const outputTokens = Math.ceil(JSON.stringify(reply).length / 4);
  events.push({
    type: "response.completed",
    response: {
      ...base,
      status: "completed",
      output,
      usage: {
        input_tokens: inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: inputTokens + outputTokens,
      },
    },
  });
  return events.map((event, sequence) => ({ ...event, sequence_number: sequence }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
