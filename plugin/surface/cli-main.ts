import { runCli } from "./cli.ts";

/** The `big-memory` executable: real stdin/stdout, colour on a TTY, exit code per the contract. */
async function readStdin(): Promise<Uint8Array> {
  if (process.stdin.isTTY === true) return new Uint8Array();
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

// A reader that stops early (`big-memory list | head -1`) closes the pipe: end quietly, as other CLIs do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin,
  color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
  columns: process.stdout.isTTY === true ? process.stdout.columns : undefined,
  cwd: process.cwd(),
  env: process.env,
  now: () => new Date(),
});
process.exitCode = code;
