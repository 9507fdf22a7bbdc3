/**
 * `npm run fake-model`: the tests' scripted model as a server of its own, so that big-memory can be tried in
 * an OpenClaw of one's own with no API key and no network (README: Try it without an API key).
 *
 * Listens on `http://127.0.0.1:18790/v1` (`--port N` for another port) as an OpenAI-compatible provider with
 * one model, `fake-model`. It answers OpenClaw's compaction summarizer with a summary that has every heading
 * OpenClaw asks for, the pre-compaction memory flush with `NO_REPLY` (so big-memory's safety net drafts the
 * snapshot from the session it observed), a turn that carries a big-memory restore with the one line a real
 * model is asked to say ("Restored snapshot ID (saved TIME): GOAL"), and any other turn with "Noted: ...".
 * Prints one line per request. Runs until Ctrl-C.
 */
import {
  type ClassifiedRequest,
  lastUserText,
  type Reply,
  startFakeModel,
  summarizerReply,
} from "./harness/fake-model.ts";
import { fenceId, turnRestores } from "./scenario.ts";

const USAGE = "usage: npm run fake-model [-- --port N]";
/** The port the README's commands use. */
export const DEFAULT_PORT = 18790;

/** The port asked for on the command line, or an error message. */
export function parsePort(argv: readonly string[]): number | string {
  if (argv.length === 0) return DEFAULT_PORT;
  const [flag, value, ...rest] = argv;
  const port = Number(value);
  if (flag !== "--port" || value === undefined || rest.length > 0 || !/^\d+$/.test(value) || port > 65535)
    return `${USAGE} (received: ${argv.join(" ")}; expected a port from 0 to 65535, 0 for any free one)`;
  return port;
}

/** The user's own words in a turn: without OpenClaw's timestamp prefix, runtime line and big-memory's restore. */
export function ownWords(text: string): string {
  const end = text.lastIndexOf("</big-memory-snapshot-");
  const lines = (end === -1 ? text : text.slice(end))
    .split("\n")
    .filter((line) => !line.startsWith("Runtime: agent="));
  const last = lines.filter((line) => line.trim() !== "").pop() ?? "";
  return last.replace(/^\[[^\]]*\d{2}:\d{2}[^\]]*\]\s*/, "").trim();
}

/** The reply to one request (see the module comment). */
export function fakeReply(req: ClassifiedRequest): Reply {
  if (req.kind === "summarizer") return summarizerReply(req, "Summary written by the fake model.");
  if (req.kind === "flush") return { text: "NO_REPLY" };
  const fence = turnRestores(req)[0];
  if (fence !== undefined) {
    const taken = /\btaken="([^"]+)"/.exec(fence)?.[1] ?? "an unknown time";
    const goal = /^## Goal\n(.+)$/m.exec(fence)?.[1] ?? "(no goal)";
    return { text: `Restored snapshot ${fenceId(fence) ?? "(no id)"} (saved ${taken}): ${goal}` };
  }
  const words = ownWords(lastUserText(req));
  return { text: `Noted: ${words.length > 100 ? `${words.slice(0, 99)}…` : words}` };
}

async function main(argv: readonly string[]): Promise<number> {
  const port = parsePort(argv);
  if (typeof port === "string") {
    process.stderr.write(`${port}\n`);
    return 2;
  }
  const model = await startFakeModel((req) => {
    const reply = fakeReply(req);
    const shown = "text" in reply ? reply.text.split("\n")[0] : "(tool calls)";
    process.stdout.write(`${new Date().toISOString().slice(11, 19)}  ${req.kind.padEnd(10)}  ${shown}\n`);
    return reply;
  }, port).catch((error: unknown) => {
    const code = typeof error === "object" && error !== null ? Reflect.get(error, "code") : undefined;
    process.stderr.write(
      code === "EADDRINUSE"
        ? `fake-model: port ${port} is in use; choose another with: npm run fake-model -- --port N\n`
        : `fake-model: ${String(error)}\n`,
    );
    return undefined;
  });
  if (model === undefined) return 3;
  process.stdout.write(`fake model listening on ${model.url} (model fake/fake-model); Ctrl-C stops it\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await model.close();
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
