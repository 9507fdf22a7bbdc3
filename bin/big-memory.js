#!/usr/bin/env node
// The big-memory CLI: the built code when the package was built, else the TypeScript sources
// (Node >= 22.18 strips types from files outside node_modules).
import { existsSync } from "node:fs";

const built = new URL("../dist/surface/cli-main.js", import.meta.url);
await import(existsSync(built) ? built.href : new URL("../plugin/surface/cli-main.ts", import.meta.url).href);
