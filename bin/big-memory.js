#!/usr/bin/env node
// The big-memory CLI. Installed as a package (under node_modules) it runs the built dist/; in a
// checkout it runs the TypeScript sources directly (Node >= 22.18 strips types outside node_modules).
// The compile cache (in the system's temp folder) makes a start after the first about twice as fast,
// which matters when scripts and hooks run many short saves at once.
import module from "node:module";

module.enableCompileCache?.();
const installed = import.meta.url.includes("/node_modules/");
await import(
  new URL(installed ? "../dist/surface/cli-main.js" : "../plugin/surface/cli-main.ts", import.meta.url).href
);
