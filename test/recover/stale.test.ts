import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { staleWarnings } from "../../plugin/recover/stale.ts";
import { located, snapshot } from "../builders.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "big-memory-stale-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const TAKEN = "2026-11-20T10:00:00+00:00";
const takenMs = Date.parse(TAKEN);
const file = (path: string) => ({ path, note: "" });

describe("staleWarnings", () => {
  it("warns for a file changed after the snapshot and one that is gone, not for one left alone", async () => {
    const dir = workspace();
    mkdirSync(join(dir, "src"));
    for (const name of ["changed.ts", "same.ts"]) writeFileSync(join(dir, "src", name), "x");
    utimesSync(join(dir, "src", "same.ts"), new Date(takenMs - 60_000), new Date(takenMs - 60_000));
    utimesSync(join(dir, "src", "changed.ts"), new Date(takenMs + 60_000), new Date(takenMs + 60_000));
    const s = snapshot("2026-11-20-01", {
      timestamp: TAKEN,
      files: [file("src/changed.ts"), file("src/same.ts"), file("src/gone.ts")],
    });
    expect(await staleWarnings(dir, located(s))).toEqual([
      "src/changed.ts changed since the snapshot was taken",
      "src/gone.ts does not exist (any more, or yet)",
    ]);
  });

  it("reads absolute paths as they are, skips globs and empty paths, and checks at most 40 files", async () => {
    const dir = workspace();
    const outside = join(workspace(), "abs.ts");
    const many = Array.from({ length: 45 }, (_, i) => file(`missing-${i}.ts`));
    const s = snapshot("2026-11-20-01", {
      timestamp: TAKEN,
      files: [file(outside), file("src/**/*.ts"), file("  "), ...many],
    });
    const warnings = await staleWarnings(dir, located(s));
    expect(warnings[0]).toBe(`${outside} does not exist (any more, or yet)`);
    expect(warnings).toHaveLength(38);
  });

  it("puts a checksum mismatch first", async () => {
    const dir = workspace();
    const s = snapshot("2026-11-20-01", { timestamp: TAKEN });
    expect(await staleWarnings(dir, located(s, 1, { verified: false }))).toEqual([
      "this snapshot was modified after it was written (checksum mismatch)",
    ]);
  });
});
