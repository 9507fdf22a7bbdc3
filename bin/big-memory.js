#!/usr/bin/env node
// The big-memory CLI. Installed as a package (under node_modules) it runs the built dist/; in a
// checkout it runs the TypeScript sources directly (Node >= 22.18 strips types outside node_modules).
// The compile cache (in the system's temp folder) makes a start after the first about twice as fast,
// which matters when scripts and hooks run many short saves at once.
//
// Plain JavaScript without top-level await or newer syntax, so that an old Node reaches the version check
// below and says which Node is needed instead of failing on a .ts file (ERR_UNKNOWN_FILE_EXTENSION).
import { readFileSync } from "node:fs";
import module from "node:module";

let minimum = "22.22.3";
try {
  const engines = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines;
  // biome-ignore lint/complexity/useOptionalChain: this file must parse on Node versions without `?.`
  const declared = /^>=\s*(\d+\.\d+\.\d+)$/.exec((engines && engines.node) || "");
  if (declared) minimum = declared[1];
} catch (_error) {
  // package.json unreadable: keep the built-in minimum.
}

function older(version, than) {
  const a = version.split(".").map(Number);
  const b = than.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) < (b[i] || 0);
  }
  return false;
}

if (older(process.versions.node, minimum)) {
  process.stderr.write(
    `big-memory: needs Node ${minimum} or newer; this is Node ${process.versions.node} (${process.execPath}). ` +
      "Install a newer Node (for example `nvm install 24`, or https://nodejs.org) and run big-memory with it.\n",
  );
  process.exit(3);
}

if (module.enableCompileCache) module.enableCompileCache();
const installed = import.meta.url.indexOf("/node_modules/") !== -1;
import(
  new URL(installed ? "../dist/surface/cli-main.js" : "../plugin/surface/cli-main.ts", import.meta.url).href
);
