/**
 * Helpers for the `probe` fixture plugin (test/e2e/fixtures/probe-plugin): its plugin spec and its JSONL
 * log of hook events.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { PluginSpec } from "./instance.ts";
import { repoRoot } from "./openclaw-install.ts";

/** Absolute path of the probe plugin directory. */
export const probePluginDir: string = path.join(repoRoot, "test", "e2e", "fixtures", "probe-plugin");

/** What the probe's before_prompt_build prepends to the current user message. */
export const PROBE_MARKER = "PROBE-CONTEXT-MARKER";

/** The probe plugin loaded from its directory, logging to `logFile`. */
export function probePlugin(logFile: string): PluginSpec {
  return { dir: probePluginDir, id: "probe", config: { logFile } };
}

/** One logged event: the hook name (or `register`, `command:probe`), the process and the compacted payloads. */
export interface ProbeEntry {
  hook: string;
  at: string;
  pid: number;
  event: Record<string, unknown>;
  ctx: Record<string, unknown>;
}

/** Reads the probe's log; a missing file is an empty log. Lines that are not probe entries are skipped. */
export function readProbeLog(logFile: string): ProbeEntry[] {
  if (!existsSync(logFile)) return [];
  const entries: ProbeEntry[] = [];
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const value: unknown = JSON.parse(line);
    if (isProbeEntry(value)) entries.push(value);
  }
  return entries;
}

/** `hook:trigger` labels (trigger `-` when absent) of the entries whose hook is in `hooks`, in log order. */
export function hookSequence(entries: readonly ProbeEntry[], hooks: readonly string[]): string[] {
  return entries
    .filter((entry) => hooks.includes(entry.hook))
    .map((entry) => `${entry.hook}:${typeof entry.ctx.trigger === "string" ? entry.ctx.trigger : "-"}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isProbeEntry(value: unknown): value is ProbeEntry {
  return (
    isRecord(value) &&
    typeof value.hook === "string" &&
    typeof value.at === "string" &&
    typeof value.pid === "number" &&
    isRecord(value.event) &&
    isRecord(value.ctx)
  );
}
