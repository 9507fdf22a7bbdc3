/**
 * A `--import` preload for an OpenClaw process under test (see openai-responses.ts): `api.openai.com`
 * resolves to 127.0.0.1, where the scripted Responses API listens; every other name resolves as usual.
 * Both `dns.lookup` and `dns.promises.lookup` are replaced, and the ES module bindings of `node:dns` and
 * `node:dns/promises` are synced, so code that imported `lookup` by name sees the replacement too.
 */
import dns, { type LookupAddress, type LookupOptions } from "node:dns";
import { syncBuiltinESMExports } from "node:module";

const HOST = "api.openai.com";
const ADDRESS: LookupAddress = { address: "127.0.0.1", family: 4 };

const lookup = dns.lookup;
const lookupPromise = dns.promises.lookup;

const wantsAll = (options: unknown): boolean =>
  typeof options === "object" && options !== null && Reflect.get(options, "all") === true;

const isHost = (hostname: unknown): boolean =>
  typeof hostname === "string" && hostname.toLowerCase() === HOST;

Reflect.set(dns, "lookup", (...args: unknown[]) => {
  const [hostname, options, callback] = args;
  const done = typeof options === "function" ? options : callback;
  if (!isHost(hostname) || typeof done !== "function") return Reflect.apply(lookup, dns, args);
  process.nextTick(() => {
    if (wantsAll(options)) done(null, [ADDRESS]);
    else done(null, ADDRESS.address, ADDRESS.family);
  });
  return undefined;
});

Reflect.set(dns.promises, "lookup", (hostname: string, options?: LookupOptions) => {
  if (!isHost(hostname)) return lookupPromise(hostname, options ?? {});
  return Promise.resolve(wantsAll(options) ? [ADDRESS] : ADDRESS);
});

syncBuiltinESMExports();
