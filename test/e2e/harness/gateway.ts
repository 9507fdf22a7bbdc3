/**
 * Controls one `openclaw gateway run` for a harness instance: start on a free loopback port with token auth,
 * RPC through `openclaw gateway call`, `chat.send` with polling of `chat.history`, and stop.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { connect, createServer } from "node:net";
import { historyMessages, historyText, isFinalReply, messagesAfterSend } from "./chat-history.ts";
import type { OpenClawInstall } from "./openclaw-install.ts";
import { type RunResult, spawnGrouped, stopChild } from "./processes.ts";

export interface RunOptions {
  timeoutMs?: number;
}

/** A running gateway. */
export interface GatewayInfo {
  port: number;
  token: string;
  pid: number;
  /** Milliseconds from spawn until `health` answered. */
  readyMs: number;
}

/** What `chatSend` observed: the send acknowledgement, the rows it produced and the reply text. */
export interface ChatExchange {
  /** The `chat.send` answer, `{ runId, status: "started" }`. */
  send: unknown;
  /** `chat.history` rows from the user message of this send onwards. */
  newMessages: Record<string, unknown>[];
  /** Text of the last final assistant row among `newMessages`. */
  replyText: string;
  /** All rows of `chat.history` at that moment. */
  history: Record<string, unknown>[];
}

export interface GatewayDeps {
  install: OpenClawInstall;
  env: NodeJS.ProcessEnv;
  cwd: string;
  children: Set<ChildProcess>;
  /** Runs an `openclaw` CLI command to completion. */
  run(args: readonly string[], options: RunOptions): Promise<RunResult>;
  /** Deep-merges the gateway settings into the instance config before the gateway starts. */
  configure(patch: Record<string, unknown>): Promise<void>;
}

export interface GatewayControl {
  start(options?: RunOptions): Promise<GatewayInfo>;
  call(method: string, params?: Record<string, unknown>, options?: RunOptions): Promise<unknown>;
  chatSend(sessionKey: string, message: string, options?: RunOptions): Promise<ChatExchange>;
  chatHistory(sessionKey: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
  /** Everything the last gateway printed on stdout and stderr, kept after it stopped. */
  output(): string;
}

/** Creates the control; nothing runs until `start()`. */
export function createGatewayControl(deps: GatewayDeps): GatewayControl {
  let current: { child: ChildProcess; info: GatewayInfo } | undefined;
  const log: string[] = [];

  const call = async (
    method: string,
    params: Record<string, unknown> = {},
    options: RunOptions = {},
  ): Promise<unknown> => {
    if (current === undefined) throw new Error(`gateway: call(${method}) before start()`);
    const timeoutMs = options.timeoutMs ?? 30_000;
    const { port, token } = current.info;
    const args = ["gateway", "call", method, "--json", "--token", token, "--port", String(port)];
    args.push("--timeout", String(timeoutMs), "--params", JSON.stringify(params));
    const result = await deps.run(args, { timeoutMs: timeoutMs + 30_000 });
    if (result.code !== 0 || result.json === undefined) {
      const said = `${result.stderr.slice(-1500)}${result.stdout.slice(-1500)}`;
      throw new Error(`gateway: call ${method} exited ${result.code} without a JSON answer: ${said}`);
    }
    return result.json;
  };

  const chatHistory = async (sessionKey: string): Promise<Record<string, unknown>[]> =>
    historyMessages(await call("chat.history", { sessionKey }));

  const stop = async (): Promise<void> => {
    const stopping = current;
    current = undefined;
    if (stopping !== undefined) await stopChild(stopping.child, 10_000);
  };

  return {
    call,
    chatHistory,
    stop,
    output: () => log.join(""),
    async start(options = {}) {
      if (current !== undefined) return current.info;
      const port = await freePort();
      const token = randomBytes(16).toString("hex");
      await deps.configure({
        gateway: { mode: "local", bind: "loopback", port, auth: { mode: "token", token } },
      });
      const started = Date.now();
      log.length = 0;
      const { nodeBin, openclawEntry } = deps.install;
      const child = spawnGrouped(
        nodeBin,
        [openclawEntry, "gateway", "run", "--port", String(port), "--bind", "loopback"],
        deps,
      );
      child.stdout?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
      child.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
      if (child.pid === undefined) throw new Error("gateway: `openclaw gateway run` failed to spawn");
      const info: GatewayInfo = { port, token, pid: child.pid, readyMs: 0 };
      current = { child, info };
      const deadline = started + (options.timeoutMs ?? 120_000);
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null) {
          current = undefined;
          const status = child.exitCode ?? child.signalCode;
          throw new Error(`gateway: exited (${status}) before it was ready: ${log.join("").slice(-3000)}`);
        }
        if ((await portOpen(port)) && (await call("health", {}, { timeoutMs: 10_000 }).then(ok, failed)))
          break;
        if (Date.now() > deadline) {
          await stop();
          throw new Error(
            `gateway: not ready after ${Date.now() - started} ms: ${log.join("").slice(-3000)}`,
          );
        }
        await sleep(500);
      }
      info.readyMs = Date.now() - started;
      return info;
    },
    async chatSend(sessionKey, message, options = {}) {
      const before = await chatHistory(sessionKey).catch(() => []);
      const idempotencyKey = randomUUID();
      const send = await call("chat.send", { sessionKey, message, idempotencyKey });
      const deadline = Date.now() + (options.timeoutMs ?? 120_000);
      for (;;) {
        // A gateway busy with the turn (or a loaded machine) may let one `chat.history` call time out
        // (OpenClaw's client gives up after 30 s): polled again until the deadline, which names the last error.
        const polled = await chatHistory(sessionKey).then(
          (history) => ({ history, error: undefined }),
          (error: unknown) => ({ history: undefined, error }),
        );
        const history = polled.history ?? [];
        const newMessages = messagesAfterSend(history, idempotencyKey, before.length);
        const reply = newMessages.findLast(isFinalReply);
        if (reply !== undefined) return { send, newMessages, replyText: historyText(reply), history };
        if (Date.now() > deadline) {
          const seen = polled.error === undefined ? JSON.stringify(history) : String(polled.error);
          throw new Error(`gateway: no assistant reply in chat.history of ${sessionKey}: ${seen}`);
        }
        await sleep(1000);
      }
    },
  };
}

const ok = (): boolean => true;
const failed = (): boolean => false;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("gateway: no free loopback port");
  return address.port;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
