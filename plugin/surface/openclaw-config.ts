import { readFileSync } from "node:fs";
import { delimiter, dirname, isAbsolute, relative, resolve } from "node:path";
import JSON5 from "json5";
import { configPath, type PathEnv, userPath } from "./openclaw-paths.ts";

/**
 * Reads OpenClaw's config file as OpenClaw does, for the CLI and `doctor`, which run without OpenClaw: JSON5,
 * `$include` (a path or a list of paths, relative to the including file, deep-merged with arrays
 * concatenated, at most 10 deep, inside the config's folder or `$OPENCLAW_INCLUDE_ROOTS`), then `${VAR}`
 * substitution from the environment (`$${VAR}` stays literal). OpenClaw's `.env` loading is not repeated.
 */

/** What was read: the file, whether it exists, the merged config (`{}` when absent) and any problem. */
export interface OpenClawConfigFile {
  path: string;
  exists: boolean;
  config: Record<string, unknown>;
  /** Why the config could not be read (the file, the line and the parser's words), or null. */
  problem: string | null;
  /** `${VAR}` references whose variable is unset or empty (left as written). */
  missingEnv: string[];
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const BLOCKED = new Set(["__proto__", "prototype", "constructor"]);
const MAX_INCLUDE_DEPTH = 10;

/** OpenClaw's include merge: objects merge recursively, arrays concatenate, anything else: the later wins. */
export function mergeConfig(base: unknown, over: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(over)) return [...base, ...over];
  if (!isRec(base) || !isRec(over)) return over;
  const merged: Rec = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (!BLOCKED.has(key)) merged[key] = key in merged ? mergeConfig(merged[key], value) : value;
  }
  return merged;
}

/** A config file that could not be read or parsed; `code` is the system error's (`ENOENT`...), when there was one. */
class ConfigReadError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

function parseFile(file: string): unknown {
  let raw: string;
  try {
    raw = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigReadError(
      `${file} cannot be read (${code ?? (error instanceof Error ? error.message : String(error))})`,
      code,
    );
  }
  try {
    return JSON5.parse<unknown>(raw);
  } catch (error) {
    const e = error as { lineNumber?: number; message?: string };
    const line = typeof e.lineNumber === "number" ? `:${e.lineNumber}` : "";
    throw new ConfigReadError(
      `${file}${line}: not valid JSON5 (${(e.message ?? String(error)).replace(/^JSON5: /, "")})`,
    );
  }
}

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function expandIncludes(value: unknown, file: string, roots: string[], chain: string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => expandIncludes(v, file, roots, chain));
  if (!isRec(value)) return value;
  const out: Rec = {};
  for (const [key, v] of Object.entries(value)) {
    if (key !== "$include" && !BLOCKED.has(key)) out[key] = expandIncludes(v, file, roots, chain);
  }
  if (!("$include" in value)) return out;
  const spec = value.$include;
  const paths = typeof spec === "string" ? [spec] : Array.isArray(spec) ? spec : null;
  if (paths === null || paths.some((p) => typeof p !== "string")) {
    throw new ConfigReadError(`${file}: $include expects a path or a list of paths`);
  }
  let included: unknown = {};
  for (const p of paths as string[]) {
    const target = resolve(dirname(file), p);
    if (!roots.some((root) => inside(root, target))) {
      throw new ConfigReadError(
        `${file}: $include ${p} is outside the config's folder (allow it with OPENCLAW_INCLUDE_ROOTS)`,
      );
    }
    if (chain.includes(target)) {
      throw new ConfigReadError(`${file}: circular $include: ${[...chain, target].join(" -> ")}`);
    }
    if (chain.length > MAX_INCLUDE_DEPTH) {
      throw new ConfigReadError(`${file}: $include nested deeper than ${MAX_INCLUDE_DEPTH} at ${p}`);
    }
    const loaded = expandIncludes(parseFile(target), target, roots, [...chain, target]);
    included = typeof spec === "string" ? loaded : mergeConfig(included, loaded);
  }
  return Object.keys(out).length === 0 ? included : mergeConfig(included, out);
}

const ENV_REF = /\$(\$?)\{([A-Z_][A-Z0-9_]*)\}/g;

function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, missing: Set<string>): unknown {
  if (typeof value === "string") {
    return value.replace(ENV_REF, (whole, escaped: string, name: string) => {
      if (escaped === "$") return `\${${name}}`;
      const found = env[name];
      if (found === undefined || found === "") {
        missing.add(name);
        return whole;
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((v) => substituteEnv(v, env, missing));
  if (isRec(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteEnv(v, env, missing)]));
  }
  return value;
}

/** Reads the config OpenClaw would read in this environment (see the module comment). Never throws. */
export function readOpenClawConfig(p: PathEnv): OpenClawConfigFile {
  const path = configPath(p);
  const base = { path, missingEnv: [] as string[] };
  let parsed: unknown;
  try {
    parsed = parseFile(path);
  } catch (error) {
    if (error instanceof ConfigReadError && error.code === "ENOENT") {
      return { ...base, exists: false, config: {}, problem: null };
    }
    return { ...base, exists: true, config: {}, problem: (error as Error).message };
  }
  const roots = [
    dirname(path),
    ...(p.env.OPENCLAW_INCLUDE_ROOTS ?? "")
      .split(delimiter)
      .filter((r) => r.trim() !== "")
      .map((r) => userPath(r, p)),
  ];
  try {
    const missing = new Set<string>();
    const expanded = substituteEnv(expandIncludes(parsed, path, roots, [path]), p.env, missing);
    if (!isRec(expanded)) {
      return { ...base, exists: true, config: {}, problem: `${path}: expected an object at the top level` };
    }
    return { ...base, exists: true, config: expanded, problem: null, missingEnv: [...missing] };
  } catch (error) {
    if (error instanceof ConfigReadError)
      return { ...base, exists: true, config: {}, problem: error.message };
    throw error;
  }
}
