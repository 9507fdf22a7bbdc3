import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RefTuple } from "../../plugin/search/codec.ts";
import { SavedRows } from "../../plugin/search/saved-rows.ts";
import { SavedEntry, SavedTexts, TextCache } from "../../plugin/search/saved-texts.ts";
import { tempWorkspace } from "./helpers.ts";

const row = (i: number, over: Partial<Record<number, unknown>> = {}): unknown[] => {
  const r: unknown[] = [
    `2026-11-2${i}-01`,
    `2026-11-2${i}T10:00:00+00:00`,
    `memory/2026-11-2${i}.md`,
    3 + i,
    "agent:main:main",
    "main",
    "manual",
    i === 1 ? "adr-retries" : null,
    null,
    false,
    true,
    `goal ${i}`,
  ] satisfies RefTuple;
  for (const [k, v] of Object.entries(over)) r[Number(k)] = v;
  return r;
};

describe("SavedRows", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let fd: number | undefined;
  beforeEach(async () => {
    ws = await tempWorkspace();
  });
  afterEach(async () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
    await ws.cleanup();
  });

  /** Rows at offset 7 of a file, their texts after them; `starts` as codec.ts computes them unless given. */
  const laid = (texts: string[], joined: string, starts: Uint32Array) => {
    const path = join(ws.dir, `rows-${starts.length}-${joined.length}.bin`);
    writeFileSync(
      path,
      Buffer.concat([Buffer.from("prefix:"), Buffer.from(joined), Buffer.from(texts.join(""))]),
    );
    if (fd !== undefined) closeSync(fd);
    fd = openSync(path, "r");
    const textStart = new Uint32Array(texts.length + 1);
    texts.forEach((t, i) => {
      textStart[i + 1] = (textStart[i] ?? 0) + Buffer.byteLength(t);
    });
    const file = new SavedTexts(fd, 7 + Buffer.byteLength(joined), textStart, new TextCache());
    return new SavedRows(file, 7, starts);
  };
  /** Rows laid out as codec.ts lays them: joined by commas. */
  const rowsOf = (texts: string[], ...written: string[]) => {
    const starts = new Uint32Array(written.length + 1);
    written.forEach((r, i) => {
      starts[i + 1] = (starts[i] ?? 0) + Buffer.byteLength(r) + (i + 1 < written.length ? 1 : 0);
    });
    return laid(texts, written.join(","), starts);
  };

  it("reads a row when first asked, as the entry of its ref and text, and the same entry after", () => {
    const rows = rowsOf(["first text", "second"], JSON.stringify(row(0)), JSON.stringify(row(1)));
    expect([rows.length, rows.read]).toEqual([2, 0]);
    const second = rows.at(1);
    expect(second).toBeInstanceOf(SavedEntry);
    expect(second && { ...second, text: second.text }).toMatchObject({
      id: "2026-11-21-01",
      file: "memory/2026-11-21.md",
      line: 4,
      name: "adr-retries",
      time: Date.parse("2026-11-21T10:00:00+00:00"),
      text: "second",
    });
    expect(rows.read).toBe(1);
    expect(rows.at(1)).toBe(second);
    expect([rows.at(-1), rows.at(2)]).toEqual([undefined, undefined]);
    expect(rows.all().map((e) => [e.id, e.text])).toEqual([
      ["2026-11-20-01", "first text"],
      ["2026-11-21-01", "second"],
    ]);
    expect(rows.all()[1]).toBe(second);
    expect(rows.read).toBe(2);
  });

  it("shares one string among the rows for a file, session or agent they repeat", () => {
    const rows = rowsOf(
      ["", ""],
      JSON.stringify(row(0, { 2: "memory/x.md" })),
      JSON.stringify(row(1, { 2: "memory/x.md" })),
    );
    const [a, b] = rows.all();
    expect(a?.file).toBe("memory/x.md");
    expect(a?.session).toBe(b?.session);
  });

  it("throws naming the row when it is not a ref row, not JSON, or not followed by the comma that ends it", () => {
    const notRow = rowsOf(["", ""], JSON.stringify(row(0, { 3: -1 })), JSON.stringify(row(1)));
    expect(notRow.at(1)?.id).toBe("2026-11-21-01");
    expect(() => notRow.at(0)).toThrow(
      "big-memory: a search index file is corrupt (snapshot ref row 0 cannot be read)",
    );
    const notJson = rowsOf([""], "[1,2");
    expect(() => notJson.at(0)).toThrow("snapshot ref row 0 cannot be read");
    // Two rows with a space, not a comma, between them.
    const first = JSON.stringify(row(0));
    const second = JSON.stringify(row(1));
    const spaced = laid(
      ["", ""],
      `${first} ${second}`,
      Uint32Array.from([0, first.length + 1, first.length + 1 + second.length]),
    );
    expect(spaced.at(1)?.id).toBe("2026-11-21-01");
    expect(() => spaced.at(0)).toThrow("snapshot ref row 0 cannot be read");
  });
});
